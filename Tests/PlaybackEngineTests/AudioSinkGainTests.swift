import PlaybackEngine
import TestSupport
import XCTest

/// Checks the gain stage every sink shares: ``AudioVolume`` (the setting) and ``AudioGainRamp`` (the ramp).
final class AudioSinkGainTests: XCTestCase {
    /// `frames` frames of a 0.5-amplitude sine at 48 kHz, `channels` interleaved copies.
    private func sine(_ frequency: Double = 440, frames: Int, channels: Int = 1, from start: Int = 0) -> [Float] {
        (0..<(frames * channels)).map { index in
            Float(0.5 * sin(2 * Double.pi * frequency * Double(start + index / channels) / 48_000))
        }
    }

    func testVolumeClampsAndKeepsVolumeWhileMuted() {
        let volume = AudioVolume()
        XCTAssertEqual(volume.gain, 1)
        volume.set(volume: 0.25, muted: true)
        XCTAssertEqual(volume.volume, 0.25)
        XCTAssertTrue(volume.isMuted)
        XCTAssertEqual(volume.gain, 0)
        volume.set(volume: 1.5, muted: false)
        XCTAssertEqual(volume.gain, 1)
        volume.set(volume: -1, muted: false)
        XCTAssertEqual(volume.gain, 0)
        volume.set(volume: .nan, muted: false)
        XCTAssertEqual(volume.gain, 0)
        XCTAssertEqual(AudioVolume(volume: 0.5, muted: false).gain, 0.5)
    }

    func testFirstTargetAppliesAtOnce() {
        var ramp = AudioGainRamp(sampleRate: 48_000)
        XCTAssertEqual(ramp.rampFrameCount, 480)
        XCTAssertNil(ramp.current)
        ramp.setTarget(0.5)
        var samples: [Float] = [1, 1, 1, 1]
        ramp.apply(to: &samples, frameCount: 2, channelCount: 2)
        XCTAssertEqual(samples, [0.5, 0.5, 0.5, 0.5])
        XCTAssertEqual(ramp.current, 0.5)
        XCTAssertFalse(ramp.isRamping)
    }

    func testRampIsLinearOverTenMillisecondsOnEveryChannel() {
        var ramp = AudioGainRamp(sampleRate: 48_000)
        var ones = [Float](repeating: 1, count: 2_000)
        ramp.apply(to: &ones, frameCount: 1_000, channelCount: 2)
        XCTAssertTrue(ones.allSatisfy { $0 == 1 }, "gain 1 leaves samples untouched")
        ramp.setTarget(0)
        var samples = [Float](repeating: 1, count: 2_000)
        ramp.apply(to: &samples, frameCount: 1_000, channelCount: 2)
        for frame in 0..<1_000 {
            let expected = frame < 480 ? 1 - Float(frame + 1) / 480 : 0
            XCTAssertEqual(samples[2 * frame], expected, accuracy: 1e-5, "frame \(frame)")
            XCTAssertEqual(samples[2 * frame + 1], samples[2 * frame])
        }
        XCTAssertTrue(samples[(2 * 480)...].allSatisfy { $0 == 0 }, "a steady gain of 0 writes exact zeros")
        XCTAssertEqual(ramp.current, 0)
    }

    func testRampIsTheSameWhateverTheBufferSizes() {
        let input = sine(frames: 2_000, channels: 2)
        var whole = AudioGainRamp(sampleRate: 48_000)
        var pieces = AudioGainRamp(sampleRate: 48_000)
        var first = input
        var second = input
        whole.apply(to: &first, frameCount: 100, channelCount: 2)
        pieces.apply(to: &second, frameCount: 100, channelCount: 2)
        whole.setTarget(0.3)
        pieces.setTarget(0.3)
        first.withUnsafeMutableBufferPointer {
            whole.apply(to: $0.baseAddress! + 200, frameCount: 1_900, channelCount: 2)
        }
        second.withUnsafeMutableBufferPointer { buffer in
            var frame = 100
            var size = 1
            while frame < 2_000 {
                let count = min(size, 2_000 - frame)
                pieces.apply(to: buffer.baseAddress! + 2 * frame, frameCount: count, channelCount: 2)
                frame += count
                size = size % 37 + 1
            }
        }
        for index in first.indices {
            XCTAssertEqual(first[index], second[index], accuracy: 1e-6, "sample \(index)")
        }
    }

    func testRetargetDuringARampStartsFromTheCurrentGain() {
        var ramp = AudioGainRamp(sampleRate: 48_000)
        ramp.advance(frameCount: 1)
        ramp.setTarget(0)
        ramp.advance(frameCount: 240)
        XCTAssertEqual(try XCTUnwrap(ramp.current), 0.5, accuracy: 1e-5)
        ramp.setTarget(1)
        XCTAssertTrue(ramp.isRamping)
        ramp.advance(frameCount: 240)
        XCTAssertEqual(try XCTUnwrap(ramp.current), 0.75, accuracy: 1e-5)
        ramp.advance(frameCount: 1_000)
        XCTAssertEqual(ramp.current, 1)
        XCTAssertFalse(ramp.isRamping)
    }

    func testRampMakesNoClickWhereAStepDoes() {
        // The detector's positive control: an abrupt halving is a click...
        var stepped = sine(frames: 9_600)
        for index in 4_800..<9_600 { stepped[index] *= 0.5 }
        let clicks = ToneAnalyzer.discontinuities(in: stepped, sampleRate: 48_000, frequency: 440)
        XCTAssertEqual(clicks.map(\.kind), [.click])
        // ...the same change through the ramp is not, nor is a ramp to silence.
        for target: Float in [0.5, 0] {
            var ramped = sine(frames: 9_600)
            var ramp = AudioGainRamp(sampleRate: 48_000)
            ramp.apply(to: &ramped, frameCount: 4_800, channelCount: 1)
            ramp.setTarget(target)
            ramped.withUnsafeMutableBufferPointer {
                ramp.apply(to: $0.baseAddress! + 4_800, frameCount: 4_800, channelCount: 1)
            }
            let events = ToneAnalyzer.discontinuities(in: ramped, sampleRate: 48_000, frequency: 440)
            XCTAssertEqual(events.map(\.kind), target == 0 ? [.silence] : [], "ramp to \(target)")
        }
    }
}
