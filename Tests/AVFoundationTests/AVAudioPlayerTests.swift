import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Records what an `AVAudioPlayer` tells its delegate, and whether on the main thread.
final class AudioPlayerDelegateLog: NSObject, @unchecked Sendable {
    private let lock = ConditionLock()
    private var _finishes: [Bool] = []
    private var _errors: [NSError] = []
    private var _onMainThread = true

    var finishes: [Bool] { lock.withLock { _finishes } }
    var errors: [NSError] { lock.withLock { _errors } }
    var onMainThread: Bool { lock.withLock { _onMainThread } }

    fileprivate func record(finish: Bool?, error: NSError?) {
        lock.withLock {
            _onMainThread = _onMainThread && Thread.isMainThread
            if let finish { _finishes.append(finish) }
            if let error { _errors.append(error) }
        }
    }
}

// The protocol is `@MainActor` (as Apple's): the witnesses are called there.
extension AudioPlayerDelegateLog: AVAudioPlayerDelegate {
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        record(finish: flag, error: nil)
    }

    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?) {
        record(finish: nil, error: error.map { $0 as NSError })
    }
}

/// `AVAudioPlayer` on the engine: played on a virtual clock into a capturing sink, the captured audio analysed
/// (the fixtures' tones: 440 Hz left, 660 Hz right, amplitude 0.5, 48 kHz stereo).
final class AVAudioPlayerTests: XCTestCase {
    /// Frames of the 3 s fixtures at 48 kHz.
    let fixtureFrames = 3 * 48_000
    /// The tones' levels: a 0.5 sine is -9.03 dBFS RMS and -6.02 dBFS peak.
    let toneRMS = 20 * log10(0.5 / 2.0.squareRoot())
    let tonePeak = 20 * log10(0.5)

    /// A player of `url` on a virtual clock, capturing what it plays.
    func virtualPlayer(
        _ player: AVAudioPlayer, mode: VirtualClock.Mode = .untimed
    ) -> (CapturingAudioSink, VirtualClock) {
        let clock = VirtualClock(mode: mode)
        let sink = CapturingAudioSink()
        player.oavfSourceClock = clock
        player.oavfAudioSinkOverride = { sink }
        return (sink, clock)
    }

    func channels(_ sink: CapturingAudioSink) -> [[Float]] {
        ToneAnalyzer.deinterleave(sink.samples, channelCount: sink.format?.channelCount ?? 2)
    }

    /// Advances a manual clock by `seconds` and waits until the sink holds `frames` frames.
    func advance(_ clock: VirtualClock, _ seconds: Double, until frames: Int, _ sink: CapturingAudioSink) {
        clock.advance(by: CMTime(seconds: seconds, preferredTimescale: 48_000))
        waitUntil("\(frames) frames captured (have \(sink.frameCount))") { sink.frameCount >= frames }
    }

    /// Advances a manual clock a tenth of a second at a time until the delegate heard of the end (at most `limit`
    /// seconds of clock): what was rendered does not depend on how much of the time a seek took.
    func advanceUntilFinished(_ clock: VirtualClock, _ log: AudioPlayerDelegateLog, limit: Double = 20) {
        var advanced = 0.0
        while log.finishes.isEmpty && advanced < limit {
            clock.advance(by: CMTime(value: 4_800, timescale: 48_000))
            advanced += 0.1
            spinMainRunLoop(0.01)
        }
        waitUntil("finished") { !log.finishes.isEmpty }
    }

