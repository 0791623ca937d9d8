import FFmpegBridge
import Foundation
import PlaybackEngine

// Subtitle renditions: the WebVTT renditions of the variant's SUBTITLES group are the source's last streams; the
// source itself never reads them (nothing of theirs is fetched while they are not selected), an HLSSubtitleSource
// does once the engine reads one ahead.
extension HLSSource {
    /// At most this many subtitle renditions are offered.
    static let maximumSubtitleRenditions = 16

    /// The renditions of `variant`'s `SUBTITLES` group in `presentation`, described as streams from `firstIndex`.
    static func subtitleRenditions(
        of variant: HLSVariant?, in presentation: HLSMultivariantPlaylist?, firstIndex: Int
    ) -> [HLSSubtitleRendition] {
        guard let group = variant?.subtitlesGroup, let presentation else { return [] }
        let renditions = presentation.renditions.filter { $0.type == .subtitles && $0.groupID == group }
        var described: [HLSSubtitleRendition] = []
        for rendition in renditions.prefix(maximumSubtitleRenditions) {
            guard let subtitles = HLSSubtitleRendition(rendition, index: firstIndex + described.count) else {
                continue
            }
            described.append(subtitles)
        }
        return described
    }

    /// The subtitle rendition that is stream `index`, if any.
    func subtitleRendition(at index: Int) -> HLSSubtitleRendition? {
        subtitleRenditions.first { $0.stream.index == index }
    }

    /// A source reading subtitle rendition `index` alone, or the closed captions found in video stream `index`; nil
    /// for another stream (the variant's and the audio renditions' would be downloaded a second time).
    package func makeSubtitleSource(stream index: Int) -> (any MediaSource)? {
        guard let rendition = subtitleRendition(at: index) else { return makeClosedCaptionSource(stream: index) }
        return HLSSubtitleSource(
            rendition: rendition, streams: info, sourceOptions: sourceOptions, client: client,
            readControl: readControl)
    }
}

extension HLSSubtitleRendition {
    /// The codec parameters of a WebVTT stream, as `index`.
    func codecParameters() throws(FFmpegError) -> CodecParameters {
        try Self.describingContext().codecParameters(stream: 0, reportedIndex: stream.index)
    }
}

// Closed captions: the CLOSED-CAPTIONS renditions of the variant's group are services of its video stream; the
// source records the caption data of the video it reads (HLSCaptionLog) once any of them can be decoded, and a
// selected one's reader takes it from there.
extension HLSSource {
    /// At most this many closed-caption renditions are offered.
    static let maximumClosedCaptionRenditions = 16

    /// The renditions of `variant`'s `CLOSED-CAPTIONS` group in `presentation`, as services of video stream
    /// `videoStream`; none when the variant names no group (`CLOSED-CAPTIONS=NONE` or absent).
    static func closedCaptionServices(
        of variant: HLSVariant?, in presentation: HLSMultivariantPlaylist?, videoStream: Int
    ) -> [ClosedCaptionDescription] {
        guard case .group(let group) = variant?.closedCaptions, let presentation else { return [] }
        return presentation.renditions.filter { $0.type == .closedCaptions && $0.groupID == group }
            .prefix(maximumClosedCaptionRenditions).compactMap { rendition in
                guard let instreamID = rendition.instreamID else { return nil }
                return ClosedCaptionDescription(
                    streamIndex: videoStream, instreamID: instreamID, name: rendition.name,
                    language: rendition.language, isDefault: rendition.isDefault, autoselect: rendition.autoselect,
                    characteristics: rendition.characteristics)
            }
    }

    /// Records the caption data of `packet` when it is the captioned video's (the reading thread).
    func recordCaptions(of packet: Packet) {
        guard let captions, packet.streamIndex == captions.stream, let pts = packet.pts else { return }
        let triplets = packet.withData { captions.extractor.captionData(in: $0) }
        if !triplets.isEmpty { captions.log.append(pts: pts, triplets: triplets) }
    }

    /// A reader of the captions found in video stream `index`, when the variant announces closed captions.
    func makeClosedCaptionSource(stream index: Int) -> (any MediaSource)? {
        guard let captions, index == captions.stream else { return nil }
        return HLSClosedCaptionSource(
            log: captions.log, streams: info, videoStream: index, videoTimeBase: captions.timeBase)
    }
}

/// What an ``HLSSource`` needs to record its variant's captions.
struct HLSCaptionRecording {
    /// The video stream (the source's index), its time base and the finder of its caption data.
    let stream: Int
    let timeBase: Rational
    let extractor: ClosedCaptionExtractor
    let log = HLSCaptionLog()
}
