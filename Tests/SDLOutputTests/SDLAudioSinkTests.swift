import Foundation
import OAVFLocking
import PlaybackEngine
import SDLOutput
import TestSupport
import XCTest

/// Drives ``SDLAudioSink`` through SDL's `disk` driver, which writes what a sound card would have played to a raw
/// file of native-endian 32-bit floats, interleaved, one device buffer per callback (and silent buffers while
/// paused), at real-time pace. The tests run in real time by necessity (the device sets the pace) and stay short:
/// a few seconds in all.
///
/// The environment is set with `setenv` before each open. SDL reads `SDL_AUDIODRIVER` when its audio subsystem
/// starts and `SDL_DISKAUDIOFILE` when a device opens; the sink quits the subsystem when its last device closes,
/// so every test gets a fresh start in the same process.
final class SDLAudioSinkTests: XCTestCase {
    /// The obtained format every disk test expects.
    private let format = AudioFormat.standard

    /// The file SDL's disk driver writes in this test.
    private var diskFile = ""

    /// The environment as it was before the test, restored after it.
    private var savedEnvironment: [String: String?] = [:]

    /// Whether SDL audio was down when the test began (other suites in the process may hold it up).
    private var startedWithSDLAudioDown = true

    override func setUp() {
        super.setUp()
        for name in ["SDL_AUDIODRIVER", "SDL_DISKAUDIOFILE", "SDL_DISKAUDIODELAY"] {
            savedEnvironment[name] = ProcessInfo.processInfo.environment[name]
        }
        diskFile =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("sdl-audio-\(UUID().uuidString).f32").path
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", diskFile, 1)
        unsetenv("SDL_DISKAUDIODELAY")
        startedWithSDLAudioDown = SDLAudioSink.currentDriverName == nil
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: diskFile)
        for (name, value) in savedEnvironment {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        if startedWithSDLAudioDown {
            XCTAssertNil(SDLAudioSink.currentDriverName, "the test left SDL audio initialised")
        }
        super.tearDown()
    }

    // MARK: - Helpers

