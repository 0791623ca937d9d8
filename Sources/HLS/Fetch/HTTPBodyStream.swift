import FFmpegBridge
import Foundation
import OAVFLocking
import PlaybackEngine

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The body of one HTTP response as it arrives: the network side appends, one reader takes bytes out, blocking until
/// they arrive, the body ends, the transfer fails or the reader's source is interrupted.
///
/// Real time, whatever clock the source's schedules run on (`SourceOptions.clock`): the download's duration is what
/// the bandwidth estimate and the access log measure of the network, which a virtual clock does not see (bytes
/// arrive while it stands still), so it is taken on the monotonic host clock (``MonotonicTime``; never wall time,
/// which can jump) — or on the clock of the transport that carries the bytes (`SourceOptions.transport`: a test's
/// network trace on a virtual clock stamps each arrival with its time there). The reader's wait does not poll: arriving bytes, the end and ``cancel()`` signal it, and its
/// reader's interruption wakes it through ``wakers`` (the source's ``HLSReadControl/wakeWaiters()``). A server that
/// stops sending is the HTTP client's request timeout (`SourceOptions.readTimeoutMicroseconds`, 15 s), also real
/// time: it protects against a dead server, which no test clock should be able to hold back or hasten.
///
/// Thread-safe: URLSession's delegate queue writes, the demux (or preparation) thread reads.
final class HTTPBodyStream: @unchecked Sendable {
    /// The URL asked for.
    let url: URL
    /// What the transfer is, for the network log.
    let kind: NetworkLog.Transfer.Kind
    /// The media duration it carries (a segment's), for the log.
    let mediaDuration: TimeInterval
    /// The bit rate of the variant it belongs to, for the log.
    let indicatedBitrate: Double?
    /// What it carries, for the log.
    let content: NetworkLog.Transfer.Content
    /// When it was asked for (the client hands the request to the session right after): the wall-clock date the
    /// logs show (a date is the value here; nothing is measured from it).
    let started = Date()
    /// The same instant on the monotonic clock (seconds; the transport's clock when one carries the bytes), which
    /// durations are measured from, and by which the bandwidth meter lines transfers up
    /// (``NetworkLog/Transfer/monotonicStart``).
    let startedMonotonic: Double
    /// Now on that clock.
    private let now: @Sendable () -> Double
    /// Guards the fields below; signalled when bytes arrive, the body ends or is abandoned. URLSession's delegate
    /// queue appends, the source's reading thread reads. Not an engine command: the reader blocks in libavformat's I/O
    /// callback, outside the engine's loop.
    private let condition = ConditionLock()
    /// Where a waiting read registers `condition`, so that its reader's interruption wakes it.
    private let wakers: WaitWakers
    /// Guarded by `condition`: bytes received and not yet read.
    private var pending = Data()
    private var pendingOffset = 0
    private var finished = false
    private var failure: FFmpegError?
    private var received: Int64 = 0
    private var status: Int?
    private var finalURL: URL?
    /// The response's `Content-Length`, when it gave one.
    private var expectedLength: Int64?
    /// Set by ``cancel()``: what still arrives is dropped.
    private var abandoned = false
    /// When the response, then each of the body's bytes, last arrived (network side; monotonic seconds).
    private var lastArrival: Double?
    /// Stops the transfer itself (set by the client when it starts the request; used once, by ``cancel()``).
    private var stopTransfer: (@Sendable () -> Void)?

    init(
        url: URL, kind: NetworkLog.Transfer.Kind = .other, mediaDuration: TimeInterval = 0,
        indicatedBitrate: Double? = nil, content: NetworkLog.Transfer.Content = .unspecified,
        wakers: WaitWakers = WaitWakers(), now: @escaping @Sendable () -> Double = { MonotonicTime.now }
    ) {
        self.now = now
        startedMonotonic = now()
        self.wakers = wakers
        self.url = url
        self.kind = kind
        self.mediaDuration = mediaDuration
        self.indicatedBitrate = indicatedBitrate
        self.content = content
    }

    /// How long the download took: from the request to the arrival of the last byte received (the response, for an
    /// empty body; now, before anything arrived). Taken on the network side only: the reader's pace never enters it
    /// (the body is buffered as it arrives, whether or not anybody reads it), so neither the bandwidth estimate nor
    /// the access log counts the time a body waited for a paused or busy consumer.
    var downloadDuration: TimeInterval {
        condition.withLock { (lastArrival ?? now()) - startedMonotonic }
    }

    /// The response's HTTP status (nil before the response).
    var statusCode: Int? { condition.withLock { status } }

    /// Whether the reader gave the body up.
    var isAbandoned: Bool { condition.withLock { abandoned } }

    // MARK: Network side

    /// The response arrived (`time`: when, on the stream's clock; nil: now).
    func received(response: HTTPURLResponse, at time: Double? = nil) {
        condition.withLock {
            lastArrival = time ?? now()
            status = response.statusCode
            finalURL = response.url
            expectedLength = response.expectedContentLength > 0 ? response.expectedContentLength : nil
        }
    }

