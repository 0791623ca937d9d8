import FFmpegBridge
import Foundation
import PlaybackEngine

/// An alternate audio rendition of the variant's `AUDIO` group: one audio stream of the ``HLSSource``, read by an input
/// of its own that is opened only once the stream is kept (selected), so an unselected rendition's playlist and
/// segments are never fetched. Its stream is described without a request: as the rendition the source opened to
/// describe the group (the `DEFAULT` one, else the first), with its own name, language and default flag.
///
/// Threads: owned by the thread reading the source.
final class HLSAudioRenditionInput {
    let rendition: HLSRendition
    /// Its media playlist.
    let uri: URL
    /// Its stream in the source's list.
    let stream: StreamInfo
    /// The decoder configuration the stream was described with (the describing rendition's).
    let describedExtradata: [UInt8]
    /// Its input, once opened.
    private(set) var input: HLSInput?
    /// The input's audio stream (its own index).
    private(set) var local = 0

    init(
        rendition: HLSRendition, uri: URL, stream: StreamInfo, describedExtradata: [UInt8], input: HLSInput?, local: Int
    ) {
        self.rendition = rendition
        self.uri = uri
        self.stream = stream
        self.describedExtradata = describedExtradata
        self.input = input
        self.local = local
    }

    /// Adopts `input`, opened on the rendition's playlist, whose audio stream is `local`.
    func adopt(_ input: HLSInput, local: Int) {
        self.input = input
        self.local = local
    }
}

extension HLSSource {
    /// The first audio stream of `input` (its own index), if any.
    static func audioStream(of input: HLSInput) -> Int? {
        input.format.info.streams.first { $0.kind == .audio }?.index
    }

    /// The renditions of `variant`'s audio group in `presentation` that have a playlist, at most
    /// ``maximumRenditions``; and which of them describes the group (`DEFAULT`, else the first).
    static func audioRenditions(
        of variant: HLSVariant, in presentation: HLSMultivariantPlaylist
    ) -> (renditions: [HLSRendition], describing: Int) {
        guard let group = variant.audioGroup else { return ([], 0) }
        let renditions = Array(
            presentation.renditions.filter { $0.type == .audio && $0.groupID == group && $0.uri != nil }
                .prefix(maximumRenditions))
        return (renditions, renditions.firstIndex(where: \.isDefault) ?? 0)
    }

    /// Opens the input of every kept rendition that has none yet: its playlist is fetched and its reading starts at
    /// the segment holding `microseconds` (container time; nil: where the playlist starts playback) — a seek to the
    /// playhead follows a change of streams. A rendition that cannot be opened is left unopened; its error is kept
    /// for the next read. The reading thread.
    func openKeptRenditions(
        _ kept: Set<Int>, near microseconds: Int64?, liveRefreshing: Bool
    ) -> (opened: [HLSInput], failure: FFmpegError?) {
        var opened: [HLSInput] = []
        for slot in audioRenditionInputs where slot.input == nil && kept.contains(slot.stream.index) {
            do throws(FFmpegError) {
                let playlist = try mediaPlaylist(at: slot.uri, of: "the audio rendition \"\(slot.rendition.name)\"")
                var start: Int?
                if let microseconds, let main = inputs.first {
                    // The rendition's playlist lines up with the variant's (RFC 8216 §6.2.4): the same position.
                    let seconds = Double(microseconds - main.playlistStartMicroseconds) / 1e6
                    start = playlist.segmentIndex(containing: max(0, seconds)) ?? playlist.segments.count - 1
                }
                let input = HLSInput(
                    playlist: playlist, streamOffset: 0, client: client, parser: parser,
                    liveStartOffset: sourceOptions.liveStartOffset, startIndex: start, clock: sourceOptions.clock,
                    isInterrupted: { [interruptFlag, cancellation] in
                        interruptFlag.isAborted || cancellation.isCancelled
                    })
                input.readControl = readControl
                input.feed.content = .audioRendition
                try input.open(interrupt: interruptFlag)
                guard let local = Self.audioStream(of: input) else {
                    throw FFmpegError(
                        code: FFmpegError.invalidData.code,
                        function: "HLS: the audio rendition \(slot.uri.absoluteString) has no audio stream")
                }
                input.streamOffset = slot.stream.index - local
                input.setDiscard(keeping: [local])
                input.handedTimeBases = [local: slot.stream.timeBase]
                input.attachDecoderConfiguration(differingFrom: [local: slot.describedExtradata])
                if liveRefreshing { input.startRefreshing { _ in } }
                slot.adopt(input, local: local)
                opened.append(input)
            } catch {
                return (opened, error)
            }
        }
        return (opened, nil)
    }
}
