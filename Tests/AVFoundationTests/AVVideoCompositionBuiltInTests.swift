import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// The built-in compositor on real playback: every presented picture is composed per the layer instruction.
final class AVVideoCompositionBuiltInTests: XCTestCase {
    /// The fixture picture's band `i` centre column (16 bands over 320 pixels) and the strip's middle row.
    private func bandX(_ i: Int) -> Int { 20 * i + 10 }
    private let stripY = 15

    func test_scaleAndTranslate_placeThePictureInTheBottomRightQuarter() throws {
        let c = try composition(for: .videoOnly) { layer in
            layer.setTransform(CGAffineTransform(a: 0.5, b: 0, c: 0, d: 0.5, tx: 160, ty: 120), at: .zero)
        }
        let (_, frames) = try playComposed(c)
        XCTAssertEqual(frames.count, 90)
        for (n, entry) in frames.enumerated() {
            let image = BGRAImage(entry.buffer)
            XCTAssertEqual(image.width, 320)
            XCTAssertEqual(image.height, 240)
            let k = frameNumber(entry.time)
            XCTAssertEqual(k, n)
            XCTAssertEqual(image.frameIndex(x: 160, y: 120, width: 160, height: 120), k, "picture at (160, 120)")
            guard [0, 1, 45, 89].contains(k) else { continue }
            // Outside the quarter (2 pixels clear of its edge) everything is black.
            for y in 0..<240 {
                for x in 0..<320 where x < 158 || y < 118 {
                    if !image.isBlack(x, y) {
                        XCTFail("frame \(k): pixel (\(x), \(y)) is \(image.pixel(x, y)), not black")
                        return
                    }
                }
            }
            // Inside it is the picture (testsrc2 is colourful below the strip).
            XCTAssertGreaterThan(image.level(240, 200), 10)
        }
    }

    func test_opacityZero_isBlack_andARampGivesIntermediateLevels() throws {
        let zero = try composition(for: .videoOnly) { $0.setOpacity(0, at: .zero) }
        let (_, dark) = try playComposed(zero)
        XCTAssertEqual(dark.count, 90)
        for entry in dark where frameNumber(entry.time) % 10 == 3 {
            let image = BGRAImage(entry.buffer)
            for y in stride(from: 0, to: 240, by: 3) {
                for x in stride(from: 0, to: 320, by: 3) where !image.isBlack(x, y) {
                    XCTFail("opacity 0: pixel (\(x), \(y)) of \(frameNumber(entry.time)) is \(image.pixel(x, y))")
                    return
                }
            }
        }

        // Fade from 1 to 0 over the 3 s clip: frame k at opacity 1 − k/90.
        let fade = try composition(for: .videoOnly) {
            $0.setOpacityRamp(
                fromStartOpacity: 1, toEndOpacity: 0,
                timeRange: CMTimeRange(start: .zero, duration: CMTime(value: 3, timescale: 1)))
        }
        let (_, frames) = try playComposed(fade)
        XCTAssertEqual(frames.count, 90)
        var checked = 0
        for entry in frames {
            let k = frameNumber(entry.time)
            let image = BGRAImage(entry.buffer)
            let opacity = 1 - Double(k) / 90
            // The highest set bit's band is white (255) in the source.
            guard k > 0 else { continue }
            let band = Int.bitWidth - 1 - k.leadingZeroBitCount
            XCTAssertEqual(image.level(bandX(band), stripY), 255 * opacity, accuracy: 8, "frame \(k)")
            // A clear band stays black.
            XCTAssertLessThan(image.level(bandX(15), stripY), 4)
            checked += 1
        }
        XCTAssertEqual(checked, 89)
        let middle = BGRAImage(try XCTUnwrap(frames.first { frameNumber($0.time) == 45 }).buffer)
        XCTAssertEqual(middle.level(bandX(5), stripY), 127.5, accuracy: 8, "frame 45 (bit 5) at half opacity")
    }

    func test_cropRectangle_blacksOutTheRest() throws {
        let c = try composition(for: .videoOnly) {
            $0.setCropRectangle(CGRect(x: 0, y: 0, width: 160, height: 240), at: .zero)
        }
        let (_, frames) = try playComposed(c)
        XCTAssertEqual(frames.count, 90)
        for entry in frames {
            let k = frameNumber(entry.time)
            let image = BGRAImage(entry.buffer)
            // The left half is the picture: bands 0…7 carry bits 0…7 of the index.
            for band in 0..<8 {
                let white = image.level(bandX(band), stripY) > 128
                XCTAssertEqual(white, k & (1 << band) != 0, "frame \(k) band \(band)")
            }
            for y in stride(from: 0, to: 240, by: 7) {
                for x in 160..<320 where !image.isBlack(x, y) {
                    XCTFail("frame \(k): cropped pixel (\(x), \(y)) is \(image.pixel(x, y))")
                    return
                }
            }
        }
    }

