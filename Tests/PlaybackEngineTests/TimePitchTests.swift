import FFmpegBridge
import Foundation
import PlaybackEngine
import TestSupport
import XCTest

/// Checks ``TimePitchProcessor`` on a 0.5-amplitude stereo tone (440 Hz left, 660 Hz right, 48 kHz): pitch,
/// duration and level per algorithm at rates 2 and 0.5, click-free rate changes, the extreme rates, the
/// low-quality snapping table, muting and flush. Measurements are printed as `TimePitch:` lines.
final class TimePitchTests: XCTestCase {
    private static let sampleRate = 48_000
    private static let format = AudioFormat(sampleRate: sampleRate, channelCount: 2)
    private static let amplitude = 0.5

    /// `frames` stereo frames of the test tone starting at frame `start`.
    private static func tone(frames: Int, from start: Int = 0, left: Double = 440, right: Double = 660) -> [Float] {
        var samples = [Float](repeating: 0, count: frames * 2)
        for frame in 0..<frames {
            let t = Double(start + frame) / Double(sampleRate)
            samples[2 * frame] = Float(amplitude * sin(2 * Double.pi * left * t))
            samples[2 * frame + 1] = Float(amplitude * sin(2 * Double.pi * right * t))
        }
        return samples
    }

    /// Drives `processor` the way the renderer does: asks how much input the next `block` output frames need,
    /// pushes it from `input`, pulls, until `outputFrames` frames came out or the input ran out. `rateAt` gives
    /// the rate for an output frame position, applied before each block when it changed.
    private static func render(
        _ processor: TimePitchProcessor, input: [Float], outputFrames: Int, block: Int = 512,
        rateAt: ((Int) -> Double?)? = nil
    ) -> (output: [Float], consumedInput: Int) {
        var output = [Float]()
        output.reserveCapacity(outputFrames * 2)
        var scratch = [Float](repeating: 0, count: block * 2)
        var offset = 0
        let inputFrames = input.count / 2
        while output.count / 2 < outputFrames {
            if let rate = rateAt?(output.count / 2), rate != processor.rate { processor.rate = rate }
            let want = min(block, outputFrames - output.count / 2)
            var pulled = 0
            while pulled < want {
                let needed = processor.inputFramesNeeded(forOutput: want - pulled)
                if needed > 0 {
                    guard offset < inputFrames else { break }
                    let n = min(needed, inputFrames - offset)
                    input.withUnsafeBufferPointer { processor.push($0.baseAddress! + offset * 2, frameCount: n) }
                    offset += n
                }
                let got = scratch.withUnsafeMutableBufferPointer {
                    processor.pull(into: $0.baseAddress!, frameCount: want - pulled)
                }
                output += scratch[0..<(got * 2)]
                pulled += got
            }
            if pulled < want { break }
        }
        return (output, offset)
    }

    /// The largest third difference of `channel` (after `skip` samples) relative to the tone amplitude. A step of
    /// 1 % of the amplitude (−40 dB) gives 0.02; a clean sine at f gives (2πf/48000)³ (0.0002 at 880 Hz).
    private static func clickMeasure(_ channel: [Float], skip: Int) -> (value: Double, index: Int) {
        var worst = 0.0
        var at = 0
        guard channel.count > skip + 3 else { return (0, 0) }
        for index in max(3, skip)..<channel.count {
            let d3 =
                Double(channel[index]) - 3 * Double(channel[index - 1]) + 3 * Double(channel[index - 2])
                - Double(channel[index - 3])
            if abs(d3) > worst {
                worst = abs(d3)
                at = index
            }
        }
        return (worst / amplitude, at)
    }

    private static let inputLevel = 20 * log10(amplitude / 2.0.squareRoot())

