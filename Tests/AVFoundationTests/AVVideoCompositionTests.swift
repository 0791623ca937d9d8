import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// The composition model: layer-instruction ramps, copies, and compositions built from assets.
final class AVVideoCompositionTests: XCTestCase {
    private func t(_ seconds: Int64) -> CMTime { CMTime(value: seconds, timescale: 1) }

    func test_layerInstruction_rampsAndSteps_likeApple() {
        let layer = AVMutableVideoCompositionLayerInstruction()
        layer.trackID = 7
        layer.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: CMTimeRange(start: t(2), end: t(4)))
        layer.setOpacity(0.5, at: t(6))
        var a: Float = -1
        var b: Float = -1
        var range = CMTimeRange.invalid
        // Before the first ramp: that ramp is reported, the value is the default.
        XCTAssertTrue(layer.getOpacityRamp(for: t(1), startOpacity: &a, endOpacity: &b, timeRange: &range))
        XCTAssertEqual(range, CMTimeRange(start: t(2), end: t(4)))
        XCTAssertEqual(layer.opacity(at: t(1)), 1)
        XCTAssertEqual(layer.opacity(at: t(3)), 0.5, accuracy: 0.0001)
        XCTAssertEqual(layer.opacity(at: t(5)), 0, "the ramp's end value holds until the next change")
        XCTAssertTrue(layer.getOpacityRamp(for: t(9), startOpacity: &a, endOpacity: &b, timeRange: &range))
        XCTAssertEqual(a, 0.5)
        XCTAssertEqual(b, 0.5)
        XCTAssertEqual(range.start, t(6))
        XCTAssertTrue(range.end.isPositiveInfinity, "a step lasts until the next change")
        XCTAssertEqual(layer.opacity(at: t(9)), 0.5)

        let move = CGAffineTransform(translationX: 100, y: 0)
        layer.setTransformRamp(fromStart: .identity, toEnd: move, timeRange: CMTimeRange(start: .zero, end: t(2)))
        var start = CGAffineTransform(scaleX: 9, y: 9)
        var end = CGAffineTransform(scaleX: 9, y: 9)
        XCTAssertTrue(layer.getTransformRamp(for: t(1), start: &start, end: &end, timeRange: &range))
        XCTAssertEqual(start, .identity)
        XCTAssertEqual(end, move)
        XCTAssertEqual(layer.transform(at: CMTime(value: 1, timescale: 2)).tx, 25, accuracy: 0.0001)
        XCTAssertFalse(
            layer.getTransformRamp(for: t(3), start: &start, end: &end, timeRange: &range), "past the last ramp")

        let crop = CGRect(x: 0, y: 0, width: 160, height: 240)
        layer.setCropRectangle(crop, at: t(1))
        var c0 = CGRect.zero
        XCTAssertTrue(
            layer.getCropRectangleRamp(for: t(2), startCropRectangle: &c0, endCropRectangle: nil, timeRange: nil))
        XCTAssertEqual(c0, crop)
        XCTAssertNil(layer.cropRectangle(at: .zero), "no crop before the first change")