    func test_playToEnd_delegateOnceSuccessfully_wholeToneCaptured() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, _) = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        XCTAssertEqual(player.duration, 3, accuracy: 0.001)
        XCTAssertEqual(player.numberOfChannels, 2)
        XCTAssertTrue(player.prepareToPlay())
        XCTAssertFalse(player.isPlaying)
        XCTAssertTrue(player.play())
        XCTAssertTrue(player.isPlaying)
        waitUntil("finished") { !log.finishes.isEmpty }
        spinMainRunLoop(0.2)
        XCTAssertEqual(log.finishes, [true])
        XCTAssertTrue(log.onMainThread)
        XCTAssertFalse(player.isPlaying)
        XCTAssertEqual(player.currentTime, 0, "after the end the player is back at the start")
        XCTAssertEqual(sink.frameCount, fixtureFrames)
        let c = channels(sink)
        XCTAssertEqual(ToneAnalyzer.analyze(c[0], sampleRate: 48_000).frequency ?? 0, 440, accuracy: 2)
        XCTAssertEqual(ToneAnalyzer.analyze(c[1], sampleRate: 48_000).frequency ?? 0, 660, accuracy: 2)
    }

    func test_numberOfLoops2_playsThreeTimesWithoutGaps_thenFinishesOnce() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, _) = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.numberOfLoops = 2
        player.play()
        waitUntil("finished", timeout: 60) { !log.finishes.isEmpty }
        spinMainRunLoop(0.2)
        XCTAssertEqual(log.finishes, [true])
        XCTAssertEqual(sink.frameCount, 3 * fixtureFrames, "three plays of the 3 s sound")
        // Seamless: no silent run and no click where one play joins the next.
        let left = channels(sink)[0]
        let events = ToneAnalyzer.discontinuities(in: left, sampleRate: 48_000, frequency: 440)
        XCTAssertEqual(events.count, 0, "\(events)")
    }

    func test_numberOfLoopsNegative_loopsUntilStopped() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, _) = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.numberOfLoops = -1
        player.play()
        waitUntil("four plays") { sink.frameCount > 4 * fixtureFrames }
        player.stop()
        spinMainRunLoop(0.2)
        XCTAssertEqual(log.finishes, [], "stop() is not the end of the sound")
        XCTAssertFalse(player.isPlaying)
    }

    func test_loops_currentTimeCountsFromEachPlaysStart_andSeeksWithinIt() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, clock) = virtualPlayer(player, mode: .manual)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.numberOfLoops = 1
        player.prepareToPlay()
        player.play()
        advance(clock, 4, until: 4 * 48_000, sink)
        XCTAssertEqual(player.currentTime, 1, accuracy: 0.01, "one second into the second play")
        player.currentTime = 2.5
        waitUntil("seek landed (\(player.currentTime))") { abs(player.currentTime - 2.5) < 0.01 }
        XCTAssertTrue(player.isPlaying)
        // The second play's last half second, then the end: 4 s + 0.5 s in all, one call.
        advanceUntilFinished(clock, log)
        spinMainRunLoop(0.1)
        XCTAssertEqual(log.finishes, [true])
        XCTAssertEqual(Double(sink.frameCount), 4.5 * 48_000, accuracy: 1024)
    }

    func test_numberOfLoops_loweredWhileLooping_endsAfterWholePlays() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, clock) = virtualPlayer(player, mode: .manual)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.numberOfLoops = -1
        player.play()
        advance(clock, 1, until: 48_000, sink)
        player.numberOfLoops = 0
        advanceUntilFinished(clock, log)
        XCTAssertEqual(log.finishes, [true])
        // The play under way ends the loop (the engine reads about a second ahead, and was 1 s into a 3 s play),
        // or the next when reading ran far ahead.
        XCTAssertTrue([fixtureFrames, 2 * fixtureFrames].contains(sink.frameCount), "\(sink.frameCount) frames")
    }

    func test_currentTime_setBeforePlay_startsThere() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, _) = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.currentTime = 2
        XCTAssertEqual(player.currentTime, 2)
        player.play()
        waitUntil("finished") { !log.finishes.isEmpty }
        // The last second of the sound: 48 000 frames of the tone.
        XCTAssertEqual(Double(sink.frameCount), 48_000, accuracy: 48)
        XCTAssertEqual(ToneAnalyzer.analyze(channels(sink)[0], sampleRate: 48_000).frequency ?? 0, 440, accuracy: 2)
    }

    func test_currentTime_setWhilePlaying_landsThere() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, clock) = virtualPlayer(player, mode: .manual)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.prepareToPlay()
        player.play()
        advance(clock, 0.5, until: 24_000, sink)
        XCTAssertEqual(player.currentTime, 0.5, accuracy: 0.01)
        player.currentTime = 2.5
        waitUntil("seek landed (\(player.currentTime))") { abs(player.currentTime - 2.5) < 0.01 }
        // Half a second left: played to its end, the sound has 0.5 s + 0.5 s in all.
        advanceUntilFinished(clock, log)
        XCTAssertEqual(log.finishes, [true])
        XCTAssertEqual(Double(sink.frameCount), 48_000, accuracy: 1024)
    }

    func test_metering_toneLevels_thenSilence() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        _ = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.isMeteringEnabled = true
        player.updateMeters()
        XCTAssertEqual(player.averagePower(forChannel: 0), -160, "nothing played yet")
        XCTAssertEqual(player.peakPower(forChannel: 0), -160)
        player.play()
        waitUntil("finished") { !log.finishes.isEmpty }
        player.updateMeters()
        for channel in 0..<2 {
            XCTAssertEqual(Double(player.averagePower(forChannel: channel)), toneRMS, accuracy: 1)
            XCTAssertEqual(Double(player.peakPower(forChannel: channel)), tonePeak, accuracy: 1)
        }
        XCTAssertEqual(player.averagePower(forChannel: 2), -160, "the output has two channels")
        player.updateMeters()
        XCTAssertEqual(player.averagePower(forChannel: 0), -160, "nothing played since the last update")
    }

    func test_metering_silence_readsMinus160() throws {
        let player = try AVAudioPlayer(data: wav(seconds: 1, amplitude: 0))
        _ = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.isMeteringEnabled = true
        player.play()
        waitUntil("finished") { !log.finishes.isEmpty }
        player.updateMeters()
        XCTAssertEqual(player.averagePower(forChannel: 0), -160)
        XCTAssertEqual(player.peakPower(forChannel: 1), -160)
    }

    func test_volumeHalf_halvesTheAmplitude_andMeteringFollows() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, _) = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.volume = 0.5
        player.isMeteringEnabled = true
        player.play()
        waitUntil("finished") { !log.finishes.isEmpty }
        let left = channels(sink)[0]
        XCTAssertEqual(ToneAnalyzer.rmsDBFS(of: left), toneRMS - 6.02, accuracy: 0.1)
        XCTAssertEqual(Double(left.map(abs).max() ?? 0), 0.25, accuracy: 0.002)
        player.updateMeters()
        XCTAssertEqual(Double(player.averagePower(forChannel: 1)), toneRMS - 6.02, accuracy: 1)
    }

    func test_setVolumeFade_rampsOverItsDuration() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, clock) = virtualPlayer(player, mode: .manual)
        player.prepareToPlay()
        player.play()
        advance(clock, 0.5, until: 24_000, sink)
        player.setVolume(0, fadeDuration: 1)
        advance(clock, 2, until: 120_000, sink)
        let left = channels(sink)[0]
        func peak(_ from: Double, _ to: Double) -> Double {
            Double(left[Int(from * 48_000)..<Int(to * 48_000)].map(abs).max() ?? 0)
        }
        XCTAssertEqual(peak(0.3, 0.5), 0.5, accuracy: 0.01, "full volume before the fade")
        // The fade starts within a buffer (1024 frames) of the call at 0.5 s and ends 1 s later.
        XCTAssertEqual(peak(0.995, 1.005), 0.25, accuracy: 0.01, "half way")
        XCTAssertEqual(peak(1.6, 2.5), 0, accuracy: 0.0001, "silent after the fade")
        XCTAssertEqual(player.volume, 0)
    }

    func test_enableRate2_playsInHalfTheTime_pitchKept() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, _) = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.enableRate = true
        player.rate = 2
        XCTAssertEqual(player.rate, 2)
        player.play()
        waitUntil("finished") { !log.finishes.isEmpty }
        XCTAssertEqual(log.finishes, [true])
        // 3 s of sound in 1.5 s of output, at the same pitch.
        XCTAssertEqual(Double(sink.frameCount), 72_000, accuracy: 2048)
        let c = channels(sink)
        XCTAssertEqual(ToneAnalyzer.analyze(c[0], sampleRate: 48_000).frequency ?? 0, 440, accuracy: 3)
        XCTAssertEqual(ToneAnalyzer.analyze(c[1], sampleRate: 48_000).frequency ?? 0, 660, accuracy: 3)
    }

    func test_rateWithoutEnableRate_playsAtNormalSpeed() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, _) = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.rate = 2
        player.play()
        waitUntil("finished") { !log.finishes.isEmpty }
        XCTAssertEqual(sink.frameCount, fixtureFrames)
    }

    func test_mediaEndingEarly_tellsDelegateOfTheError_andUnsuccessfulFinish() throws {
        // Its index says 10 s; its data ends after about 6 s.
        let player = try AVAudioPlayer(contentsOf: fixture(.truncatedFaststart))
        XCTAssertEqual(player.duration, 10, accuracy: 0.1)
        _ = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.play()
        waitUntil("finished") { !log.finishes.isEmpty }
        spinMainRunLoop(0.1)
        XCTAssertEqual(log.finishes, [false])
        XCTAssertEqual(log.errors.count, 1)
        XCTAssertEqual(log.errors.first?.domain, AVFoundationErrorDomain)
        XCTAssertFalse(player.isPlaying)
    }

    func test_pan_right_silencesLeft() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, _) = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.pan = 1
        player.play()
        waitUntil("finished") { !log.finishes.isEmpty }
        let c = channels(sink)
        XCTAssertEqual(c[0].map(abs).max() ?? 1, 0, "left silent")
        XCTAssertEqual(Double(c[1].map(abs).max() ?? 0), 0.5, accuracy: 0.002, "right untouched")
    }

    func test_pauseStop_keepCurrentTime_playContinues() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, clock) = virtualPlayer(player, mode: .manual)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.play()
        advance(clock, 1, until: 48_000, sink)
        player.pause()
        XCTAssertFalse(player.isPlaying)
        let paused = player.currentTime
        XCTAssertEqual(paused, 1, accuracy: 0.03)
        clock.advance(by: CMTime(seconds: 1, preferredTimescale: 48_000))
        spinMainRunLoop(0.1)
        XCTAssertEqual(player.currentTime, paused, "paused: time stands still")
        player.stop()
        XCTAssertFalse(player.isPlaying)
        XCTAssertEqual(player.currentTime, paused, accuracy: 0.001, "stop() keeps currentTime")
        spinMainRunLoop(0.1)
        XCTAssertEqual(log.finishes, [])
        // play() after stop() prepares again and continues where it stopped, to the end.
        player.play()
        XCTAssertTrue(player.isPlaying)
        advanceUntilFinished(clock, log)
        XCTAssertEqual(log.finishes, [true])
        XCTAssertEqual(Double(sink.frameCount), Double(fixtureFrames), accuracy: 0.03 * 48_000)
    }

    func test_initData_playsFromMemory_evenWithItsIndexAtTheEnd() throws {
        // audio_only.m4a has its `moov` after the media: reading it needs the in-memory source to seek.
        let data = try Data(contentsOf: fixture(.audioOnly))
        let player = try AVAudioPlayer(data: data)
        XCTAssertNil(player.url)
        XCTAssertEqual(player.data, data)
        XCTAssertEqual(player.duration, 3, accuracy: 0.05)
        let (sink, _) = virtualPlayer(player)
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.play()
        waitUntil("finished") { !log.finishes.isEmpty }
        XCTAssertEqual(log.finishes, [true])
        XCTAssertEqual(Double(sink.frameCount), Double(fixtureFrames), accuracy: 2048)
        let c = channels(sink)
        XCTAssertEqual(ToneAnalyzer.analyze(c[1], sampleRate: 48_000).frequency ?? 0, 660, accuracy: 2)
    }

    func test_badInput_throwsSayingWhatHappened() throws {
        func check(_ make: () throws -> AVAudioPlayer, code: AVError.Code, mentions words: String) {
            do {
                _ = try make()
                XCTFail("expected an error")
            } catch {
                let e = error as NSError
                XCTAssertEqual(e.domain, AVFoundationErrorDomain)
                XCTAssertEqual(e.code, code.rawValue, e.localizedDescription)
                XCTAssertTrue(e.localizedDescription.contains(words), e.localizedDescription)
            }
        }
        let missing = URL(fileURLWithPath: "/nonexistent/oavf-\(getpid()).wav")
        check({ try AVAudioPlayer(contentsOf: missing) }, code: .contentIsUnavailable, mentions: "doesn’t exist")
        check({ try AVAudioPlayer(data: Data("not a sound".utf8)) }, code: .fileFormatNotRecognized, mentions: "data")
        check({ try AVAudioPlayer(data: Data()) }, code: .fileFormatNotRecognized, mentions: "empty")
        check({ try AVAudioPlayer(contentsOf: fixture(.text)) }, code: .fileFormatNotRecognized, mentions: "text.mp4")
        check(
            { try AVAudioPlayer(contentsOf: fixture(.videoOnly)) }, code: .fileFormatNotRecognized, mentions: "no sound"
        )
        check(
            { try AVAudioPlayer(data: Data(contentsOf: fixture(.truncated)), fileTypeHint: "public.mpeg-4") },
            code: .fileFormatNotRecognized, mentions: "data")
    }

    func test_playAtTime_startsWhenTheDeviceClockGetsThere() throws {
        let player = try AVAudioPlayer(contentsOf: fixture(.audioWAV))
        let (sink, clock) = virtualPlayer(player, mode: .manual)
        player.prepareToPlay()
        let start = player.deviceCurrentTime + 1
        XCTAssertTrue(player.play(atTime: start))
        XCTAssertTrue(player.isPlaying)
        advance(clock, 1.5, until: 24_000, sink)
        spinMainRunLoop(0.1)
        // Half a second of sound after the start time, and nothing before it.
        XCTAssertEqual(Double(sink.frameCount), 24_000, accuracy: 1024)
        XCTAssertEqual(player.currentTime, 0.5, accuracy: 0.03)
        XCTAssertEqual(player.deviceCurrentTime, start + 0.5, accuracy: 0.001)
    }

    /// Real time through SDL's `disk` driver: the loop joins the next play without a gap or a click in what the
    /// device played.
    func test_realTime_diskDriver_loopIsSeamless() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-aap-loop-\(getpid()).raw")
        try? FileManager.default.removeItem(at: file)
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", file.path, 1)
        defer {
            unsetenv("SDL_AUDIODRIVER")
            unsetenv("SDL_DISKAUDIOFILE")
            try? FileManager.default.removeItem(at: file)
        }
        let player = try AVAudioPlayer(data: wav(seconds: 0.5, amplitude: 0.5))
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.numberOfLoops = 3
        player.prepareToPlay()
        XCTAssertTrue(player.play())
        waitUntil("finished", timeout: 60) { !log.finishes.isEmpty }
        XCTAssertEqual(log.finishes, [true])
        player.stop()
        let data = try Data(contentsOf: file)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let left = ToneAnalyzer.deinterleave(samples, channelCount: 2)[0]
        // The sound: from its first loud sample to its last, four plays of 0.5 s of the tone, nothing in between.
        guard let first = left.firstIndex(where: { abs($0) > 0.01 }),
            let last = left.lastIndex(where: { abs($0) > 0.01 })
        else { return XCTFail("nothing was played") }
        let sound = Array(left[first...last])
        XCTAssertEqual(Double(sound.count), 4 * 24_000, accuracy: 48)
        let events = ToneAnalyzer.discontinuities(in: sound, sampleRate: 48_000, frequency: 440)
        XCTAssertEqual(events.count, 0, "\(events)")
    }

    /// A WAV file in memory: 48 kHz stereo 16-bit, a 440 Hz sine of `amplitude` on both channels.
    func wav(seconds: Double, amplitude: Double) -> Data {
        let frames = Int(seconds * 48_000)
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        d.append(contentsOf: Array("RIFF".utf8))
        u32(UInt32(36 + frames * 4))
        d.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16)
        u16(1)
        u16(2)
        u32(48_000)
        u32(48_000 * 4)
        u16(4)
        u16(16)
        d.append(contentsOf: Array("data".utf8))
        u32(UInt32(frames * 4))
        for i in 0..<frames {
            let s = Int16((amplitude * sin(2 * .pi * 440 * Double(i) / 48_000) * 32767).rounded())
            u16(UInt16(bitPattern: s))
            u16(UInt16(bitPattern: s))
        }
        return d
    }

    /// Real time through SDL's `disk` driver (what would be heard is written to a file).
    func test_realTime_diskDriver_playsToEndAndTellsDelegate() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-aap-disk-\(getpid()).raw")
        try? FileManager.default.removeItem(at: file)
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", file.path, 1)
        defer {
            unsetenv("SDL_AUDIODRIVER")
            unsetenv("SDL_DISKAUDIOFILE")
            try? FileManager.default.removeItem(at: file)
        }
        let player = try AVAudioPlayer(contentsOf: fixture(.audioFLAC))
        let log = AudioPlayerDelegateLog()
        player.delegate = log
        player.isMeteringEnabled = true
        let before = player.deviceCurrentTime
        XCTAssertTrue(player.play())
        waitUntil("playing") { player.currentTime > 0.5 }
        player.updateMeters()
        // A generous bound: only a hang reaches it (a loaded machine may play slower than real time).
        waitUntil("finished", timeout: 60) { !log.finishes.isEmpty }
        XCTAssertEqual(log.finishes, [true])
        XCTAssertFalse(player.isPlaying)
        XCTAssertGreaterThan(player.deviceCurrentTime - before, 2.5, "the device clock moved with the sound")
        XCTAssertEqual(Double(player.peakPower(forChannel: 0)), tonePeak, accuracy: 1)
        player.stop()
        // The disk driver wrote the 3 s of 440/660 Hz (plus silence around it).
        let data = try Data(contentsOf: file)
        let samples = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        let left = ToneAnalyzer.deinterleave(samples, channelCount: 2)[0]
        let loud = left.filter { abs($0) > 0.01 }.count
        XCTAssertEqual(Double(loud), 3 * 48_000 * 0.99, accuracy: 3 * 48_000 * 0.02)
    }
}
