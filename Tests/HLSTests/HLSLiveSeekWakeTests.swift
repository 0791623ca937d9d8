import CoreMedia
import FFmpegBridge
import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import HLS

/// Real time: a seek posted while the demux thread waits at a live playlist's edge for a reload is taken (the wait
/// is woken, not left to run to the next reload), on the host clock as a player runs. Asserts that it completes and
/// what was read, never how long it took.
final class HLSLiveSeekWakeTests: XCTestCase {
    private var server: HTTPTestServer!
    private let path = "/hls/live_wake.m3u8"

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    /// Waits until `done` holds (a reader's wait count and the engine's reports offer no event here: ``Poll``).
    private func waitUntil(
        _ what: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line, _ done: () -> Bool
    ) {
        XCTAssertTrue(Poll.until(done), "timed out waiting until \(what())", file: file, line: line)
    }

    func test_seekWhileWaitingAtTheLiveEdge_completes_andReadsTheWindowAgain() throws {
        // A window that never moves by itself: the reader, at its edge, waits for a reload that changes nothing.
        let live = try HLSLiveWindow(contentsOf: Fixtures.url(.vod), window: .sliding(segments: 3), atEnd: .loop)
        live.serve(on: server, at: path)
        let source = HLSSource(url: server.url(String(path.dropFirst())))
        try source.open()
        XCTAssertTrue(source.isLive)
        XCTAssertEqual(try source.read(into: Packet()), .packet)
        let refresher = try XCTUnwrap(source.inputs.first?.refresher)
        let video = try XCTUnwrap(source.info.streams.first { $0.kind == .video })
        let videoPackets = PacketQueue(streamIndex: video.index, timeBase: video.timeBase)
        let demuxer = Demuxer(source: source, streams: [video.index: videoPackets])
        let events = Awaitable<[DemuxEvent]>([])
        demuxer.onEvent = { event in events.update { $0.append(event) } }
        demuxer.start()
        defer { demuxer.stop() }
        waitUntil("the demuxer waits at the live edge: \(refresher.readerWaitCount)") {
            refresher.readerWaitCount >= 1
        }
        let window = try XCTUnwrap(source.liveWindow)
        demuxer.seek(to: window.start)
        XCTAssertTrue(
            events.wait { $0.contains { if case .seekCompleted = $0 { true } else { false } } },
            "the seek was performed: \(events.current)")
        XCTAssertEqual(demuxer.seeksPerformed, 1)
        // After the seek the window is read again from its first segment (the queue was flushed): every picture of
        // its three segments, then the demuxer waits at the edge again.
        waitUntil("the demuxer waits at the edge again: \(refresher.readerWaitCount)") {
            refresher.readerWaitCount >= 2
        }
        var pictures = 0
        while case .packet(let packet, _) = videoPackets.get(blocking: false) {
            pictures += 1
            videoPackets.recycle(packet)
        }
        // (The MPEG-TS demuxer holds the edge segment's last pictures back until more bytes follow.)
        let facts = HLSFixture.vod.facts
        let perSegment = facts.video.frameCount / facts.videoSegmentCount
        XCTAssertTrue(
            (2 * perSegment + 1...3 * perSegment).contains(pictures), "the window's three segments: \(pictures)")
        XCTAssertFalse(events.current.contains { if case .readError = $0 { true } else { false } })
    }
}
