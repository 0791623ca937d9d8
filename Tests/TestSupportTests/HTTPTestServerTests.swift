import Foundation
import OAVFLocking
import TestSupport
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTPTestServer against URLSession (curl underneath on Linux): files, ranges, keep-alive, routes, and each
/// fault as a client sees it.
final class HTTPTestServerTests: XCTestCase {
    private var root: URL!
    fileprivate var server: HTTPTestServer!
    private var session: URLSession!
    /// 200,000 bytes of a repeating 251-byte pattern (so an offset mistake changes the bytes).
    private let big = Data((0..<200_000).map { UInt8($0 % 251) })

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("http-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("hls"), withIntermediateDirectories: true)
        try Data("hello\n".utf8).write(to: root.appendingPathComponent("a.txt"))
        try big.write(to: root.appendingPathComponent("big.bin"))
        for name in ["index.m3u8", "seg_000.ts", "seg_001.ts", "init.mp4", "seg.m4s", "subs.vtt", "audio.aac"] {
            try Data("content of \(name)\n".utf8).write(to: root.appendingPathComponent("hls/\(name)"))
        }
        server = try HTTPTestServer(root: root)
        session = URLSession(configuration: .ephemeral)
    }

    override func tearDown() {
        session.invalidateAndCancel()
        server.stop()
        try? FileManager.default.removeItem(at: root)
    }

    // MARK: Plain serving

    func test_files_haveLengthAndType_andOneConnectionServesThemAll() throws {
        let types = [
            "index.m3u8": "application/vnd.apple.mpegurl", "seg_000.ts": "video/mp2t", "init.mp4": "video/mp4",
            "seg.m4s": "video/iso.segment", "subs.vtt": "text/vtt", "audio.aac": "audio/aac",
        ]
        for (name, type) in types.sorted(by: { $0.key < $1.key }) {
            let r = fetch("hls/\(name)")
            XCTAssertEqual(r.status, 200, name)
            XCTAssertEqual(r.body, Data("content of \(name)\n".utf8), name)
            XCTAssertEqual(r.header("Content-Type"), type, name)
            XCTAssertEqual(r.header("Content-Length"), "\(r.body.count)", name)
        }
        XCTAssertEqual(server.acceptedConnectionCount, 1, "curl reuses the kept-alive connection")
        XCTAssertEqual(Set(server.requestLog.map(\.connection)), [1])
        XCTAssertEqual(server.requestLog.map(\.status), Array(repeating: 200, count: types.count))
    }

    func test_connectionClose_isHonoured() {
        for _ in 0..<3 {
            var request = URLRequest(url: server.url("a.txt"))
            request.setValue("close", forHTTPHeaderField: "Connection")
            XCTAssertEqual(fetch(request).status, 200)
        }
        XCTAssertEqual(server.acceptedConnectionCount, 3)
        XCTAssertEqual(server.requestLog.map(\.connection), [1, 2, 3])
        waitUntil("connections closed") { self.server.openConnectionCount == 0 }
    }

