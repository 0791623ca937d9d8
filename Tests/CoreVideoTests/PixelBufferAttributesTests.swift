import CoreVideo
import XCTest

final class PixelBufferAttributesTests: XCTestCase {
    func testSingleFormatInAnyNumericSpelling() throws {
        for value in [
            kCVPixelFormatType_32BGRA as Any, Int(kCVPixelFormatType_32BGRA),
            NSNumber(value: kCVPixelFormatType_32BGRA), Int64(kCVPixelFormatType_32BGRA),
        ] {
            let attributes = try PixelBufferAttributes([kCVPixelBufferPixelFormatTypeKey as String: value])
            XCTAssertEqual(attributes.pixelFormatTypes, [kCVPixelFormatType_32BGRA])
        }
    }

    func testFormatArraysKeepTheirOrder() throws {
        let swiftArray = try PixelBufferAttributes([
            kCVPixelBufferPixelFormatTypeKey as String: [
                kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
                kCVPixelFormatType_32BGRA,
            ]
        ])
        XCTAssertEqual(
            swiftArray.pixelFormatTypes,
            [kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, kCVPixelFormatType_32BGRA])
        let nsArray = NSArray(array: [NSNumber(value: kCVPixelFormatType_32ARGB), NSNumber(value: 24)])
        let fromNS = try PixelBufferAttributes(
            [kCVPixelBufferPixelFormatTypeKey: nsArray] as NSDictionary as CFDictionary)
        XCTAssertEqual(fromNS.pixelFormatTypes, [kCVPixelFormatType_32ARGB, kCVPixelFormatType_24RGB])
    }

    func testSizesAlignmentsAndIgnoredKeys() throws {
        let attributes = try PixelBufferAttributes([
            kCVPixelBufferWidthKey as String: 1280,
            kCVPixelBufferHeightKey as String: NSNumber(value: 720),
            kCVPixelBufferBytesPerRowAlignmentKey as String: 16,
            kCVPixelBufferPlaneAlignmentKey as String: 0,
            kCVPixelBufferIOSurfacePropertiesKey as String: [String: Any](),
            kCVPixelBufferOpenGLCompatibilityKey as String: true,
        ])
        XCTAssertEqual(attributes.width, 1280)
        XCTAssertEqual(attributes.height, 720)
        XCTAssertEqual(attributes.bytesPerRowAlignment, 16)
        XCTAssertNil(attributes.planeAlignment, "0 means default")
        XCTAssertTrue(attributes.pixelFormatTypes.isEmpty)
        XCTAssertEqual(attributes.entries.count, 6)
    }

    func testMalformedValuesAreRejected() {
        let cases: [[String: Any]] = [
            [kCVPixelBufferPixelFormatTypeKey as String: "BGRA"],
            [kCVPixelBufferPixelFormatTypeKey as String: [kCVPixelFormatType_32BGRA as Any, "x"]],
            [kCVPixelBufferWidthKey as String: -1],
            [kCVPixelBufferHeightKey as String: "tall"],
            [kCVBufferPropagatedAttachmentsKey as String: 3],
        ]
        for attributes in cases {
            XCTAssertThrowsError(try PixelBufferAttributes(attributes), "\(attributes)") { error in
                XCTAssertEqual(error as? CoreVideoError, .invalidPixelBufferAttributes)
            }
        }
    }

    func testNilMeansNoAttributes() throws {
        let attributes = try PixelBufferAttributes(nil as [String: Any]?)
        XCTAssertTrue(attributes.pixelFormatTypes.isEmpty)
        XCTAssertNil(attributes.width)
        XCTAssertTrue(attributes.entries.isEmpty)
    }
}
