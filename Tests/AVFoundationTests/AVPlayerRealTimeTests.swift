import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// A few seconds of real-time playback through the SDL audio device (its `disk` driver writes
/// what would be heard to a file), checking the audio and the A/V sync.
final class AVPlayerRealTimeTests: XCTestCase {
    func test_realTime_diskAudio_lengthAndAVOffset() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-disk-\(getpid()).raw")
        try? FileManager.default.removeItem(at: file)
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", file.path, 1)
        defer {
            unsetenv("SDL_AUDIODRIVER")
            unsetenv("SDL_DISKAUDIOFILE")
            try? FileManager.default.removeItem(at: file)
        }
        let player = AVPlayer()
        let frames = FrameRecorder()
        let engine = player.engineCreatingIfNeeded()
        frames.clockProbe = { [weak engine] session in engine?.currentTime(of: session) ?? .invalid }
        engine.addVideoSink(frames)
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        let av = AVPlayerItem(url: try fixture(.h264AACTS))
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: av)
        _ = item
        player.replaceCurrentItem(with: av)
        waitUntil("ready") { av.status == .readyToPlay }
        player.play()
        // A generous bound: only a hang reaches it (a loaded machine plays slower than real time).
        waitUntil("end", timeout: 60) { ends.count == 1 }

        // Counted against the engine's clock, not the wall: every one of the 90 pictures was either presented or
        // dropped as late by the engine, and the clock the engine used covered the 3 s.
        let entries = frames.entries
        let dropped = player.playbackStatistics.framesDropped
        XCTAssertEqual(entries.count + dropped, 90, "presented \(entries.count), dropped \(dropped)")
        XCTAssertGreaterThanOrEqual(entries.last?.clock?.seconds ?? 0, 2.9, "the engine's clock reached the end")
        XCTAssertEqual(entries.compactMap(\.index), entries.compactMap(\.index).sorted())
        // The master clock (audio) when each frame went up vs the frame's own time. Never early: the engine shows a
        // picture only once its clock reached it (a decision, whatever the load). How late is up to the scheduler
        // on a busy machine, so only the median is held to one frame (a few starved steps do not move it).
        let offsets = entries.dropFirst().compactMap { e in e.clock.map { ($0 - e.time).seconds } }
        XCTAssertFalse(offsets.isEmpty)
        // (20 ms of slack: the probe reads the published clock, which the audio clock's re-anchoring moves by a few
        // milliseconds between the engine's decision and the sink's call.)
        XCTAssertGreaterThanOrEqual(offsets.min() ?? -1, -0.02, "a picture went up before its time")
        let median = offsets.sorted()[offsets.count / 2]
        XCTAssertLessThanOrEqual(median, 1.0 / 30, "median A/V offset \(median) s (worst \(offsets.max() ?? 0) s)")

        // The disk driver wrote what was played: 3 s of 440/660 Hz (plus silence around it).
        player.pause()
        player.replaceCurrentItem(with: nil)
        player.existingEngine?.shutdown()
        let data = try Data(contentsOf: file)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let left = ToneAnalyzer.deinterleave(samples, channelCount: 2)[0]
        let loud = left.filter { abs($0) > 0.01 }.count
        XCTAssertEqual(Double(loud) / 48_000, 3, accuracy: 0.15, "about 3 s of tone were played")
        let tones = ToneAnalyzer.analyze(interleaved: samples, channelCount: 2, sampleRate: 48_000)
        XCTAssertEqual(tones[0].frequency ?? 0, 440, accuracy: 2)
    }

    /// A machine with no sound system at all (no sound card, no sound server, no driver named — this one, and CI's)
    /// plays on the system clock and logs why (a difference from Apple's systems, which always have an output).
    func test_noSoundSystem_playsOnTheSystemClock_andLogsWhy() throws {
        unsetenv("SDL_AUDIODRIVER")
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? "/nonexistent"
        for path in ["/dev/snd", runtime + "/pulse/native", runtime + "/pipewire-0"]
        where FileManager.default.fileExists(atPath: path) {
            throw XCTSkip("this machine has a sound system (\(path))")
        }
        let player = AVPlayer()
        let item = AVPlayerItem(url: try fixture(.audioOnly))
        item.forwardPlaybackEndTime = CMTime(value: 1, timescale: 2)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        player.replaceCurrentItem(with: item)
        player.play()
        waitUntil("end", timeout: 10) { ends.count == 1 }
        XCTAssertEqual(item.currentTime(), CMTime(value: 1, timescale: 2))
        let log = try XCTUnwrap(item.errorLog())
        XCTAssertTrue(log.events.contains { $0.errorComment?.contains("No audio device") == true })
        XCTAssertEqual(player.status, .readyToPlay)
    }

    /// A sound system whose device cannot be opened (here a driver that does not exist) is the player's failure, as
    /// on Apple's systems: `status` `.failed` with the error, and nothing plays.
    func test_audioDeviceThatCannotOpen_failsThePlayer() throws {
        setenv("SDL_AUDIODRIVER", "nonexistent-driver", 1)
        defer { unsetenv("SDL_AUDIODRIVER") }
        let player = AVPlayer()
        let item = AVPlayerItem(url: try fixture(.audioOnly))
        player.replaceCurrentItem(with: item)
        player.play()
        waitUntil("failed", timeout: 10) { player.status == .failed }
        let error = try XCTUnwrap(player.error as NSError?)
        XCTAssertEqual(error.code, AVError.Code.deviceNotConnected.rawValue)
        XCTAssertTrue(error.localizedFailureReason?.contains("nonexistent-driver") == true, "\(error)")
        XCTAssertEqual(item.currentTime(), .zero)
    }
}
