import Dispatch
import Foundation
import OAVFLocking

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on a loopback address (127.0.0.1 unless told) for tests, with fault injection: it serves a folder (and routes a test
/// registers), and can answer chosen requests with an error status, late, slowly, cut by a reset, endlessly, never,
/// or with a redirect.
///
/// - Port: ephemeral, read from `port`; `url(_:)` makes URLs on it. Another loopback address (`127.0.0.2`: Linux
///   routes all of 127.0.0.0/8 to the loopback interface) gives a second server the client sees at another address.
/// - Files: `GET` and `HEAD` of the files under `root` (never outside it), with `Content-Length`,
///   `Accept-Ranges`, `Range:` requests (`206` with `Content-Range`; `416` past the end) and a `Content-Type` by
///   extension (`.m3u8` `application/vnd.apple.mpegurl`, `.ts` `video/mp2t`, `.m4s` `video/iso.segment`, `.mp4`
///   `video/mp4`, `.vtt` `text/vtt`, `.aac` `audio/aac`). `/status/<code>` answers that status when no such file
///   exists.
/// - Routes: `route(_:_:)` answers a path from a closure (a live playlist, say); route bodies get the same range
///   support, faults and caps as files (unless they answer `Accept-Ranges: none`: a radio stream, say).
/// - Connections: keep-alive (several requests per connection, as URLSession's curl reuses them) unless the
///   request says `Connection: close` or speaks HTTP/1.0; a thread per connection.
/// - Faults: `inject(_:forPath:schedule:)` (see `HTTPTestFault`); a server-wide `bandwidthLimit` shared by all
///   connections, changeable while bodies are being sent.
/// - Observation: `requestLog` (one record per request) and connection counts.
///
/// Nothing in it can hang a test: every wait is bounded (`holdLimit`, `idleTimeout`, a throttle tick), `stop()`
/// wakes every wait, closes every connection and the listening socket (the port then refuses connections), and
/// `deinit` stops.
///
/// ```swift
/// let server = try HTTPTestServer(root: try Fixtures.directory())
/// server.inject(.status(404), forPath: "/hls/ts/540p_002.ts", schedule: .nth(1))
/// server.inject(.throttle(bytesPerSecond: 100_000), forPath: "*.ts")
/// let master = server.url("hls/ts/master.m3u8")
/// ```
public final class HTTPTestServer: Sendable {
    /// Throttle ticks: a throttled body gets its per-second budget in slices of this many seconds.
    public static let throttleTick: TimeInterval = 0.05
    /// The longest a `.noResponse` or `.holdBody` request is held before the connection is closed.
    public static let holdLimit: TimeInterval = 60
    /// How long a connection may sit idle (or blocked sending to a client that does not read) before it is closed.
    public static let idleTimeout: TimeInterval = 30
    /// The most bytes an `.endlessBody` sends before closing the connection.
    public static let endlessBodyLimit = 256 << 20

    /// The port the server listens on.
    public let port: UInt16
    /// The IPv4 address it listens on.
    public let address: String
    private let core: HTTPTestServerCore

    /// Starts a server on `address` (a loopback address) that serves the files under `root` (only routes and
    /// `/status/<code>` when `nil`).
    public init(root: URL? = nil, address listeningAddress: String = "127.0.0.1") throws(HTTPTestServerError) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .socket(call: "socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(listeningAddress)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .socket(call: "bind", errno: code)
        }
        guard listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            throw .socket(call: "listen", errno: code)
        }
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.address = listeningAddress
        core = HTTPTestServerCore(listeningSocket: fd, root: root?.standardizedFileURL)
        core.startAccepting()
    }

    deinit {
        core.stop()
    }

    /// `http://<address>:<port>/`.
    public var baseURL: URL { URL(string: "http://\(address):\(port)/")! }

    /// The URL of `path` (with or without a leading `/`; may carry a query) on this server.
    public func url(_ path: String) -> URL {
        URL(string: "http://\(address):\(port)/\(path.hasPrefix("/") ? String(path.dropFirst()) : path)")!
    }

    /// Answers requests for `path` (exact, with a leading `/`) from `handler`, called on the connection's thread.
    public func route(_ path: String, _ handler: @escaping @Sendable (HTTPTestRequest) -> HTTPTestResponse) {
        core.withLock { $0.routes[path] = handler }
    }

    /// Forgets the route for `path`.
    public func removeRoute(_ path: String) {
        core.withLock { $0.routes[path] = nil }
    }

    /// Applies `fault` to the requests whose path matches `pattern` (an exact path, or a `fnmatch` glob whose `*`
    /// also matches `/`: `"*.ts"`, `"/hls/ts/540p_*"`) and that `schedule` picks, counting matching requests from
    /// now. Returns an identifier for `removeFault(_:)`.
    @discardableResult
    public func inject(
        _ fault: HTTPTestFault, forPath pattern: String, schedule: HTTPTestFaultSchedule = .always
    )
        -> Int
    {
        core.withLock { state in
            state.nextRuleID += 1
            state.rules.append(
                HTTPTestFaultRule(id: state.nextRuleID, pattern: pattern, fault: fault, schedule: schedule))
            return state.nextRuleID
        }
    }

    /// Stops applying the fault `inject` returned `id` for (requests already being served keep it).
    public func removeFault(_ id: Int) {
        core.withLock { $0.rules.removeAll { $0.id == id } }
    }

    /// Stops applying every injected fault.
    public func removeAllFaults() {
        core.withLock { $0.rules.removeAll() }
    }

    /// A cap on the bytes per second of all bodies together, across connections; `nil` (the default) is
    /// unlimited. Takes effect at once, also for bodies being sent.
    public var bandwidthLimit: Int? {
        get { core.sharedLimiter.bytesPerSecond }
        set { core.sharedLimiter.bytesPerSecond = newValue }
    }

    /// Throttle ticks in which the server-wide `bandwidthLimit` granted bytes, since the start.
    public var bandwidthLimitTicks: Int {
        core.read { $0.sharedTicks.count }
    }

    /// Lets every `.holdBody` request (present and future) send the rest of its body.
    public func releaseHeldBodies() {
        core.withLock { state in
            state.heldBodiesReleased = true
        }
    }

    /// Every request so far, in arrival order.
    public var requestLog: [HTTPTestRequestRecord] {
        core.read { $0.log }
    }

    /// Waits until `condition` holds for ``requestLog``, looking again whenever the server records a request or the
    /// end of its answer (not by polling); false if it still does not after ``Awaitable/hangGuard`` seconds or once
    /// the server stopped.
    @discardableResult
    public func waitForRequestLog(until condition: ([HTTPTestRequestRecord]) -> Bool) -> Bool {
        core.wait(atMost: Awaitable<Void>.hangGuard) { condition($0.log) }
    }

    /// The records of the requests whose path is `path`.
    public func requests(for path: String) -> [HTTPTestRequestRecord] {
        requestLog.filter { $0.path == path }
    }

    /// Connections open now.
    public var openConnectionCount: Int {
        core.read { $0.openClients.count }
    }

    /// Connections accepted since the start.
    public var acceptedConnectionCount: Int {
        core.read { $0.acceptedConnections }
    }

    /// Whether `stop()` has been called.
    public var isStopped: Bool {
        core.read { $0.stopped }
    }

    /// Closes the listening socket (the port refuses connections afterwards) and every connection, and wakes every
    /// wait; returns once the connections are closed (or after a few seconds if a route handler is still busy).
    /// Calling it again does nothing.
    public func stop() {
        core.stop()
    }
}

