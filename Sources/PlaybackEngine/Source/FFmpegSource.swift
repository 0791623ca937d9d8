import CoreMedia
import FFmpegBridge
import Foundation

/// A ``MediaSource`` read by libavformat: local files and anything its protocols reach (progressive HTTP, pipes).
///
/// Network inputs get the protocol options of their ``SourceOptions`` (a read that stalls too long fails, so a dead
/// server cannot hang playback; a dropped HTTP connection reconnects at the same offset; user agent and headers).
///
/// Threads: the `FormatContext` belongs to whichever thread reads (see ``MediaSource``); ``interrupt()`` and the
/// constant properties are safe from any thread.
package final class FFmpegSource: MediaSource, @unchecked Sendable {
    /// A path or URL libavformat opens.
    package let location: String
    /// How to open a network input.
    package let sourceOptions: SourceOptions
    /// Further demuxer and protocol options, given as they are to libavformat (they win over ``sourceOptions``).
    package let options: [String: String]
    /// See ``MediaSource/isLocal``: libavformat's protocol for the location is "file".
    package let isLocal: Bool
    /// Aborts blocking I/O; its flag is the format context's interrupt callback.
    private let cancellation: Cancellation
    /// The opened input; set by ``open()`` on the reading thread, then used by that thread only.
    private var format: FormatContext?
    /// What the input holds, read once by ``open()``.
    private var openedInfo: MediaInfo?

    /// A source for `location` (a path or a URL).
    package init(
        location: String, sourceOptions: SourceOptions = SourceOptions(), options: [String: String] = [:],
        cancellation: Cancellation = Cancellation()
    ) {
        self.location = location
        self.sourceOptions = sourceOptions
        self.options = options
        self.cancellation = cancellation
        isLocal = (FormatContext.protocolName(for: location) ?? "file") == "file"
    }

    /// A source for `url` (a file URL opens its path).
    package convenience init(url: URL, sourceOptions: SourceOptions = SourceOptions()) {
        self.init(location: url.mediaLocation, sourceOptions: sourceOptions)
    }

    /// The options libavformat gets.
    package var effectiveOptions: [String: String] {
        sourceOptions.libavformatOptions(isLocal: isLocal).merging(options) { _, given in given }
    }

    package func open() throws(FFmpegError) {
        guard format == nil else { return }
        if cancellation.isCancelled { throw FFmpegError.exit }
        let opened = try FormatContext(url: location, options: effectiveOptions, interrupt: cancellation.interrupt)
        format = opened
        openedInfo = opened.info
    }

    /// The opened context (a programming error before ``open()``).
    private var opened: FormatContext {
        guard let format else { preconditionFailure("FFmpegSource used before open()") }
        return format
    }

    /// As probed when the source was opened.
    package var info: MediaInfo {
        guard let openedInfo else { preconditionFailure("FFmpegSource used before open()") }
        return openedInfo
    }

    package var isLive: Bool { !isLocal && opened.durationMicroseconds == nil }

    package var isSeekable: Bool { !isLive }

    package var seekableRange: CMTimeRange? {
        guard let duration = opened.durationMicroseconds, !isLive else { return nil }
        let start = CMTime(microseconds: opened.startTimeMicroseconds ?? 0)
        return CMTimeRange(start: start, duration: CMTime(microseconds: duration))
    }

    package func codecParameters(stream index: Int) throws(FFmpegError) -> CodecParameters {
        try opened.codecParameters(stream: index)
    }

    package func kind(ofStream index: Int) -> StreamKind { opened.kind(ofStream: index) }

    package func timeBase(ofStream index: Int) -> Rational? { opened.timeBase(ofStream: index) }

    package func setDiscard(keepingStreams streams: Set<Int>) { opened.setDiscard(keepingStreams: streams) }

    package func read(into packet: Packet) throws(FFmpegError) -> ReadResult { try opened.read(into: packet) }

    package func attachedPicture(stream index: Int) -> Packet? { opened.attachedPicture(stream: index) }

    package var isAtEndOfInput: Bool { opened.isAtEndOfInput }

    package var ioError: FFmpegError? { opened.ioError }

    package var bytesRead: Int64 { opened.ioBytesRead }

    package func seek(toMicroseconds microseconds: Int64, minimum: Int64, maximum: Int64) throws(FFmpegError) {
        try opened.seek(toMicroseconds: microseconds, minimum: minimum, maximum: maximum)
    }

    package func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?) {
        opened.keyframeTimestamps(stream: index, around: timestamp)
    }

    package func interrupt() { cancellation.cancel() }

    package var isInterrupted: Bool { cancellation.isCancelled }

    package func makeIndependentSource() -> any MediaSource {
        FFmpegSource(location: location, sourceOptions: sourceOptions, options: options)
    }
}