    func test_missingFile_pathOutsideRoot_andStatusPaths() throws {
        XCTAssertEqual(fetch("nothing.ts").status, 404)
        let outside = root.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString).txt")
        try Data("secret".utf8).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        XCTAssertEqual(fetch("hls/%2e%2e/%2e%2e/\(outside.lastPathComponent)").status, 404)
        XCTAssertEqual(server.requestLog.last?.path, "/hls/../../\(outside.lastPathComponent)", "sent as is")
        XCTAssertEqual(fetch("status/503").status, 503)
    }

    func test_rangesAndHead() throws {
        var request = URLRequest(url: server.url("big.bin"))
        request.setValue("bytes=1000-1999", forHTTPHeaderField: "Range")
        var r = fetch(request)
        XCTAssertEqual(r.status, 206)
        XCTAssertEqual(r.body, big[1000..<2000])
        XCTAssertEqual(r.header("Content-Range"), "bytes 1000-1999/200000")

        request.setValue("bytes=199990-", forHTTPHeaderField: "Range")
        r = fetch(request)
        XCTAssertEqual(r.status, 206)
        XCTAssertEqual(r.body, big.suffix(10))

        request.setValue("bytes=-25", forHTTPHeaderField: "Range")
        r = fetch(request)
        XCTAssertEqual(r.body, big.suffix(25))
        XCTAssertEqual(r.header("Content-Range"), "bytes 199975-199999/200000")

        request.setValue("bytes=200000-", forHTTPHeaderField: "Range")
        r = fetch(request)
        XCTAssertEqual(r.status, 416)
        XCTAssertEqual(r.header("Content-Range"), "bytes */200000")

        var head = URLRequest(url: server.url("big.bin"))
        head.httpMethod = "HEAD"
        r = fetch(head)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.header("Content-Length"), "200000")
        XCTAssertEqual(r.header("Accept-Ranges"), "bytes")
        XCTAssertTrue(r.body.isEmpty)
        XCTAssertEqual(
            server.requestLog.map(\.range), ["bytes=1000-1999", "bytes=199990-", "bytes=-25", "bytes=200000-", nil])
        XCTAssertEqual(server.requestLog.last?.method, "HEAD")
        XCTAssertEqual(server.requestLog.last?.bytesSent, 0)
    }

    func test_routes_answerFromClosures_withRanges() {
        let calls = Counter()
        server.route("/live.m3u8") { request in
            let n = calls.increment()
            return HTTPTestResponse(text: "#EXTM3U\n# call \(n) on connection \(request.connection)\n")
        }
        let first = fetch("live.m3u8")
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(String(decoding: first.body, as: UTF8.self), "#EXTM3U\n# call 1 on connection 1\n")
        XCTAssertEqual(first.header("Content-Type"), "application/vnd.apple.mpegurl")
        var request = URLRequest(url: server.url("live.m3u8"))
        request.setValue("bytes=0-6", forHTTPHeaderField: "Range")
        let part = fetch(request)
        XCTAssertEqual(part.status, 206)
        XCTAssertEqual(String(decoding: part.body, as: UTF8.self), "#EXTM3U")
        server.removeRoute("/live.m3u8")
        XCTAssertEqual(fetch("live.m3u8").status, 404)
        XCTAssertEqual(calls.value, 2)
    }

    // MARK: Faults

    func test_statusFault_bySchedule() {
        server.inject(.status(500), forPath: "/a.txt", schedule: .nth(2))
        XCTAssertEqual((0..<3).map { _ in fetch("a.txt").status }, [200, 500, 200])
        server.inject(.status(404), forPath: "*.ts", schedule: .next(2))
        XCTAssertEqual(
            ["hls/seg_000.ts", "hls/seg_001.ts", "hls/seg_000.ts"].map { fetch($0).status }, [404, 404, 200])
        let id = server.inject(.status(503), forPath: "/hls/*")
        XCTAssertEqual(fetch("hls/index.m3u8").status, 503)
        XCTAssertEqual(fetch("a.txt").status, 200)
        server.removeFault(id)
        XCTAssertEqual(fetch("hls/index.m3u8").status, 200)
        XCTAssertEqual(server.requestLog.filter { !$0.faults.isEmpty }.map(\.status), [500, 404, 404, 503])
    }

    /// The first request for `path` once the server has finished answering it: the client can hold the whole body
    /// (or see the reset) before the server's thread records how it ended.
    private func finished(_ path: String) throws -> HTTPTestRequestRecord {
        waitForLog("the answer to \(path) recorded") { log in log.first { $0.path == path }?.end != nil }
        return try XCTUnwrap(server.requests(for: path).first)
    }

    func test_reset_isSeenAsAnError() throws {
        server.inject(.reset(afterBodyBytes: 10_000), forPath: "/big.bin")
        let r = fetch("big.bin")
        let error = try XCTUnwrap(r.error as? URLError, "a reset mid-body fails the task")
        XCTAssertNotEqual(error.code, .cancelled)
        XCTAssertLessThan(r.body.count, big.count)
        let record = try finished("/big.bin")
        XCTAssertTrue(record.wasReset)
        XCTAssertEqual(record.bytesSent, 10_000)
    }

    func test_throttle_spreadsTheBodyOverTicks() throws {
        let rate = 200_000
        server.inject(.throttle(bytesPerSecond: rate), forPath: "/big.bin")
        let r = fetch("big.bin")
        XCTAssertEqual(r.body, big)
        let perTick = Int(Double(rate) * HTTPTestServer.throttleTick)
        let record = try finished("/big.bin")
        XCTAssertGreaterThanOrEqual(record.throttleTicks, big.count / perTick)
        XCTAssertEqual(fetch("a.txt").status, 200)
        XCTAssertEqual(try finished("/a.txt").throttleTicks, 0)
    }

    func test_serverWideLimit_isSharedAcrossConnections_andLiftsWhileSending() throws {
        server.bandwidthLimit = 100_000
        let perTick = Int(100_000 * HTTPTestServer.throttleTick)
        var request = URLRequest(url: server.url("big.bin"))
        request.setValue("bytes=0-49999", forHTTPHeaderField: "Range")
        let parallel = URLSession(configuration: .ephemeral)
        defer { parallel.invalidateAndCancel() }
        let both = DispatchGroup()
        let bodies = Counter()
        let big = big
        for s in [session!, parallel] {
            both.enter()
            s.dataTask(with: request) { data, _, _ in
                if data == big.prefix(50_000) { bodies.increment() }
                both.leave()
            }.resume()
        }
        XCTAssertEqual(both.wait(timeout: .now() + Awaitable<Void>.hangGuard), .success)
        XCTAssertEqual(bodies.value, 2)
        XCTAssertEqual(server.acceptedConnectionCount, 2)
        XCTAssertGreaterThanOrEqual(server.bandwidthLimitTicks, 100_000 / perTick, "two bodies share one budget")

        // 200 kB at 20 kB/s needs 200 ticks; lifted after a few, it needs far fewer.
        server.bandwidthLimit = 20_000
        let ticksBefore = server.bandwidthLimitTicks
        let done = DispatchSemaphore(value: 0)
        let received = Counter()
        session.dataTask(with: server.url("big.bin")) { data, _, _ in
            if data == big { received.increment() }
            done.signal()
        }.resume()
        waitUntil("throttled transfer under way") { self.server.bandwidthLimitTicks >= ticksBefore + 3 }
        server.bandwidthLimit = nil
        XCTAssertEqual(done.wait(timeout: .now() + Awaitable<Void>.hangGuard), .success)
        XCTAssertEqual(received.value, 1)
        waitForLog("both answers recorded") { log in log.filter { $0.path == "/big.bin" }.allSatisfy { $0.end != nil } }
        let record = try XCTUnwrap(server.requests(for: "/big.bin").last)
        XCTAssertGreaterThanOrEqual(record.throttleTicks, 3)
        XCTAssertLessThan(record.throttleTicks, 200)
    }

    func test_delay_comesBeforeTheHeaders() throws {
        server.inject(.delay(0.3), forPath: "/a.txt", schedule: .nth(1))
        XCTAssertEqual(fetch("a.txt").body, Data("hello\n".utf8))
        // (The client can hold the body before the server's thread has finished the request's record.)
        waitForLog("the answer recorded") { $0.first?.end != nil }
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(server.requestLog.first).waitedBeforeHeaders, 0.3)
        XCTAssertEqual(fetch("a.txt").status, 200)
        waitForLog("the second answer recorded") { $0.count == 2 && $0[1].end != nil }
        XCTAssertEqual(server.requestLog.last?.waitedBeforeHeaders, 0)
    }

    func test_redirects_areFollowed() throws {
        server.inject(.redirect(status: 302, location: "/a.txt"), forPath: "/old.txt")
        server.inject(.redirect(status: 301, location: server.url("hls/index.m3u8").absoluteString), forPath: "/moved")
        let r = fetch("old.txt")
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.body, Data("hello\n".utf8))
        XCTAssertEqual(r.response?.url?.path, "/a.txt")
        let moved = fetch("moved")
        XCTAssertEqual(moved.body, Data("content of index.m3u8\n".utf8))
        XCTAssertEqual(server.requestLog.map(\.path), ["/old.txt", "/a.txt", "/moved", "/hls/index.m3u8"])
        XCTAssertEqual(server.requestLog.map(\.status), [302, 200, 301, 200])
    }

    func test_endlessBody_neverEnds_untilTheClientGoes() throws {
        server.inject(.endlessBody, forPath: "/hls/index.m3u8")
        let stream = StreamingClient(cancelAfter: 1 << 20)
        stream.start(server.url("hls/index.m3u8"))
        XCTAssertTrue(stream.waitForCompletion(), "the client stops reading after 1 MiB")
        XCTAssertGreaterThanOrEqual(stream.received.count, 1 << 20)
        let unit = Data("content of index.m3u8\n".utf8)
        XCTAssertEqual(stream.received.prefix(unit.count * 3), unit + unit + unit, "the resource repeated")
        waitForLog("server gave up the connection") { $0.first?.end != nil }
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(server.requestLog.first).bytesSent, 1 << 20)
    }

    func test_noResponse_holdsUntilTheClientTimesOut_andStopEndsIt() throws {
        server.inject(.noResponse, forPath: "/a.txt")
        var request = URLRequest(url: server.url("a.txt"))
        request.timeoutInterval = 1
        let r = fetch(request)
        XCTAssertEqual((r.error as? URLError)?.code, .timedOut)
        XCTAssertEqual(server.requestLog.first?.status, 0)
        server.stop()
        XCTAssertEqual(server.openConnectionCount, 0)
        XCTAssertNotNil(server.requestLog.first?.end)
    }

    func test_holdBody_sendsTheStart_thenTheRestWhenReleased() {
        server.inject(.holdBody(fromOffset: 50_000), forPath: "/big.bin")
        let stream = StreamingClient(cancelAfter: nil)
        stream.start(server.url("big.bin"))
        waitUntil("the bytes before the hold arrived") { stream.received.count == 50_000 }
        XCTAssertFalse(stream.isComplete)
        var late = URLRequest(url: server.url("big.bin"))
        late.setValue("bytes=60000-60009", forHTTPHeaderField: "Range")
        XCTAssertEqual(fetch(late).body, big[60_000..<60_010], "a range past the hold is served at once")
        server.releaseHeldBodies()
        XCTAssertTrue(stream.waitForCompletion())
        XCTAssertEqual(stream.received, big)
        XCTAssertNil(stream.error)
    }

    func test_stop_makesTheServerGone() throws {
        XCTAssertEqual(fetch("a.txt").status, 200)
        server.stop()
        XCTAssertTrue(server.isStopped)
        let r = fetch("a.txt")
        XCTAssertEqual((r.error as? URLError)?.code, .cannotConnectToHost)
        XCTAssertEqual(server.openConnectionCount, 0)
        server.stop()
    }

    func test_deinit_stops() throws {
        var temporary: HTTPTestServer? = try HTTPTestServer(root: root)
        let url = temporary!.url("a.txt")
        XCTAssertEqual(fetch(URLRequest(url: url)).status, 200)
        temporary = nil
        XCTAssertEqual((fetch(URLRequest(url: url)).error as? URLError)?.code, .cannotConnectToHost)
    }

    // MARK: Helpers

    private struct Fetched {
        var body: Data
        var response: HTTPURLResponse?
        var error: (any Error)?
        var status: Int { response?.statusCode ?? -1 }
        func header(_ name: String) -> String? { response?.value(forHTTPHeaderField: name) }
    }

    private func fetch(_ path: String) -> Fetched {
        fetch(URLRequest(url: server.url(path)))
    }

    /// Runs one data task to its end (a minute at most, so a broken server fails the test instead of hanging it).
    private func fetch(_ request: URLRequest) -> Fetched {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox()
        session.dataTask(with: request) { data, response, error in
            box.set(Fetched(body: data ?? Data(), response: response as? HTTPURLResponse, error: error))
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + Awaitable<Void>.hangGuard) == .success else {
            XCTFail("\(request.url!) did not finish")
            return Fetched(body: Data(), response: nil, error: URLError(.timedOut))
        }
        return box.get()!
    }

    private final class ResultBox: @unchecked Sendable {
        private let lock = ConditionLock()
        private var value: Fetched?
        func set(_ v: Fetched) { lock.withLock { value = v } }
        func get() -> Fetched? { lock.withLock { value } }
    }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    private let lock = ConditionLock()
    private var count = 0
    @discardableResult
    func increment() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
    var value: Int { lock.withLock { count } }
}

