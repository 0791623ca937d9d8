import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Negative rates (GOP-wise reverse decoding with bounded memory) and frame skipping at high forward rates, read
/// from the frame index drawn in every picture shown. h264_aac.mp4: 10 s at 30 fps, keyframes every 2 s;
/// long_gop_1080p.mp4: 30 s 1080p30, keyframes every 10 s.
final class AVPlayerReverseTests: XCTestCase {
    private func readyPlayer(_ f: Fixture = .h264AAC, mode: VirtualClock.Mode) throws -> (VirtualPlayer, AVPlayerItem) {
        let v = VirtualPlayer(mode: mode, captureAudio: false)
        let item = AVPlayerItem(url: try fixture(f))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        if f != .audioOnly { waitUntil("first frame") { v.frames.entries.count >= 1 } }
        return (v, item)
    }

    func test_canPlayReverse_isTrueForSeekableMedia() throws {
        let (_, item) = try readyPlayer(mode: .manual)
        XCTAssertTrue(item.canPlayReverse)
        XCTAssertTrue(item.canPlaySlowReverse)
        XCTAssertTrue(item.canPlayFastReverse)
        let (_, audio) = try readyPlayer(.audioOnly, mode: .manual)
        XCTAssertTrue(audio.canPlayReverse)
        XCTAssertTrue(audio.canPlayFastReverse)
    }

