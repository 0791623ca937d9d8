import CoreVideo
import XCTest

final class PixelFormatLayoutTests: XCTestCase {
    func testTableDescribesPlanesAndSubsampling() throws {
        let nv12 = try XCTUnwrap(PixelFormatLayout.forPixelFormatType(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange))
        XCTAssertTrue(nv12.isPlanar)
        XCTAssertEqual(nv12.planeCount, 2)
        XCTAssertEqual(nv12.planes[1].bytesPerBlock, 2)
        XCTAssertEqual(nv12.planes[1].width(forImageWidth: 321), 161)
        XCTAssertEqual(nv12.planes[1].height(forImageHeight: 241), 121)
        XCTAssertTrue(nv12.isYCbCr)
        XCTAssertFalse(nv12.isFullRange)

        let nv16 = try XCTUnwrap(PixelFormatLayout.forPixelFormatType(kCVPixelFormatType_422YpCbCr8BiPlanarFullRange))
        XCTAssertEqual(nv16.planes[1].height(forImageHeight: 241), 241)
        XCTAssertTrue(nv16.isFullRange)

        let p010 = try XCTUnwrap(PixelFormatLayout.forPixelFormatType(kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange))
        XCTAssertEqual(p010.bitsPerComponent, 10)
        XCTAssertEqual(p010.planes.map(\.bytesPerBlock), [2, 4])

        let i420 = try XCTUnwrap(PixelFormatLayout.forPixelFormatType(kCVPixelFormatType_420YpCbCr8Planar))
        XCTAssertEqual(i420.planeCount, 3)

        let bgra = try XCTUnwrap(PixelFormatLayout.forPixelFormatType(kCVPixelFormatType_32BGRA))
        XCTAssertFalse(bgra.isPlanar)
        XCTAssertEqual(bgra.planeCount, 0)
        XCTAssertEqual(bgra.planes.count, 1)
        XCTAssertTrue(bgra.hasAlpha)

        let uyvy = try XCTUnwrap(PixelFormatLayout.forPixelFormatType(kCVPixelFormatType_422YpCbCr8))
        XCTAssertEqual(uyvy.planes[0].minimumBytesPerRow(forPlaneWidth: 321), 644)

        XCTAssertNil(PixelFormatLayout.forPixelFormatType(fourCC("zzzz")))
        XCTAssertEqual(PixelFormatLayout.allFormats.count, 24)
    }

    func testLayoutPlacesPlanesWithAlignment() throws {
        let format = try XCTUnwrap(PixelFormatLayout.forPixelFormatType(kCVPixelFormatType_420YpCbCr8Planar))
        let layout = try PixelBufferLayout(pixelFormat: format, width: 321, height: 241)
        XCTAssertEqual(layout.planes.map(\.bytesPerRow), [384, 192, 192])
        XCTAssertEqual(layout.planes.map(\.offset), [0, 384 * 241, 384 * 241 + 192 * 121])
        XCTAssertEqual(layout.dataSize, 384 * 241 + 2 * 192 * 121)
        XCTAssertThrowsError(try PixelBufferLayout(pixelFormat: format, width: 0, height: 1))
    }
}
