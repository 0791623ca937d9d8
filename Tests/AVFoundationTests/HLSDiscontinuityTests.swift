import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// `EXT-X-DISCONTINUITY` played through: `HLSDiscontinuityFixture` splices frames 180–299, encoded separately at
/// another size with timestamps restarting, after frames 0–179; the engine must see one timeline that follows the
/// playlist's durations.
final class HLSDiscontinuityTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    private var url: URL { server.url(HLSDiscontinuityFixture.path) }

    func test_discontinuity_playsThrough_everyFrameOnce_atThePlaylistsTimes() throws {
        let run = play(url) { item in
            XCTAssertEqual(item.duration.seconds, HLSDiscontinuityFixture.duration, accuracy: 0.001)
        }
        XCTAssertEqual(run.ends.count, 1)
        XCTAssertNil(run.item.error)
        let entries = run.v.frames.entries
        XCTAssertEqual(entries.map(\.index), (0..<HLSDiscontinuityFixture.frameCount).map(Optional.some))
        // Frame k at the first frame's time plus k / 30 on both sides of the splice: the second part's restarted
        // timestamps were moved to where the first part's three 2 s segments end.
        let first = try XCTUnwrap(entries.first).time.seconds
        for entry in entries {
            guard let index = entry.index else { continue }
            XCTAssertEqual(entry.time.seconds, first + Double(index) / 30, accuracy: 0.002, "frame \(index)")
        }
        // The sound went on across the splice: about 10 s of it.
        XCTAssertGreaterThan(run.v.audio.frameCount, 48_000 * 9)
    }

    func test_currentTime_neverGoesBack_andCrossesTheSpliceOnSchedule() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: url)
        let times = Locked<[Double]>([])
        let token = v.player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 4), queue: .main) { t in
            times.withLock { $0.append(t.seconds) }
        }
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        v.player.play()
        waitUntil("end", timeout: 60) { ends.count == 1 || item.status == .failed }
        settle(v.player)
        v.player.removeTimeObserver(token)
        let fired = times.withLock { $0 }
        // One call per quarter second crossed, from 0 to the end at 10 s, never going back.
        XCTAssertEqual(fired, fired.sorted(), "\(fired)")
        XCTAssertEqual(fired.first ?? -1, 0, accuracy: 1e-9)
        XCTAssertEqual(fired.last ?? 0, HLSDiscontinuityFixture.duration, accuracy: 0.05)
        XCTAssertGreaterThanOrEqual(fired.count, 40, "\(fired)")
        // After the end, the last picture is the last frame's.
        XCTAssertEqual(v.frames.indices.last ?? nil, HLSDiscontinuityFixture.frameCount - 1)
    }

    func test_exactSeeks_onEitherSideOfTheDiscontinuity_landOnTheirFrame() throws {
        // Into the second part before it was ever read (its offset comes from its own start), back into the first,
        // and across the splice again.
        try assertExactSeeksLand(on: url, at: [7.5, 2.5, 9.9, 6.0, 5.99, 0.5, 8.0])
    }

    func test_liveLoop_playsOnAcrossTheDiscontinuityBeforeEachRepeat() throws {
        // An event playlist over `vod.m3u8` that repeats it after an EXT-X-DISCONTINUITY (timestamps restart):
        // seven segments listed, so playback starts at the fifth (6 s from the edge) and reads into the repeat.
        let live = try HLSLiveWindow(
            contentsOf: Fixtures.url(.vod), window: .event, initialSegments: 7, atEnd: .loop)
        live.serve(on: server, at: "/hls/loop.m3u8")
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: server.url("hls/loop.m3u8"))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        v.player.play()
        waitUntil("into the repeat", timeout: 30) { v.frames.indices.contains(45) || item.status == .failed }
        v.player.pause()
        XCTAssertNil(item.error)
        let entries = v.frames.entries
        let indices = entries.compactMap(\.index)
        XCTAssertEqual(Array(indices.prefix(61)), Array(240..<300) + [0], "\(indices)")
        XCTAssertEqual(Array(indices.dropFirst(60).prefix(46)), Array(0...45))
        // One timeline: every picture 1/30 s after the one before, across the splice too.
        for (previous, next) in zip(entries, entries.dropFirst()) {
            XCTAssertEqual(next.time.seconds - previous.time.seconds, 1.0 / 30, accuracy: 0.002, "\(next)")
        }
    }
}
