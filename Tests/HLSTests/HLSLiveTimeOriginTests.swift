import CoreMedia
import FFmpegBridge
import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import HLS

/// Where an HLS source puts item time zero (`MediaInfo.startTimeMicroseconds`): for a live or EVENT playlist the
/// start of its window as loaded (Apple's: `seekableTimeRanges` starts at zero, playback a few target durations
/// into it), for VOD the first segment read. On `HLSLiveWindow` over `hls/vod.m3u8` (five 2 s segments, muxed
/// H.264 + AAC).
final class HLSLiveTimeOriginTests: XCTestCase {
    private var server: HTTPTestServer!
    private var sources: [HLSSource] = []

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        for source in sources { source.interrupt() }
        server.stop()
    }

    /// Opens `path` and reads its first video packet; returns the source and that packet's time (microseconds).
    private func open(_ path: String) throws -> (HLSSource, Int64) {
        let source = HLSSource(url: server.url(path))
        sources.append(source)
        try source.open()
        let video = try XCTUnwrap(source.info.streams.first { $0.kind == .video })
        let packet = Packet()
        while try source.read(into: packet) == .packet {
            guard packet.streamIndex == video.index, let pts = packet.pts else { continue }
            return (source, Rational.rescale(pts, from: video.timeBase, to: Rational(1, 1_000_000)))
        }
        throw XCTSkip("no video packet")
    }

    func test_live_timeZeroIsTheWindowsStart_andPlaybackStartsThreeTargetDurationsFromTheEdge() throws {
        for window in [HLSLiveWindow.Window.sliding(segments: 5), .event] {
            let live = try HLSLiveWindow(
                contentsOf: Fixtures.url(.vod), window: window, initialSegments: 5, atEnd: .stall)
            live.serve(on: server, at: "/hls/live_origin.m3u8")
            let (source, firstPicture) = try open("hls/live_origin.m3u8")
            XCTAssertTrue(source.isLive, "\(window)")
            let zero = try XCTUnwrap(source.info.startTimeMicroseconds)
            let listed = try XCTUnwrap(source.liveWindow, "\(window)")
            XCTAssertEqual(listed.start, CMTime(microseconds: zero), "\(window)")
            XCTAssertEqual(listed.duration.seconds, 10, accuracy: 0.001, "\(window)")
            // 10 s listed: reading starts 6 s from the edge, with segment 2, 4 s into the window.
            XCTAssertEqual(Double(firstPicture - zero) / 1e6, 4, accuracy: 0.1, "\(window)")
            source.interrupt()
        }
    }

    func test_vod_timeZeroIsTheFirstSegmentRead() throws {
        let (source, firstPicture) = try open(HLSFixture.vod.rawValue)
        XCTAssertFalse(source.isLive)
        let zero = try XCTUnwrap(source.info.startTimeMicroseconds)
        XCTAssertNil(source.liveWindow)
        // The first picture is at the start of the first segment (audio may start a little before it).
        XCTAssertEqual(Double(firstPicture - zero) / 1e6, 0, accuracy: 0.1)
    }
}