    func test_transformRamp_slidesThePicture() throws {
        // Slide 90 pixels right over the 3 s clip: frame k is shifted by k pixels.
        let c = try composition(for: .videoOnly) {
            $0.setTransformRamp(
                fromStart: .identity, toEnd: CGAffineTransform(translationX: 90, y: 0),
                timeRange: CMTimeRange(start: .zero, duration: CMTime(value: 3, timescale: 1)))
        }
        let (_, frames) = try playComposed(c)
        XCTAssertEqual(frames.count, 90)
        for entry in frames {
            let k = frameNumber(entry.time)
            let image = BGRAImage(entry.buffer)
            // Columns left of the shift are black; band 0 sits k pixels further right.
            if k >= 2 {
                for x in 0..<(k - 1) { XCTAssertTrue(image.isBlack(x, 120), "frame \(k) column \(x)") }
            }
            XCTAssertEqual(image.level(bandX(0) + k, stripY) > 128, k & 1 != 0, "frame \(k) band 0")
            XCTAssertEqual(image.level(bandX(1) + k, stripY) > 128, k & 2 != 0, "frame \(k) band 1")
        }
    }

    func test_renderSize_andRenderScale_setTheOutputSize() throws {
        let big = try composition(for: .videoOnly, renderSize: CGSize(width: 640, height: 480)) { _ in }
        let (_, frames) = try playComposed(big)
        XCTAssertEqual(frames.count, 90)
        for entry in frames where frameNumber(entry.time) % 15 == 7 {
            let image = BGRAImage(entry.buffer)
            XCTAssertEqual(image.width, 640)
            XCTAssertEqual(image.height, 480)
            XCTAssertEqual(image.frameIndex(width: 320, height: 240), frameNumber(entry.time))
            XCTAssertTrue(image.isBlack(500, 400))
            XCTAssertTrue(image.isBlack(330, 10))
        }

        // Twice the size at half scale: the picture fills a 320×240 output again.
        let scaled = try composition(for: .videoOnly, renderSize: CGSize(width: 640, height: 480)) {
            $0.setTransform(CGAffineTransform(scaleX: 2, y: 2), at: .zero)
        }
        scaled.renderScale = 0.5
        let (_, half) = try playComposed(scaled)
        XCTAssertEqual(half.count, 90)
        for entry in half where frameNumber(entry.time) % 15 == 4 {
            let image = BGRAImage(entry.buffer)
            XCTAssertEqual(image.width, 320)
            XCTAssertEqual(image.height, 240)
            XCTAssertEqual(image.frameIndex(), frameNumber(entry.time))
        }
    }

    func test_identityLayer_showsThePictureAsItIs_inBGRA() throws {
        let c = try composition(for: .videoOnly) { $0.setTransform(.identity, at: .zero) }
        let (_, frames) = try playComposed(c)
        XCTAssertEqual(frames.count, 90)
        for entry in frames {
            let image = BGRAImage(entry.buffer)
            XCTAssertEqual(image.width, 320)
            XCTAssertEqual(image.frameIndex(), frameNumber(entry.time))
        }
        // A layer for another track: nothing of this track is drawn.
        let other = try composition(for: .videoOnly) { $0.trackID = 99 }
        let (_, dark) = try playComposed(other)
        XCTAssertEqual(dark.count, 90)
        XCTAssertTrue(dark.allSatisfy { BGRAImage($0.buffer).isBlack(160, 120) })
    }

    func test_withPropertiesOf_rotated_showsThePictureUpright() throws {
        let asset = AVURLAsset(url: try fixture(.rotated90))
        let made = expectation(description: "composition")
        let box = Locked<AVVideoComposition?>(nil)
        AVVideoComposition.videoComposition(withPropertiesOf: asset) { c, _ in
            box.withLock { $0 = c }
            made.fulfill()
        }
        wait(for: [made], timeout: 20)
        let c = try XCTUnwrap(box.withLock { $0 })
        let (_, frames) = try playComposed(c, fixture: .rotated90)
        XCTAssertEqual(frames.count, 90)
        for entry in frames where frameNumber(entry.time) % 10 == 9 {
            let image = BGRAImage(entry.buffer)
            XCTAssertEqual(image.width, 240)
            XCTAssertEqual(image.height, 320)
            // The transform (0 1 −1 0 240 0) puts source pixel (x, y) at (239 − y, x).
            let index = FrameIndexReader.read(width: 320, height: 240) { x, y in image.level(239 - y, x) }?.index
            XCTAssertEqual(index, frameNumber(entry.time))
        }
    }

    func test_videoOutput_getsComposedPictures_andRemovingTheCompositionRestoresDecodedOnes() throws {
        let output = AVPlayerItemVideoOutput()
        let c = try composition(for: .videoOnly) {
            $0.setCropRectangle(CGRect(x: 0, y: 0, width: 160, height: 240), at: .zero)
        }
        let p = try ManualComposedPlayer(c, output: output)
        for k in 0..<4 {
            let buffer = try XCTUnwrap(p.picture(k, from: output))
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), kCVPixelFormatType_32BGRA)
            let image = BGRAImage(buffer)
            XCTAssertEqual(image.level(bandX(0), stripY) > 128, k & 1 != 0)
            XCTAssertTrue(image.isBlack(bandX(12), stripY), "cropped")
        }
        XCTAssertNotNil(p.item.videoComposition)
        p.item.videoComposition = nil
        XCTAssertNil(p.item.videoComposition)
        // The engine removes the composer between two steps (a command: the app's thread never writes the session).
        waitUntil("the session's composer removed") { p.item.session?.videoCompositor == nil }
        // Later pictures are the decoded ones again (in the output's default format for them, 420v).
        let later = try XCTUnwrap(p.picture(10, from: output))
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(later), kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        XCTAssertEqual(frameIndex(of: later), 10)
    }
}
