import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a streamed source's HTTP requests reach their server, and the clock their transfers are timed on (an HLS
/// source's playlists, keys and segments). Not set (``SourceOptions/transport`` nil), the source fetches through its
/// own `URLSession` and times transfers on the monotonic host clock: the production path. A test gives a transport
/// that serves a presentation's bytes at the rate a recorded network trace gives, timed on the engine's virtual
/// clock, so that adaptive bitrate (its bandwidth estimate, its buffer, its decisions) runs on that clock alone.
///
/// A transport does no redirects and keeps no cookies (the source sets the `Cookie` field of each request). Any
/// thread.
package protocol NetworkTransport: AnyObject, Sendable {
    /// Now, in seconds, on the clock transfers are timed on (monotonic; only differences count).
    var now: Double { get }

    /// Starts a GET of `request`: the transport reports to `receiver` the response, then the body as it arrives, then
    /// the end (each call once the previous one returned; on any thread, holding nothing the receiver takes). Returns
    /// what stops the transfer (a body abandoned): afterwards the receiver may still hear a call under way, no more.
    func start(_ request: URLRequest, receiver: any NetworkTransferReceiver) -> @Sendable () -> Void
}

/// Where a ``NetworkTransport`` delivers one transfer. Times are the transport's (``NetworkTransport/now``) at which
/// the response, and each piece of the body, arrived.
package protocol NetworkTransferReceiver: AnyObject, Sendable {
    func transferReceived(response: HTTPURLResponse, at time: Double)
    func transferReceived(_ data: Data, at time: Double)
    /// The transfer ended: whole (nil) or failed (a `URLError` as URLSession's).
    func transferFinished(error: (any Error)?)
}

/// A ``NetworkTransport`` in ``SourceOptions``: options with the same transport object are equal.
package struct NetworkTransportReference: Sendable, Hashable {
    package let transport: any NetworkTransport

    package init(_ transport: any NetworkTransport) {
        self.transport = transport
    }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.transport === rhs.transport }

    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(transport)) }
}