    /// Runs 8 s of tone through `algorithm` at `rate` and checks pitch, duration and level.
    private func checkSteady(
        _ algorithm: TimePitchAlgorithm, rate: Double, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        let inputFrames = 8 * Self.sampleRate
        let input = Self.tone(frames: inputFrames)
        let processor = TimePitchProcessor(format: Self.format, algorithm: algorithm)
        processor.rate = rate
        // Ask for more than the input can give, so all of it is pushed.
        let (output, consumed) = Self.render(
            processor, input: input, outputFrames: Int(Double(inputFrames) / rate) + Self.sampleRate)
        XCTAssertEqual(consumed, inputFrames, file: file, line: line)
        let outputFrames = output.count / 2
        let expectedFrames = Double(inputFrames) / rate
        let durationError = (Double(outputFrames) - expectedFrames) / expectedFrames
        // Everything pushed is either pulled (at the rate) or still inside the processor.
        let accounted = Double(outputFrames) * rate + processor.latency * Double(Self.sampleRate)
        let channels = ToneAnalyzer.deinterleave(output, channelCount: 2)
        // Skip the first 0.25 s (the stretchers' start) and analyse the steady middle.
        let skip = Self.sampleRate / 4
        let left = Array(channels[0][skip..<(channels[0].count - skip / 2)])
        let right = Array(channels[1][skip..<(channels[1].count - skip / 2)])
        let leftHz = ToneAnalyzer.dominantFrequency(of: left, sampleRate: Double(Self.sampleRate)) ?? 0
        let rightHz = ToneAnalyzer.dominantFrequency(of: right, sampleRate: Double(Self.sampleRate)) ?? 0
        let level = ToneAnalyzer.rmsDBFS(of: left)
        let pitchFactor = algorithm == .varispeed ? rate : 1
        print(
            String(
                format: "TimePitch: %@ rate %.3f: left %.2f Hz right %.2f Hz, output %d frames (%+.2f %%),"
                    + " level %+.2f dB, latency %.1f ms",
                "\(algorithm)", rate, leftHz, rightHz, outputFrames, 100 * durationError, level - Self.inputLevel,
                1000 * processor.latency))
        XCTAssertEqual(leftHz, 440 * pitchFactor, accuracy: 4.4 * pitchFactor, file: file, line: line)
        XCTAssertEqual(rightHz, 660 * pitchFactor, accuracy: 6.6 * pitchFactor, file: file, line: line)
        XCTAssertEqual(durationError, 0, accuracy: 0.03, file: file, line: line)
        XCTAssertEqual(accounted, Double(inputFrames), accuracy: Double(inputFrames) * 0.001, file: file, line: line)
        XCTAssertEqual(level, Self.inputLevel, accuracy: 1, file: file, line: line)
    }

    func testVarispeedPitchFollowsRate() {
        checkSteady(.varispeed, rate: 2)
        checkSteady(.varispeed, rate: 0.5)
    }

    func testTimeDomainKeepsPitch() {
        checkSteady(.timeDomain, rate: 2)
        checkSteady(.timeDomain, rate: 0.5)
    }

    func testSpectralKeepsPitch() {
        checkSteady(.spectral, rate: 2)
        checkSteady(.spectral, rate: 0.5)
    }

    func testLowQualityZeroLatencyKeepsPitchAtSnappedRate() {
        checkSteady(.lowQualityZeroLatency, rate: 2)
        checkSteady(.lowQualityZeroLatency, rate: 0.5)
    }

    /// The fixture's AAC tones (decoded by the ffmpeg tool) keep their pitch at rate 1.5 with pitch correction and
    /// move to 1.5× with varispeed.
    func testFixtureTonesAtRateOneAndAHalf() throws {
        let tones = try XCTUnwrap(Fixture.h264AAC.facts.audio.first).tones
        let input = try ReferenceDecoder.audioSamples(
            of: try Fixtures.url(.h264AAC), duration: 3, sampleRate: Self.sampleRate, channelCount: 2)
        for algorithm in [TimePitchAlgorithm.varispeed, .timeDomain, .spectral, .lowQualityZeroLatency] {
            let processor = TimePitchProcessor(format: Self.format, algorithm: algorithm)
            processor.rate = 1.5
            let (output, _) = Self.render(processor, input: input, outputFrames: input.count)
            let channels = ToneAnalyzer.deinterleave(output, channelCount: 2)
            let factor = algorithm == .varispeed ? 1.5 : 1
            for (channel, tone) in zip(channels, tones) {
                let hz =
                    ToneAnalyzer.dominantFrequency(
                        of: Array(channel[(Self.sampleRate / 4)...]), sampleRate: Double(Self.sampleRate)) ?? 0
                print(
                    String(format: "TimePitch: fixture %@ rate 1.5: %.1f Hz tone → %.2f Hz", "\(algorithm)", tone, hz))
                XCTAssertEqual(hz, tone * factor, accuracy: tone * factor * 0.01, "\(algorithm)")
            }
        }
    }

