import CoreVideo
import XCTest

final class CVBufferAttachmentTests: XCTestCase {
    func testModeRawValues() {
        XCTAssertEqual(CVAttachmentMode.shouldNotPropagate.rawValue, 0)
        XCTAssertEqual(CVAttachmentMode.shouldPropagate.rawValue, 1)
    }

    func testSetCopyAndGetRoundTrip() throws {
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        CVBufferSetAttachment(
            buffer, kCVImageBufferColorPrimariesKey, kCVImageBufferColorPrimaries_ITU_R_709_2,
            .shouldPropagate)
        CVBufferSetAttachment(
            buffer, kCVImageBufferYCbCrMatrixKey, kCVImageBufferYCbCrMatrix_ITU_R_601_4,
            .shouldPropagate)
        CVBufferSetAttachment(buffer, kCVImageBufferFieldCountKey, 1, .shouldNotPropagate)

        var mode = CVAttachmentMode.shouldNotPropagate
        let primaries = CVBufferCopyAttachment(buffer, kCVImageBufferColorPrimariesKey, &mode)
        XCTAssertEqual(primaries as? String, kCVImageBufferColorPrimaries_ITU_R_709_2)
        XCTAssertEqual(mode, .shouldPropagate)
        XCTAssertEqual(CVBufferCopyAttachment(buffer, kCVImageBufferFieldCountKey, &mode) as? Int, 1)
        XCTAssertEqual(mode, .shouldNotPropagate)

        let unmanaged = CVBufferGetAttachment(buffer, kCVImageBufferYCbCrMatrixKey, nil)
        XCTAssertEqual(unmanaged?.takeUnretainedValue() as? String, "ITU_R_601_4")
        XCTAssertNil(CVBufferCopyAttachment(buffer, kCVImageBufferTransferFunctionKey, nil))
        XCTAssertNil(CVBufferGetAttachment(buffer, kCVImageBufferTransferFunctionKey, nil))
    }

    func testAKeyLivesInOneModeAtATime() throws {
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        CVBufferSetAttachment(buffer, "Key", "a", .shouldPropagate)
        CVBufferSetAttachment(buffer, "Key", "b", .shouldNotPropagate)
        XCTAssertNil(CVBufferCopyAttachments(buffer, .shouldPropagate))
        let nonPropagated = try XCTUnwrap(CVBufferCopyAttachments(buffer, .shouldNotPropagate) as? [String: Any])
        XCTAssertEqual(nonPropagated["Key"] as? String, "b")
    }

    func testRemoveAndHas() throws {
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        CVBufferSetAttachment(buffer, "A", 1, .shouldPropagate)
        CVBufferSetAttachment(buffer, "B", 2, .shouldNotPropagate)
        XCTAssertTrue(CVBufferHasAttachment(buffer, "A"))
        CVBufferRemoveAttachment(buffer, "A")
        XCTAssertFalse(CVBufferHasAttachment(buffer, "A"))
        XCTAssertTrue(CVBufferHasAttachment(buffer, "B"))
        CVBufferRemoveAllAttachments(buffer)
        XCTAssertFalse(CVBufferHasAttachment(buffer, "B"))
    }

    func testDictionaryValuesAndBulkSet() throws {
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        let aspect: [String: Any] = [
            kCVImageBufferPixelAspectRatioHorizontalSpacingKey as String: 4,
            kCVImageBufferPixelAspectRatioVerticalSpacingKey as String: 3,
        ]
        let bulk: [String: Any] = [
            kCVImageBufferPixelAspectRatioKey as String: aspect,
            kCVImageBufferTransferFunctionKey as String: kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ,
        ]
        CVBufferSetAttachments(buffer, bulk as CFDictionary, .shouldPropagate)
        let copied = CVBufferCopyAttachment(buffer, kCVImageBufferPixelAspectRatioKey, nil) as? [String: Any]
        XCTAssertEqual(copied?[kCVImageBufferPixelAspectRatioHorizontalSpacingKey as String] as? Int, 4)
        XCTAssertEqual(
            CVBufferCopyAttachment(buffer, kCVImageBufferTransferFunctionKey, nil) as? String,
            "SMPTE_ST_2084_PQ")
        let all = try XCTUnwrap(CVBufferCopyAttachments(buffer, .shouldPropagate) as? [String: Any])
        XCTAssertEqual(Set(all.keys), [kCVImageBufferPixelAspectRatioKey, kCVImageBufferTransferFunctionKey])
    }

    func testPropagateCopiesOnlyPropagatedAttachments() throws {
        let source = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        let destination = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        CVBufferSetAttachment(
            source, kCVImageBufferColorPrimariesKey, kCVImageBufferColorPrimaries_SMPTE_C,
            .shouldPropagate)
        CVBufferSetAttachment(source, "Private", true, .shouldNotPropagate)
        CVBufferSetAttachment(
            destination, kCVImageBufferColorPrimariesKey, kCVImageBufferColorPrimaries_EBU_3213,
            .shouldPropagate)
        CVBufferPropagateAttachments(source, destination)
        XCTAssertEqual(
            CVBufferCopyAttachment(destination, kCVImageBufferColorPrimariesKey, nil) as? String,
            "SMPTE_C")
        XCTAssertFalse(CVBufferHasAttachment(destination, "Private"))
    }

    func testAttributesProvideInitialAttachments() throws {
        let attributes: [String: Any] = [
            kCVBufferPropagatedAttachmentsKey as String: [
                kCVImageBufferYCbCrMatrixKey as String: kCVImageBufferYCbCrMatrix_ITU_R_709_2
            ],
            kCVBufferNonPropagatedAttachmentsKey as String: ["Note": "hello"] as NSDictionary,
        ]
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA, attributes: attributes)
        var mode = CVAttachmentMode.shouldNotPropagate
        XCTAssertEqual(CVBufferCopyAttachment(buffer, kCVImageBufferYCbCrMatrixKey, &mode) as? String, "ITU_R_709_2")
        XCTAssertEqual(mode, .shouldPropagate)
        XCTAssertEqual(CVBufferCopyAttachment(buffer, "Note", &mode) as? String, "hello")
        XCTAssertEqual(mode, .shouldNotPropagate)
    }

    func testConcurrentAttachmentAccess() throws {
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        DispatchQueue.concurrentPerform(iterations: 32) { index in
            CVBufferSetAttachment(buffer, "K\(index % 4)", index, .shouldPropagate)
            _ = CVBufferCopyAttachment(buffer, "K\((index + 1) % 4)", nil)
        }
        XCTAssertEqual((CVBufferCopyAttachments(buffer, .shouldPropagate) as? [String: Any])?.count, 4)
    }
}
