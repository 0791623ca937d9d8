import CoreMedia
import Foundation
import OAVFLocking
import PlaybackEngine

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A network for tests that runs on a `VirtualClock`: a `NetworkTransport` (give it to an asset as
/// `AVURLAsset.oavfNetworkTransportKey`) serving the files under a folder, and routes, over one link whose capacity
/// follows a bandwidth trace in the clock's time — bytes per 100 ms slot — after a latency per request. Nothing moves
/// unless the clock does: each `VirtualClock.advance(by:)` carries what the link carries in that time, delivering each
/// piece with the exact clock time it arrived (within a slot the bytes flow at a constant rate), so a transfer's
/// timing, the bandwidth estimate made from it and the buffer it fills all follow the clock, never real time.
///
/// - The link: the requests whose latency has passed share each slot's bytes equally (a finished one leaves its
///   share to the others at once); slots past the end of the trace repeat its last one.
/// - Responses: `200` with `Content-Length`, `206` for a `Range` request, `404` for a path neither a file nor a
///   route. No redirects.
/// - Observation: ``requests`` (path, and the clock times of each request and of its last byte, in order).
///
/// Thread-safe. Deliveries happen on the thread that advances the clock, within `advance(by:)`.
package final class TraceNetwork: NetworkTransport, @unchecked Sendable {
    /// Seconds per slot of the trace.
    package static let slot = 0.1

    /// One request as the network saw it.
    package struct Request: Sendable, Equatable {
        package var path: String
        /// When it was made (clock seconds).
        package var time: Double
        /// When its last byte arrived (its response, for an empty body); nil while under way, or stopped before.
        package var arrived: Double?
    }

    private struct Transfer {
        /// Its entry in ``State/requests``.
        var request: Int
        var receiver: any NetworkTransferReceiver
        var response: HTTPURLResponse
        var body: Data
        /// When the response arrives (the request's time plus the latency).
        var responseAt: Double
        var responded = false
        var sent = 0
        /// Bytes the link has carried for it and not delivered yet (a fraction of a byte).
        var credit = 0.0
    }

    /// What one advance delivers, in order.
    private enum Delivery {
        case response(any NetworkTransferReceiver, HTTPURLResponse, Double)
        case data(any NetworkTransferReceiver, Data, Double)
        case finished(any NetworkTransferReceiver)
    }

    private struct State {
        var bytesPerSlot: [Int]
        var latency: Double
        var routes: [String: Data] = [:]
        var transfers: [Int: Transfer] = [:]
        var nextTransfer = 0
        /// The clock time up to which the link has been carried.
        var carried: Double
        var requests: [Request] = []
    }

    private let root: URL?
    private let clock: VirtualClock
    /// Guards `state`: the test's thread advances the clock (and so delivers), the source's threads start and stop
    /// transfers. Deliveries are made with it released.
    private let state: Locked<State>
    private var listener: UInt64 = 0

    /// A network serving the files under `root` (and routes) on `clock`, whose link carries `bytesPerSlot[k]` bytes
    /// in slot k (100 ms of the clock from its time now; the last repeats) after `latency` seconds per request.
    package init(root: URL?, clock: VirtualClock, bytesPerSlot: [Int], latency: Double) {
        precondition(!bytesPerSlot.isEmpty && bytesPerSlot.allSatisfy { $0 >= 0 } && latency >= 0)
        self.root = root
        self.clock = clock
        state = Locked(State(bytesPerSlot: bytesPerSlot, latency: latency, carried: clock.time.seconds))
        listener = clock.addListener { [weak self] in self?.carry() }
    }

    deinit {
        clock.removeListener(listener)
    }

    /// The trace from the next slot on (slots already carried keep theirs): how a test changes the link's rate at a
    /// moment of its choosing.
    package func setTrace(bytesPerSlot: [Int]) {
        precondition(!bytesPerSlot.isEmpty && bytesPerSlot.allSatisfy { $0 >= 0 })
        state.withLock { s in
            let next = Int((s.carried / Self.slot + 1e-9).rounded(.up))
            let kept = (0..<next).map { Self.bytes(inSlot: $0, of: s.bytesPerSlot) }
            s.bytesPerSlot = kept + bytesPerSlot
        }
    }

    /// Answers `path` with `text` (a playlist, say) instead of a file.
    package func route(_ path: String, text: String) {
        state.withLock { $0.routes[path] = Data(text.utf8) }
    }

    /// Every request so far, in order.
    package var requests: [Request] { state.withLock { $0.requests } }

    /// Transfers under way (requested, not finished, not stopped).
    package var transfersUnderWay: Int { state.withLock { $0.transfers.count } }

    package var now: Double { clock.time.seconds }

    package func start(_ request: URLRequest, receiver: any NetworkTransferReceiver) -> @Sendable () -> Void {
        let url = request.url ?? URL(fileURLWithPath: "/")
        let path = url.path
        var (status, body) = content(at: path)
        if status == 200, let range = request.value(forHTTPHeaderField: "Range"), let (from, to) = Self.range(range),
            from < body.count
        {
            body = body.subdata(in: from..<min(body.count, to.map { $0 + 1 } ?? body.count))
            status = 206
        }
        let response = HTTPURLResponse(
            url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: ["Content-Length": "\(body.count)"])!
        let number: Int = state.withLock { s in
            let time = max(s.carried, clock.time.seconds)
            s.requests.append(Request(path: path, time: time))
            s.nextTransfer += 1
            s.transfers[s.nextTransfer] = Transfer(
                request: s.requests.count - 1, receiver: receiver, response: response,
                body: status == 404 ? Data() : body,
                responseAt: time + s.latency)
            return s.nextTransfer
        }
        return { [weak self] in self?.state.withLock { _ = $0.transfers.removeValue(forKey: number) } }
    }

    /// The status and body for `path`: a route's, a file's under the root, else 404.
    private func content(at path: String) -> (Int, Data) {
        if let routed = state.withLock({ $0.routes[path] }) { return (200, routed) }
        guard let root, !path.contains("..") else { return (404, Data()) }
        guard let data = try? Data(contentsOf: root.appendingPathComponent(String(path.drop { $0 == "/" }))) else {
            return (404, Data())
        }
        return (200, data)
    }

    /// `bytes=a-b` or `bytes=a-` as offsets.
    private static func range(_ header: String) -> (Int, Int?)? {
        guard header.hasPrefix("bytes=") else { return nil }
        let parts = header.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let from = Int(parts[0]) else { return nil }
        return (from, Int(parts[1]))
    }

    private static func bytes(inSlot index: Int, of trace: [Int]) -> Int {
        trace[min(max(0, index), trace.count - 1)]
    }

    /// Carries the link up to the clock's time, then delivers what arrived, in order.
    private func carry() {
        let target = clock.time.seconds
        let deliveries: [Delivery] = state.withLock { s in
            var out: [Delivery] = []
            while s.carried < target - 1e-12 {
                let t = s.carried
                let slotIndex = Int((t / Self.slot + 1e-9).rounded(.down))
                let slotEnd = Double(slotIndex + 1) * Self.slot
                let rate = Double(Self.bytes(inSlot: slotIndex, of: s.bytesPerSlot)) / Self.slot
                let flowing = s.transfers.keys.filter { s.transfers[$0]!.responded }.sorted()
                var next = min(target, max(slotEnd, t + 1e-9))
                for (_, transfer) in s.transfers where !transfer.responded && transfer.responseAt > t {
                    next = min(next, transfer.responseAt)
                }
                let share = flowing.isEmpty ? 0 : rate / Double(flowing.count)
                if share > 0 {
                    for key in flowing {
                        let transfer = s.transfers[key]!
                        let left = Double(transfer.body.count - transfer.sent) - transfer.credit
                        next = min(next, t + max(0, left) / share)
                    }
                }
                // Responses due by then arrive first.
                for key in s.transfers.keys.sorted() where !s.transfers[key]!.responded {
                    guard s.transfers[key]!.responseAt <= next + 1e-12 else { continue }
                    s.transfers[key]!.responded = true
                    let transfer = s.transfers[key]!
                    out.append(.response(transfer.receiver, transfer.response, transfer.responseAt))
                    if transfer.body.isEmpty {
                        out.append(.finished(transfer.receiver))
                        s.requests[transfer.request].arrived = transfer.responseAt
                        s.transfers[key] = nil
                    }
                }
                for key in flowing {
                    guard var transfer = s.transfers[key] else { continue }
                    transfer.credit += share * (next - t)
                    let left = transfer.body.count - transfer.sent
                    var count = min(left, Int(transfer.credit))
                    if Double(left) - transfer.credit < 1e-6 { count = left }
                    if count > 0 {
                        out.append(
                            .data(
                                transfer.receiver, transfer.body.subdata(in: transfer.sent..<transfer.sent + count),
                                next))
                        transfer.sent += count
                        transfer.credit = max(0, transfer.credit - Double(count))
                    }
                    if transfer.sent == transfer.body.count {
                        out.append(.finished(transfer.receiver))
                        s.requests[transfer.request].arrived = next
                        s.transfers[key] = nil
                    } else {
                        s.transfers[key] = transfer
                    }
                }
                s.carried = next
            }
            return out
        }
        for delivery in deliveries {
            switch delivery {
            case .response(let receiver, let response, let time):
                receiver.transferReceived(response: response, at: time)
            case .data(let receiver, let data, let time): receiver.transferReceived(data, at: time)
            case .finished(let receiver): receiver.transferFinished(error: nil)
            }
        }
    }
}
