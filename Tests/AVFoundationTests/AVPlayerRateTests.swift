import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Audio at rates other than 1, measured in what was played (untimed virtual clock, captured audio).
final class AVPlayerRateTests: XCTestCase {
    private func play(
        _ f: Fixture, rate: Float, algorithm: AVAudioTimePitchAlgorithm
    ) throws -> (samples: [Float], item: AVPlayerItem, frames: FrameRecorder) {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(f))
        item.audioTimePitchAlgorithm = algorithm
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.rate = rate
        waitUntil("end at \(rate)", timeout: 60) { ends.count == 1 }
        XCTAssertEqual(item.currentTime(), item.duration)
        return (v.audio.samples, item, v.frames)
    }

    private func leftTone(_ samples: [Float]) -> Double {
        let left = ToneAnalyzer.deinterleave(samples, channelCount: 2)[0]
        let middle = Array(left[(left.count / 4)..<(left.count * 3 / 4)])
        return ToneAnalyzer.dominantFrequency(of: middle, sampleRate: 48_000) ?? 0
    }

    func test_rate2_keepsPitchWithTimeDomainAndSpectral_doublesItWithVarispeed() throws {
        for (algorithm, expected) in [
            (AVAudioTimePitchAlgorithm.timeDomain, 440.0), (.spectral, 440), (.varispeed, 880),
        ] {
            let (samples, item, _) = try play(.audioOnly, rate: 2, algorithm: algorithm)
            let seconds = Double(samples.count / 2) / 48_000
            XCTAssertEqual(seconds, item.duration.seconds / 2, accuracy: 0.02, "\(algorithm.rawValue): duration halves")
            XCTAssertEqual(leftTone(samples), expected, accuracy: expected * 0.01, algorithm.rawValue)
        }
    }

    func test_halfRate_timeDomain_doublesTheDuration() throws {
        let (samples, item, _) = try play(.audioOnly, rate: 0.5, algorithm: .timeDomain)
        XCTAssertEqual(Double(samples.count / 2) / 48_000, item.duration.seconds * 2, accuracy: 0.04)
        XCTAssertEqual(leftTone(samples), 440, accuracy: 4.4)
    }

    func test_rateOutsideTheAlgorithmsRange_mutesAudio_videoPlaysOn() throws {
        let (samples, _, frames) = try play(.h264AAC, rate: 64, algorithm: .timeDomain)
        XCTAssertEqual(samples.count, 0, "no audio at rate 64")
        XCTAssertEqual(frames.indices.first ?? nil, 0)
        XCTAssertGreaterThan(frames.entries.count, 0)
    }

    func test_lowQualityZeroLatency_snapsTheRate() throws {
        // 1.9 snaps to 2: the 3 s file plays in 1.5 s of audio, pitch kept.
        let (samples, _, _) = try play(.audioOnly, rate: 1.9, algorithm: .lowQualityZeroLatency)
        XCTAssertEqual(Double(samples.count / 2) / 48_000, 1.5, accuracy: 0.02)
        XCTAssertEqual(leftTone(samples), 440, accuracy: 4.4)
    }
}
