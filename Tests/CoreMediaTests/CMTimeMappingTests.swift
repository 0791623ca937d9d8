import CoreMedia
import XCTest

/// `CMTimeMapping` construction.
final class CMTimeMappingTests: XCTestCase {
    func testZeroInitializerIsInvalid() {
        let mapping = CMTimeMapping()
        XCTAssertFalse(mapping.source.isValid)
        XCTAssertFalse(mapping.target.isValid)
        XCTAssertFalse(mapping.source.start.isValid)
    }

    func testInvalidConstant() {
        XCTAssertFalse(CMTimeMapping.invalid.source.isValid)
        XCTAssertFalse(CMTimeMapping.invalid.target.isValid)
    }

    func testMakeStoresBothRanges() {
        let source = CMTimeRange(start: t(2, 1), duration: t(3, 1))
        let target = CMTimeRange(start: t(10, 1), duration: t(6, 1))
        for mapping in [
            CMTimeMapping(source: source, target: target), CMTimeMappingMake(source: source, target: target),
        ] {
            XCTAssertEqual(mapping.source, source)
            XCTAssertEqual(mapping.target, target)
        }
    }

    func testEmptyEdit() {
        let target = CMTimeRange(start: t(10, 1), duration: t(6, 1))
        let mapping = CMTimeMappingMakeEmpty(target: target)
        XCTAssertFalse(mapping.source.start.isValid)
        assertNumeric(mapping.source.duration, 6, 1)
        XCTAssertEqual(mapping.target, target)
    }
}
