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
        let start = Date()
        player.play()
        waitUntil("end", timeout: 15) { ends.count == 1 }
        let wall = Date().timeIntervalSince(start)
        XCTAssertEqual(wall, 3, accuracy: 0.5, "3 s of media take about 3 s in real time")

        // A/V sync: each frame was presented when the audio clock said its time had come, so the
        // presentation times recorded against the clock advance with wall time; no frame late by
        // more than a frame duration (33 ms) relative to its pts.
        let entries = frames.entries
        XCTAssertGreaterThan(entries.count, 80, "most frames presented in real time")
        XCTAssertLessThanOrEqual(player.playbackStatistics.framesDropped, 5)
        XCTAssertEqual(entries.compactMap(\.index), entries.compactMap(\.index).sorted())
        // The master clock (audio) when each frame went up vs the frame's own time: within one frame.
        let offsets = entries.dropFirst().compactMap { e in e.clock.map { ($0 - e.time).seconds } }
        XCTAssertFalse(offsets.isEmpty)
        let worst = offsets.map(abs).max() ?? 1
        XCTAssertLessThanOrEqual(worst, 1.0 / 30, "A/V offset \(worst) s")

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

    func test_noAudioDevice_playsOnTheSystemClock_andLogsWhy() throws {
        setenv("SDL_AUDIODRIVER", "nonexistent-driver", 1)
        defer { unsetenv("SDL_AUDIODRIVER") }
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
    }
}
