import Foundation

/// A request as `HTTPTestServer` received it, handed to route handlers.
public struct HTTPTestRequest: Sendable {
    /// `GET`, `HEAD`, …
    public var method: String
    /// The percent-decoded path, starting with `/`, without the query.
    public var path: String
    /// The query after `?`, if any (not decoded).
    public var query: String?
    /// Header fields; names lowercased.
    public var headers: [String: String]
    /// The number of the connection it arrived on (1 for the server's first connection).
    public var connection: Int

    public init(
        method: String, path: String, query: String? = nil, headers: [String: String] = [:], connection: Int = 0
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.connection = connection
    }
}

/// What a route handler answers. A `200` body is served with the same `Range:` support, faults and bandwidth caps
/// as a file.
public struct HTTPTestResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Extra header fields (`Content-Length`, `Content-Range` and `Connection` are the server's).
    public var headers: [String: String]
    /// The body.
    public var body: Data

    public init(status: Int = 200, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A `200` text body (for example a playlist) with `contentType`.
    public init(text: String, contentType: String = "application/vnd.apple.mpegurl") {
        self.init(status: 200, headers: ["Content-Type": contentType], body: Data(text.utf8))
    }
}

/// One request in `HTTPTestServer.requestLog`, written when the request arrives and completed when its answer
/// ends.
public struct HTTPTestRequestRecord: Sendable {
    /// `GET`, `HEAD`, …
    public var method: String
    /// The percent-decoded path, without the query.
    public var path: String
    /// The request's `Range:` value (`"bytes=0-99"`), if any.
    public var range: String?
    /// The status sent; 0 while no status line has been sent (or never, for `.noResponse`).
    public var status: Int
    /// Body bytes sent.
    public var bytesSent: Int
    /// The connection number (the server counts connections from 1), to see keep-alive reuse.
    public var connection: Int
    /// The faults applied to it, in the order they were injected.
    public var faults: [HTTPTestFault]
    /// How many throttle ticks of `HTTPTestServer.throttleTick` the body's bytes were spread over, counting the
    /// ticks of its own `.throttle` fault and of the server-wide cap; 0 when nothing throttled it.
    public var throttleTicks: Int
    /// How long the server waited before the status line (a `.delay` fault), measured by the server.
    public var waitedBeforeHeaders: TimeInterval
    /// Whether the body was cut by a connection reset (`.reset`).
    public var wasReset: Bool
    /// When the request arrived.
    public var start: Date
    /// When its answer ended (or the connection was given up); `nil` while it is being served.
    public var end: Date?
    /// The request's header fields (names lowercased).
    public var headers: [String: String] = [:]
}
