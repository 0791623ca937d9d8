import CoreMedia
import CoreVideo
import FFmpegBridge
import PlaybackEngine
import TestSupport
import XCTest

/// A seek whose picture is a keyframe gets that picture after one packet: the decoder drains right after the
/// keyframe instead of waiting for the pictures its reorder delay and frame threads hold behind it, then sends the
/// keyframe again and goes on, showing every later picture once, in order.
final class KeyframePreviewTests: XCTestCase {
    /// A video-only pipeline whose first act is a seek to `target` (exact when `accurate`).
    private func harness(_ fixture: Fixture, seekingTo target: CMTime, accurate: Bool) throws -> PipelineHarness {
        let harness = try PipelineHarness(fixture, audio: false)
        harness.demuxer.seek(to: target, accurate: accurate)
        harness.start()
        return harness
    }

    /// The second keyframe of `fixture` (a demuxer seek, not the start) and the picture after it.
    private func secondKeyframe(
        _ fixture: Fixture, file: StaticString = #filePath
    ) throws -> (ExactSeekSkipTests.Picture, ExactSeekSkipTests.Picture, Rational) {
        let pictures = try ExactSeekSkipTests.pictures(of: fixture)
        let keyframes = pictures.filter { $0.type == "I" }
        XCTAssertGreaterThanOrEqual(keyframes.count, 2, "\(fixture) has two GOPs", file: file)
        let keyframe = keyframes[1]
        let next = try XCTUnwrap(pictures.first { $0.pts > keyframe.pts }, file: file)
        let timeBase = try XCTUnwrap(try PipelineHarness(fixture, audio: false).video, file: file).decoder.timeBase
        return (keyframe, next, timeBase)
    }

    /// Seeks to `target`, reads `count` pictures and returns their frame indices with the packets the codec had been
    /// sent when the first came out.
    private func pictures(
        _ fixture: Fixture, at target: CMTime, accurate: Bool, count: Int, file: StaticString = #filePath
    ) throws -> (shown: [Int], packetsForFirst: Int?) {
        let harness = try harness(fixture, seekingTo: target, accurate: accurate)
        defer { harness.stop() }
        var shown: [Int] = []
        harness.pump(video: { shown.append(frameIndex(of: $0.pixelBuffer) ?? -1) }, until: { shown.count >= count })
        let video = try XCTUnwrap(harness.video, file: file)
        return (shown, video.decoder.status.packetsSentForFirstPicture(serial: video.packets.serial))
    }

    private func assertKeyframeSeeksPreview(_ fixture: Fixture, file: StaticString = #filePath) throws {
        let (keyframe, next, timeBase) = try secondKeyframe(fixture, file: file)
        let start = CMTime(ffmpeg: keyframe.pts, timeBase: timeBase)
        let halfway = CMTime(ffmpeg: (keyframe.pts + next.pts) / 2, timeBase: timeBase)
        let count = min(40, try ExactSeekSkipTests.pictures(of: fixture).count - keyframe.index)
        for (target, accurate) in [(start, true), (halfway, true), (halfway, false)] {
            let what = "\(fixture) seek to \(target.seconds) s, accurate \(accurate)"
            let (shown, packets) = try pictures(fixture, at: target, accurate: accurate, count: count, file: file)
            // The keyframe's picture first, after one packet; then every picture after it once, in order (the
            // keyframe sent again for them is not shown again).
            XCTAssertEqual(shown, Array(keyframe.index..<keyframe.index + count), what, file: file)
            XCTAssertEqual(packets, 1, what, file: file)
        }
    }

    func test_h264WithBFrames_keyframeSeek_firstPictureAfterOnePacket_thenEveryPictureOnce() throws {
        try assertKeyframeSeeksPreview(.h264AAC)
    }

    func test_hevcWithBFrames_keyframeSeek_firstPictureAfterOnePacket_thenEveryPictureOnce() throws {
        try assertKeyframeSeeksPreview(.hevcMKV)
    }

    func test_targetAfterTheKeyframePicture_isNotPreviewed_andLands() throws {
        // A target on a later picture needs the pictures after the keyframe: no preview (the codec is sent more than
        // the keyframe before anything comes out), and the target picture is the first shown.
        let (keyframe, next, timeBase) = try secondKeyframe(.h264AAC)
        let pictures = try ExactSeekSkipTests.pictures(of: .h264AAC)
        let target = try XCTUnwrap(pictures.first { $0.index == keyframe.index + 5 })
        XCTAssertGreaterThan(target.pts, next.pts)
        let (shown, packets) = try self.pictures(
            .h264AAC, at: CMTime(ffmpeg: target.pts, timeBase: timeBase), accurate: true, count: 10)
        XCTAssertEqual(shown, Array(target.index..<target.index + 10))
        XCTAssertGreaterThan(try XCTUnwrap(packets), 1)
    }
}
