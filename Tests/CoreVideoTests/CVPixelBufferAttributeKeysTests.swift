import CoreVideo
import XCTest

final class CVPixelBufferAttributeKeysTests: XCTestCase {
    func testPixelBufferKeysHaveApplesValues() {
        XCTAssertEqual(kCVPixelBufferPixelFormatTypeKey as String, "PixelFormatType")
        XCTAssertEqual(kCVPixelBufferMemoryAllocatorKey as String, "MemoryAllocator")
        XCTAssertEqual(kCVPixelBufferWidthKey as String, "Width")
        XCTAssertEqual(kCVPixelBufferHeightKey as String, "Height")
        XCTAssertEqual(kCVPixelBufferExtendedPixelsLeftKey as String, "ExtendedPixelsLeft")
        XCTAssertEqual(kCVPixelBufferExtendedPixelsTopKey as String, "ExtendedPixelsTop")
        XCTAssertEqual(kCVPixelBufferExtendedPixelsRightKey as String, "ExtendedPixelsRight")
        XCTAssertEqual(kCVPixelBufferExtendedPixelsBottomKey as String, "ExtendedPixelsBottom")
        XCTAssertEqual(kCVPixelBufferBytesPerRowAlignmentKey as String, "BytesPerRowAlignment")
        XCTAssertEqual(kCVPixelBufferPlaneAlignmentKey as String, "PlaneAlignment")
        XCTAssertEqual(kCVPixelBufferCGBitmapContextCompatibilityKey as String, "CGBitmapContextCompatibility")
        XCTAssertEqual(kCVPixelBufferCGImageCompatibilityKey as String, "CGImageCompatibility")
        XCTAssertEqual(kCVPixelBufferOpenGLCompatibilityKey as String, "OpenGLCompatibility")
        XCTAssertEqual(kCVPixelBufferOpenGLESCompatibilityKey as String, "OpenGLESCompatibility")
        XCTAssertEqual(kCVPixelBufferMetalCompatibilityKey as String, "MetalCompatibility")
        XCTAssertEqual(kCVPixelBufferIOSurfacePropertiesKey as String, "IOSurfaceProperties")
        XCTAssertEqual(kCVPixelBufferPoolMinimumBufferCountKey as String, "MinimumBufferCount")
        XCTAssertEqual(kCVPixelBufferPoolMaximumBufferAgeKey as String, "MaximumBufferAge")
        XCTAssertEqual(kCVPixelBufferPoolAllocationThresholdKey as String, "AllocationThreshold")
        XCTAssertEqual(kCVBufferPropagatedAttachmentsKey as String, "PropagatedAttachments")
        XCTAssertEqual(kCVBufferNonPropagatedAttachmentsKey as String, "NonPropagatedAttachments")
    }

    func testImageBufferKeysHaveApplesValues() {
        XCTAssertEqual(kCVImageBufferYCbCrMatrixKey as String, "CVImageBufferYCbCrMatrix")
        XCTAssertEqual(kCVImageBufferColorPrimariesKey as String, "CVImageBufferColorPrimaries")
        XCTAssertEqual(kCVImageBufferTransferFunctionKey as String, "CVImageBufferTransferFunction")
        XCTAssertEqual(kCVImageBufferYCbCrMatrix_ITU_R_709_2 as String, "ITU_R_709_2")
        XCTAssertEqual(kCVImageBufferYCbCrMatrix_ITU_R_601_4 as String, "ITU_R_601_4")
        XCTAssertEqual(kCVImageBufferYCbCrMatrix_ITU_R_2020 as String, "ITU_R_2020")
        XCTAssertEqual(kCVImageBufferColorPrimaries_ITU_R_709_2 as String, "ITU_R_709_2")
        XCTAssertEqual(kCVImageBufferColorPrimaries_SMPTE_C as String, "SMPTE_C")
        XCTAssertEqual(kCVImageBufferColorPrimaries_EBU_3213 as String, "EBU_3213")
        XCTAssertEqual(kCVImageBufferColorPrimaries_ITU_R_2020 as String, "ITU_R_2020")
        XCTAssertEqual(kCVImageBufferTransferFunction_ITU_R_709_2 as String, "ITU_R_709_2")
        XCTAssertEqual(kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ as String, "SMPTE_ST_2084_PQ")
        XCTAssertEqual(kCVImageBufferTransferFunction_ITU_R_2100_HLG as String, "ITU_R_2100_HLG")
        XCTAssertEqual(kCVImageBufferPixelAspectRatioKey as String, "CVPixelAspectRatio")
        XCTAssertEqual(kCVImageBufferCleanApertureKey as String, "CVImageBufferCleanAperture")
        XCTAssertEqual(kCVImageBufferFieldCountKey as String, "CVFieldCount")
    }

    /// The spellings apps use to build attribute dictionaries all compile and agree.
    func testAppleStyleDictionarySpellings() {
        let typed: [String: Any] = [
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
            kCVPixelBufferIOSurfacePropertiesKey as String: [String: Any](),
        ]
        let literal = [kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA] as CFDictionary
        let booleans =
            [
                kCVPixelBufferCGImageCompatibilityKey: kCFBooleanTrue!,
                kCVPixelBufferCGBitmapContextCompatibilityKey: kCFBooleanFalse!,
            ] as CFDictionary
        XCTAssertEqual((booleans as? [String: Any])?["CGImageCompatibility"] as? Bool, true)
        XCTAssertEqual((booleans as? [String: Any])?["CGBitmapContextCompatibility"] as? Bool, false)
        let key: CFString = kCVPixelBufferWidthKey
        XCTAssertEqual(typed["PixelFormatType"] as? OSType, kCVPixelFormatType_32BGRA)
        XCTAssertEqual((literal as? [String: Any])?["PixelFormatType"] as? OSType, kCVPixelFormatType_32BGRA)
        XCTAssertEqual(String(key), "Width")
    }
}
