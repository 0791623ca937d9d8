import FFmpegBridge
import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import HLS

/// Keeps the variant playing (no adaptive switch interferes with which segments are requested).
private struct StayPolicy: VariantPolicy {
    func chooseVariant(in situation: VariantSituation) -> VariantChoice {
        VariantChoice(index: situation.current, reason: .hold)
    }
}

/// Switches the variant at given media sequence numbers.
private struct PlannedPolicy: VariantPolicy {
    let plan: [Int: Int]
    func chooseVariant(in situation: VariantSituation) -> VariantChoice {
        VariantChoice(index: plan[situation.mediaSequence] ?? situation.current, reason: .policy)
    }
}

/// The segment fetched ahead, read against the generated ladder (`HLSFixture.ts`, 2 s segments) on a loopback server:
/// one download of the variant's at a time, and a download given up stops. What is asserted is what the server sent
/// (its request log: requests, bytes, ends), never a duration.
final class HLSPrefetchTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    private func records(_ name: String) -> [HTTPTestRequestRecord] {
        server.requests(for: "/hls/ts/\(name)")
    }

    /// A seek while the next segment is being fetched ahead (slowly: its server sends 10 kB/s) stops that download:
    /// the server's answer ends short of the segment's size, and the segment is not fetched a second time.
    func test_seekWhileASegmentIsFetchedAhead_stopsItsTransfer() throws {
        let slow = "360p_002.ts"
        let size = try XCTUnwrap(
            FileManager.default.attributesOfItem(
                atPath: try Fixtures.directory().appendingPathComponent("hls/ts/\(slow)").path)[.size] as? Int)
        server.inject(.throttle(bytesPerSecond: 10_000), forPath: "/hls/ts/\(slow)")
        let source = HLSSource(url: server.url(HLSFixture.ts.rawValue))
        try XCTUnwrap(source.variantControl).policy = StayPolicy()
        try source.open()
        source.setDiscard(keepingStreams: [0, 1])
        let start = try XCTUnwrap(source.info.startTimeMicroseconds)
        let packet = Packet()
        // Read until the slow segment's download has begun (ahead of the reading, or as the segment read).
        var reads = 0
        while records(slow).isEmpty, reads < 5_000, try source.read(into: packet) == .packet { reads += 1 }
        XCTAssertEqual(records(slow).count, 1, "fetched ahead after \(reads) packets")
        try source.seek(toMicroseconds: start + 8_500_000, minimum: .min, maximum: .max)
        XCTAssertEqual(try source.read(into: packet), .packet, "reading goes on after the seek")
        // The server sees the connection close: the answer ends (at 10 kB/s the whole would take 10 s more).
        server.waitForRequestLog { log in log.first { $0.path == "/hls/ts/\(slow)" }?.end != nil }
        let answer = try XCTUnwrap(records(slow).first)
        XCTAssertNotNil(answer.end)
        XCTAssertLessThan(answer.bytesSent, size / 2, "the transfer stopped when the seek gave it up")
        XCTAssertEqual(records(slow).count, 1)
        XCTAssertEqual(records("360p_004.ts").count, 1)
    }

    /// Segments of the variant are downloaded one at a time: each request for a segment goes out after the one before
    /// it has arrived whole (two at once would share the link, and each would measure half of it). The source's own
    /// network log says when each was asked for and how long it took.
    func test_segmentsOfTheVariant_areFetchedOneAtATime() throws {
        try assertFetchedOneAtATime(policy: StayPolicy(), variants: Array(repeating: "360p", count: 6))
    }

    /// The same across switches (the segment fetched ahead from the variant switched to is the only download).
    func test_segmentsOfTheVariant_areFetchedOneAtATime_acrossSwitches() throws {
        try assertFetchedOneAtATime(
            policy: PlannedPolicy(plan: [1: 1, 3: 2, 4: 0]), variants: ["360p", "540p", "540p", "720p", "360p", "360p"])
    }

    private func assertFetchedOneAtATime(
        policy: any VariantPolicy, variants: [String], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        server.inject(.throttle(bytesPerSecond: 200_000), forPath: "/hls/ts/*p_*")
        let source = HLSSource(url: server.url(HLSFixture.ts.rawValue))
        try XCTUnwrap(source.variantControl).policy = policy
        try source.open()
        source.setDiscard(keepingStreams: [0, 1])
        let packet = Packet()
        while try source.read(into: packet) == .packet {}
        let log = try XCTUnwrap(source.networkLog)
        let segments = log.transfers(after: 0).transfers.filter { $0.uri.contains("p_0") }
        XCTAssertEqual(
            segments.map { ($0.uri as NSString).lastPathComponent },
            variants.enumerated().map { String(format: "%@_%03d.ts", $1, $0) }, file: file, line: line)
        for (before, next) in zip(segments, segments.dropFirst()) {
            // The log's start is the wall clock and its duration the monotonic one: 10 ms for their drift.
            let arrived = before.start.addingTimeInterval(before.duration - 0.01)
            XCTAssertGreaterThanOrEqual(
                next.start, arrived, "\(next.uri) asked for before \(before.uri) arrived", file: file, line: line)
        }
        XCTAssertEqual(
            server.requestLog.filter { $0.path.contains("p_0") && $0.path.hasSuffix(".ts") }.count, 6, file: file,
            line: line)
    }
}
