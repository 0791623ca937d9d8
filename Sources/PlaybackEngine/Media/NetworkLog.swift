import Foundation

/// What a network source measured of its transfers and which requests failed: what the public layer turns into
/// `AVPlayerItemAccessLog` and `AVPlayerItemErrorLog` events. Real numbers only: a field nobody measured stays out.
///
/// Thread-safe: the source's transfer threads append, the public layer reads snapshots.
package final class NetworkLog: @unchecked Sendable {
    /// One finished request.
    package struct Transfer: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            /// A media segment (or an init section): Apple's "media request".
            case media
            /// A playlist, key or other request.
            case other
        }
        package var kind: Kind
        package var uri: String
        /// The server's host.
        package var serverAddress: String?
        package var bytes: Int64
        /// From the request to its last byte.
        package var duration: TimeInterval
        package var start: Date
        /// The media duration the transfer carried (a segment's `EXTINF`), 0 when not media.
        package var mediaDuration: TimeInterval
        /// The indicated bit rate of the variant it belongs to (its `BANDWIDTH`), when known.
        package var indicatedBitrate: Double?

        package init(
            kind: Kind, uri: String, serverAddress: String?, bytes: Int64, duration: TimeInterval, start: Date,
            mediaDuration: TimeInterval = 0, indicatedBitrate: Double? = nil
        ) {
            self.kind = kind
            self.uri = uri
            self.serverAddress = serverAddress
            self.bytes = bytes
            self.duration = duration
            self.start = start
            self.mediaDuration = mediaDuration
            self.indicatedBitrate = indicatedBitrate
        }
    }

    /// One failed request.
    package struct Failure: Sendable, Equatable {
        package var date: Date
        package var uri: String
        package var serverAddress: String?
        /// The HTTP status, or a negative code for a transport failure.
        package var statusCode: Int
        /// "HTTP" for a status, else the transport's error domain.
        package var domain: String
        package var comment: String
        /// The response's header fields, when a response came (an HTTP status).
        package var responseHeaders: [String: String]?

        package init(
            date: Date, uri: String, serverAddress: String?, statusCode: Int, domain: String, comment: String,
            responseHeaders: [String: String]? = nil
        ) {
            self.date = date
            self.uri = uri
            self.serverAddress = serverAddress
            self.statusCode = statusCode
            self.domain = domain
            self.comment = comment
            self.responseHeaders = responseHeaders
        }
    }

    private let lock = NSLock()
    private var transfers: [Transfer] = []
    private var failures: [Failure] = []
    /// At most this many of each are kept (the oldest are dropped first).
    static let capacity = 4096

    package init() {}

    package func record(_ transfer: Transfer) {
        lock.withLock {
            transfers.append(transfer)
            if transfers.count > Self.capacity { transfers.removeFirst(transfers.count - Self.capacity) }
        }
    }

    package func record(_ failure: Failure) {
        lock.withLock {
            failures.append(failure)
            if failures.count > Self.capacity { failures.removeFirst(failures.count - Self.capacity) }
        }
    }

    /// The transfers finished so far, oldest first.
    package var finishedTransfers: [Transfer] { lock.withLock { transfers } }

    /// The failed requests so far, oldest first.
    package var failedRequests: [Failure] { lock.withLock { failures } }
}