/// A data task that collects bytes as they arrive, optionally cancelling itself after some.
final class StreamingClient: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = ConditionLock()
    private let cancelAfter: Int?
    private var data = Data()
    private var finished = false
    private var failure: (any Error)?
    private let done = DispatchSemaphore(value: 0)
    private var session: URLSession?

    init(cancelAfter: Int?) {
        self.cancelAfter = cancelAfter
    }

    func start(_ url: URL) {
        let session = URLSession(configuration: .ephemeral, delegate: self, delegateQueue: nil)
        lock.withLock { self.session = session }
        session.dataTask(with: url).resume()
    }

    var received: Data { lock.withLock { data } }
    var isComplete: Bool { lock.withLock { finished } }
    var error: (any Error)? { lock.withLock { failure } }

    /// Waits (a minute at most) for the task to end; the session is then invalidated.
    func waitForCompletion() -> Bool {
        let ok = done.wait(timeout: .now() + Awaitable<Void>.hangGuard) == .success
        lock.withLock { session }?.invalidateAndCancel()
        return ok
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let cancel = lock.withLock { () -> Bool in
            self.data += data
            return cancelAfter.map { self.data.count >= $0 } ?? false
        }
        if cancel { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.withLock {
            finished = true
            if let error, (error as? URLError)?.code != .cancelled { failure = error }
        }
        done.signal()
    }
}

extension HTTPTestServerTests {
    /// Waits until `condition` holds for the server's request log (told by the server as it records, not polled);
    /// fails the test if it never holds.
    func waitForLog(
        _ what: String, file: StaticString = #filePath, line: UInt = #line,
        _ condition: ([HTTPTestRequestRecord]) -> Bool
    ) {
        if !server.waitForRequestLog(until: condition) {
            XCTFail("timed out waiting for \(what)", file: file, line: line)
        }
    }
}

/// Waits for `condition` (counts the server keeps without an event: ``Poll``); fails the test if it never holds.
func waitUntil(_ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool) {
    if !Poll.until(condition) { XCTFail("timed out waiting for \(what)", file: file, line: line) }
}