/// Why an `HTTPTestServer` could not start.
public enum HTTPTestServerError: Error, Sendable, CustomStringConvertible {
    /// A socket call failed.
    case socket(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .socket(let call, let code): return "HTTPTestServer: \(call) failed: \(String(cString: strerror(code)))"
        }
    }
}

/// What the server's threads share; `HTTPTestServer` owns it and stops it in `deinit` (threads hold the core, not
/// the server, so the server can go away while they run).
final class HTTPTestServerCore: @unchecked Sendable {
    /// Everything mutable, guarded by `condition`.
    struct State {
        var stopped = false
        var routes: [String: @Sendable (HTTPTestRequest) -> HTTPTestResponse] = [:]
        var rules: [HTTPTestFaultRule] = []
        var nextRuleID = 0
        var log: [HTTPTestRequestRecord] = []
        /// Open client sockets and their connection numbers.
        var openClients: [Int32: Int] = [:]
        var acceptedConnections = 0
        var heldBodiesReleased = false
        /// The ticks in which the shared limiter granted bytes.
        var sharedTicks: Set<Int> = []
    }

    let listeningSocket: Int32
    /// The served folder, standardised; `nil` serves no files.
    let root: URL?
    /// Guards `state`; broadcast on stop and on every change waits depend on. The server's threads and the test. Test
    /// support, no engine.
    let condition = ConditionLock()
    private var state = State()
    /// The server-wide bandwidth cap (its own lock).
    let sharedLimiter = ByteRateLimiter(bytesPerSecond: nil, tick: HTTPTestServer.throttleTick)
    /// Signalled when the accept thread has closed the listening socket.
    private let acceptEnded = DispatchSemaphore(value: 0)