    /// The samples the disk driver wrote.
    private func diskSamples() throws -> [Float] {
        let data = try Data(contentsOf: URL(fileURLWithPath: diskFile))
        XCTAssertEqual(data.count % MemoryLayout<Float>.size, 0, "the disk file holds whole 32-bit samples")
        return data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: Float.self) }
        }
    }

    /// The whole device buffers of silence SDL wrote before the first rendered frame (it runs paused between
    /// `open` and `resume`), in frames. The sine starts at sin(0) = 0, so the first rendered frame is zero too:
    /// rounding down to whole buffers finds where rendering began.
    private func leadingSilentFrames(_ samples: [Float], channelCount: Int, bufferFrames: Int) -> Int {
        let firstSound = samples.firstIndex { $0 != 0 }.map { $0 / channelCount } ?? samples.count / channelCount
        return firstSound / bufferFrames * bufferFrames
    }

    /// Opens a sink on the disk driver at 48 kHz stereo, checks the obtained format, and starts `source`.
    private func openSink(source: SineRenderSource, volume: Float = 1, muted: Bool = false) throws -> SDLAudioSink {
        let sink = SDLAudioSink()
        sink.setVolume(volume, muted: muted)
        let obtained = try sink.open(preferred: format)
        XCTAssertEqual(obtained, format)
        XCTAssertEqual(SDLAudioSink.currentDriverName, "disk")
        sink.start(source: source)
        return sink
    }

    /// Waits until `condition` holds (SDL's audio thread offers no event: ``Poll``; its hang guard is far beyond what
    /// the event needs on a loaded machine). The tests wait for counts of rendered frames, calls and written bytes,
    /// never for a duration.
    private func waitUntil(
        _ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool
    ) {
        if !Poll.until(condition) { XCTFail("timed out waiting for \(what)", file: file, line: line) }
    }

    /// Waits until `source` has rendered `count` frames in all.
    private func waitForFrames(_ count: Int, of source: SineRenderSource, line: UInt = #line) {
        waitUntil("\(count) frames rendered (\(source.renderedFrameCount) so far)", line: line) {
            source.renderedFrameCount >= count
        }
    }

    /// Bytes the disk driver has written so far (it writes silent buffers while paused, so this counts the device
    /// thread's periods whether or not the source is called).
    private func diskBytes() -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: diskFile))?[.size] as? NSNumber)?.intValue ?? 0
    }

    /// This process's threads SDL made for audio devices (SDL names a playback device's thread `SDLAudioP<n>`).
    private func sdlAudioThreadCount() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix("SDLAudio")
        }.count
    }

    /// Bytes of one second of the test format in the disk file (32-bit float samples).
    private var bytesPerSecond: Int { Int(format.sampleRate) * format.channelCount * MemoryLayout<Float>.size }

    /// One channel of interleaved `samples`.
    private func channel(_ index: Int, of samples: ArraySlice<Float>) -> [Float] {
        stride(from: samples.startIndex + index, to: samples.endIndex, by: format.channelCount).map { samples[$0] }
    }

    // MARK: - Tests

    func testBufferSizeFollowsTheRate() {
        XCTAssertEqual(SDLAudioSink.bufferFrameCount(sampleRate: 48_000), 1_024)
        XCTAssertEqual(SDLAudioSink.bufferFrameCount(sampleRate: 44_100), 1_024)
        XCTAssertEqual(SDLAudioSink.bufferFrameCount(sampleRate: 96_000), 2_048)
        XCTAssertEqual(SDLAudioSink.bufferFrameCount(sampleRate: 22_050), 512)
        XCTAssertEqual(SDLAudioSink.bufferFrameCount(sampleRate: 8_000), 512)
        XCTAssertEqual(SDLAudioSink.bufferFrameCount(sampleRate: 384_000), 8_192)
    }

    func testDiskOutputIsTheRenderedToneWithoutBreaks() throws {
        let source = SineRenderSource()
        let sink = try openSink(source: source)
        XCTAssertTrue(sink.isRealTime)
        XCTAssertEqual(sink.bufferFrameCount, 1_024)
        XCTAssertEqual(sink.latency, 2 * 1_024 / 48_000, accuracy: 1e-12)
        XCTAssertTrue(sink.isPaused)
        sink.resume()
        XCTAssertFalse(sink.isPaused)
        let resumed = Date()
        waitForFrames(48_000, of: source)
        sink.close()
        let elapsed = Date().timeIntervalSince(resumed)
        XCTAssertFalse(sink.isOpen)
        XCTAssertEqual(sink.latency, 0)

        let rendered = source.renderedFrameCount
        XCTAssertEqual(sink.renderedFrameCount, rendered, "the sink counts what the source rendered")
        // Pacing: never faster than real time (a bound a loaded machine cannot break; it can only be slower), with
        // the two device buffers SDL may take at once.
        XCTAssertLessThanOrEqual(
            Double(rendered), elapsed * 48_000 + 2 * 1_024, "the disk driver paces itself in real time")
        XCTAssertTrue(source.hostTimesWereMonotonic)

        let samples = try diskSamples()
        let fileFrames = samples.count / 2
        let lead = leadingSilentFrames(samples, channelCount: 2, bufferFrames: 1_024)
        XCTAssertEqual(
            Double(fileFrames - lead), Double(rendered), accuracy: 1_024,
            "file: \(fileFrames) frames, \(lead) silent while paused, \(rendered) rendered")

        // Bit-exact: at full volume the sink passes the source through.
        let audio = samples[(lead * 2)...]
        var mismatches = 0
        for (offset, sample) in audio.enumerated() where offset / 2 < rendered {
            if sample != source.expectedSample(frame: offset / 2, channel: offset % 2) { mismatches += 1 }
        }
        XCTAssertEqual(mismatches, 0)

        for (index, tone) in [440.0, 660.0].enumerated() {
            let signal = channel(index, of: audio)
            let analysis = ToneAnalyzer.analyze(signal, sampleRate: 48_000)
            XCTAssertEqual(try XCTUnwrap(analysis.frequency), tone, accuracy: tone * 0.005)
            XCTAssertEqual(analysis.rmsDBFS, -9.03, accuracy: 0.1)
            let breaks = ToneAnalyzer.discontinuities(in: signal, sampleRate: 48_000, frequency: tone)
            XCTAssertEqual(breaks, [], "channel \(index)")
        }
    }

    func testHalfVolumeIsSixDecibelsDown() throws {
        let source = SineRenderSource()
        let sink = try openSink(source: source, volume: 0.5)
        XCTAssertEqual(sink.volume, 0.5)
        sink.resume()
        waitForFrames(14_400, of: source)
        sink.close()
        let samples = try diskSamples()
        let lead = leadingSilentFrames(samples, channelCount: 2, bufferFrames: 1_024)
        let audio = samples[(lead * 2)...]
        for index in 0..<2 {
            let level = ToneAnalyzer.rmsDBFS(of: channel(index, of: audio))
            XCTAssertEqual(level - -9.03, -6.02, accuracy: 0.5, "channel \(index) at \(level) dBFS")
        }
    }

    func testMutedOutputIsSilentWhileTheSourceKeepsRendering() throws {
        let source = SineRenderSource()
        let sink = try openSink(source: source, muted: true)
        XCTAssertTrue(sink.isMuted)
        sink.resume()
        waitForFrames(9_600, of: source)
        sink.close()
        XCTAssertGreaterThan(source.callCount, 0, "muting keeps pulling, so the audio clock keeps running")
        let samples = try diskSamples()
        XCTAssertFalse(samples.isEmpty)
        XCTAssertTrue(samples.allSatisfy { $0 == 0 }, "muted output is exact silence")
    }

    func testResumedWithoutSourcePlaysSilence() throws {
        let sink = SDLAudioSink()
        _ = try sink.open(preferred: format)
        sink.resume()
        waitUntil("silence played") { sink.renderedFrameCount > 0 }
        sink.close()
        XCTAssertTrue(try diskSamples().allSatisfy { $0 == 0 })
    }

    func testPauseStopsCallingTheSource() throws {
        let source = SineRenderSource()
        let sink = try openSink(source: source)
        // The device thread writes silent buffers while paused: two of them show it ran without calling the source.
        waitUntil("two silent buffers written while paused") { diskBytes() >= 2 * 1_024 * 2 * 4 }
        XCTAssertEqual(source.callCount, 0, "the device opens paused")
        sink.resume()
        waitForFrames(9_600, of: source)
        sink.pause()
        XCTAssertTrue(sink.isPaused)
        let callsAtPause = source.callCount
        XCTAssertGreaterThan(callsAtPause, 0)
        // 0.3 s of device time while paused (what the file shows as the pause, checked below).
        let bytesAtPause = diskBytes()
        waitUntil("0.3 s written while paused") { diskBytes() >= bytesAtPause + bytesPerSecond * 3 / 10 }
        XCTAssertEqual(source.callCount, callsAtPause, "no render call while paused")
        sink.resume()
        waitUntil("rendering again") { source.callCount >= callsAtPause + 4 }
        sink.close()
        XCTAssertGreaterThan(source.callCount, callsAtPause)

        // The disk driver keeps writing while paused: the pause shows as silence, and the tone resumes where it was.
        let samples = try diskSamples()
        let lead = leadingSilentFrames(samples, channelCount: 2, bufferFrames: 1_024)
        let left = channel(0, of: samples[(lead * 2)...])
        let silences = ToneAnalyzer.discontinuities(in: left, sampleRate: 48_000, frequency: 440)
        XCTAssertEqual(silences.map(\.kind), [.silence])
        XCTAssertGreaterThan(silences.first?.duration ?? 0, 0.25)
        // Every rendered frame is in the file; the 440 Hz sine is exactly 0 once every 1200 frames (whole cycles).
        let sound = left.filter { $0 != 0 }.count
        let rendered = source.renderedFrameCount
        XCTAssertEqual(sound, rendered - rendered / 1_200, accuracy: 2, "all rendered frames are in the file")
    }

    func testVolumeChangeRampsWithoutClick() throws {
        let source = SineRenderSource()
        let sink = try openSink(source: source)
        sink.resume()
        waitForFrames(12_000, of: source)
        let atChange = source.renderedFrameCount
        sink.setVolume(0.5, muted: false)
        waitForFrames(atChange + 12_000, of: source)
        sink.close()

        let samples = try diskSamples()
        let lead = leadingSilentFrames(samples, channelCount: 2, bufferFrames: 1_024)
        let audio = samples[(lead * 2)...]
        for (index, tone) in [440.0, 660.0].enumerated() {
            let signal = channel(index, of: audio)
            let breaks = ToneAnalyzer.discontinuities(in: signal, sampleRate: 48_000, frequency: tone)
            XCTAssertEqual(breaks, [], "channel \(index)")
            XCTAssertEqual(ToneAnalyzer.rmsDBFS(of: Array(signal.prefix(4_800))), -9.03, accuracy: 0.1)
            XCTAssertEqual(ToneAnalyzer.rmsDBFS(of: Array(signal.suffix(4_800))), -15.05, accuracy: 0.1)
        }

        // The gain, read where the tone is far from zero: 1, then a linear ramp of 10 ms, then 0.5.
        let left = channel(0, of: audio)
        var gains: [(frame: Int, gain: Float)] = []
        for (frame, sample) in left.enumerated() {
            let expected = source.expectedSample(frame: frame, channel: 0)
            if abs(expected) > 0.1 { gains.append((frame, sample / expected)) }
        }
        let rampStart = try XCTUnwrap(gains.first { $0.gain < 0.9999 }).frame
        let rampEnd = try XCTUnwrap(gains.first { $0.gain <= 0.5001 }).frame
        XCTAssertEqual(Double(rampEnd - rampStart), 480, accuracy: 24, "ramp of 10 ms at 48 kHz")
        for (previous, next) in zip(gains, gains.dropFirst()) {
            XCTAssertLessThanOrEqual(next.gain, previous.gain + 1e-4, "the gain only falls")
            let perFrame = (previous.gain - next.gain) / Float(next.frame - previous.frame)
            XCTAssertLessThanOrEqual(perFrame, 0.5 / 480 + 1e-4, "at frame \(next.frame)")
        }
    }

    func testCloseWhileRenderingReturnsPromptly() throws {
        // Each render sleeps 5 ms, so a close is very likely to land while a callback runs.
        let source = SineRenderSource(renderDelay: 0.005)
        let threadsBefore = sdlAudioThreadCount()
        let sink = try openSink(source: source)
        sink.resume()
        waitUntil("two render calls") { source.callCount >= 2 }
        XCTAssertEqual(sdlAudioThreadCount(), threadsBefore + 1, "the device's thread runs")
        let closed = expectation(description: "close returned")
        let calls = Locked<(before: Int, after: Int)>((0, 0))
        Thread.detachNewThread {
            let before = source.callCount
            sink.close()
            calls.withLock { $0 = (before, source.callCount) }
            closed.fulfill()
        }
        wait(for: [closed], timeout: 30)
        // Promptly: close waits for the callback running (and one that began as it was called), not for more.
        let (before, after) = calls.current
        XCTAssertLessThanOrEqual(after - before, 2, "render calls while close waited")
        XCTAssertFalse(sink.isOpen)
        // The device's thread is gone (joined by close), so no callback can come after it.
        XCTAssertEqual(sdlAudioThreadCount(), threadsBefore, "the device's thread ended")
        XCTAssertEqual(source.callCount, after, "no callback after close")
        sink.close()  // Closing twice is a no-op.
    }

    func testSinksShareTheSubsystemAndReopen() throws {
        let first = SDLAudioSink()
        let second = SDLAudioSink()
        _ = try first.open(preferred: format)
        _ = try second.open(preferred: AudioFormat(sampleRate: 44_100, channelCount: 1))
        XCTAssertEqual(second.format, AudioFormat(sampleRate: 44_100, channelCount: 1))
        XCTAssertEqual(second.latency, 2 * 1_024 / 44_100, accuracy: 1e-12)
        first.close()
        XCTAssertEqual(SDLAudioSink.currentDriverName, "disk", "the second sink keeps SDL audio up")
        second.close()
        XCTAssertNil(SDLAudioSink.currentDriverName, "the last close quits SDL audio")
        _ = try first.open(preferred: format)
        _ = try first.open(preferred: format)  // Reopening closes the open device first.
        XCTAssertTrue(first.isOpen)
        first.close()
    }

    func testDeinitClosesTheDevice() throws {
        let source = SineRenderSource()
        var sink: SDLAudioSink? = try openSink(source: source)
        sink?.resume()
        waitUntil("a render call") { source.callCount > 0 }
        XCTAssertEqual(SDLAudioSink.currentDriverName, "disk")
        sink = nil
        XCTAssertNil(SDLAudioSink.currentDriverName)
    }

    func testUnknownDriverThrowsSDLsMessage() throws {
        setenv("SDL_AUDIODRIVER", "nonexistent", 1)
        let sink = SDLAudioSink()
        XCTAssertThrowsError(try sink.open(preferred: format)) { error in
            let message = (error as? AudioSinkError)?.message ?? ""
            XCTAssertTrue(message.contains("Audio target 'nonexistent' not available"), message)
            XCTAssertTrue(message.contains("SDL_AUDIODRIVER=dummy"), message)
        }
        XCTAssertFalse(sink.isOpen)
        XCTAssertNil(SDLAudioSink.currentDriverName)
        // SDL starts afresh on the next open, with the driver now named.
        setenv("SDL_AUDIODRIVER", "dummy", 1)
        XCTAssertEqual(try sink.open(preferred: format), format)
        XCTAssertEqual(SDLAudioSink.currentDriverName, "dummy")
        sink.close()
    }

    func testDefaultDriverOpensOrFailsFast() {
        // No SDL_AUDIODRIVER: SDL tries its real drivers. A headless box has none that opens (ALSA initialises,
        // then cannot open its default PCM); a desktop opens its sound server. Either way without waiting on a
        // server that does not answer (the bound tells that apart from a busy machine; it is not a speed claim).
        unsetenv("SDL_AUDIODRIVER")
        let sink = SDLAudioSink()
        let started = Date()
        do {
            _ = try sink.open(preferred: format)
            sink.close()
        } catch {
            XCTAssertFalse(error.message.isEmpty)
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), Awaitable<Void>.hangGuard)
    }

    func testOpeningLeavesCtrlCToTheProcess() throws {
        // SDL's event subsystem (started with audio) would turn SIGINT into an SDL_QUIT event nobody reads.
        func interruptHandler() -> Int {
            var action = sigaction()
            sigaction(SIGINT, nil, &action)
            return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        }
        let before = interruptHandler()
        let sink = SDLAudioSink()
        _ = try sink.open(preferred: format)
        XCTAssertEqual(interruptHandler(), before)
        sink.close()
    }

    func testInvalidFormatThrowsWithoutTouchingSDL() {
        let sink = SDLAudioSink()
        XCTAssertThrowsError(try sink.open(preferred: AudioFormat(sampleRate: 48_000, channelCount: 0)))
        XCTAssertThrowsError(try sink.open(preferred: AudioFormat(sampleRate: 0, channelCount: 2)))
        XCTAssertThrowsError(try sink.open(preferred: AudioFormat(sampleRate: 48_000, channelCount: 9)))
        XCTAssertNil(SDLAudioSink.currentDriverName)
    }

    /// `AVPlayer.audioOutputDeviceUniqueID`'s mechanism: selecting a device while playing closes the one in use and
    /// opens the new one in the same format, with the same source, still playing. SDL's disk driver lists one device
    /// and takes any other name as the path of the file to write, so the sound visibly moves from file to file.
    func testSelectingADeviceWhilePlayingMovesTheSound() throws {
        XCTAssertEqual(SDLAudioSink.outputDeviceNames(), ["System audio output device"])
        let source = SineRenderSource()
        let sink = try openSink(source: source)
        XCTAssertNil(sink.openedDeviceName)
        sink.resume()
        waitForFrames(9_600, of: source)
        let secondFile = diskFile + ".second"
        defer { try? FileManager.default.removeItem(atPath: secondFile) }
        let before = source.renderedFrameCount
        sink.selectDevice(named: secondFile)
        XCTAssertEqual(sink.openedDeviceName, secondFile)
        XCTAssertEqual(sink.format, format, "the same format after the move")
        XCTAssertFalse(sink.isPaused, "still playing")
        let firstSize = try diskSamples().count
        waitForFrames(before + 9_600, of: source)
        XCTAssertEqual(try diskSamples().count, firstSize, "the first device stopped")
        // The disk driver writes a buffer after the render call that filled it returns: the last one may still be on
        // its way to the file (384 frames short once, beside a ThreadSanitizer run).
        func moved() -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: secondFile))?[.size] as? NSNumber)?.intValue ?? 0
        }
        waitUntil("the second device's file holds what was rendered for it") {
            moved() >= 9_600 * format.channelCount * MemoryLayout<Float>.size
        }
        XCTAssertGreaterThanOrEqual(
            moved() / MemoryLayout<Float>.size, 9_600 * format.channelCount, "the sound went on on the second device")
        // Back to the default device (the file SDL_DISKAUDIOFILE names), paused state kept.
        sink.pause()
        sink.selectDevice(named: nil)
        XCTAssertNil(sink.openedDeviceName)
        XCTAssertTrue(sink.isPaused)
        sink.close()
        XCTAssertNil(sink.openedDeviceName)
    }

    /// A name no device has plays on the default device (SDL's dummy driver has only that one).
    func testUnknownDeviceFallsBackToTheDefaultDevice() throws {
        setenv("SDL_AUDIODRIVER", "dummy", 1)
        let sink = SDLAudioSink(deviceName: "No Such Device")
        XCTAssertEqual(try sink.open(preferred: format), format)
        XCTAssertEqual(sink.deviceName, "No Such Device")
        XCTAssertNil(sink.openedDeviceName)
        XCTAssertTrue(sink.isOpen)
        sink.selectDevice(named: "System audio output device")
        XCTAssertEqual(sink.openedDeviceName, "System audio output device")
        sink.close()
    }
}

/// The display modes `CVDisplayLink` asks for, through SDL.
final class SDLDisplayModesTests: XCTestCase {
    func testRefreshRates() {
        let saved = ProcessInfo.processInfo.environment["SDL_VIDEODRIVER"]
        defer { if let saved { setenv("SDL_VIDEODRIVER", saved, 1) } else { unsetenv("SDL_VIDEODRIVER") } }
        // SDL's dummy video driver has one display; its mode may not state a rate (then: nil, a link runs at 60 Hz).
        setenv("SDL_VIDEODRIVER", "dummy", 1)
        let main = SDLDisplayModes.refreshRate(of: nil)
        XCTAssertTrue(main == nil || main! > 0, "\(String(describing: main))")
        XCTAssertEqual(SDLDisplayModes.refreshRate(of: 1), main, "display 1 is the main display")
        XCTAssertNil(SDLDisplayModes.refreshRate(of: 2), "the dummy driver has one display")
        XCTAssertNil(SDLDisplayModes.refreshRate(of: 0), "kCGNullDirectDisplay")
    }
}