    /// Plays 1 s at `first`, 1 s at `second`, 1 s at `first` (output time) and checks for steps.
    /// With `quickly`, the rate moves on to `quickly` 1024 frames into the middle second (a second rebuild
    /// before the first crossfade is heard).
    private func checkRateChange(
        _ algorithm: TimePitchAlgorithm, first: Double = 1, second: Double = 2, quickly: Double? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let second1 = Self.sampleRate
        let input = Self.tone(frames: Int(Double(3 * second1) * max(first, second, quickly ?? 0)) + second1)
        let processor = TimePitchProcessor(format: Self.format, algorithm: algorithm)
        processor.rate = first
        let (output, _) = Self.render(processor, input: input, outputFrames: 3 * second1) { position in
            if let quickly, position >= second1 + 1024, position < 2 * second1 { return quickly }
            return position >= second1 && position < 2 * second1 ? second : first
        }
        XCTAssertEqual(output.count / 2, 3 * second1, file: file, line: line)
        let channels = ToneAnalyzer.deinterleave(output, channelCount: 2)
        // The middle second plays at `second`: its pitch shows for varispeed, its stretch for the others.
        let middle = Array(channels[0][(second1 + second1 / 4)..<(2 * second1 - second1 / 4)])
        let middleHz = ToneAnalyzer.dominantFrequency(of: middle, sampleRate: Double(Self.sampleRate)) ?? 0
        let middleRate = quickly ?? second
        XCTAssertEqual(
            middleHz, algorithm == .varispeed ? 440 * middleRate : 440, accuracy: 4.4 * middleRate, file: file,
            line: line)
        // Skip the stretcher's start (its first window fades in).
        let skip = Self.sampleRate / 5
        let left = Self.clickMeasure(channels[0], skip: skip)
        let right = Self.clickMeasure(channels[1], skip: skip)
        let worst = max(left.value, right.value)
        let stepDB = 20 * log10(max(worst / 2, 1e-9))
        print(
            String(
                format: "TimePitch: %@ rate %.3f→%.3f→%.3f: worst step %.1f dB re tone (at %.3f s)", "\(algorithm)",
                first, second, first, stepDB,
                Double(left.value > right.value ? left.index : right.index) / Double(Self.sampleRate)))
        // A step of 1 % of the amplitude (−40 dB) gives a third difference of 0.02 × amplitude.
        XCTAssertLessThan(worst, 0.02, file: file, line: line)
        for channel in channels {
            let silences = ToneAnalyzer.discontinuities(
                in: Array(channel[skip...]), sampleRate: Double(Self.sampleRate), frequency: nil
            ).filter { $0.kind == .silence }
            XCTAssertEqual(silences, [], file: file, line: line)
        }
    }

    func testVarispeedRateChangeHasNoClick() { checkRateChange(.varispeed) }
    func testTimeDomainRateChangeHasNoClick() { checkRateChange(.timeDomain) }
    func testSpectralRateChangeHasNoClick() { checkRateChange(.spectral) }
    func testLowQualityRateChangeHasNoClick() { checkRateChange(.lowQualityZeroLatency, first: 1, second: 1.5) }

    /// 1 → 0.25 needs a second atempo stage: a new graph joined to the old output.
    func testTimeDomainStageChangeHasNoClick() { checkRateChange(.timeDomain, first: 1, second: 0.25) }

    /// 1 → 0.25 → 0.1 within 1024 frames (a second rebuild before the first is heard) → 1.
    func testTimeDomainQuickStageChangesHaveNoClick() {
        checkRateChange(.timeDomain, first: 1, second: 0.25, quickly: 0.1)
    }

    /// Varispeed 1 → 0.25 → 2.5 within 1024 frames → 1: the step ramps stay continuous.
    func testVarispeedQuickRateChangesHaveNoClick() {
        checkRateChange(.varispeed, first: 1, second: 0.25, quickly: 2.5)
    }

    /// The click measure sees a step of 1 % of the amplitude (−40 dB) in the tone, and not the tone itself.
    func testClickMeasureDetectsOnePercentStep() {
        var channel = ToneAnalyzer.deinterleave(Self.tone(frames: 4800), channelCount: 2)[1]
        XCTAssertLessThan(Self.clickMeasure(channel, skip: 3).value, 0.002)
        for index in 2400..<channel.count { channel[index] += Float(0.01 * Self.amplitude) }
        XCTAssertGreaterThanOrEqual(Self.clickMeasure(channel, skip: 3).value, 0.0199)
    }

