import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Seeks and steps against h264_aac.mp4 (30 fps, keyframes every 60 frames = 2 s), reading the
/// index drawn in the frame that is shown.
final class AVPlayerSeekTests: XCTestCase {
    private func readyPlayer(_ f: Fixture = .h264AAC) throws -> (VirtualPlayer, AVPlayerItem) {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(f))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        waitUntil("first frame") { v.frames.entries.count >= 1 }
        return (v, item)
    }

    private func seek(
        _ item: AVPlayerItem, _ seconds: Double, before: CMTime = .positiveInfinity, after: CMTime = .positiveInfinity
    ) -> Bool {
        let done = Locked<Bool?>(nil)
        item.seek(
            to: CMTime(seconds: seconds, preferredTimescale: 600), toleranceBefore: before, toleranceAfter: after
        ) { ok in done.withLock { $0 = ok } }
        waitUntil("seek \(seconds)") { done.withLock { $0 } != nil }
        return done.withLock { $0 } ?? false
    }

    func test_exactSeek_showsTheFrameWhoseIntervalContainsTheTarget() throws {
        let (v, item) = try readyPlayer()
        for (seconds, frame) in [(3.3, 99), (7.01, 210), (0.05, 1), (9.99, 299)] {
            XCTAssertTrue(seek(item, seconds, before: .zero, after: .zero))
            XCTAssertEqual(item.currentTime(), CMTime(seconds: seconds, preferredTimescale: 600))
            XCTAssertEqual(v.frames.indices.last ?? nil, frame, "at \(seconds) s")
        }
    }

    func test_defaultSeek_landsOnTheKeyframeWithoutDecodingToTheTarget() throws {
        let (v, item) = try readyPlayer()
        XCTAssertTrue(seek(item, 3.3))
        XCTAssertEqual(item.currentTime(), CMTime(value: 2, timescale: 1))
        XCTAssertEqual(v.frames.indices.last ?? nil, 60)
    }

    func test_windowSeek_usesAKeyframeInsideTheWindow_elseDecodesToTheTarget() throws {
        let (v, item) = try readyPlayer()
        // 3.9 s with [−0.1, +0.2]: the keyframe at 4 s (frame 120) is inside.
        XCTAssertTrue(seek(item, 3.9, before: CMTime(value: 1, timescale: 10), after: CMTime(value: 2, timescale: 10)))
        XCTAssertEqual(item.currentTime(), CMTime(value: 4, timescale: 1))
        XCTAssertEqual(v.frames.indices.last ?? nil, 120)
        // 2.1 s with [−0.2, +0.1]: the keyframe at 2 s (frame 60) is inside.
        XCTAssertTrue(seek(item, 2.1, before: CMTime(value: 2, timescale: 10), after: CMTime(value: 1, timescale: 10)))
        XCTAssertEqual(item.currentTime(), CMTime(value: 2, timescale: 1))
        XCTAssertEqual(v.frames.indices.last ?? nil, 60)
        // 5 s with ±0.1: no keyframe inside, so it decodes to the target (frame 150).
        XCTAssertTrue(seek(item, 5, before: CMTime(value: 1, timescale: 10), after: CMTime(value: 1, timescale: 10)))
        XCTAssertEqual(item.currentTime(), CMTime(value: 5, timescale: 1))
        XCTAssertEqual(v.frames.indices.last ?? nil, 150)
    }

    func test_seekOutsideSeekableRange_failsAndTheTimeStays() throws {
        let (v, item) = try readyPlayer()
        XCTAssertTrue(seek(item, 2, before: .zero, after: .zero))
        XCTAssertFalse(seek(item, 60))
        XCTAssertEqual(item.currentTime(), CMTime(value: 2, timescale: 1))
        withExtendedLifetime(v) {}
    }

    func test_laterSeekWins_earlierCompletesFalse_exactlyOnceEach() throws {
        let (v, item) = try readyPlayer()
        let results = Locked<[Int: [Bool]]>([:])
        let before = item.session?.seeksPerformed ?? 0
        for i in 0..<100 {
            item.seek(to: CMTime(value: Int64(i), timescale: 20), toleranceBefore: .zero, toleranceAfter: .zero) { ok in
                results.withLock { $0[i, default: []].append(ok) }
            }
        }
        waitUntil("all completions") { results.withLock { $0.count } == 100 }
        settle(v.player)
        let r = results.withLock { $0 }
        XCTAssertTrue(r.values.allSatisfy { $0.count == 1 }, "each completion once")
        XCTAssertEqual(r[99], [true], "the last seek wins")
        // A seek the engine finished before it saw the next one (a fast seek can: the picture at 0 is on screen)
        // completes `true`; the others were interrupted. Only seeks that were performed can have finished.
        let performedTrue = r.filter { $0.key < 99 && $0.value == [true] }.count
        XCTAssertLessThanOrEqual(performedTrue + 1, max(1, (item.session?.seeksPerformed ?? 0) - before + 1))
        XCTAssertEqual(item.currentTime(), CMTime(value: 99, timescale: 20))
        XCTAssertEqual(v.frames.indices.last ?? nil, 148)  // 4.95 s × 30
        let performed = (item.session?.seeksPerformed ?? 0) - before
        XCTAssertLessThanOrEqual(performed, 10, "a burst of 100 seeks costs little more than the last one")
    }

    func test_seekWithNoItem_completesFalseAtOnce() {
        let player = AVPlayer()
        let called = Locked<Bool?>(nil)
        player.seek(to: CMTime(value: 1, timescale: 1)) { ok in called.withLock { $0 = ok } }
        XCTAssertEqual(called.withLock { $0 }, false)
    }

    func test_stepForwardAndBackward_exactFrames() throws {
        let (v, item) = try readyPlayer()
        XCTAssertTrue(item.canStepForward)
        XCTAssertTrue(item.canStepBackward)
        item.step(byCount: 3)
        waitUntil("frame 3") { v.frames.indices.last == 3 }
        XCTAssertEqual(item.currentTime(), CMTime(value: 3, timescale: 30))
        item.step(byCount: 1)
        waitUntil("frame 4") { v.frames.indices.last == 4 }
        item.step(byCount: -2)
        waitUntil("frame 2") { v.frames.indices.last == 2 }
        XCTAssertEqual(item.currentTime().seconds, 2.0 / 30, accuracy: 1e-9)
        item.step(byCount: -10)  // clamped at the start
        waitUntil("frame 0") { v.frames.indices.last == 0 }
        XCTAssertEqual(item.currentTime(), .zero)
        // Across a keyframe: from 1.95 s (frame 58) three forward, then back over the GOP boundary.
        XCTAssertTrue(seek(item, 58.0 / 30, before: .zero, after: .zero))
        item.step(byCount: 3)
        waitUntil("frame 61") { v.frames.indices.last == 61 }
        item.step(byCount: -5)
        waitUntil("frame 56") { v.frames.indices.last == 56 }
    }

    func test_dateSeeks_withoutADateMapping() throws {
        let (v, item) = try readyPlayer()
        XCTAssertNil(item.currentDate())
        XCTAssertNil(v.player.currentDate())
        let done = Locked<Bool?>(nil)
        XCTAssertFalse(item.seek(to: Date()) { ok in done.withLock { $0 = ok } })
        XCTAssertEqual(done.withLock { $0 }, false)
    }

    func test_200RandomExactSeeks_eachLandOnTheFrameContainingTheTarget() throws {
        let (v, item) = try readyPlayer()
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<200 {
            // A deterministic generator (splitmix64); targets on a 1/600 s grid over the 10 s clip.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            let ticks = Int64((z ^ (z >> 31)) % 6000)
            let target = CMTime(value: ticks, timescale: 600)
            let done = Locked<Bool?>(nil)
            item.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero) { ok in done.withLock { $0 = ok } }
            waitUntil("seek to \(ticks)/600") { done.withLock { $0 } != nil }
            XCTAssertEqual(done.withLock { $0 }, true)
            XCTAssertEqual(item.currentTime(), target)
            // Frame k shows over [k/30, (k+1)/30): the one containing ticks/600 s is ticks / 20.
            XCTAssertEqual(v.frames.indices.last ?? nil, Int(ticks / 20), "at \(ticks)/600 s")
        }
    }

    func test_stepTenAcrossGOPBoundaries_bothWays() throws {
        let (v, item) = try readyPlayer()
        XCTAssertTrue(seek(item, 55.0 / 30, before: .zero, after: .zero))
        XCTAssertEqual(v.frames.indices.last ?? nil, 55)
        item.step(byCount: 10)  // over the keyframe at frame 60
        waitUntil("frame 65") { v.frames.indices.last == 65 }
        XCTAssertEqual(item.currentTime(), CMTime(value: 65, timescale: 30))
        item.step(byCount: -10)  // back over it: decodes from the keyframe at frame 0
        waitUntil("frame 55") { v.frames.indices.last == 55 }
        item.step(byCount: 10)
        item.step(byCount: 10)  // two requests before the engine gets to them add up
        waitUntil("frame 75") { v.frames.indices.last == 75 }
        item.step(byCount: -1)
        waitUntil("frame 74") { v.frames.indices.last == 74 }
    }

    func test_scrubBurst_decodesAboutAsMuchAsItsLastSeek() throws {
        // The decode work (pictures decoded, including those dropped before an exact target) of one exact seek to
        // 9.5 s, then of a burst of 100 exact seeks ending there: stale targets are dropped, not decoded to.
        func work(_ item: AVPlayerItem) -> Int {
            (item.session?.videoFramesDecoded ?? 0) + (item.session?.videoFramesDropped ?? 0)
        }
        let (keepSingle, single) = try readyPlayer()
        XCTAssertTrue(seek(single, 1, before: .zero, after: .zero))
        var before = work(single)
        XCTAssertTrue(seek(single, 9.5, before: .zero, after: .zero))
        let one = work(single) - before

        let (keepBurst, burst) = try readyPlayer()
        XCTAssertTrue(seek(burst, 1, before: .zero, after: .zero))
        before = work(burst)
        let results = Locked<[Bool]>([])
        for i in 0..<100 {
            // A slider dragged from 1 s to 9.5 s.
            let target = CMTime(value: Int64(60 + i * (570 - 60) / 99), timescale: 60)
            burst.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero) { ok in
                results.withLock { $0.append(ok) }
            }
        }
        waitUntil("100 completions") { results.withLock { $0.count } == 100 }
        XCTAssertEqual(results.withLock { $0.last }, true)
        let hundred = work(burst) - before
        // From the keyframe at 8 s: the 45 pictures before the target, less the non-reference ones an exact seek skips.
        XCTAssertGreaterThan(one, 10, "an exact seek to 9.5 s decodes from the keyframe at 8 s")
        XCTAssertLessThanOrEqual(hundred, one * 3, "burst work \(hundred) vs one seek \(one)")
        withExtendedLifetime((keepSingle, keepBurst)) {}
    }

    /// Apple performs a seek asked for before the item is ready once it is, and completes it then (libraries seek
    /// right after `replaceCurrentItem` to resume a saved position): the latest wins, an earlier one completes false.
    func test_seekBeforeReady_isPerformedOnceReady_andCompletesThen() throws {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        v.player.replaceCurrentItem(with: item)
        // Right after creating the player (the resume pattern): the item is not ready yet.
        XCTAssertEqual(item.status, .unknown)
        let first = Locked<Bool?>(nil)
        v.player.seek(to: CMTime(value: 3, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero) { ok in
            first.withLock { $0 = ok }
        }
        let handled = Locked<Bool?>(nil)
        item.seek(to: CMTime(value: 5, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero) { ok in
            handled.withLock { $0 = ok }
        }
        waitUntil("the first seek superseded") { first.withLock { $0 } != nil }
        XCTAssertEqual(first.withLock { $0 }, false, "superseded by the later seek")
        XCTAssertEqual(item.currentTime(), CMTime(value: 5, timescale: 1), "reads where it will start at once")
        waitUntil("ready") { item.status == .readyToPlay }
        waitUntil("the seek completes") { handled.withLock { $0 } != nil }
        XCTAssertEqual(handled.withLock { $0 }, true)
        waitUntil("frame 150 (5 s)") { v.frames.indices.last == 150 }
        XCTAssertEqual(item.currentTime(), CMTime(value: 5, timescale: 1))
        XCTAssertFalse(v.frames.indices.contains(0), "nothing of the start was shown before the seek")
    }

    /// A seek with a handler on an item in no player that was never ready completes false at once; one without a
    /// handler is kept and made where the item starts when it joins a player.
    func test_seekBeforeReady_inNoPlayer_withoutAHandler_isWhereItStarts() throws {
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        let handled = Locked<Bool?>(nil)
        item.seek(to: CMTime(value: 1, timescale: 1)) { ok in handled.withLock { $0 = ok } }
        XCTAssertEqual(handled.withLock { $0 }, false)
        item.seek(to: CMTime(value: 3, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero)
        let v = VirtualPlayer(mode: .manual)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        waitUntil("frame 90 (3 s)") { v.frames.indices.last == 90 }
        XCTAssertEqual(item.currentTime(), CMTime(value: 3, timescale: 1))
    }

    func test_exactSeeks_inMPEGTS_landOnTheFrameContainingTheTarget() throws {
        // MPEG-TS has no index: libavformat seeks by timestamp search and can land after the GOP that holds the
        // target (or past the last keyframe); the demuxer then seeks earlier until it starts at a keyframe at or
        // before the target. Video starts 21 ms after the audio here, so frame k shows over k/30 + 0.0213 s.
        let (v, item) = try readyPlayer(.h264AACTS)
        let first = try XCTUnwrap(v.frames.entries.first)
        XCTAssertEqual(first.index, 0)
        for seconds in [0.5, 1.0, 2.0, 2.5, 2.9, 2.99, 1.5, 0.05] {
            XCTAssertTrue(seek(item, seconds, before: .zero, after: .zero))
            XCTAssertEqual(item.currentTime(), CMTime(seconds: seconds, preferredTimescale: 600))
            let shown = try XCTUnwrap(v.frames.entries.last)
            let index = try XCTUnwrap(shown.index)
            XCTAssertLessThanOrEqual(shown.time.seconds, seconds + 1e-6, "at \(seconds)")
            XCTAssertGreaterThan(shown.time.seconds + 1.0 / 30, seconds, "at \(seconds)")
            XCTAssertEqual(index, Int(((shown.time - first.time).seconds * 30).rounded()), "at \(seconds)")
        }
    }

    func test_stepBackward_inVariableFrameRateVideo_landsOnThePreviousPicture() throws {
        // Frame durations vary: each step back shows the previous picture and puts the playhead at its start.
        let (v, item) = try readyPlayer(.variableFrameRate)
        item.step(byCount: 40)
        waitUntil("frame 40") { v.frames.indices.last == 40 }
        for expected in (30..<40).reversed() {
            item.step(byCount: -1)
            waitUntil("frame \(expected)") { v.frames.indices.last == expected }
            let shown = try XCTUnwrap(v.frames.entries.last)
            XCTAssertEqual(item.currentTime(), shown.time, "frame \(expected)")
        }
    }
}
