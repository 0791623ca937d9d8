import CoreMedia

@testable import FFmpegBridge
@testable import PlaybackEngine

/// A ``MediaSource`` over bytes read through a custom `AVIOContext` (``MemoryReader``), limited to libavformat's
/// text subtitle demuxers: what ``SubtitleTrackReader`` reads in the subtitle harness instead of a file.
final class ReaderSource: MediaSource, @unchecked Sendable {
    /// The demuxers the input may be read by (`format_whitelist`): the text subtitle formats libavformat probes.
    static let formats = [
        "srt", "webvtt", "ass", "microdvd", "subviewer", "subviewer1", "sami", "mpl2", "jacosub", "realtext",
        "vplayer", "pjs", "stl", "lrc", "aqtitle", "mpsub",
    ].joined(separator: ",")

    private let reader: any ByteStreamReader
    private let interruptFlag = InterruptFlag()
    private var format: FormatContext?

    init(reader: any ByteStreamReader) { self.reader = reader }

    private var opened: FormatContext {
        guard let format else { preconditionFailure("ReaderSource used before open()") }
        return format
    }

    var isLocal: Bool { true }
    func open() throws(FFmpegError) {
        guard format == nil else { return }
        format = try FormatContext(
            reader: reader, name: "fuzz-input", options: ["format_whitelist": Self.formats], interrupt: interruptFlag)
    }
    var info: MediaInfo { opened.info }
    var isSeekable: Bool { true }
    var isLive: Bool { false }
    var seekableRange: CMTimeRange? { nil }
    func codecParameters(stream index: Int) throws(FFmpegError) -> CodecParameters {
        try opened.codecParameters(stream: index)
    }
    func kind(ofStream index: Int) -> StreamKind { opened.kind(ofStream: index) }
    func timeBase(ofStream index: Int) -> Rational? { opened.timeBase(ofStream: index) }
    func setDiscard(keepingStreams streams: Set<Int>) { opened.setDiscard(keepingStreams: streams) }
    func read(into packet: Packet) throws(FFmpegError) -> ReadResult { try opened.read(into: packet) }
    func attachedPicture(stream index: Int) -> Packet? { nil }
    var isAtEndOfInput: Bool { opened.isAtEndOfInput }
    var ioError: FFmpegError? { opened.ioError }
    var bytesRead: Int64 { opened.ioBytesRead }
    func seek(toMicroseconds microseconds: Int64, minimum: Int64, maximum: Int64) throws(FFmpegError) {
        try opened.seek(toMicroseconds: microseconds, minimum: minimum, maximum: maximum)
    }
    func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?) {
        (nil, nil)
    }
    func interrupt() { interruptFlag.abort() }
    var isInterrupted: Bool { interruptFlag.isAborted }
    func makeIndependentSource() -> any MediaSource { preconditionFailure("the harness reads one source") }
}
