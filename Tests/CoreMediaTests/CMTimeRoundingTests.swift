import CoreMedia
import XCTest

/// `CMTimeConvertScale` with every rounding method, both directions of precision change, both signs.
final class CMTimeRoundingTests: XCTestCase {
    private let methods: [CMTimeRoundingMethod] = [
        .roundHalfAwayFromZero, .roundTowardZero, .roundAwayFromZero, .quickTime, .roundTowardPositiveInfinity,
        .roundTowardNegativeInfinity,
    ]

    /// Converts `value/timescale` to `newTimescale` with every method and checks the values, in `methods` order.
    private func check(
        _ value: Int64, _ timescale: Int32, to newTimescale: Int32, expect expected: [Int64],
        file: StaticString = #filePath, line: UInt = #line
    ) {
        for (method, value2) in zip(methods, expected) {
            let converted = CMTimeConvertScale(t(value, timescale), timescale: newTimescale, method: method)
            XCTAssertEqual(
                converted.value, value2, "\(value)/\(timescale) -> /\(newTimescale) with \(method)", file: file,
                line: line)
            XCTAssertEqual(converted.timescale, newTimescale, file: file, line: line)
            XCTAssertTrue(converted.hasBeenRounded, "\(method) rounded", file: file, line: line)
            XCTAssertEqual(
                t(value, timescale).convertScale(newTimescale, method: method), converted, file: file, line: line)
        }
    }

    // Columns: halfAwayFromZero, towardZero, awayFromZero, quickTime, towardPositiveInfinity, towardNegativeInfinity.

    func testReducingPrecisionPositive() {
        check(13, 10, to: 1, expect: [1, 1, 2, 1, 2, 1])  // 1.3
        check(15, 10, to: 1, expect: [2, 1, 2, 1, 2, 1])  // 1.5
        check(17, 10, to: 1, expect: [2, 1, 2, 1, 2, 1])  // 1.7
        check(3, 10, to: 1, expect: [0, 0, 1, 0, 1, 0])  // 0.3
    }

    func testReducingPrecisionNegative() {
        check(-13, 10, to: 1, expect: [-1, -1, -2, -1, -1, -2])  // -1.3
        check(-15, 10, to: 1, expect: [-2, -1, -2, -1, -1, -2])  // -1.5
        check(-17, 10, to: 1, expect: [-2, -1, -2, -1, -1, -2])  // -1.7
        // -0.3: quickTime never rounds a negative number to 0.
        check(-3, 10, to: 1, expect: [0, 0, -1, -1, 0, -1])
        // -0.01 s to 1/10 s: -0.1 units.
        check(-1, 1000, to: 10, expect: [0, 0, -1, -1, 0, -1])
    }

    func testIncreasingPrecision() {
        // quickTime rounds away from zero when the timescale grows.
        check(1, 3, to: 10, expect: [3, 3, 4, 4, 4, 3])  // 3.33 units
        check(2, 3, to: 10, expect: [7, 6, 7, 7, 7, 6])  // 6.67 units
        check(-1, 3, to: 10, expect: [-3, -3, -4, -4, -3, -4])  // -3.33 units
        check(-2, 3, to: 10, expect: [-7, -6, -7, -7, -6, -7])  // -6.67 units
    }

    func testExactConversionsAreNotRounded() {
        for method in methods {
            assertNumeric(CMTimeConvertScale(t(20, 10), timescale: 1, method: method), 2, 1)
            assertNumeric(CMTimeConvertScale(t(1, 2), timescale: 10, method: method), 5, 10)
            assertNumeric(CMTimeConvertScale(t(-3, 4), timescale: 600, method: method), -450, 600)
        }
    }

    func testMediaTimescales() {
        // 123456789/90000 s in 1/600 s units: 823045.26.
        assertNumeric(t(123_456_789, 90_000).convertScale(600, method: .default), 823_045, 600, rounded: true)
        assertNumeric(t(1001, 30_000).convertScale(90_000, method: .default), 3003, 90_000)
    }

    func testSameTimescaleReturnsTheTimeUnchanged() {
        let time = CMTime(value: 7, timescale: 3, flags: [.valid, .hasBeenRounded], epoch: 5)
        assertNumeric(CMTimeConvertScale(time, timescale: 3, method: .roundTowardZero), 7, 3, rounded: true, epoch: 5)
    }

    func testEpochAndRoundedFlagAreKept() {
        assertNumeric(
            CMTimeConvertScale(t(15, 10, epoch: 4), timescale: 1, method: .default), 2, 1, rounded: true, epoch: 4)
        // Exact conversion of an already-rounded time stays marked.
        assertNumeric(CMTimeConvertScale(roundedTime(10, 10), timescale: 1, method: .default), 1, 1, rounded: true)
    }

    func testNonNumericTimes() {
        XCTAssertTrue(CMTimeConvertScale(.positiveInfinity, timescale: 600, method: .default).isPositiveInfinity)
        XCTAssertTrue(CMTimeConvertScale(.negativeInfinity, timescale: 600, method: .default).isNegativeInfinity)
        XCTAssertTrue(CMTimeConvertScale(.indefinite, timescale: 600, method: .default).isIndefinite)
        XCTAssertFalse(CMTimeConvertScale(.invalid, timescale: 600, method: .default).isValid)
    }

    func testInvalidTargetTimescale() {
        XCTAssertFalse(CMTimeConvertScale(t(1, 2), timescale: 0, method: .default).isValid)
        XCTAssertFalse(CMTimeConvertScale(t(1, 2), timescale: -10, method: .default).isValid)
    }

    func testOverflowGivesInfinityWithoutTrapping() {
        XCTAssertTrue(t(.max, 1).convertScale(2, method: .default).isPositiveInfinity)
        XCTAssertTrue(t(.min, 1).convertScale(kCMTimeMaxTimescale32, method: .quickTime).isNegativeInfinity)
        assertNumeric(t(.max, 1).convertScale(1, method: .default), .max, 1)
        assertNumeric(t(.max, 2).convertScale(1, method: .roundTowardZero), .max / 2, 1, rounded: true)
    }
}

/// `kCMTimeMaxTimescale` as a `CMTimeScale`.
private let kCMTimeMaxTimescale32 = CMTimeScale(kCMTimeMaxTimescale)
