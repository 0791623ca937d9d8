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
/// protects against a dead server, and a virtual clock standing still must not keep a dead transfer alive.
///
/// With a ``NetworkTransport`` (`SourceOptions.transport`, a test's network trace) the requests go through it instead
/// of URLSession, and the transfers are timed on its clock; responses, bodies, the logs and cancelling are handled as
/// for URLSession's (no redirects, no request timeout: the transport carries what it carries). Thread-safe;
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
    /// Guarded by `lock`: the bodies of the transfers in flight, by task (a transport's: by negative numbers).
    private var streams: [Int: HTTPBodyStream] = [:]
    /// Guarded by `lock`: the last number given to a transport's transfer.
    private var lastTransportTransfer = 0
    /// The transport the requests go through instead of URLSession, when the options give one.
    private let transport: (any NetworkTransport)?
    /// Guarded by `lock`.
    private var session: URLSession?
    private var invalidated = false
    /// Where the reads of its bodies register while they wait, so that an interruption of their reader (which the
    /// reader's source announces through ``HLSReadControl/wakeWaiters()``) wakes them at once.
    let wakers: WaitWakers

    init(options: SourceOptions, wakers: WaitWakers = WaitWakers()) {
        self.options = options
        self.wakers = wakers
        transport = options.transport?.transport
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
        let clock: @Sendable () -> Double
        if let transport {
            clock = { transport.now }
        } else {
            clock = { MonotonicTime.now }
        }
        let stream = HTTPBodyStream(
            url: url, kind: kind, mediaDuration: mediaDuration, indicatedBitrate: indicatedBitrate, content: content,
            wakers: wakers, now: clock)
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
        if let transport { return start(request, of: stream, through: transport) }
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
        let accepted = accept(response as? HTTPURLResponse, of: stream, requested: dataTask.originalRequest?.url)
        completionHandler(accepted ? .allow : .cancel)
    }

    /// The response to `stream`'s request arrived (at `time` on the stream's clock; nil: now): false when its status
    /// refuses it (the failure is logged and ends the body).
    private func accept(
        _ http: HTTPURLResponse?, of stream: HTTPBodyStream, requested: URL?, at time: Double? = nil
    ) -> Bool {
        if let http { stream.received(response: http, at: time) }
        guard let http, let error = Self.failure(status: http.statusCode, url: requested ?? stream.url) else {
            return true
        }
        log.record(
            NetworkLog.Failure(
                date: Date(), uri: stream.url.absoluteString, serverAddress: addresses.address(of: stream.url),
                statusCode: http.statusCode, domain: "HTTP",
                comment: HTTPURLResponse.localizedString(forStatusCode: http.statusCode),
                responseHeaders: Self.headers(of: http)))
        stream.finish(error: error)
        return false
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
        complete(stream, error: error)
    }

    /// `stream`'s transfer ended (it has left `streams`): logged, and its body ends.
    private func complete(_ stream: HTTPBodyStream, error: (any Error)?) {
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

// MARK: Through a NetworkTransport

extension HLSHTTPClient {
    /// Starts `request` through `transport`; its deliveries go to `stream` while the transfer is registered.
    fileprivate func start(
        _ request: URLRequest, of stream: HTTPBodyStream, through transport: any NetworkTransport
    ) -> HTTPBodyStream {
        let number: Int? = lock.withLock {
            guard !invalidated else { return nil }
            lastTransportTransfer -= 1
            streams[lastTransportTransfer] = stream
            return lastTransportTransfer
        }
        guard let number else {
            stream.finish(error: FFmpegError.exit)
            return stream
        }
        let stop = transport.start(request, receiver: TransportDelivery(client: self, number: number))
        stream.setStopTransfer { [weak self] in
            // Forgotten first, as a cancelled task: what still arrives goes nowhere and nothing is logged. Stopped
            // also after ``invalidate()`` forgot it (a transport's transfer takes a share of its link until stopped).
            if let self { _ = lock.withLock { streams.removeValue(forKey: number) } }
            stop()
        }
        return stream
    }

    /// What a transport delivers for transfer `number`, handled as URLSession's delegate calls are.
    fileprivate final class TransportDelivery: NetworkTransferReceiver, @unchecked Sendable {
        private weak var client: HLSHTTPClient?
        private let number: Int

        init(client: HLSHTTPClient, number: Int) {
            self.client = client
            self.number = number
        }

        private var stream: HTTPBodyStream? {
            client.flatMap { client in client.lock.withLock { client.streams[number] } }
        }

        func transferReceived(response: HTTPURLResponse, at time: Double) {
            guard let client, let stream else { return }
            if !client.accept(response, of: stream, requested: stream.url, at: time) {
                // Refused: as URLSession's cancelled task, the transfer ends without another log entry.
                _ = client.lock.withLock { client.streams.removeValue(forKey: number) }
            }
        }

        func transferReceived(_ data: Data, at time: Double) {
            stream?.append(data, at: time)
        }

        func transferFinished(error: (any Error)?) {
            guard let client, let stream = client.lock.withLock({ client.streams.removeValue(forKey: number) }) else {
                return
            }
            client.complete(stream, error: error)
        }
    }
}
