/// What kind of failure a ``MediaFailure`` is, for the public layer to choose an error code and a sentence.
///
/// A value type: any thread.
package enum MediaFailureKind: Sendable, Hashable {
    /// The operation was cancelled (``Cancellation``) or its I/O timed out (FFmpeg's `AVERROR_EXIT`).
    case cancelled
    /// The end of the input, where more was needed.
    case endOfFile
    /// The data is not what its format says: damaged or not media (`AVERROR_INVALIDDATA`).
    case invalidData
    /// No decoder for the codec in this build.
    case decoderNotFound
    /// No demuxer recognised the input.
    case demuxerNotFound
    /// A stream asked for does not exist.
    case streamNotFound
    /// A feature FFmpeg does not implement (`AVERROR_PATCHWELCOME`), or a format the engine cannot convert.
    case unsupported
    /// The URL's scheme has no protocol handler.
    case protocolNotFound
    /// HTTP 404.
    case httpNotFound
    /// HTTP 403.
    case httpForbidden
    /// HTTP 401.
    case httpUnauthorized
    /// HTTP 400.
    case httpBadRequest
    /// Another HTTP 4xx status.
    case httpOther4xx
    /// An HTTP 5xx status.
    case httpServerError
    /// An operating-system error (I/O, network, permissions): ``MediaFailure/posixErrno`` says which.
    case system
    /// Anything else.
    case other
}
