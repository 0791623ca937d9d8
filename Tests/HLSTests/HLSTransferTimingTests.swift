import FFmpegBridge
import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import HLS

/// The network log's transfer duration — what the bandwidth estimate and the access log's transfer time, observed
/// bit rates and overdue count are made of — is the download's, against the loopback server: a body nobody reads for
/// a while took only the time its bytes needed to arrive, and a throttled body at least its bytes over the throttle.
final class HLSTransferTimingTests: XCTestCase {
    private var server: HTTPTestServer!
    private var client: HLSHTTPClient!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
        client = HLSHTTPClient(options: SourceOptions())
    }

    override func tearDown() {
        client.invalidate()
        server.stop()
    }

    /// Waits until `done` holds (the client's log and the server's records offer no event: ``Poll``).
    private func waitUntil(_ what: String, _ done: () -> Bool) {
        XCTAssertTrue(Poll.until(done), "timed out waiting until \(what)")
    }

    /// The transfer the log recorded for `stream` (recorded on the client's queue once the body ended).
    private func recorded(_ stream: HTTPBodyStream) throws -> NetworkLog.Transfer {
        let uri = stream.url.absoluteString
        waitUntil("the transfer is logged") { client.log.finishedTransfers.contains { $0.uri == uri } }
        return try XCTUnwrap(client.log.finishedTransfers.first { $0.uri == uri })
    }

    /// A consumer that waits before reading (a paused player, a full buffer) does not lengthen the download: the
    /// body arrives into the stream's buffer meanwhile, and its time ends with its last byte.
    func test_bodyLeftUnread_downloadTimeEndsWithItsLastByte() throws {
        let path = "hls/ts/720p_000.ts"
        let size = try Data(contentsOf: try Fixtures.directory().appendingPathComponent(path)).count
        let stream = client.start(server.url(path), kind: .media, mediaDuration: 1, content: .main)
        let start = Date()
        // Wait for the last byte to have arrived (counted, not read), then longer than the segment lasts.
        waitUntil("the body arrived") { stream.isFinished }
        // Real time by design: the download's duration is measured on the host clock, and what is checked is that
        // this wait for the reader is not counted in it.
        Thread.sleep(forTimeInterval: 1.2)
        let data = try stream.readAll(limit: 16 << 20, isInterrupted: { false })
        let waited = Date().timeIntervalSince(start)
        XCTAssertEqual(data.count, size)
        let transfer = try recorded(stream)
        XCTAssertEqual(transfer.bytes, Int64(size))
        XCTAssertEqual(transfer.content, .main)
        XCTAssertGreaterThan(transfer.duration, 0)
        XCTAssertLessThan(transfer.duration, waited - 1.1, "the time the body waited for its reader is not counted")
        XCTAssertLessThan(transfer.duration, transfer.mediaDuration, "not overdue")
    }

    /// A body the server sends slower than real time takes at least its bytes over the throttle: 413,600 bytes at
    /// 200,000 bytes per second are 10,000 per 50 ms tick over 42 ticks, whose first may be granted at its very end:
    /// more than 40 ticks.
    func test_throttledBody_takesAtLeastItsBytesOverTheThrottle() throws {
        let path = "hls/ts/720p_000.ts"
        server.inject(.throttle(bytesPerSecond: 200_000), forPath: "/" + path)
        let stream = client.start(server.url(path), kind: .media, mediaDuration: 2, content: .main)
        let data = try stream.readAll(limit: 16 << 20, isInterrupted: { false })
        XCTAssertEqual(data.count, 413_600)
        let transfer = try recorded(stream)
        // (The client holds the whole body before the server's thread finishes the request's record.)
        XCTAssertTrue(
            server.waitForRequestLog { $0.last?.end != nil }, "timed out waiting until the server recorded the answer")
        XCTAssertGreaterThanOrEqual(server.requestLog.last?.throttleTicks ?? 0, 42)
        XCTAssertGreaterThanOrEqual(transfer.duration, 40 * HTTPTestServer.throttleTick)
        XCTAssertGreaterThan(transfer.duration, transfer.mediaDuration, "slower than real time: overdue")
    }
}