    /// Graph build failures throw (and free what was built): an unknown filter, an out-of-range tempo.
    func testFilterGraphRejectsBadChains() {
        XCTAssertThrowsError(
            try AudioFilterGraph(
                sampleRate: 48_000, channelCount: 2,
                filters: [.init(name: "nosuchfilter", instanceName: "x", arguments: "")]))
        XCTAssertThrowsError(
            try AudioFilterGraph(
                sampleRate: 48_000, channelCount: 2,
                filters: [.init(name: "atempo", instanceName: "a", arguments: "tempo=1000")]))
        XCTAssertNoThrow(
            try AudioFilterGraph(
                sampleRate: 44_100, channelCount: 6,
                filters: [.init(name: "atempo", instanceName: "a", arguments: "tempo=1.5")]))
    }

    func testLowQualitySnappingTable() {
        let cases: [(Double, Double)] = [
            (0.5, 0.5), (0.55, 0.5), (0.6, 0.666667), (0.7, 0.666667), (0.75, 0.8), (0.9, 0.8), (0.95, 1),
            (1.1, 1), (1.2, 1.25), (1.4, 1.5), (1.7, 1.5), (1.8, 2), (2, 2),
        ]
        for (rate, snapped) in cases {
            XCTAssertEqual(
                TimePitchProcessor.effectiveRate(rate, algorithm: .lowQualityZeroLatency), snapped, accuracy: 1e-6,
                "\(rate)")
        }
        for algorithm in [TimePitchAlgorithm.varispeed, .timeDomain, .spectral] {
            XCTAssertEqual(TimePitchProcessor.effectiveRate(0.7, algorithm: algorithm), 0.7)
        }
        XCTAssertTrue(TimePitchProcessor.supports(1.5, algorithm: .lowQualityZeroLatency))
        XCTAssertFalse(TimePitchProcessor.supports(4, algorithm: .lowQualityZeroLatency))
        XCTAssertFalse(TimePitchProcessor.supports(0.25, algorithm: .lowQualityZeroLatency))
    }

    func testSupportedRates() {
        for algorithm in [TimePitchAlgorithm.varispeed, .timeDomain, .spectral] {
            for rate in [1.0 / 32, 0.5, 1, 2, 32] {
                XCTAssertTrue(TimePitchProcessor.supports(rate, algorithm: algorithm), "\(algorithm) \(rate)")
            }
            for rate in [64, 1.0 / 64, 0, -1, .nan, .infinity] {
                XCTAssertFalse(TimePitchProcessor.supports(rate, algorithm: algorithm), "\(algorithm) \(rate)")
            }
        }
    }

    /// Checks output length at `rate` for `inputFrames` of tone, and that the pitch stays 440 Hz.
    private func checkExtreme(_ algorithm: TimePitchAlgorithm, rate: Double, inputFrames: Int) {
        let input = Self.tone(frames: inputFrames)
        let processor = TimePitchProcessor(format: Self.format, algorithm: algorithm)
        processor.rate = rate
        let expected = Int(Double(inputFrames) / rate)
        let (output, consumed) = Self.render(processor, input: input, outputFrames: expected)
        let outputFrames = output.count / 2
        let accounted = Double(outputFrames) * rate + processor.latency * Double(Self.sampleRate)
        let left = ToneAnalyzer.deinterleave(output, channelCount: 2)[0]
        let hz = ToneAnalyzer.dominantFrequency(of: Array(left[(left.count / 4)...]), sampleRate: 48_000) ?? 0
        print(
            String(
                format: "TimePitch: %@ rate %.5f: %d input → %d output frames (expected %d), %.2f Hz, latency %.1f ms",
                "\(algorithm)", rate, consumed, outputFrames, expected, hz, 1000 * processor.latency))
        XCTAssertEqual(consumed, inputFrames)
        XCTAssertEqual(Double(outputFrames), Double(expected), accuracy: Double(expected) * 0.05)
        XCTAssertEqual(accounted, Double(inputFrames), accuracy: Double(inputFrames) * 0.001)
        XCTAssertEqual(hz, 440, accuracy: 4.4)
    }

    func testTimeDomainExtremeRates() {
        checkExtreme(.timeDomain, rate: 1.0 / 32, inputFrames: 3 * Self.sampleRate / 2)
        checkExtreme(.timeDomain, rate: 32, inputFrames: 48 * Self.sampleRate)
    }

    func testSpectralExtremeRates() {
        checkExtreme(.spectral, rate: 1.0 / 32, inputFrames: Self.sampleRate)
        checkExtreme(.spectral, rate: 32, inputFrames: 48 * Self.sampleRate)
    }