    /// A 3 s rising chirp (300 Hz → 1500 Hz) with video, made here with ffmpeg: played backwards, its pitch falls.
    private func chirpFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-chirp-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("chirp.mp4")
        let r = try Subprocess.run(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=s=160x120:r=30:d=3", "-f", "lavfi", "-i",
                "aevalsrc=0.5*sin(2*PI*(300*t+200*t*t))|0.5*sin(2*PI*(300*t+200*t*t)):s=48000:d=3",
                "-c:v", "libx264", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "192k", "-shortest",
                url.path,
            ], timeout: 120)
        guard r.status == 0 else { throw XCTSkip("ffmpeg could not make the chirp: \(r.stderr)") }
        return url
    }

    /// The dominant frequency of `seconds` of left-channel audio starting at `at` seconds.
    private func tone(_ samples: [Float], at: Double, seconds: Double = 0.25) -> Double {
        let left = ToneAnalyzer.deinterleave(samples, channelCount: 2)[0]
        let from = Int(at * 48_000)
        let to = min(left.count, from + Int(seconds * 48_000))
        guard from < to else { return 0 }
        return ToneAnalyzer.dominantFrequency(of: Array(left[from..<to]), sampleRate: 48_000) ?? 0
    }

    func test_reverseAudio_playsTheSoundBackwards_forTheSpanPlayed() throws {
        let url = try chirpFile()
        for rate: Float in [-1, -2] {
            let v = VirtualPlayer(mode: .untimed)
            let item = AVPlayerItem(url: url)
            v.player.replaceCurrentItem(with: item)
            waitUntil("ready") { item.status == .readyToPlay }
            exactSeek(item, 2.5)
            item.reversePlaybackEndTime = CMTime(value: 1, timescale: 2)
            let before = v.audio.frameCount
            let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
            v.player.rate = rate
            waitUntil("the reverse end at \(rate)×") { ends.count == 1 }
            let samples = Array(v.audio.samples.dropFirst(before * 2))
            // 2 s of media at |rate|: 2 / |rate| s of sound, within a few chunks of 1024.
            let seconds = Double(samples.count / 2) / 48_000
            XCTAssertEqual(seconds, 2 / Double(-rate), accuracy: 0.1, "\(rate)×")
            // Media time m has frequency 300 + 400 m: backwards from 2.5 s the pitch falls from 1300 Hz to 500 Hz
            // (kept at either rate by the time-domain algorithm).
            let early = tone(samples, at: 0.1 / Double(-rate))  // media ≈ 2.4 s − 0.125 s
            let late = tone(samples, at: seconds - 0.35 / Double(-rate))
            XCTAssertEqual(early, 300 + 400 * (2.4 - 0.125 * Double(-rate)), accuracy: 60, "\(rate)× start")
            XCTAssertLessThan(late, 800, "\(rate)× end")
            XCTAssertGreaterThan(early, late + 400, "\(rate)×: the pitch falls")
        }
    }

    func test_rateMinus1_fromTheEnd_showsEveryFrameInDecreasingOrder_andEndsAtZero() throws {
        let (v, item) = try readyPlayer(mode: .untimed)
        exactSeek(item, 9.99)
        XCTAssertEqual(v.frames.indices.last ?? nil, 299)
        let before = v.frames.entries.count
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.rate = -1
        waitUntil("the start") { ends.count == 1 }
        let shown = v.frames.entries.dropFirst(before).map(\.index)
        XCTAssertEqual(shown, (0...298).reversed().map { Optional($0) }, "every earlier frame, once, backwards")
        XCTAssertEqual(item.currentTime(), .zero)
        waitUntil("paused at the end") { v.player.rate == 0 && v.player.timeControlStatus == .paused }
        settle(v.player)
        XCTAssertEqual(ends.count, 1, "one end notification")
        let stats = try XCTUnwrap(v.player.existingEngine?.reverseSourceStatistics)
        XCTAssertLessThanOrEqual(stats.maximumHeld, ReverseVideoSource.maximumHeldFrames)
        // 2 s GOPs of 60 frames: 5 GOPs, each decoded at least once (plus seeks that land past a GOP's start).
        XCTAssertGreaterThanOrEqual(stats.passes, 5)
    }

    func test_reversePlaybackEndTime_endsThere_withTheEndNotification() throws {
        let (v, item) = try readyPlayer(mode: .untimed)
        exactSeek(item, 7)
        item.reversePlaybackEndTime = CMTime(value: 5, timescale: 1)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let before = v.frames.entries.count
        v.player.rate = -2
        waitUntil("the reverse end") { ends.count == 1 }
        XCTAssertEqual(item.currentTime(), CMTime(value: 5, timescale: 1))
        let shown = v.frames.entries.dropFirst(before).compactMap(\.index)
        XCTAssertEqual(shown.first, 209)
        XCTAssertEqual(shown.last, 150, "the frame showing at 5 s is the last one")
        XCTAssertEqual(shown, shown.sorted(by: >), "strictly decreasing")
        XCTAssertEqual(Set(shown).count, shown.count)
        waitUntil("paused") { v.player.rate == 0 }

        // Forward again from the reverse end: it continues from 5 s.
        let after = v.frames.entries.count
        v.player.rate = 1
        waitUntil("frames after 5 s") { v.frames.entries.count >= after + 10 }
        v.player.rate = 0
        let forward = v.frames.entries.dropFirst(after).compactMap(\.index)
        XCTAssertEqual(forward.first, 151, "the next frame after the one on screen")
        XCTAssertEqual(forward, forward.sorted(), "increasing")
    }

    func test_manualClock_reverseThenForward_showTheFrameAtTheClock() throws {
        let (v, item) = try readyPlayer(mode: .manual)
        exactSeek(item, 5)
        XCTAssertEqual(v.frames.indices.last ?? nil, 150)
        v.player.rate = -1
        waitUntil("playing backwards") { v.player.timeControlStatus == .playing }
        v.clock.advance(by: CMTime(value: 1, timescale: 1))
        waitUntil("4 s") { item.currentTime() <= CMTime(value: 4, timescale: 1) }
        waitUntil("frame 120 (4 s) on screen") { v.frames.indices.last == 120 }
        XCTAssertEqual(item.currentTime().seconds, 4, accuracy: 0.001)
        v.clock.advance(by: CMTime(value: 1, timescale: 2))
        waitUntil("frame 105 (3.5 s) on screen") { v.frames.indices.last == 105 }

        // Pause, step back one frame (decodes from the previous keyframe), then play forward.
        v.player.rate = 0
        item.step(byCount: -1)
        waitUntil("frame 104") { v.frames.indices.last == 104 }
        let before = v.frames.entries.count
        v.player.rate = 1
        waitUntil("playing forward") { v.player.timeControlStatus == .playing }
        v.clock.advance(by: CMTime(value: 1, timescale: 2))
        waitUntil("0.5 s more") { (v.frames.indices.last ?? 0) ?? 0 >= 119 }
        let forward = v.frames.entries.dropFirst(before).compactMap(\.index)
        XCTAssertEqual(forward.first, 105)
        XCTAssertEqual(forward, forward.sorted())
    }

    func test_periodicObserver_firesWithDecreasingTimes() throws {
        let (v, item) = try readyPlayer(mode: .untimed)
        exactSeek(item, 3)
        let times = Locked<[Double]>([])
        let token = v.player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 2), queue: .main) { t in
            times.withLock { $0.append(t.seconds) }
        }
        defer { v.player.removeTimeObserver(token) }
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.rate = -1
        waitUntil("the start") { ends.count == 1 }
        settle(v.player)
        let seen = times.withLock { $0 }
        // A start event at 3 s, then one per half second crossed on the way down to 0.
        XCTAssertGreaterThanOrEqual(seen.count, 6, "\(seen)")
        XCTAssertEqual(Array(seen.dropFirst()), Array(seen.dropFirst()).sorted(by: >), "\(seen)")
    }

    func test_longGOP1080p_reverseHoldsABoundedNumberOfPictures() throws {
        let (v, item) = try readyPlayer(.longGOP1080p, mode: .untimed)
        exactSeek(item, 10)
        XCTAssertEqual(v.frames.indices.last ?? nil, 300, "the keyframe at 10 s")
        item.reversePlaybackEndTime = CMTime(value: 8, timescale: 1)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let before = v.frames.entries.count
        v.player.rate = -1
        waitUntil("8 s", timeout: 60) { ends.count == 1 }
        let shown = v.frames.entries.dropFirst(before).map(\.index)
        XCTAssertEqual(shown, (240...299).reversed().map { Optional($0) }, "60 frames of a 300-frame GOP, backwards")
        let stats = try XCTUnwrap(v.player.existingEngine?.reverseSourceStatistics)
        // 1080p 4:2:0 pictures are about 3 MB: the byte cap holds about 30 of them, so the GOP is decoded from its
        // keyframe (at 0 s) more than once rather than holding 60 pictures.
        XCTAssertLessThanOrEqual(stats.maximumHeld * 1920 * 1080 * 3 / 2, ReverseVideoSource.maximumHeldBytes + 1)
        XCTAssertLessThan(stats.maximumHeld, 60)
        XCTAssertGreaterThanOrEqual(stats.passes, 2)
    }

    func test_highForwardRates_decodeOnlyWhatCanBeShown_andKeepTimeExact() throws {
        func play(rate: Float) throws -> (decoded: Int, shown: [Int], end: CMTime) {
            let (v, item) = try readyPlayer(.videoOnly, mode: .untimed)
            let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
            v.player.rate = rate
            waitUntil("the end at \(rate)×") { ends.count == 1 }
            let decoded = v.player.existingEngine?.statistics.videoFramesDecoded ?? -1
            return (decoded, v.frames.indices.compactMap { $0 }, item.currentTime())
        }
        let normal = try play(rate: 1)
        XCTAssertEqual(normal.shown, Array(0..<90))
        XCTAssertEqual(normal.decoded, 90)

        // 4×: B-frames are not decoded; the shown frames still increase and the item still ends at its duration.
        let fast = try play(rate: 4)
        XCTAssertLessThan(fast.decoded, 80, "non-reference pictures skipped")
        XCTAssertGreaterThan(fast.decoded, 20)
        XCTAssertEqual(fast.shown, fast.shown.sorted())
        XCTAssertEqual(fast.end, normal.end)

        // 16×: keyframes only (every 2 s: 0 and 60), plus the few decoded before the rate took effect.
        let faster = try play(rate: 16)
        XCTAssertLessThan(faster.decoded, 12)
        XCTAssertTrue(faster.shown.contains(60), "\(faster.shown)")
        XCTAssertEqual(faster.end, normal.end)
    }

    func test_realTime_rateMinus2_showsDecreasingFramesAndReachesTheReverseEnd() throws {
        setenv("SDL_AUDIODRIVER", "dummy", 1)
        defer { unsetenv("SDL_AUDIODRIVER") }
        let player = AVPlayer()
        let frames = FrameRecorder()
        player.engineCreatingIfNeeded().addVideoSink(frames)
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        exactSeek(item, 4)
        item.reversePlaybackEndTime = CMTime(value: 2, timescale: 1)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let before = frames.entries.count
        let droppedBefore = player.playbackStatistics.framesDropped
        player.rate = -2
        waitUntil("the reverse end", timeout: 15) { ends.count == 1 }
        let shown = frames.entries.dropFirst(before).compactMap(\.index)
        let dropped = player.playbackStatistics.framesDropped - droppedBefore
        // 2 s of media at 2× on the real clock: the 60 pictures from 119 down to 60 are each shown or counted as
        // dropped (how many of each depends on the machine's load), the shown ones in decreasing order.
        XCTAssertEqual(shown, shown.sorted(by: >))
        XCTAssertEqual(shown.last, 60, "the frame at the reverse end")
        XCTAssertEqual(shown.count + dropped, 60, accuracy: 2, "shown \(shown.count), dropped \(dropped)")
        XCTAssertGreaterThan(shown.count, 1)
        XCTAssertEqual(item.currentTime(), CMTime(value: 2, timescale: 1))
        waitUntil("paused at the reverse end") { player.rate == 0 }
    }

    func test_otherContainersAndCodecs_playBackwardsFrameByFrame() throws {
        // Matroska HEVC, WebM VP9, MPEG-TS (no index: seeks by timestamp), 321×241 VP9: from the last frame back to
        // the first, every frame once, in decreasing order.
        for f in [Fixture.hevcMKV, .vp9OpusWebM, .h264AACTS, .odd321x241] {
            let (v, item) = try readyPlayer(f, mode: .untimed)
            XCTAssertTrue(item.canPlayReverse, "\(f)")
            let frames = try XCTUnwrap(f.facts.video?.frameCount, "\(f)")
            exactSeek(item, item.duration.seconds - 0.001)
            XCTAssertEqual(v.frames.indices.last ?? nil, frames - 1, "\(f): the last frame")
            let before = v.frames.entries.count
            let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
            v.player.rate = -1
            waitUntil("\(f) back at the start") { ends.count == 1 }
            let shown = v.frames.entries.dropFirst(before).map(\.index)
            XCTAssertEqual(shown, (0..<(frames - 1)).reversed().map { Optional($0) }, "\(f)")
        }
    }
}
