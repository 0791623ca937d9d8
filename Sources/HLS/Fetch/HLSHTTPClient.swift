import FFmpegBridge
import Foundation
import OAVFLocking
import PlaybackEngine

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches an HLS presentation's playlists, keys and segments over one `URLSession` (connections kept alive between
/// requests), streaming each body into an ``HTTPBodyStream`` as it arrives.
///
/// Only `http` and `https` are fetched, also across redirects: a remote playlist can never make the player read a
/// local file or another scheme. A request that receives nothing for `SourceOptions.readTimeoutMicroseconds` (15 s)
/// fails: that timeout is URLSession's and runs in real time, not on the source's clock (`SourceOptions.clock`) — it
/// protects against a dead server, and a virtual clock standing still must not keep a dead transfer alive. Thread-safe;
/// ``invalidate()`` ends every transfer.
final class HLSHTTPClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let options: SourceOptions
    /// Where finished transfers and failed requests are recorded.
    let log = NetworkLog()
    /// The servers' addresses the logs report.
    private let addresses = ServerAddresses()
    /// Guards `streams`, `session` and `invalidated`: URLSession's delegate queue delivers bodies while the source's
    /// reading thread starts and cancels transfers. Not an engine command: URLSession's threads cannot wait for the
    /// engine's mailbox.
    private let lock = ConditionLock()
    /// The session's delegate queue (serial): tasks are cancelled there, in order with their completions.
    private let delegateQueue: OperationQueue
    /// Guarded by `lock`: the bodies of the transfers in flight, by task.
    private var streams: [Int: HTTPBodyStream] = [:]
    /// Guarded by `lock`.
    private var session: URLSession?
    private var invalidated = false
    /// Where the reads of its bodies register while they wait, so that an interruption of their reader (which the
    /// reader's source announces through ``HLSReadControl/wakeWaiters()``) wakes them at once.
    let wakers: WaitWakers

    init(options: SourceOptions, wakers: WaitWakers = WaitWakers()) {
        self.options = options
        self.wakers = wakers
        let configuration = URLSessionConfiguration.ephemeral
        let timeout = Double(options.readTimeoutMicroseconds) / 1e6
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // No cache at all: FoundationNetworking looks a request up in it on a global queue before the transfer
        // exists, and a task cancelled in that window completes twice and traps ("a task that is not in the
        // registry"); without a cache, cancelling is safe (see ``stop(_:)``).
        configuration.urlCache = nil
        configuration.httpMaximumConnectionsPerHost = 4
        var headers = options.headers
        if let agent = options.userAgent { headers["User-Agent"] = agent }
        configuration.httpAdditionalHeaders = headers
        // Cookies are the asset's (`AVURLAssetHTTPCookiesKey`), set per request; none from a shared store.
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "oavf.hls.http"
        delegateQueue = queue
        super.init()
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// Whether `url` may be fetched: `http` or `https` only.
    static func isFetchable(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// Starts a GET of `url` (of `range` of it, when given) and returns its body stream at once. `kind`,
    /// `mediaDuration`, `indicatedBitrate` and `content` describe it in the network log.
    func start(
        _ url: URL, range: ClosedRange<Int64>? = nil, kind: NetworkLog.Transfer.Kind = .other,
        mediaDuration: TimeInterval = 0, indicatedBitrate: Double? = nil,
        content: NetworkLog.Transfer.Content = .unspecified
    ) -> HTTPBodyStream {
        let stream = HTTPBodyStream(
            url: url, kind: kind, mediaDuration: mediaDuration, indicatedBitrate: indicatedBitrate, content: content,
            wakers: wakers)
        guard Self.isFetchable(url) else {
            stream.finish(error: Self.forbidden(url))
            return stream
        }
        var request = URLRequest(url: url)
        // The asset's cookies that apply to this URL (playlists, keys and segments may be on other hosts and paths).
        if let cookie = SourceCookie.header(for: url, from: options.cookies) {
            request.setValue(cookie, forHTTPHeaderField: "Cookie")
        }
        if let range {
            // An open end (`Int64.max`) asks for the rest of the resource.
            let end = range.upperBound == Int64.max ? "" : String(range.upperBound)
            request.setValue("bytes=\(range.lowerBound)-\(end)", forHTTPHeaderField: "Range")
        }
        let task: URLSessionDataTask? = lock.withLock {
            guard !invalidated, let session else { return nil }
            let task = session.dataTask(with: request)
            streams[task.taskIdentifier] = stream
            return task
        }
        guard let task else {
            stream.finish(error: FFmpegError.exit)
            return stream
        }
        stream.setStopTransfer { [weak self] in self?.stop(task) }
        task.resume()
        return stream
    }

    /// Cancels `task` when its transfer is still under way (its body was abandoned): on the delegate queue, where its
    /// completion is delivered, and only while it has not completed (a completed task is not cancelled again). Its
    /// body is forgotten first, so the cancellation's completion logs nothing.
    private func stop(_ task: URLSessionDataTask) {
        delegateQueue.addOperation { [weak self] in
            guard let self, lock.withLock({ streams.removeValue(forKey: task.taskIdentifier) }) != nil else { return }
            task.cancel()
        }
    }

    /// Fetches the whole of `url` (a playlist or a key; at most `limit` bytes). Blocking.
    func fetch(_ url: URL, limit: Int, isInterrupted: () -> Bool) throws(FFmpegError) -> (data: Data, url: URL) {
        let stream = start(url)
        let data = try stream.readAll(limit: limit, isInterrupted: isInterrupted)
        return (data, stream.responseURL ?? url)
    }

    /// Abandons every transfer and releases the session once they end (their bodies are forgotten first, so their
    /// tasks run to their end, bounded by the request timeout, as they did before a given-up body stopped its own).
    func invalidate() {
        let (session, pending): (URLSession?, [HTTPBodyStream]) = lock.withLock {
            invalidated = true
            defer {
                self.session = nil
                streams.removeAll()
            }
            return (self.session, Array(streams.values))
        }
        for stream in pending { stream.cancel() }
        session?.finishTasksAndInvalidate()
    }

    private func stream(for task: URLSessionTask) -> HTTPBodyStream? {
        lock.withLock { streams[task.taskIdentifier] }
    }

    static func forbidden(_ url: URL) -> FFmpegError {
        FFmpegError(code: FFmpegError.posix(EPERM).code, function: "HLS: only http and https are fetched, not \(url)")
    }

    /// The error a response status means (nil for success).
    static func failure(status: Int, url: URL) -> FFmpegError? {
        let function = "HLS GET \(url.absoluteString): HTTP \(status)"
        switch status {
        case 200..<300: return nil
        case 400: return FFmpegError(code: FFmpegError.httpBadRequest.code, function: function)
        case 401: return FFmpegError(code: FFmpegError.httpUnauthorized.code, function: function)
        case 403: return FFmpegError(code: FFmpegError.httpForbidden.code, function: function)
        case 404: return FFmpegError(code: FFmpegError.httpNotFound.code, function: function)
        case 400..<500: return FFmpegError(code: FFmpegError.httpOther4xx.code, function: function)
        default: return FFmpegError(code: FFmpegError.httpServerError.code, function: function)
        }
    }

    /// The error a transport failure means.
    static func failure(_ error: any Error, url: URL) -> FFmpegError {
        let function = "HLS GET \(url.absoluteString): \(error.localizedDescription)"
        let code = (error as? URLError)?.code
        switch code {
        case .cancelled?: return FFmpegError(code: FFmpegError.exit.code, function: function)
        case .timedOut?: return FFmpegError(code: FFmpegError.posix(ETIMEDOUT).code, function: function)
        case .cannotConnectToHost?, .cannotFindHost?:
            return FFmpegError(code: FFmpegError.posix(ECONNREFUSED).code, function: function)
        case .networkConnectionLost?: return FFmpegError(code: FFmpegError.posix(ECONNRESET).code, function: function)
        default: return FFmpegError(code: FFmpegError.posix(EIO).code, function: function)
        }
    }

    // MARK: URLSessionDataDelegate (on the session's delegate queue)

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let stream = stream(for: dataTask) else { return completionHandler(.cancel) }
        let http = response as? HTTPURLResponse
        if let http { stream.received(response: http) }
        if let http, let error = Self.failure(status: http.statusCode, url: dataTask.originalRequest?.url ?? stream.url)
        {
            log.record(
                NetworkLog.Failure(
                    date: Date(), uri: stream.url.absoluteString, serverAddress: addresses.address(of: stream.url),
                    statusCode: http.statusCode, domain: "HTTP",
                    comment: HTTPURLResponse.localizedString(forStatusCode: http.statusCode),
                    responseHeaders: Self.headers(of: http)))
            stream.finish(error: error)
            return completionHandler(.cancel)
        }
        completionHandler(.allow)
    }

    /// A response's header fields as strings (what the error log shows of a failed request).
    static func headers(of response: HTTPURLResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            fields[String(describing: key)] = String(describing: value)
        }
        return fields
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        stream(for: dataTask)?.append(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        if let url = request.url, Self.isFetchable(url) { return completionHandler(request) }
        stream(for: task)?.finish(error: Self.forbidden(request.url ?? URL(fileURLWithPath: "/")))
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let stream = lock.withLock { streams.removeValue(forKey: task.taskIdentifier) }
        guard let stream else { return }
        var error = error
        if error == nil, stream.isShortOfItsLength {
            // A connection closed before the announced length is a failed transfer, not a short segment.
            error = URLError(.networkConnectionLost)
        }
        let failure = error.map { Self.failure($0, url: stream.url) }
        record(stream, error: error)
        stream.finish(error: failure)
    }

    /// Logs a finished transfer (its duration the download's: see ``HTTPBodyStream/downloadDuration``), or a
    /// transport failure (a refused status was logged with its response; tasks are cancelled only after such a
    /// status).
    private func record(_ stream: HTTPBodyStream, error: (any Error)?) {
        let host = addresses.address(of: stream.url)
        if let error {
            let transport = error as? URLError
            guard transport?.code != .cancelled else { return }
            log.record(
                NetworkLog.Failure(
                    date: Date(), uri: stream.url.absoluteString, serverAddress: host,
                    statusCode: transport.map { $0.code.rawValue } ?? -1, domain: NSURLErrorDomain,
                    comment: error.localizedDescription))
        } else if let status = stream.statusCode, (200..<300).contains(status) {
            log.record(
                NetworkLog.Transfer(
                    kind: stream.kind, uri: stream.url.absoluteString, serverAddress: host, bytes: stream.bytesReceived,
                    duration: stream.downloadDuration, start: stream.started, monotonicStart: stream.startedMonotonic,
                    mediaDuration: stream.mediaDuration,
                    indicatedBitrate: stream.indicatedBitrate, content: stream.content))
        }
    }
}
