import CoreMedia
import FFmpegBridge
import Foundation

/// A ``MediaSource`` read by libavformat: local files and anything its protocols reach (progressive HTTP, pipes).
///
/// Network inputs get protocol options that keep a dead server from hanging playback (a read that stalls
/// ``networkReadTimeout`` fails) and let a dropped HTTP connection reconnect at the same offset.
///
/// Threads: the `FormatContext` belongs to whichever thread reads (see ``MediaSource``); ``interrupt()`` and the
/// constant properties are safe from any thread.
package final class FFmpegSource: MediaSource, @unchecked Sendable {
    /// A network read that stalls this long fails (seconds).
    package static let networkReadTimeout = 15.0

    /// A path or URL libavformat opens.
    package let location: String
    /// Demuxer and protocol options as given (user agent, headers …), before the network defaults.
    package let options: [String: String]
    /// See ``MediaSource/isLocal``: libavformat's protocol for the location is "file".
    package let isLocal: Bool
    /// Aborts blocking I/O; shared with the format context.
    private let interruptFlag = InterruptFlag()
    /// The opened input; set by ``open()`` on the reading thread, then used by that thread only.
    private var format: FormatContext?

    /// A source for `location` (a path or a URL) with demuxer/protocol `options`.
    package init(location: String, options: [String: String] = [:]) {
        self.location = location
        self.options = options
        isLocal = (FormatContext.protocolName(for: location) ?? "file") == "file"
    }

    /// A source for `url` (a file URL opens its path).
    package convenience init(url: URL, options: [String: String] = [:]) {
        self.init(location: url.isFileURL ? url.path : url.absoluteString, options: options)
    }

    /// The options libavformat gets: the given ones, plus the timeout and reconnection defaults for network inputs.
    package var effectiveOptions: [String: String] {
        var all = options
        if !isLocal {
            all["rw_timeout"] = all["rw_timeout"] ?? String(Int(Self.networkReadTimeout * 1_000_000))
            all["reconnect"] = all["reconnect"] ?? "1"
        }
        return all
    }

    package func open() throws(FFmpegError) {
        guard format == nil else { return }
        if interruptFlag.isAborted { throw FFmpegError.exit }
        format = try FormatContext(url: location, options: effectiveOptions, interrupt: interruptFlag)
    }

    /// The opened context (a programming error before ``open()``).
    private var opened: FormatContext {
        guard let format else { preconditionFailure("FFmpegSource used before open()") }
        return format
    }

    package var info: MediaInfo { opened.info }

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

    package func interrupt() { interruptFlag.abort() }

    package var isInterrupted: Bool { interruptFlag.isAborted }

    package func makeIndependentSource() -> any MediaSource {
        FFmpegSource(location: location, options: options)
    }
}
