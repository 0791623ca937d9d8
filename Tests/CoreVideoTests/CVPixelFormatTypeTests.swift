import CoreVideo
import XCTest

final class CVPixelFormatTypeTests: XCTestCase {
    func testFourCCValuesMatchApple() {
        XCTAssertEqual(kCVPixelFormatType_32BGRA, fourCC("BGRA"))
        XCTAssertEqual(kCVPixelFormatType_32BGRA, 0x4247_5241)
        XCTAssertEqual(kCVPixelFormatType_32ARGB, 32)
        XCTAssertEqual(kCVPixelFormatType_32ABGR, fourCC("ABGR"))
        XCTAssertEqual(kCVPixelFormatType_32RGBA, fourCC("RGBA"))
        XCTAssertEqual(kCVPixelFormatType_24RGB, 24)
        XCTAssertEqual(kCVPixelFormatType_24BGR, fourCC("24BG"))
        XCTAssertEqual(kCVPixelFormatType_OneComponent8, fourCC("L008"))
        XCTAssertEqual(kCVPixelFormatType_OneComponent16, fourCC("L016"))
        XCTAssertEqual(kCVPixelFormatType_422YpCbCr8, fourCC("2vuy"))
        XCTAssertEqual(kCVPixelFormatType_422YpCbCr8_yuvs, fourCC("yuvs"))
        XCTAssertEqual(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, fourCC("420v"))
        XCTAssertEqual(kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, fourCC("420f"))
        XCTAssertEqual(kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange, fourCC("422v"))
        XCTAssertEqual(kCVPixelFormatType_422YpCbCr8BiPlanarFullRange, fourCC("422f"))
        XCTAssertEqual(kCVPixelFormatType_444YpCbCr8BiPlanarVideoRange, fourCC("444v"))
        XCTAssertEqual(kCVPixelFormatType_444YpCbCr8BiPlanarFullRange, fourCC("444f"))
        XCTAssertEqual(kCVPixelFormatType_420YpCbCr8Planar, fourCC("y420"))
        XCTAssertEqual(kCVPixelFormatType_420YpCbCr8PlanarFullRange, fourCC("f420"))
        XCTAssertEqual(kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, fourCC("x420"))
        XCTAssertEqual(kCVPixelFormatType_420YpCbCr10BiPlanarFullRange, fourCC("xf20"))
        XCTAssertEqual(kCVPixelFormatType_422YpCbCr10BiPlanarVideoRange, fourCC("x422"))
        XCTAssertEqual(kCVPixelFormatType_422YpCbCr10BiPlanarFullRange, fourCC("xf22"))
        XCTAssertEqual(kCVPixelFormatType_444YpCbCr10BiPlanarVideoRange, fourCC("x444"))
        XCTAssertEqual(kCVPixelFormatType_444YpCbCr10BiPlanarFullRange, fourCC("xf44"))
    }

    func testOSTypeAndOptionFlagsWidths() {
        XCTAssertEqual(MemoryLayout<OSType>.size, 4)
        XCTAssertEqual(MemoryLayout<FourCharCode>.size, 4)
        XCTAssertEqual(MemoryLayout<CVOptionFlags>.size, 8)
    }
}