    init(listeningSocket: Int32, root: URL?) {
        self.listeningSocket = listeningSocket
        self.root = root
    }

    /// Runs `body` with the state locked, then wakes every waiter (state changes are rare; waits re-check).
    func withLock<T>(_ body: (inout State) throws -> T) rethrows -> T {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try body(&state)
    }

    /// Runs `body` with the state locked, for reading (no waiter is woken).
    func read<T>(_ body: (State) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(state)
    }

    var isStopped: Bool { read { $0.stopped } }

    /// Waits until `done` holds, the server stops, or `seconds` pass; returns whether `done` held.
    func wait(atMost seconds: TimeInterval, until done: (State) -> Bool) -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, min(seconds, 1e6)) * 1e9)
        condition.lock()
        defer { condition.unlock() }
        while !done(state) {
            let now = DispatchTime.now().uptimeNanoseconds
            let remaining = now < deadline ? Double(deadline - now) / 1e9 : 0
            if state.stopped || remaining <= 0 { return false }
            condition.wait(timeout: min(remaining, 0.5))
        }
        return true
    }

    func startAccepting() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "HTTPTestServer.accept"
        thread.start()
    }

    private func acceptLoop() {
        defer {
            close(listeningSocket)
            acceptEnded.signal()
        }
        while true {
            let client = accept(listeningSocket, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let number: Int? = withLock { state in
                guard !state.stopped else { return nil }
                state.acceptedConnections += 1
                state.openClients[client] = state.acceptedConnections
                return state.acceptedConnections
            }
            guard let number else {
                close(client)
                return
            }
            var timeout = timeval(tv_sec: Int(HTTPTestServer.idleTimeout), tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let thread = Thread { [self] in HTTPTestConnection(core: self, socket: client, number: number).serve() }
            thread.name = "HTTPTestServer.connection.\(number)"
            thread.start()
        }
    }

    func stop() {
        let first = withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.stopped = true
            // Unblocks every recv and send; each connection closes its own socket (so no number is reused early).
            for fd in state.openClients.keys { shutdown(fd, Int32(SHUT_RDWR)) }
            return true
        }
        guard first else { return }
        sharedLimiter.stop()
        shutdown(listeningSocket, Int32(SHUT_RDWR))
        _ = acceptEnded.wait(timeout: .now() + 5)
        // Connections close their sockets as they see the shutdown; wait for them, for a bounded time.
        let deadline = Date().addingTimeInterval(5)
        while read({ !$0.openClients.isEmpty }) && Date() < deadline {
            usleep(2_000)
        }
    }

    /// Forgets a client socket and closes it; with `reset`, so that the peer sees a connection reset.
    func closeClient(_ fd: Int32, reset: Bool) {
        if reset {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        withLock { state in
            state.openClients[fd] = nil
            close(fd)
        }
    }
}
