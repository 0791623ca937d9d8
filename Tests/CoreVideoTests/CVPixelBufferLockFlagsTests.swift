import CoreVideo
import XCTest

final class CVPixelBufferLockFlagsTests: XCTestCase {
    func testRawValues() {
        XCTAssertEqual(CVPixelBufferLockFlags.readOnly.rawValue, 1)
        XCTAssertEqual(CVPixelBufferLockFlags(rawValue: 0), [])
    }

    func testBalancedLocksNest() throws {
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        XCTAssertEqual(CVPixelBufferLockBaseAddress(buffer, .readOnly), kCVReturnSuccess)
        XCTAssertEqual(CVPixelBufferLockBaseAddress(buffer, .readOnly), kCVReturnSuccess)
        XCTAssertEqual(CVPixelBufferLockBaseAddress(buffer, []), kCVReturnSuccess)
        XCTAssertEqual(buffer.lockCount, 3)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, []), kCVReturnSuccess)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, .readOnly), kCVReturnSuccess)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, .readOnly), kCVReturnSuccess)
        XCTAssertEqual(buffer.lockCount, 0)
    }

    func testUnbalancedUnlockIsAnError() throws {
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, []), kCVReturnError)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, .readOnly), kCVReturnError)
        CVPixelBufferLockBaseAddress(buffer, [])
        CVPixelBufferUnlockBaseAddress(buffer, [])
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, []), kCVReturnError)
    }

    func testMismatchedFlagsAreRejectedAndLeaveTheLockInPlace() throws {
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, []), kCVReturnInvalidArgument)
        XCTAssertEqual(buffer.lockCount, 1)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, .readOnly), kCVReturnSuccess)

        CVPixelBufferLockBaseAddress(buffer, [])
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, .readOnly), kCVReturnInvalidArgument)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, []), kCVReturnSuccess)
    }

    func testBaseAddressIsAvailableWithoutLocking() throws {
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange)
        XCTAssertNotNil(CVPixelBufferGetBaseAddress(buffer))
        XCTAssertNotNil(CVPixelBufferGetBaseAddressOfPlane(buffer, 1))
    }

    func testLockingFromManyThreads() throws {
        let buffer = try makePixelBuffer(4, 4, kCVPixelFormatType_32BGRA)
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            CVPixelBufferLockBaseAddress(buffer, .readOnly)
            CVPixelBufferUnlockBaseAddress(buffer, .readOnly)
        }
        XCTAssertEqual(buffer.lockCount, 0)
    }
}
