import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

final class AVAudioMixTests: XCTestCase {
    func test_inputParameters_rampsAndSteps() {
        let p = AVMutableAudioMixInputParameters()
        p.trackID = 2
        p.setVolumeRamp(
            fromStartVolume: 1, toEndVolume: 0,
            timeRange: CMTimeRange(start: CMTime(value: 2, timescale: 1), end: CMTime(value: 4, timescale: 1)))
        p.setVolume(0.5, at: CMTime(value: 6, timescale: 1))
        var a: Float = -1
        var b: Float = -1
        var range = CMTimeRange.invalid
        XCTAssertFalse(
            p.getVolumeRamp(for: CMTime(value: 1, timescale: 1), startVolume: &a, endVolume: &b, timeRange: &range))
        XCTAssertTrue(
            p.getVolumeRamp(for: CMTime(value: 3, timescale: 1), startVolume: &a, endVolume: &b, timeRange: &range))
        XCTAssertEqual(a, 1)
        XCTAssertEqual(b, 0)
        XCTAssertEqual(range.end, CMTime(value: 4, timescale: 1))
        XCTAssertTrue(
            p.getVolumeRamp(for: CMTime(value: 9, timescale: 1), startVolume: &a, endVolume: &b, timeRange: nil))
        XCTAssertEqual(a, 0.5)
        let mix = AVMutableAudioMix()
        mix.inputParameters = [p]
        let copy = mix.copy() as! AVAudioMix
        XCTAssertEqual(copy.inputParameters.first?.trackID, 2)
        XCTAssertEqual(p.curve?.value(at: 3), 0.5)
        XCTAssertEqual(p.curve?.value(at: 5), 0)
        XCTAssertEqual(p.curve?.value(at: 0.5), 1)
        XCTAssertEqual(p.curve?.value(at: 7), 0.5)
    }

    func test_playedAudio_followsTheMix() throws {
        let v = VirtualPlayer()
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let item = AVPlayerItem(asset: asset)
        let audioTrack = try XCTUnwrap(asset.tracks(withMediaType: .audio).first)
        let p = AVMutableAudioMixInputParameters(track: audioTrack)
        p.setVolumeRamp(
            fromStartVolume: 1, toEndVolume: 0,
            timeRange: CMTimeRange(start: CMTime(value: 2, timescale: 1), end: CMTime(value: 4, timescale: 1)))
        p.setVolume(0.5, at: CMTime(value: 6, timescale: 1))
        let mix = AVMutableAudioMix()
        mix.inputParameters = [p]
        item.audioMix = mix
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end") { ends.count == 1 }
        let left = ToneAnalyzer.deinterleave(v.audio.samples, channelCount: 2)[0]
        func level(_ from: Double, _ to: Double) -> Double {
            ToneAnalyzer.rmsDBFS(of: Array(left[Int(from * 48_000)..<Int(to * 48_000)]))
        }
        XCTAssertEqual(level(0.5, 1.5), -9.03, accuracy: 0.5, "full volume before the ramp")
        XCTAssertEqual(level(2.95, 3.05), -9.03 - 6.02, accuracy: 0.7, "half-way down the ramp")
        XCTAssertLessThan(level(4.5, 5.5), -60, "silent after the ramp")
        XCTAssertEqual(level(7, 8), -9.03 - 6.02, accuracy: 0.5, "0.5 from 6 s on")
    }

    func test_trackAlgorithm_overridesTheItems() throws {
        // The item says time domain (pitch kept); the mix says varispeed for the played track: at rate 2 the
        // 440 Hz tone plays at 880 Hz. Without a track algorithm the item's applies.
        for (trackAlgorithm, expected) in [(AVAudioTimePitchAlgorithm.varispeed, 880.0), (nil, 440.0)] {
            let v = VirtualPlayer()
            let item = AVPlayerItem(url: try fixture(.audioOnly))
            item.audioTimePitchAlgorithm = .timeDomain
            let track = try XCTUnwrap(item.asset.tracks(withMediaType: .audio).first)
            let parameters = AVMutableAudioMixInputParameters(track: track)
            parameters.audioTimePitchAlgorithm = trackAlgorithm
            let mix = AVMutableAudioMix()
            mix.inputParameters = [parameters]
            item.audioMix = mix
            let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
            v.player.replaceCurrentItem(with: item)
            v.player.rate = 2
            waitUntil("the end") { ends.count == 1 }
            let left = ToneAnalyzer.deinterleave(v.audio.samples, channelCount: 2)[0]
            let middle = Array(left[(left.count / 4)..<(left.count * 3 / 4)])
            let tone = ToneAnalyzer.dominantFrequency(of: middle, sampleRate: 48_000) ?? 0
            XCTAssertEqual(tone, expected, accuracy: expected * 0.01, "\(String(describing: trackAlgorithm))")
        }
    }
}
