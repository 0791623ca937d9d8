import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// The live offsets on `HLSLiveWindow` over `hls/vod.m3u8` (ten 2 s segments' worth: five listed, target duration
/// 2 s, no end), played on a virtual clock.
final class HLSLiveOffsetTests: XCTestCase {
    private var server: HTTPTestServer!
    private var live: HLSLiveWindow!
    private let path = "hls/live_offset.m3u8"

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
        // Five segments listed (0–4, 10 s); the window does not move unless a test moves it.
        live = try HLSLiveWindow(contentsOf: Fixtures.url(.vod), window: .sliding(segments: 5), atEnd: .stall)
        live.serve(on: server, at: "/" + path)
    }

    override func tearDown() {
        server.stop()
    }

    /// A player with the live item, ready, with its first picture shown; `configure` runs before the item is given
    /// to the player.
    private func readyLive(
        mode: VirtualClock.Mode = .manual, configure: (AVPlayerItem) -> Void = { _ in }
    ) throws -> (VirtualPlayer, AVPlayerItem) {
        let v = VirtualPlayer(mode: mode, captureAudio: false)
        let item = AVPlayerItem(url: server.url(path))
        configure(item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        waitUntil("first frame", timeout: 30) { !v.frames.entries.isEmpty }
        return (v, item)
    }

    func test_recommendedOffset_isThreeTargetDurations_postedWhenReady_andConfiguredFollowsIt() throws {
        let changes = Locked<[CMTime]>([])
        let token = NotificationCenter.default.addObserver(
            forName: AVPlayerItem.recommendedTimeOffsetFromLiveDidChangeNotification, object: nil, queue: nil
        ) { n in
            if let item = n.object as? AVPlayerItem {
                changes.withLock { $0.append(item.recommendedTimeOffsetFromLive) }
            }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let (v, item) = try readyLive()
        XCTAssertEqual(item.recommendedTimeOffsetFromLive, CMTime(seconds: 6, preferredTimescale: 1000))
        XCTAssertEqual(changes.withLock { $0 }, [CMTime(seconds: 6, preferredTimescale: 1000)])
        XCTAssertEqual(
            item.configuredTimeOffsetFromLive, item.recommendedTimeOffsetFromLive, "not set: the recommended")
        XCTAssertFalse(item.automaticallyPreservesTimeOffsetFromLive)
        // Three target durations from the edge of 0–10 s: segment 2, frame 60 × 2.
        XCTAssertEqual(v.frames.indices.first ?? nil, 120)
    }

    func test_vod_hasNoLiveOffsets() throws {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let item = AVPlayerItem(url: server.url(HLSFixture.vod.rawValue))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay)
        XCTAssertFalse(item.recommendedTimeOffsetFromLive.isValid)
        item.configuredTimeOffsetFromLive = CMTime(seconds: 4, preferredTimescale: 1)
        XCTAssertFalse(item.configuredTimeOffsetFromLive.isValid)
    }

    func test_configuredOffset_choosesWherePlaybackStarts() throws {
        // 3 s before the edge at 10 s: the segment holding 7 s, the fourth (frames 180…); none: the last.
        for (offset, frame) in [(3.0, 180), (0.0, 240), (9.5, 0)] {
            let (v, item) = try readyLive { item in
                item.configuredTimeOffsetFromLive = CMTime(seconds: offset, preferredTimescale: 1000)
            }
            XCTAssertEqual(v.frames.indices.first ?? nil, frame, "offset \(offset)")
            // Item time 0 is the window's start: playback starts at the segment's place in it (2 s a segment).
            XCTAssertEqual(item.currentTime().seconds, Double(frame / 30), accuracy: 0.1, "offset \(offset)")
            XCTAssertEqual(item.configuredTimeOffsetFromLive, CMTime(seconds: offset, preferredTimescale: 1000))
            v.player.replaceCurrentItem(with: nil)
        }
    }

    func test_seekToPositiveInfinity_landsAtTheConfiguredOffsetFromTheEdge() throws {
        let (v, item) = try readyLive()
        let first = try XCTUnwrap(v.frames.entries.first)
        // Item time 0 is the window's start (segment 0); playback started at segment 2, 4 s in; the window ends
        // with segment 4, at 10 s.
        XCTAssertEqual(first.time.seconds, 4, accuracy: 0.1)
        let window = try XCTUnwrap(item.seekableTimeRanges.first?.timeRangeValue)
        XCTAssertEqual(window.start.seconds, 0, accuracy: 0.001)
        XCTAssertEqual(window.end.seconds, 10, accuracy: 0.1)
        item.configuredTimeOffsetFromLive = CMTime(seconds: 4, preferredTimescale: 1)
        let done = Locked<Bool?>(nil)
        item.seek(to: .positiveInfinity, toleranceBefore: .zero, toleranceAfter: .zero) { ok in
            done.withLock { $0 = ok }
        }
        waitUntil("seek", timeout: 30) { done.withLock { $0 } != nil }
        XCTAssertEqual(done.withLock { $0 }, true)
        let target = window.end.seconds - 4
        XCTAssertEqual(item.currentTime().seconds, target, accuracy: 0.001)
        let expected = 120 + Int(((target - first.time.seconds) * 30).rounded(.down))
        XCTAssertEqual(v.frames.indices.last ?? nil, expected)
    }

    /// Plays a looping live window (five segments listed) in real time (stalls are real-time events), from 2 s
    /// before its edge, until it stalls there; then publishes three more segments (the loop's 0–2 after a
    /// discontinuity) and returns once playback goes on, with the item's time when it did (seen by an observer of
    /// `timeControlStatus`, as an app sees it).
    private func stallAtTheEdgeAndRecover(
        preserving: Bool
    ) throws -> (
        player: AVPlayer, frames: FrameRecorder, item: AVPlayerItem, offsetAtStall: Double, recommended: [CMTime],
        resumedAt: CMTime
    ) {
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", "/dev/null", 1)
        defer {
            unsetenv("SDL_AUDIODRIVER")
            unsetenv("SDL_DISKAUDIOFILE")
        }
        let looping = try HLSLiveWindow(contentsOf: Fixtures.url(.vod), window: .sliding(segments: 5), atEnd: .loop)
        looping.serve(on: server, at: "/hls/live_loop.m3u8")
        let recommended = Locked<[CMTime]>([])
        let player = AVPlayer()
        let frames = FrameRecorder()
        player.engineCreatingIfNeeded().addVideoSink(frames)
        let item = AVPlayerItem(url: server.url("hls/live_loop.m3u8"))
        item.automaticallyPreservesTimeOffsetFromLive = preserving
        item.configuredTimeOffsetFromLive = CMTime(seconds: 2, preferredTimescale: 1)
        let token = NotificationCenter.default.addObserver(
            forName: AVPlayerItem.recommendedTimeOffsetFromLiveDidChangeNotification, object: item, queue: nil
        ) { _ in recommended.withLock { $0.append(item.recommendedTimeOffsetFromLive) } }
        defer { NotificationCenter.default.removeObserver(token) }
        let stalls = NotificationLog(AVPlayerItem.playbackStalledNotification, object: item)
        player.replaceCurrentItem(with: item)
        player.play()
        waitUntil("stall", timeout: 30) { stalls.count >= 1 }
        waitUntil("waiting", timeout: 10) { player.timeControlStatus == .waitingToPlayAtSpecifiedRate }
        let window = try XCTUnwrap(item.seekableTimeRanges.first?.timeRangeValue)
        let offset = window.end.seconds - item.currentTime().seconds
        let resumedAt = Locked<CMTime?>(nil)
        let observation = player.observe(\.timeControlStatus, options: [.new]) { player, change in
            guard change.newValue == .playing else { return }
            let now = item.currentTime()
            resumedAt.withLock { $0 = $0 ?? now }
        }
        defer { observation.invalidate() }
        looping.advance(segments: 3)
        // (The observer hears the change on the main queue, after the property reads `.playing`.)
        waitUntil("playing again", timeout: 30) { resumedAt.withLock { $0 } != nil }
        let resumed = try XCTUnwrap(resumedAt.withLock { $0 })
        return (player, frames, item, offset, recommended.withLock { $0 }, resumed)
    }

    func test_aStall_raisesTheRecommendedOffset_andWithoutPreservingPlaybackGoesOnWhereItWas() throws {
        let run = try stallAtTheEdgeAndRecover(preserving: false)
        defer { run.player.replaceCurrentItem(with: nil) }
        // Three target durations, then one more for the stall.
        XCTAssertEqual(run.recommended.map(\.seconds), [6, 8])
        XCTAssertLessThan(run.offsetAtStall, 1, "stalled at the edge")
        // The next pictures are the loop's first (VOD frame 0 on), right after the last one shown before.
        waitUntil(
            "the loop's pictures: last \(run.frames.indices.suffix(12)), \(run.player.timeControlStatus.rawValue) "
                + "\(run.player.reasonForWaitingToPlay?.rawValue ?? "-") at \(run.item.currentTime().seconds) s in "
                + "\(run.item.seekableTimeRanges.map(\.timeRangeValue)), \(String(describing: run.item.error))",
            timeout: 30
        ) { run.frames.indices.contains(10) }
        let indices = run.frames.indices.compactMap { $0 }
        let loopStart = try XCTUnwrap(indices.firstIndex { $0 < 20 })
        XCTAssertGreaterThan(indices[max(0, loopStart - 1)], 280, "\(indices.suffix(40))")
    }

    func test_automaticallyPreservingTheOffset_seeksForwardAfterTheStall() throws {
        let run = try stallAtTheEdgeAndRecover(preserving: true)
        defer { run.player.replaceCurrentItem(with: nil) }
        let window = try XCTUnwrap(run.item.seekableTimeRanges.first?.timeRangeValue)
        // Six more seconds listed: the stall's end seeks to the offset from the new edge that the playhead had when
        // the stall began (it began at the edge: the offset kept is one target duration, so that something is listed
        // there), 4 s ahead of where it stalled. The seek is made before playback goes on: an app that hears
        // "playing" finds the item there already.
        XCTAssertEqual(
            window.end.seconds - run.resumedAt.seconds, max(run.offsetAtStall, 2), accuracy: 0.5,
            "resumed at \(run.resumedAt.seconds) s in \(window)")
        // The first picture after the stall is the one at that time, where the loop's third segment (VOD frames
        // 120–179) begins; the loop's first pictures are never shown. (Pictures before the stall: VOD 239–299.)
        waitUntil("the first picture after the stall: last pictures \(run.frames.indices.suffix(20))", timeout: 30) {
            run.frames.indices.contains { ($0 ?? 300) < 200 }
        }
        let afterStall = run.frames.indices.compactMap { $0 }.drop { $0 >= 200 }
        XCTAssertEqual(afterStall.first.map { (115..<180).contains($0) }, true, "\(afterStall.prefix(20))")
        XCTAssertFalse(
            afterStall.contains { $0 < 100 }, "the loop's first segments were skipped: \(afterStall.prefix(20))")
    }

    /// A live playlist that stops changing fails the item once it has not changed for one and a half target
    /// durations (as Apple's player: "Playlist unchanged for longer than 1.5 * target duration"), also while media
    /// already buffered plays: playback stops there, and the item's time with it.
    func test_aPlaylistThatStopsChanging_failsTheItem_whilePlaying_andItsTimeStops() throws {
        let run = try stallAtTheEdgeAndRecover(preserving: false)
        defer { run.player.replaceCurrentItem(with: nil) }
        // Playback goes on where it stalled, with six seconds listed after it and nothing after them: the playlist's
        // last change is 3 s old while they play.
        waitUntil("failed", timeout: 30) { run.item.status == .failed }
        let error = try XCTUnwrap(run.item.error as? AVError)
        XCTAssertEqual(error.code, .failedToLoadMediaData)
        XCTAssertTrue(
            ((error as NSError).localizedFailureReason ?? "").contains("has not changed"), "\(error as NSError)")
        let window = try XCTUnwrap(run.item.seekableTimeRanges.first?.timeRangeValue)
        let stoppedAt = run.item.currentTime()
        XCTAssertLessThan(stoppedAt.seconds, window.end.seconds, "the failure came before the listed media ended")
        spinMainRunLoop(0.5)
        XCTAssertEqual(run.item.currentTime().seconds, stoppedAt.seconds, accuracy: 0.001)
    }

    func test_aCopy_keepsTheLiveSettings() {
        let item = AVPlayerItem(url: server.url(path))
        item.configuredTimeOffsetFromLive = CMTime(seconds: 5, preferredTimescale: 1)
        item.automaticallyPreservesTimeOffsetFromLive = true
        item.canUseNetworkResourcesForLiveStreamingWhilePaused = true
        let copy = item.copy() as! AVPlayerItem
        XCTAssertEqual(copy.configuredTimeOffsetFromLive, CMTime(seconds: 5, preferredTimescale: 1))
        XCTAssertTrue(copy.automaticallyPreservesTimeOffsetFromLive)
        XCTAssertTrue(copy.canUseNetworkResourcesForLiveStreamingWhilePaused)
    }
}