    /// Whether every byte of the length its response announced has arrived (the transfer's completion may still be
    /// on its way).
    var hasReceivedItsLength: Bool {
        condition.withLock { expectedLength.map { received >= $0 } ?? false }
    }

    /// Whether the body ended before the length its response announced (a connection closed early without a transport
    /// error).
    var isShortOfItsLength: Bool {
        condition.withLock { expectedLength.map { received < $0 } ?? false }
    }

    /// Bytes of the body arrived (`time`: when, on the stream's clock; nil: now).
    func append(_ data: Data, at time: Double? = nil) {
        condition.withLock {
            guard !abandoned else { return }
            if pendingOffset > 0 && pendingOffset == pending.count {
                pending.removeAll(keepingCapacity: true)
                pendingOffset = 0
            }
            pending.append(data)
            received += Int64(data.count)
            if !data.isEmpty { lastArrival = time ?? now() }
            condition.broadcast()
        }
    }

    func finish(error: FFmpegError?) {
        condition.withLock {
            guard !finished else { return }
            finished = true
            failure = error
            condition.broadcast()
        }
    }

    // MARK: Reader side

    /// Bytes received so far.
    var bytesReceived: Int64 { condition.withLock { received } }

    /// Whether the whole body arrived (or the transfer failed).
    var isFinished: Bool { condition.withLock { finished } }

    /// The URL the body came from, after redirects (nil before the response).
    var responseURL: URL? { condition.withLock { finalURL } }

    /// Copies up to `buffer.count` bytes; 0 at the end of the body. Blocks until bytes arrive; throws the transfer's
    /// failure, or `FFmpegError.exit` once `isInterrupted` says so (whoever sets it wakes ``wakers``).
    func read(into buffer: UnsafeMutableRawBufferPointer, isInterrupted: () -> Bool) throws(FFmpegError) -> Int {
        let token = wakers.register(condition)
        defer { wakers.unregister(token) }
        condition.lock()
        defer { condition.unlock() }
        let count = min(try awaitPending(isInterrupted: isInterrupted), buffer.count)
        guard count > 0 else { return 0 }
        pending.withUnsafeBytes { bytes in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[pendingOffset..<pendingOffset + count]))
        }
        pendingOffset += count
        return count
    }

    /// Appends every byte received and not yet read to `bytes` (waiting for some as ``read(into:isInterrupted:)``
    /// does) and returns how many: 0 at the end of the body. No copy through a buffer of the caller's.
    func readAvailable<Bytes: RangeReplaceableCollection<UInt8>>(
        appendingTo bytes: inout Bytes, isInterrupted: () -> Bool
    ) throws(FFmpegError) -> Int {
        let token = wakers.register(condition)
        defer { wakers.unregister(token) }
        condition.lock()
        defer { condition.unlock() }
        let count = try awaitPending(isInterrupted: isInterrupted)
        bytes.append(contentsOf: pending.dropFirst(pendingOffset))
        pendingOffset += count
        return count
    }

    /// Waits, with `condition` locked (and registered with ``wakers``), until bytes are pending, the body ended or
    /// failed, or `isInterrupted` says so; returns the count pending, 0 at the end.
    private func awaitPending(isInterrupted: () -> Bool) throws(FFmpegError) -> Int {
        while true {
            let available = pending.count - pendingOffset
            if available > 0 { return available }
            if let failure { throw failure }
            if finished { return 0 }
            if isInterrupted() { throw FFmpegError.exit }
            wakers.blockedForInput { condition.wait() }
        }
    }

    /// Reads the whole body (at most `limit` bytes, else `FFmpegError` `EFBIG`).
    func readAll(limit: Int, isInterrupted: () -> Bool) throws(FFmpegError) -> Data {
        var data = Data()
        while try readAvailable(appendingTo: &data, isInterrupted: isInterrupted) > 0 {
            if data.count > limit {
                cancel()
                throw FFmpegError(code: FFmpegError.posix(EFBIG).code, function: "HLS GET \(url.absoluteString)")
            }
        }
        return data
    }

    /// How ``cancel()`` stops the transfer while it is under way (the client's).
    func setStopTransfer(_ stop: @escaping @Sendable () -> Void) {
        condition.withLock { stopTransfer = stop }
    }

    /// Abandons the body: a reader still waiting gets `FFmpegError.exit`, what still arrives is dropped, and a transfer
    /// still under way is stopped (the client cancels its task: a prefetch given up after a seek no longer takes the
    /// link to its end).
    func cancel() {
        let stop: (@Sendable () -> Void)? = condition.withLock {
            abandoned = true
            pending = Data()
            pendingOffset = 0
            defer { stopTransfer = nil }
            guard !finished else { return nil }
            finished = true
            failure = FFmpegError.exit
            condition.broadcast()
            return stopTransfer
        }
        stop?()
    }
}
