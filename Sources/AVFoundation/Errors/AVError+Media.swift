import Foundation
import PlaybackEngine

/// How the engine's media failures and file-system facts become `AVError`s (README "Errors" table).
extension AVError {
    /// Builds an error with a sentence for people and the cause underneath: the engine's media failure (an FFmpeg
    /// error, in ``ffmpegErrorDomain``) or a POSIX error. A network URL that could not be reached (refused, unreachable,
    /// timed out, connection lost) has, as on Apple's systems, an error of the URL loading system underneath
    /// (`NSURLErrorDomain`, e.g. `NSURLErrorCannotConnectToHost`, with `NSURLErrorFailingURLErrorKey`), and the FFmpeg
    /// error under that: code that tells an offline device from a broken stream by that domain keeps working.
    static func media(
        _ code: Code, _ description: String, reason: String? = nil, url: URL? = nil,
        ffmpeg: (any MediaFailure)? = nil, posix: Int32? = nil
    ) -> AVError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let reason { info[NSLocalizedFailureReasonErrorKey] = reason }
        if let url { info[NSURLErrorKey] = url }
        if let ffmpeg {
            var underlyingInfo: [String: Any] = [
                NSLocalizedDescriptionKey: ffmpeg.message,
                "FFmpegFunction": ffmpeg.function,
            ]
            if let errno = ffmpeg.posixErrno {
                underlyingInfo[NSUnderlyingErrorKey] = NSError(domain: NSPOSIXErrorDomain, code: Int(errno))
            }
            let underlying = NSError(
                domain: AVError.ffmpegErrorDomain, code: Int(ffmpeg.code), userInfo: underlyingInfo)
            if let url, !url.isFileURL, let urlCode = urlLoadingCode(ffmpeg) {
                info[NSUnderlyingErrorKey] = NSError(
                    domain: NSURLErrorDomain, code: urlCode,
                    userInfo: [
                        NSLocalizedDescriptionKey: ffmpeg.message, NSURLErrorFailingURLErrorKey: url,
                        failingURLStringKey: url.absoluteString, NSUnderlyingErrorKey: underlying,
                    ])
            } else {
                info[NSUnderlyingErrorKey] = underlying
            }
        } else if let posix {
            info[NSUnderlyingErrorKey] = NSError(domain: NSPOSIXErrorDomain, code: Int(posix))
        }
        return AVError(code, userInfo: info)
    }

    /// `NSURLErrorFailingURLStringErrorKey`'s value: URL loading still sets it beside `NSURLErrorFailingURLErrorKey`
    /// (apps written for older systems read it), and Foundation marks the constant deprecated.
    static let failingURLStringKey = "NSErrorFailingURLStringKey"

    /// The URL loading system's code (`NSURLErrorDomain`) for a transport failure: the server could not be reached
    /// or the connection broke. Nil for anything else (an HTTP status is a response, not a URL loading error).
    static func urlLoadingCode(_ failure: any MediaFailure) -> Int? {
        switch failure.posixErrno {
        case ECONNREFUSED?, EHOSTUNREACH?: return NSURLErrorCannotConnectToHost
        case ENETUNREACH?, ENETDOWN?: return NSURLErrorNotConnectedToInternet
        case ETIMEDOUT?: return NSURLErrorTimedOut
        case ECONNRESET?, EPIPE?: return NSURLErrorNetworkConnectionLost
        default: return nil
        }
    }

    /// The display name of a URL for messages: the file name for files, the URL otherwise.
    static func displayName(_ url: URL) -> String {
        url.isFileURL ? url.lastPathComponent : url.absoluteString
    }

    /// Checks a local file before FFmpeg sees it, for precise messages. Nil when it looks readable.
    static func localFileProblem(_ url: URL) -> AVError? {
        guard url.isFileURL else { return nil }
        let name = displayName(url)
        var st = stat()
        if stat(url.path, &st) != 0 {
            let e = errno
            if e == ENOENT || e == ENOTDIR {
                return .media(
                    .contentIsUnavailable, "The file “\(name)” doesn’t exist.",
                    reason: "No file at \(url.path).", url: url, posix: e)
            }
            if e == EACCES {
                return .media(
                    .contentIsNotAuthorized, "You don’t have permission to open “\(name)”.",
                    reason: "A folder on the path \(url.path) is not searchable.", url: url, posix: e)
            }
            return .media(
                .contentIsUnavailable, "“\(name)” can’t be opened: \(String(cString: strerror(e))).",
                url: url, posix: e)
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            return .media(
                .fileFormatNotRecognized, "“\(name)” is a folder, not a media file.", url: url, posix: EISDIR)
        }
        if (st.st_mode & S_IFMT) == S_IFIFO || (st.st_mode & S_IFMT) == S_IFSOCK {
            // Opening a pipe with no writer waits until one comes, perhaps for ever: refuse it.
            let kind = (st.st_mode & S_IFMT) == S_IFIFO ? "a named pipe" : "a socket"
            return .media(
                .fileFormatNotRecognized, "“\(name)” is \(kind), not a media file.",
                reason: "Only regular files and devices are read; reading \(kind) could wait for ever.", url: url,
                posix: ESPIPE)
        }
        if (st.st_mode & S_IFMT) == S_IFREG && st.st_size == 0 {
            return .media(
                .fileFormatNotRecognized, "The file “\(name)” is empty.",
                reason: "A zero-byte file contains no media.", url: url)
        }
        return nil
    }

    /// Maps a failure to open or probe `url`. A failure of the HLS source names the request or playlist line that
    /// failed (its `function` starts with "HLS"): that text becomes the error's failure reason, and for a playlist or
    /// key that can't be used, its description.
    static func openFailure(_ url: URL, _ error: any MediaFailure) -> AVError {
        let mapped = libraryOpenFailure(url, error)
        guard error.function.hasPrefix("HLS") else { return mapped }
        if error.kind == .invalidData || error.kind == .unsupported {
            let code: Code = error.kind == .unsupported ? .formatUnsupported : .fileFailedToParse
            return .media(
                code, "“\(displayName(url))” can’t be played: \(error.function).", reason: error.function, url: url,
                ffmpeg: error)
        }
        var info = mapped.errorUserInfo
        info[NSLocalizedFailureReasonErrorKey] = info[NSLocalizedFailureReasonErrorKey] ?? error.function
        return AVError(mapped.code, userInfo: info)
    }

    private static func libraryOpenFailure(_ url: URL, _ error: any MediaFailure) -> AVError {
        let name = displayName(url)
        if error.kind == .cancelled {
            return .media(.operationCancelled, "Loading “\(name)” was cancelled or timed out.", url: url, ffmpeg: error)
        }
        switch error.posixErrno {
        case ENOENT?:
            return .media(.contentIsUnavailable, "The file “\(name)” doesn’t exist.", url: url, ffmpeg: error)
        case EACCES?, EPERM?:
            return .media(
                .contentIsNotAuthorized, "You don’t have permission to open “\(name)”.", url: url, ffmpeg: error)
        case EISDIR?:
            return .media(.fileFormatNotRecognized, "“\(name)” is a folder, not a media file.", url: url, ffmpeg: error)
        case ECONNREFUSED?, EHOSTUNREACH?, ENETUNREACH?, ETIMEDOUT?, ECONNRESET?, EIO?:
            return .media(
                .contentIsUnavailable, "“\(name)” can’t be reached: \(error.message).", url: url, ffmpeg: error)
        default:
            break
        }
        switch error.kind {
        case .httpNotFound:
            return .media(.contentIsUnavailable, "The server has no “\(name)” (HTTP 404).", url: url, ffmpeg: error)
        case .httpForbidden, .httpUnauthorized:
            return .media(
                .contentIsNotAuthorized, "The server refused access to “\(name)” (\(error.message)).", url: url,
                ffmpeg: error)
        case .httpBadRequest, .httpOther4xx:
            return .media(
                .contentIsUnavailable, "The server rejected the request for “\(name)” (\(error.message)).", url: url,
                ffmpeg: error)
        case .httpServerError:
            return .media(
                .serverIncorrectlyConfigured, "The server failed to send “\(name)” (HTTP 5xx).", url: url,
                ffmpeg: error)
        case .protocolNotFound:
            return .media(
                .formatUnsupported, "The URL scheme of “\(name)” is not supported.", url: url, ffmpeg: error)
        default:
            break
        }
        if url.isFileURL {
            if let format = MediaProbe.recognizedFormat(path: url.path) {
                return .media(
                    .fileFailedToParse, "The file “\(name)” is damaged or incomplete.",
                    reason: "It looks like \(format) media, but its structure could not be read.", url: url,
                    ffmpeg: error)
            }
            return .media(
                .fileFormatNotRecognized, "The file “\(name)” is not a media file this player recognizes.",
                url: url, ffmpeg: error)
        }
        if error.kind == .invalidData {
            return .media(
                .fileFormatNotRecognized, "“\(name)” is not media this player recognizes or it is damaged.", url: url,
                ffmpeg: error)
        }
        return .media(.unknown, "“\(name)” can’t be opened: \(error.message).", url: url, ffmpeg: error)
    }
}
