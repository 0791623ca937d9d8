import CoreMedia
import XCTest

/// `CMTimeCompare`'s total order, rational equality, epochs, minimum/maximum and hashing.
final class CMTimeComparisonTests: XCTestCase {
    func testRationalComparison() {
        XCTAssertEqual(CMTimeCompare(t(1, 2), t(500, 1000)), 0)
        XCTAssertEqual(CMTimeCompare(t(1, 3), t(1, 2)), -1)
        XCTAssertEqual(CMTimeCompare(t(1, 2), t(1, 3)), 1)
        XCTAssertEqual(CMTimeCompare(t(-1, 2), t(1, 3)), -1)
        XCTAssertEqual(CMTimeCompare(t(-1, 2), t(-2, 4)), 0)
        XCTAssertEqual(CMTimeCompare(t(0, 1), t(0, 90_000)), 0)
    }

    func testComparisonDoesNotOverflow() {
        // The cross products need ~94 bits.
        XCTAssertEqual(CMTimeCompare(t(.max, 2_147_483_647), t(.max - 1, 2_147_483_647)), 1)
        XCTAssertEqual(CMTimeCompare(t(.max, 1), t(.max, 2)), 1)
        XCTAssertEqual(CMTimeCompare(t(.min, 1), t(.max, 1)), -1)
        XCTAssertEqual(CMTimeCompare(t(.max, 2_147_483_646), t(.max, 2_147_483_647)), 1)
        XCTAssertEqual(CMTimeCompare(t(.min, 2_147_483_647), t(.min, 2_147_483_646)), 1)
    }

    func testTotalOrder() {
        let ordered: [CMTime] = [
            .negativeInfinity, t(.min, 1), t(-1, 1), .zero, t(1, 1), t(.max, 1), .indefinite,
            .positiveInfinity, .invalid,
        ]
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                let expected: Int32 = i < j ? -1 : (i == j ? 0 : 1)
                XCTAssertEqual(CMTimeCompare(a, b), expected, "\(fields(a)) vs \(fields(b))")
            }
        }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20 {
            let sorted = ordered.shuffled(using: &generator).sorted()
            XCTAssertEqual(sorted.map(fields), ordered.map(fields))
        }
    }

    func testAllInvalidTimesAreEqual() {
        let odd = CMTime(value: 5, timescale: 3, flags: [], epoch: 9)
        let flagged = CMTime(value: 0, timescale: 0, flags: [.positiveInfinity, .hasBeenRounded], epoch: 0)
        let malformed = CMTime(value: 1, timescale: 0, flags: .valid, epoch: 0)
        for time in [odd, flagged, malformed] {
            XCTAssertEqual(CMTimeCompare(time, .invalid), 0)
            XCTAssertTrue(time == .invalid)
            XCTAssertTrue(time > .positiveInfinity)
        }
    }

    func testNonNumericValuesIgnoreTheirOtherFields() {
        let indefinite = CMTime(value: 7, timescale: 1, flags: [.valid, .indefinite], epoch: 3)
        XCTAssertTrue(indefinite == .indefinite)
        let infinity = CMTime(value: -4, timescale: 9, flags: [.valid, .positiveInfinity], epoch: -2)
        XCTAssertTrue(infinity == .positiveInfinity)
        XCTAssertTrue(
            CMTime.negativeInfinity == CMTime(value: 3, timescale: 1, flags: [.valid, .negativeInfinity], epoch: 1))
    }

    func testEpochs() {
        XCTAssertEqual(CMTimeCompare(t(0, 1, epoch: 2), t(1000, 1, epoch: 1)), 1)
        XCTAssertEqual(CMTimeCompare(t(-5, 1, epoch: 1), t(5, 1, epoch: 0)), 1)
        XCTAssertEqual(CMTimeCompare(t(1, 2, epoch: 3), t(2, 4, epoch: 3)), 0)
        XCTAssertFalse(t(1, 2, epoch: 1) == t(1, 2, epoch: 2))
        // Epochs matter only between numeric times.
        XCTAssertTrue(t(0, 1, epoch: .max) < .indefinite)
        XCTAssertTrue(t(0, 1, epoch: .min) > .negativeInfinity)
    }

    func testRoundedFlagDoesNotAffectEquality() {
        XCTAssertTrue(roundedTime(1, 3) == t(1, 3))
        XCTAssertEqual(roundedTime(1, 3).hashValue, t(1, 3).hashValue)
    }

    func testComparableOperators() {
        XCTAssertTrue(t(1, 2) == t(500, 1000))
        XCTAssertFalse(t(1, 2) != t(500, 1000))
        XCTAssertTrue(t(1, 3) < t(1, 2))
        XCTAssertTrue(t(1, 3) <= t(1, 2))
        XCTAssertTrue(t(1, 2) <= t(2, 4))
        XCTAssertTrue(t(1, 2) > t(1, 3))
        XCTAssertTrue(t(1, 2) >= t(2, 4))
        XCTAssertTrue(t(1, 2) != t(1, 3))
        XCTAssertTrue(CMTime.invalid == CMTime())
        XCTAssertEqual(max(t(1, 3), t(1, 2)), t(1, 2))
    }

    func testMinimumAndMaximum() {
        assertNumeric(CMTimeMinimum(t(1, 2), t(1, 3)), 1, 3)
        assertNumeric(CMTimeMaximum(t(1, 2), t(1, 3)), 1, 2)
        // Equal times: the first argument.
        assertNumeric(CMTimeMinimum(t(1, 2), t(2, 4)), 1, 2)
        assertNumeric(CMTimeMaximum(t(2, 4), t(1, 2)), 2, 4)
        assertNumeric(CMTimeMinimum(.positiveInfinity, t(5, 1)), 5, 1)
        XCTAssertFalse(CMTimeMaximum(.invalid, t(5, 1)).isValid)
        XCTAssertTrue(CMTimeMinimum(.negativeInfinity, .indefinite).isNegativeInfinity)
        XCTAssertTrue(CMTimeMaximum(.indefinite, .positiveInfinity).isPositiveInfinity)
        XCTAssertTrue(CMTimeMaximum(t(5, 1), .indefinite).isIndefinite)
        assertNumeric(CMTimeMinimum(t(5, 1), .invalid), 5, 1)
    }

    func testHashingAgreesWithEquality() {
        XCTAssertEqual(t(1, 2).hashValue, t(500, 1000).hashValue)
        XCTAssertEqual(t(-1, 2).hashValue, t(-2, 4).hashValue)
        XCTAssertEqual(t(0, 1).hashValue, t(0, 600).hashValue)
        XCTAssertEqual(CMTime(value: 5, timescale: 3, flags: [], epoch: 9).hashValue, CMTime.invalid.hashValue)
        XCTAssertEqual(
            CMTime(value: 7, timescale: 1, flags: [.valid, .indefinite], epoch: 3).hashValue,
            CMTime.indefinite.hashValue)
        XCTAssertEqual(Set([t(1, 2), t(2, 4), t(3, 6), t(1, 3)]).count, 2)
        XCTAssertEqual(Set([t(1, 2, epoch: 1), t(1, 2, epoch: 2)]).count, 2)
        XCTAssertEqual(Set([CMTime.invalid, CMTime(), .indefinite, .positiveInfinity, .negativeInfinity]).count, 4)
        let lookup = [t(1, 2): "half"]
        XCTAssertEqual(lookup[t(300, 600)], "half")
        XCTAssertEqual(t(.min, 1).hashValue, t(.min, 1).hashValue)
    }
}
