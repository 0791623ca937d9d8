import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// Stepping and rates on an HLS VOD (`HLSFixture.vod`: 10 s, five 2 s MPEG-TS segments, 30 fps, 440 / 660 Hz) work
/// as on files: segment boundaries (every 60 pictures) are invisible.
final class HLSStepAndRateTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    private var url: URL { server.url(HLSFixture.vod.rawValue) }

    func test_steps_landOnConsecutiveFrames_acrossASegmentBoundary() throws {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let item = AVPlayerItem(url: url)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay)
        waitUntil("first frame", timeout: 30) { !v.frames.entries.isEmpty }
        XCTAssertTrue(item.canStepForward)
        XCTAssertTrue(item.canStepBackward)
        let first = try XCTUnwrap(v.frames.entries.first).time
        // Frame 58, two before the second segment's first picture.
        let done = Locked<Bool?>(nil)
        item.seek(
            to: first + CMTime(value: 58, timescale: 30), toleranceBefore: .zero, toleranceAfter: .zero
        ) { ok in done.withLock { $0 = ok } }
        waitUntil("seek", timeout: 30) { done.withLock { $0 } != nil }
        XCTAssertEqual(v.frames.indices.last ?? nil, 58)
        // One at a time over the boundary and back: 59, 60, 61, 60, 59, 58.
        for (count, expected) in [(1, 59), (1, 60), (1, 61), (-1, 60), (-1, 59), (-1, 58)] {
            item.step(byCount: count)
            waitUntil("frame \(expected)", timeout: 30) { v.frames.indices.last == expected }
            XCTAssertEqual(
                item.currentTime().seconds, (first + CMTime(value: Int64(expected), timescale: 30)).seconds,
                accuracy: 0.001, "at frame \(expected)")
        }
        // Several at once, both ways across it (the backward step decodes from the first segment's keyframe).
        item.step(byCount: 5)
        waitUntil("frame 63", timeout: 30) { v.frames.indices.last == 63 }
        item.step(byCount: -7)
        waitUntil("frame 56", timeout: 30) { v.frames.indices.last == 56 }
    }

    /// Plays the VOD to its end at `rate` (time-domain pitch, untimed clock): the pictures shown and the sound.
    private func play(rate: Float) throws -> (frames: [Int], samples: [Float]) {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: url)
        item.audioTimePitchAlgorithm = .timeDomain
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        v.player.rate = rate
        waitUntil("end at \(rate)", timeout: 60) { ends.count == 1 || item.status == .failed }
        XCTAssertNil(item.error)
        XCTAssertEqual(item.currentTime().seconds, item.duration.seconds, accuracy: 0.001)
        return (v.frames.indices.compactMap { $0 }, v.audio.samples)
    }

    /// The left channel's tone over the middle half of `samples`, and their duration in seconds.
    private func analyse(_ samples: [Float]) -> (tone: Double, seconds: Double) {
        let left = ToneAnalyzer.deinterleave(samples, channelCount: 2)[0]
        let middle = Array(left[(left.count / 4)..<(left.count * 3 / 4)])
        return (ToneAnalyzer.dominantFrequency(of: middle, sampleRate: 48_000) ?? 0, Double(left.count) / 48_000)
    }

    func test_rate2_showsThePicturesInOrder_inHalfTheTime_atThePitch() throws {
        let (frames, samples) = try play(rate: 2)
        XCTAssertEqual(frames.first, 0)
        XCTAssertEqual(frames.last, 299)
        XCTAssertEqual(frames, frames.sorted(), "in order")
        XCTAssertEqual(Set(frames).count, frames.count, "each once")
        // Every segment's pictures came (a dropped picture here or there is allowed at twice the speed).
        for segment in 0..<5 {
            XCTAssertGreaterThan(frames.filter { $0 / 60 == segment }.count, 30, "segment \(segment)")
        }
        let (tone, seconds) = analyse(samples)
        XCTAssertEqual(seconds, 5, accuracy: 0.1)
        XCTAssertEqual(tone, 440, accuracy: 4.4)
    }

    func test_halfRate_showsEveryPicture_inTwiceTheTime_atThePitch() throws {
        let (frames, samples) = try play(rate: 0.5)
        XCTAssertEqual(frames, Array(0..<300))
        let (tone, seconds) = analyse(samples)
        XCTAssertEqual(seconds, 20, accuracy: 0.2)
        XCTAssertEqual(tone, 440, accuracy: 4.4)
    }
}
