import Foundation
import TestSupport
import XCTest

@testable import AVFoundation

/// `canUseNetworkResourcesForLiveStreamingWhilePaused` and a paused live item the window leaves behind, on
/// `HLSLiveWindow` over `hls/vod.m3u8` (three 2 s segments listed, repeating after a discontinuity when advanced past
/// its end), counting the playlist requests in the server's log.
///
/// The player runs on a manual clock, and so do its live reloads (a target duration, 2 s, of that clock after the
/// last): time that a reload needs is moved on the clock while paused, never waited for in real time.
final class HLSLiveWhilePausedTests: XCTestCase {
    private var server: HTTPTestServer!
    private var live: HLSLiveWindow!
    private let path = "/hls/live_paused.m3u8"

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
        live = try HLSLiveWindow(contentsOf: Fixtures.url(.vod), window: .sliding(segments: 3), atEnd: .loop)
        live.serve(on: server, at: path)
    }

    override func tearDown() {
        server.stop()
    }

    private var playlistRequests: Int { server.requestLog.filter { $0.path == path }.count }

    /// `seconds` of clock time.
    private func seconds(_ seconds: Double) -> CMTime {
        CMTime(seconds: seconds, preferredTimescale: 1000)
    }

    /// A paused player (manual clock) with the live item ready and its first picture shown.
    private func pausedLive(canUseNetwork: Bool) throws -> (VirtualPlayer, AVPlayerItem) {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let item = AVPlayerItem(url: server.url(String(path.dropFirst())))
        item.canUseNetworkResourcesForLiveStreamingWhilePaused = canUseNetwork
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        waitUntil("first frame", timeout: 30) { !v.frames.entries.isEmpty }
        XCTAssertEqual(v.player.timeControlStatus, .paused)
        return (v, item)
    }

    func test_byDefault_aPausedLiveItemReloadsNoPlaylist() throws {
        let (v, item) = try pausedLive(canUseNetwork: false)
        XCTAssertFalse(item.canUseNetworkResourcesForLiveStreamingWhilePaused, "Apple's default")
        // Reloads suspended: the refresher waits for no time of the clock (playing, it would wait for 2 s).
        waitUntil("reloads suspended: \(v.clock.pendingDeadlines)", timeout: 30) { v.clock.pendingDeadlines.isEmpty }
        let before = playlistRequests
        live.advance(segments: 1)
        // Two target durations of the clock: a reload would have been due (after one) and repeated.
        v.clock.advance(by: seconds(4))
        spinMainRunLoop(0.1)
        XCTAssertEqual(playlistRequests, before, "no playlist request while paused")
        XCTAssertTrue(v.clock.pendingDeadlines.isEmpty, "\(v.clock.pendingDeadlines)")
        XCTAssertEqual(item.seekableTimeRanges.first?.timeRangeValue.end.seconds ?? 0, 6, accuracy: 0.1)
        // Playing again reloads at once (the reload is overdue), without the clock moving.
        v.player.play()
        waitUntil("reload after play", timeout: 30) { self.playlistRequests == before + 1 }
    }

    func test_allowed_aPausedLiveItemKeepsReloading_andItsWindowMoves() throws {
        let (v, item) = try pausedLive(canUseNetwork: true)
        waitUntil("the reload waited for at 2 s: \(v.clock.pendingDeadlines)", timeout: 30) {
            v.clock.pendingDeadlines == [self.seconds(2)]
        }
        let before = playlistRequests
        live.advance(segments: 1)
        // One target duration of the clock: one reload, which finds the new segment (the next one due at 4 s).
        v.clock.advance(by: seconds(2))
        waitUntil("one reload while paused: \(playlistRequests - before)", timeout: 30) {
            self.playlistRequests == before + 1 && v.clock.pendingDeadlines == [self.seconds(4)]
        }
        waitUntil("window moved", timeout: 30) {
            abs((item.seekableTimeRanges.first?.timeRangeValue.end.seconds ?? 0) - 8) < 0.1
        }
        XCTAssertEqual(playlistRequests, before + 1)
        XCTAssertEqual(v.player.timeControlStatus, .paused)
    }

    /// Plays a second, pauses, lets the window slide past the playhead (three segments on: VOD 3, 4 and 0 are
    /// listed), plays again: the playhead goes to the window's start, VOD segment 3 (frames 180…), not on through
    /// what it had buffered.
    private func assertResumesAtTheWindowsStart(canUseNetwork: Bool) throws {
        let (v, item) = try pausedLive(canUseNetwork: canUseNetwork)
        v.player.play()
        for _ in 0..<10 {
            v.clock.advance(by: CMTime(value: 1, timescale: 10))
            spinMainRunLoop(0.01)
        }
        v.player.pause()
        waitUntil("paused", timeout: 10) { v.player.timeControlStatus == .paused }
        // The engine has applied the pause before the clock moves on (the public status is set at once): a step
        // still under way when the clock moves would otherwise present the buffered pictures up to the new time.
        let engine = v.player.engineCreatingIfNeeded()
        waitUntil("the engine applied the pause", timeout: 10) { engine.hasAppliedRateChanges }
        // A loaded engine may still be catching up with the clock when the pause arrives: it then presents the
        // pictures up to the paused time. The picture paused on is the one at that time.
        let pausedTime = v.player.currentTime()
        waitUntil("the paused picture", timeout: 10) {
            (v.frames.entries.last?.time).map { $0 + CMTime(value: 1, timescale: 30) > pausedTime } ?? false
        }
        let pausedAt = try XCTUnwrap(v.frames.indices.last ?? nil)
        XCTAssertLessThan(pausedAt, 60)
        live.advance(segments: 3)
        // The clock moves past the next reload (due at 2 s) while paused: the playhead stays, a reload is due.
        v.clock.advance(by: seconds(2))
        if canUseNetwork {
            waitUntil("window moved while paused", timeout: 30) {
                (item.seekableTimeRanges.first?.timeRangeValue.start.seconds ?? 0) > 5
            }
        }
        // (The clock stands still from here: the playhead can only move by the seek to the window's start, which
        // shows its picture; without permission the window moves when playing reloads the overdue playlist.)
        v.player.play()
        waitUntil("at the window's start", timeout: 30) {
            (v.frames.indices.last ?? nil).map { $0 >= 180 } ?? false
        }
        let window = try XCTUnwrap(item.seekableTimeRanges.first?.timeRangeValue)
        XCTAssertGreaterThanOrEqual(item.currentTime().seconds, window.start.seconds - 0.05)
        // From where it paused to the window's start: none of the buffered pictures in between but the one shown
        // as playing began.
        let after = Array(v.frames.indices.compactMap { $0 }.drop { $0 <= pausedAt })
        XCTAssertEqual(after.first { $0 > pausedAt + 1 }, 180, "\(after.prefix(10))")
        XCTAssertLessThanOrEqual(after.prefix { $0 < 180 }.count, 1, "\(after.prefix(10))")
    }

    func test_fallingBehindTheWindowWhilePaused_resumesAtItsStart() throws {
        try assertResumesAtTheWindowsStart(canUseNetwork: false)
    }

    func test_fallingBehindTheWindowWhilePaused_withNetworkUse_resumesAtItsStart() throws {
        try assertResumesAtTheWindowsStart(canUseNetwork: true)
    }
}

