import FFmpegBridge

// FFmpeg's errors are the engine's media failures (`code`, `function`, `message` and `posixErrno` are the
// bridge's own).
extension FFmpegError: MediaFailure {
    /// The kind of failure the code names (matched by code, as `FFmpegError`'s equality does).
    package var kind: MediaFailureKind {
        switch self {
        case .exit: return .cancelled
        case .endOfFile: return .endOfFile
        case .invalidData: return .invalidData
        case .decoderNotFound: return .decoderNotFound
        case .demuxerNotFound: return .demuxerNotFound
        case .streamNotFound: return .streamNotFound
        case .patchWelcome: return .unsupported
        case .protocolNotFound: return .protocolNotFound
        case .httpNotFound: return .httpNotFound
        case .httpForbidden: return .httpForbidden
        case .httpUnauthorized: return .httpUnauthorized
        case .httpBadRequest: return .httpBadRequest
        case .httpOther4xx: return .httpOther4xx
        case .httpServerError: return .httpServerError
        default: return posixErrno != nil ? .system : .other
        }
    }
}
