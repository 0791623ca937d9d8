import CoreVideo
import XCTest

final class CVImageBufferTests: XCTestCase {
    func testEncodedSizeAndDefaultCleanRectAndDisplaySize() throws {
        let buffer = try makePixelBuffer(720, 480, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        XCTAssertEqual(CVImageBufferGetEncodedSize(buffer), CGSize(width: 720, height: 480))
        XCTAssertEqual(CVImageBufferGetCleanRect(buffer), CGRect(x: 0, y: 0, width: 720, height: 480))
        XCTAssertEqual(CVImageBufferGetDisplaySize(buffer), CGSize(width: 720, height: 480))
        XCTAssertFalse(CVImageBufferIsFlipped(buffer))
    }

    func testCleanApertureAndPixelAspectRatio() throws {
        let buffer = try makePixelBuffer(720, 480, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        CVBufferSetAttachment(
            buffer, kCVImageBufferCleanApertureKey,
            [
                kCVImageBufferCleanApertureWidthKey as String: 704,
                kCVImageBufferCleanApertureHeightKey as String: 480,
                kCVImageBufferCleanApertureHorizontalOffsetKey as String: 2,
                kCVImageBufferCleanApertureVerticalOffsetKey as String: 0,
            ], .shouldPropagate)
        CVBufferSetAttachment(
            buffer, kCVImageBufferPixelAspectRatioKey,
            [
                kCVImageBufferPixelAspectRatioHorizontalSpacingKey as String: 10,
                kCVImageBufferPixelAspectRatioVerticalSpacingKey as String: 11,
            ], .shouldPropagate)
        XCTAssertEqual(CVImageBufferGetCleanRect(buffer), CGRect(x: 10, y: 0, width: 704, height: 480))
        XCTAssertEqual(CVImageBufferGetDisplaySize(buffer), CGSize(width: 640, height: 480))
        XCTAssertEqual(CVImageBufferGetEncodedSize(buffer), CGSize(width: 720, height: 480))
    }
}