        // Copies are independent and keep the values.
        let copy = layer.copy() as! AVVideoCompositionLayerInstruction
        layer.setOpacity(0.25, at: t(6))
        XCTAssertEqual(copy.trackID, 7)
        XCTAssertEqual(copy.opacity(at: t(9)), 0.5)
        XCTAssertEqual(layer.opacity(at: t(9)), 0.25, "a later value at the same time replaces the earlier one")
    }

    func test_compositionCopies_areIndependent() {
        let composition = AVMutableVideoComposition()
        XCTAssertEqual(composition.renderScale, 1)
        XCTAssertFalse(composition.frameDuration.isValid)
        composition.renderSize = CGSize(width: 640, height: 360)
        composition.frameDuration = CMTime(value: 1, timescale: 25)
        let instruction = AVMutableVideoCompositionInstruction()
        instruction.timeRange = CMTimeRange(start: .zero, duration: t(5))
        composition.instructions = [instruction]
        let copy = composition.copy() as! AVVideoComposition
        XCTAssertFalse(copy is AVMutableVideoComposition)
        composition.renderSize = CGSize(width: 1, height: 1)
        instruction.timeRange = CMTimeRange(start: .zero, duration: t(1))
        XCTAssertEqual(copy.renderSize, CGSize(width: 640, height: 360))
        XCTAssertEqual(copy.frameDuration, CMTime(value: 1, timescale: 25))
        XCTAssertEqual(copy.instructions.first?.timeRange.duration, t(5), "instructions are copied")
        let mutable = copy.mutableCopy() as! AVMutableVideoComposition
        XCTAssertEqual(mutable.renderSize, CGSize(width: 640, height: 360))
    }

    func test_withPropertiesOf_h264_gives30fpsAnd320x240() async throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let composition = try await AVVideoComposition.videoComposition(withPropertiesOf: asset)
        XCTAssertEqual(composition.frameDuration, CMTime(value: 1, timescale: 30))
        XCTAssertEqual(composition.renderSize, CGSize(width: 320, height: 240))
        XCTAssertEqual(composition.renderScale, 1)
        XCTAssertNil(composition.customVideoCompositorClass)
        let video = try await asset.loadTracks(withMediaType: .video)
        let instruction = try XCTUnwrap(composition.instructions.first as? AVVideoCompositionInstruction)
        XCTAssertEqual(composition.instructions.count, 1)
        XCTAssertEqual(instruction.timeRange.start, .zero)
        XCTAssertEqual(instruction.timeRange.duration.seconds, 10, accuracy: 0.05)
        XCTAssertEqual(instruction.layerInstructions.map(\.trackID), video.map(\.trackID))
        XCTAssertEqual(instruction.requiredSourceTrackIDs as? [NSNumber], video.map { NSNumber(value: $0.trackID) })
    }

    func test_mutableWithPropertiesOf_givesAMutableComposition() async throws {
        let asset = AVURLAsset(url: try fixture(.videoOnly))
        let immutable = try await AVVideoComposition.videoComposition(withPropertiesOf: asset)
        XCTAssertFalse(immutable is AVMutableVideoComposition)
        let composition = try await AVMutableVideoComposition.videoComposition(withPropertiesOf: asset)
        composition.renderSize = CGSize(width: 100, height: 50)
        XCTAssertEqual(composition.renderSize, CGSize(width: 100, height: 50))
        XCTAssertEqual(composition.frameDuration, CMTime(value: 1, timescale: 30))
    }

    func test_withPropertiesOf_rotated_givesPortraitRenderSizeAndTheTrackTransform() async throws {
        let asset = AVURLAsset(url: try fixture(.rotated90))
        let composition = try await AVVideoComposition.videoComposition(withPropertiesOf: asset)
        XCTAssertEqual(composition.renderSize, CGSize(width: 240, height: 320))
        let layer = try XCTUnwrap(
            (composition.instructions.first as? AVVideoCompositionInstruction)?.layerInstructions.first)
        XCTAssertEqual(layer.transform(at: .zero), CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 240, ty: 0))
    }

    func test_withPropertiesOf_completionHandler_andFailure() throws {
        let done = expectation(description: "composition")
        let result = Locked<(CGSize, CMTime)?>(nil)
        AVVideoComposition.videoComposition(withPropertiesOf: AVURLAsset(url: try fixture(.videoOnly))) { c, error in
            XCTAssertNil(error)
            result.withLock { $0 = c.map { ($0.renderSize, $0.frameDuration) } }
            done.fulfill()
        }
        let failed = expectation(description: "failure")
        AVVideoComposition.videoComposition(withPropertiesOf: AVURLAsset(url: try fixture(.text))) { c, error in
            XCTAssertNil(c)
            XCTAssertEqual((error as? AVError)?.code, .fileFormatNotRecognized)
            failed.fulfill()
        }
        wait(for: [done, failed], timeout: 20)
        let (size, duration) = try XCTUnwrap(result.withLock { $0 })
        XCTAssertEqual(size, CGSize(width: 320, height: 240))
        XCTAssertEqual(duration, CMTime(value: 1, timescale: 30))
    }

    func test_frameDuration_forNTSCAndMissingRates() {
        XCTAssertEqual(AVVideoComposition.frameDuration(forRate: 29.97), CMTime(value: 1001, timescale: 30000))
        XCTAssertEqual(AVVideoComposition.frameDuration(forRate: 25), CMTime(value: 1, timescale: 25))
        XCTAssertEqual(AVVideoComposition.frameDuration(forRate: 0), CMTime(value: 1, timescale: 30))
    }
}