/// A live playlist that stops updating (no new segment, no `EXT-X-ENDLIST`): once the player has read what it lists
/// and at least two reloads in a row have found it unchanged for longer than 1.5 target durations (as Apple's players
/// give up; two, so that one late reload on a loaded machine is not enough), the item
/// fails with an error saying so, rather than waiting for ever.
///
/// On a manual clock: the reloads are due at 2 s (a target duration after the load), then every 1 s while nothing
/// changes; the one at 4 s finds it unchanged for longer than 3 s.
final class HLSLivePlaylistStoppedTests: XCTestCase {
    func test_aLivePlaylistThatStopsUpdating_failsTheItem_sayingSo() throws {
        let server = try HTTPTestServer(root: try Fixtures.directory())
        defer { server.stop() }
        let live = try HLSLiveWindow(contentsOf: Fixtures.url(.vod), window: .sliding(segments: 3), atEnd: .stall)
        live.advance(segments: 100)  // every segment published: the playlist stays live and never changes again
        let path = "/hls/live_stopped.m3u8"
        live.serve(on: server, at: path)
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let item = AVPlayerItem(url: server.url(String(path.dropFirst())))
        let failures = NotificationLog(AVPlayerItem.failedToPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("first frame", timeout: 30) { !v.frames.entries.isEmpty }
        waitUntil("the first reload waited for at 2 s: \(v.clock.pendingDeadlines)", timeout: 30) {
            v.clock.pendingDeadlines == [CMTime(value: 2, timescale: 1)]
        }
        let loaded = server.requestLog.filter { $0.path == path }.count
        // The clock moves 0.5 s at a time (playing on, with 6 s listed); each time, the reloads due are made.
        var reloads: [Double] = []
        while item.status != .failed && v.clock.time.seconds < 10 {
            v.clock.advance(by: CMTime(value: 1, timescale: 2))
            let now = v.clock.time
            waitUntil("the reloads due at \(now.seconds) s made", timeout: 30) {
                v.clock.pendingDeadlines.contains { $0 > now } || item.status == .failed
            }
            let made = server.requestLog.filter { $0.path == path }.count - loaded
            if made > reloads.count { reloads.append(now.seconds) }
            if made >= 3 { waitUntil("the item failed", timeout: 30) { item.status == .failed } }
        }
        let error = try XCTUnwrap(item.error as NSError?)
        XCTAssertEqual(error.domain, AVFoundationErrorDomain)
        XCTAssertTrue(error.localizedFailureReason?.contains("has not changed for 4.0 s") ?? false, "\(error)")
        XCTAssertLessThanOrEqual(failures.count, 1)
        // It played what was listed first, and reloaded at 2, 3 and 4 s of the clock before giving up.
        XCTAssertFalse(v.frames.entries.isEmpty)
        XCTAssertEqual(reloads, [2, 3, 4])
    }
}
