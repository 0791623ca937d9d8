import Foundation
import TestSupport
import XCTest

@testable import AVFoundation

/// A live item on a manual clock (`AVPlayer.sourceClock`) whose server window moves by the same clock
/// (`HLSLiveWindow.Advance.clock`): moving the clock plays, publishes segments and reloads the playlist together, in
/// no real time. `hls/vod.m3u8`'s five 2 s segments (frames 0–299), four listed at first, looping after a
/// discontinuity; playback starts three target durations from the edge, at segment 1 (frame 60), 2 s after the
/// window's start, and the window's start never overtakes it.
final class HLSLiveClockTests: XCTestCase {
    private var server: HTTPTestServer!
    private let path = "/hls/live_clock.m3u8"

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    private var playlistRequests: Int { server.requests(for: path).count }

    func test_livePlayback_onAManualClock_reloadsOncePerTargetDuration_andPlaysOnWithoutStalling() throws {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let live = try HLSLiveWindow(
            contentsOf: Fixtures.url(.vod), window: .sliding(segments: 4), atEnd: .loop, advance: .clock(v.clock))
        live.serve(on: server, at: path)
        let item = AVPlayerItem(url: server.url(String(path.dropFirst())))
        let stalls = NotificationLog(AVPlayerItem.playbackStalledNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        waitUntil("first frame", timeout: 30) { !v.frames.entries.isEmpty }
        // Item time 0 is the start of the window as loaded; playback starts three target durations from its edge:
        // 2 s into its 8 s (VOD segment 1).
        let start = item.currentTime()
        XCTAssertEqual(start.seconds, 2, accuracy: 0.1)
        let loaded = playlistRequests
        v.player.play()
        // Paused (without `canUseNetworkResourcesForLiveStreamingWhilePaused`) the reloads were suspended; playing
        // resumes them at once, the first due a target duration after the load.
        waitUntil("the first reload waited for at 2 s: \(v.clock.pendingDeadlines)", timeout: 30) {
            v.clock.pendingDeadlines == [CMTime(value: 2, timescale: 1)]
        }
        // Eight seconds of the clock, 0.1 s at a time; after each step, the reload due then has been made and the
        // picture due then shown.
        for _ in 0..<80 {
            v.clock.advance(by: CMTime(value: 1, timescale: 10))
            let now = v.clock.time
            waitUntil("the reload due at \(now.seconds) s made: \(v.clock.pendingDeadlines)", timeout: 30) {
                v.clock.pendingDeadlines.contains { $0 > now }
            }
            // The engine keeps up with the clock (item time is the clock's plus where playback started).
            waitUntil("the picture at \((start + now).seconds) s: \(v.frames.indices.suffix(3))", timeout: 30) {
                (v.frames.entries.last?.time).map { $0 + CMTime(value: 1, timescale: 30) > start + now } ?? false
            }
        }
        XCTAssertEqual(playlistRequests - loaded, 4, "one reload per target duration: at 2, 4, 6 and 8 s")
        XCTAssertEqual(v.clock.pendingDeadlines, [CMTime(value: 10, timescale: 1)])
        // The window moved by the four segments published at 2, 4, 6 and 8 s (item time 0 is the first window's
        // start: its end, 8 s, and 8 s later 16 s; its start 8 s); playback followed the clock, every picture from
        // the start's (60) to the one at 8 s, in order, none twice, none dropped.
        waitUntil("window moved", timeout: 30) {
            abs((item.seekableTimeRanges.first?.timeRangeValue.end.seconds ?? 0) - 16) < 0.1
        }
        XCTAssertEqual(item.seekableTimeRanges.first?.timeRangeValue.start.seconds ?? 0, 8, accuracy: 0.1)
        let shown = v.frames.indices.compactMap { $0 }
        XCTAssertEqual(shown, Array(60..<60 + shown.count), "\(shown)")
        XCTAssertGreaterThanOrEqual(shown.last ?? 0, 298)
        XCTAssertEqual(stalls.count, 0)
        XCTAssertEqual(v.player.timeControlStatus, .playing)
    }
}
