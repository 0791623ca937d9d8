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

    /// A source reading subtitle rendition `index` alone; nil for another stream (the variant's and the audio
    /// renditions' would be downloaded a second time).
    package func makeSubtitleSource(stream index: Int) -> (any MediaSource)? {
        guard let rendition = subtitleRendition(at: index) else { return nil }
        return HLSSubtitleSource(rendition: rendition, streams: info, sourceOptions: sourceOptions, client: client)
    }
}

extension HLSSubtitleRendition {
    /// The codec parameters of a WebVTT stream, as `index`.
    func codecParameters() throws(FFmpegError) -> CodecParameters {
        try Self.describingContext().codecParameters(stream: 0, reportedIndex: stream.index)
    }
}
