import CFFmpeg

/// An error code returned by an FFmpeg call (a negative `AVERROR` value), with the call that
/// produced it.
///
/// `EAGAIN` and end-of-file are not errors in the bridge's vocabulary: calls that can return them
/// report a ``DecodeResult`` / ``ReadResult`` case instead. Everything else is thrown as an
/// `FFmpegError`; the public layer maps it to an `AVError.Code`.
public struct FFmpegError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The raw `AVERROR` code (negative).
    public let code: Int32
    /// The FFmpeg function that failed, for messages.
    public let function: String

    public init(code: Int32, function: String = #function) {
        self.code = code
        self.function = function
    }

    /// FFmpeg's own text for the code (`av_strerror`).
    public var message: String {
        var buffer = [CChar](repeating: 0, count: 256)
        CFFmpeg_av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { "\(function): \(message) (\(code))" }

    /// `errno` value when the code is an `AVERROR(errno)`, else nil.
    public var posixErrno: Int32? {
        let e = -code
        return e > 0 && e < 4096 ? e : nil
    }

    public static func == (lhs: FFmpegError, rhs: FFmpegError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    // Named codes (swift-system's Errno style).
    public static let endOfFile = FFmpegError(code: CFFmpeg_AVERROR_EOF(), function: "")
    public static let tryAgain = FFmpegError(code: CFFmpeg_AVERROR(EAGAIN), function: "")
    public static let invalidData = FFmpegError(code: CFFmpeg_AVERROR_INVALIDDATA(), function: "")
    public static let decoderNotFound = FFmpegError(code: CFFmpeg_AVERROR_DECODER_NOT_FOUND(), function: "")
    public static let demuxerNotFound = FFmpegError(code: CFFmpeg_AVERROR_DEMUXER_NOT_FOUND(), function: "")
    public static let streamNotFound = FFmpegError(code: CFFmpeg_AVERROR_STREAM_NOT_FOUND(), function: "")
    public static let patchWelcome = FFmpegError(code: CFFmpeg_AVERROR_PATCHWELCOME(), function: "")
    public static let protocolNotFound = FFmpegError(code: CFFmpeg_AVERROR_PROTOCOL_NOT_FOUND(), function: "")
    public static let exit = FFmpegError(code: CFFmpeg_AVERROR_EXIT(), function: "")
    public static let unknown = FFmpegError(code: CFFmpeg_AVERROR_UNKNOWN(), function: "")
    public static let httpNotFound = FFmpegError(code: CFFmpeg_AVERROR_HTTP_NOT_FOUND(), function: "")
    public static let httpForbidden = FFmpegError(code: CFFmpeg_AVERROR_HTTP_FORBIDDEN(), function: "")
    public static let httpUnauthorized = FFmpegError(code: CFFmpeg_AVERROR_HTTP_UNAUTHORIZED(), function: "")
    public static let httpBadRequest = FFmpegError(code: CFFmpeg_AVERROR_HTTP_BAD_REQUEST(), function: "")
    public static let httpOther4xx = FFmpegError(code: CFFmpeg_AVERROR_HTTP_OTHER_4XX(), function: "")
    public static let httpServerError = FFmpegError(code: CFFmpeg_AVERROR_HTTP_SERVER_ERROR(), function: "")
    public static func posix(_ errno: Int32) -> FFmpegError { FFmpegError(code: CFFmpeg_AVERROR(errno), function: "") }

    /// Throws when `code` is negative.
    @discardableResult
    static func check(_ code: Int32, _ function: String) throws(FFmpegError) -> Int32 {
        if code < 0 { throw FFmpegError(code: code, function: function) }
        return code
    }
}