    func testUnsupportedRateMutesAndRecovers() {
        let processor = TimePitchProcessor(format: Self.format, algorithm: .timeDomain)
        let input = Self.tone(frames: 4 * Self.sampleRate)
        let (before, used) = Self.render(processor, input: input, outputFrames: Self.sampleRate / 2)
        XCTAssertEqual(before.count, Self.sampleRate)
        processor.rate = 64
        XCTAssertEqual(processor.latency, 0)
        XCTAssertEqual(processor.inputFramesNeeded(forOutput: 100), 6400)
        input.withUnsafeBufferPointer { processor.push($0.baseAddress! + used * 2, frameCount: 6400) }
        var block = [Float](repeating: 1, count: 200)
        XCTAssertEqual(
            block.withUnsafeMutableBufferPointer { processor.pull(into: $0.baseAddress!, frameCount: 100) }, 100)
        XCTAssertEqual(block, [Float](repeating: 0, count: 200))
        XCTAssertEqual(processor.latency, 0)
        processor.rate = 1
        let (after, _) = Self.render(
            processor, input: Array(input[((used + 6400) * 2)...]), outputFrames: Self.sampleRate / 2)
        XCTAssertEqual(after.count, Self.sampleRate)
        let left = ToneAnalyzer.deinterleave(after, channelCount: 2)[0]
        XCTAssertEqual(
            ToneAnalyzer.dominantFrequency(of: Array(left[(left.count / 2)...]), sampleRate: 48_000) ?? 0, 440,
            accuracy: 4.4)
        // Resuming from silence joins smoothly.
        XCTAssertLessThan(Self.clickMeasure(left, skip: 3).value, 0.02)
    }

    func testFlushDropsState() {
        for algorithm in [TimePitchAlgorithm.varispeed, .timeDomain, .spectral, .lowQualityZeroLatency] {
            let processor = TimePitchProcessor(format: Self.format, algorithm: algorithm)
            processor.rate = 1.5
            let old = Self.tone(frames: Self.sampleRate)
            _ = Self.render(processor, input: old, outputFrames: Self.sampleRate / 4)
            old.withUnsafeBufferPointer { processor.push($0.baseAddress!, frameCount: 8192) }
            XCTAssertGreaterThan(processor.latency, 0, "\(algorithm)")
            processor.flush()
            XCTAssertEqual(processor.latency, 0, "\(algorithm)")
            var block = [Float](repeating: 0, count: 2048)
            XCTAssertEqual(
                block.withUnsafeMutableBufferPointer { processor.pull(into: $0.baseAddress!, frameCount: 1024) }, 0,
                "\(algorithm)")
            XCTAssertEqual(processor.rate, 1.5)
            // Only the new material comes out: a 1 kHz tone.
            let new = Self.tone(frames: Self.sampleRate, left: 1000, right: 1000)
            let (output, _) = Self.render(processor, input: new, outputFrames: Self.sampleRate / 2)
            let left = ToneAnalyzer.deinterleave(output, channelCount: 2)[0]
            let expected = algorithm == .varispeed ? 1500.0 : 1000
            let spectrum = ToneAnalyzer.dominantFrequency(of: left, sampleRate: 48_000) ?? 0
            XCTAssertEqual(spectrum, expected, accuracy: expected * 0.01, "\(algorithm)")
        }
    }

    /// CPU seconds this thread spent in `body`.
    private static func threadCPUTime(_ body: () -> Void) -> Double {
        var start = timespec()
        var end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) + Double(end.tv_nsec - start.tv_nsec) / 1e9
    }

    /// Prints the CPU cost per second of input audio for each algorithm at rates 2 and 0.5 (this build's
    /// optimisation level; debug builds are slower for the Swift varispeed kernel).
    func testCPUCostPerSecondOfAudio() {
        let seconds = 5
        let input = Self.tone(frames: seconds * Self.sampleRate)
        for algorithm in [TimePitchAlgorithm.varispeed, .timeDomain, .spectral, .lowQualityZeroLatency] {
            for rate in [2.0, 0.5] {
                let processor = TimePitchProcessor(format: Self.format, algorithm: algorithm)
                processor.rate = rate
                var frames = 0
                let cpu = Self.threadCPUTime {
                    frames =
                        Self.render(
                            processor, input: input, outputFrames: Int(Double(input.count / 2) / rate), block: 1024
                        ).output.count / 2
                }
                print(
                    String(
                        format: "TimePitch: CPU %@ rate %.1f: %.1f ms per second of input (%.2f %% of a core in real"
                            + " time)", "\(algorithm)", rate, 1000 * cpu / Double(seconds),
                        100 * cpu / (Double(seconds) / rate)))
                XCTAssertGreaterThan(frames, 0)
            }
        }
    }
}
