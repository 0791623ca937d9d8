import CoreMedia
import XCTest

/// Addition, subtraction, multiplication and absolute value: timescales, overflow, special values, epochs.
final class CMTimeArithmeticTests: XCTestCase {
    private let specials: [CMTime] = [.invalid, .indefinite, .positiveInfinity, .negativeInfinity]

    // MARK: Addition and subtraction

    func testSameTimescaleKeepsIt() {
        assertNumeric(t(1, 10) + t(2, 10), 3, 10)
        assertNumeric(CMTimeAdd(t(1, 10), t(2, 10)), 3, 10)
        assertNumeric(t(5, 600) - t(7, 600), -2, 600)
        assertNumeric(CMTimeSubtract(t(5, 600), t(7, 600)), -2, 600)
    }

    func testMixedTimescalesUseTheLeastCommonMultiple() {
        assertNumeric(t(1, 2) + t(1, 3), 5, 6)
        assertNumeric(t(1, 4) + t(1, 6), 5, 12)
        assertNumeric(t(1, 600) + t(1, 90_000), 151, 90_000)
        assertNumeric(t(1, 2) - t(1, 3), 1, 6)
        assertNumeric(t(1, 3) - t(1, 2), -1, 6)
        assertNumeric(t(1001, 30_000) + t(1, 25), 2201, 30_000)
    }

    func testLeastCommonMultipleAboveMaxTimescaleIsCappedAndRounded() {
        // Two primes: the LCM (~1e18) exceeds kCMTimeMaxTimescale, so the sum (~4.29 units of 1/2147483647 s) rounds.
        let sum = t(1, 1_000_000_007) + t(1, 999_999_937)
        assertNumeric(sum, 4, 2_147_483_647, rounded: true)
    }

    func testOverflowHalvesTheTimescale() {
        // (2^63-1)/4 * 2 = (2^63-1)/2 s: exact at timescale 2.
        assertNumeric(t(.max, 4) + t(.max, 4), .max, 2)
        // 2(2^63-1)/5 s: overflows at 5, at 2 it is 7378697629483820645.6 units.
        assertNumeric(t(.max, 5) + t(.max, 5), 7_378_697_629_483_820_646, 2, rounded: true)
        // 2(2^63-1)/3 s: overflows at 3, at 1 it is 6148914691236517204.67 units.
        assertNumeric(t(.max, 3) + t(.max, 3), 6_148_914_691_236_517_205, 1, rounded: true)
    }

    func testOverflowAtTimescaleOneGivesInfinity() {
        XCTAssertTrue((t(.max, 1) + t(1, 1)).isPositiveInfinity)
        XCTAssertTrue((t(.min, 1) - t(1, 1)).isNegativeInfinity)
        XCTAssertTrue((t(.max, 1) - t(-1, 1)).isPositiveInfinity)
        XCTAssertTrue((t(.min, 1) + t(.min, 1)).isNegativeInfinity)
        XCTAssertTrue((t(.max, 1) + t(.max, 2_147_483_647)).isPositiveInfinity)
    }

    func testRoundedFlagPropagates() {
        assertNumeric(roundedTime(1, 3) + t(1, 3), 2, 3, rounded: true)
        assertNumeric(t(1, 3) - roundedTime(1, 3), 0, 3, rounded: true)
    }

    func testAdditionSpecialValues() {
        for special in specials {
            XCTAssertFalse((CMTime.invalid + special).isValid)
            XCTAssertFalse((special + .invalid).isValid)
        }
        XCTAssertFalse((CMTime.invalid + t(1, 1)).isValid)
        XCTAssertFalse((t(1, 1) + .invalid).isValid)
        XCTAssertTrue((CMTime.positiveInfinity + t(1, 1)).isPositiveInfinity)
        XCTAssertTrue((t(1, 1) + .negativeInfinity).isNegativeInfinity)
        XCTAssertTrue((CMTime.positiveInfinity + .positiveInfinity).isPositiveInfinity)
        XCTAssertTrue((CMTime.negativeInfinity + .negativeInfinity).isNegativeInfinity)
        XCTAssertFalse((CMTime.positiveInfinity + .negativeInfinity).isValid)
        XCTAssertFalse((CMTime.negativeInfinity + .positiveInfinity).isValid)
        // One infinite operand wins over indefinite.
        XCTAssertTrue((CMTime.positiveInfinity + .indefinite).isPositiveInfinity)
        XCTAssertTrue((CMTime.indefinite + .negativeInfinity).isNegativeInfinity)
        XCTAssertTrue((CMTime.indefinite + t(1, 1)).isIndefinite)
        XCTAssertTrue((t(1, 1) + .indefinite).isIndefinite)
        XCTAssertTrue((CMTime.indefinite + .indefinite).isIndefinite)
    }

    func testSubtractionSpecialValues() {
        XCTAssertFalse((CMTime.positiveInfinity - .positiveInfinity).isValid)
        XCTAssertFalse((CMTime.negativeInfinity - .negativeInfinity).isValid)
        XCTAssertTrue((CMTime.positiveInfinity - .negativeInfinity).isPositiveInfinity)
        XCTAssertTrue((CMTime.negativeInfinity - .positiveInfinity).isNegativeInfinity)
        XCTAssertTrue((t(1, 1) - .positiveInfinity).isNegativeInfinity)
        XCTAssertTrue((t(1, 1) - .negativeInfinity).isPositiveInfinity)
        XCTAssertTrue((CMTime.positiveInfinity - t(5, 1)).isPositiveInfinity)
        XCTAssertTrue((CMTime.indefinite - t(5, 1)).isIndefinite)
        XCTAssertTrue((t(5, 1) - .indefinite).isIndefinite)
        XCTAssertTrue((CMTime.indefinite - .positiveInfinity).isNegativeInfinity)
        XCTAssertFalse((CMTime.invalid - t(5, 1)).isValid)
        XCTAssertFalse((t(5, 1) - .invalid).isValid)
    }

    func testMalformedValidTimeWithoutTimescaleIsTreatedAsInvalid() {
        let malformed = CMTime(value: 1, timescale: 0, flags: .valid, epoch: 0)
        XCTAssertTrue(malformed.isNumeric, "Apple's predicate looks at flags only")
        XCTAssertFalse((malformed + t(1, 1)).isValid)
        XCTAssertFalse(CMTimeMultiply(malformed, multiplier: 2).isValid)
    }

    func testEpochs() {
        // Same non-zero epoch: the result is a duration (epoch 0).
        assertNumeric(t(1, 1, epoch: 2) + t(2, 1, epoch: 2), 3, 1)
        assertNumeric(t(5, 1, epoch: 2) - t(3, 1, epoch: 2), 2, 1)
        // A duration (epoch 0) combines with a time in any epoch, which keeps its epoch.
        assertNumeric(t(5, 1, epoch: 2) + t(1, 1), 6, 1, epoch: 2)
        assertNumeric(t(1, 1) + t(5, 1, epoch: 2), 6, 1, epoch: 2)
        assertNumeric(t(5, 1, epoch: 2) - t(1, 1), 4, 1, epoch: 2)
        // Different non-zero epochs cannot be combined.
        XCTAssertFalse((t(1, 1, epoch: 1) + t(1, 1, epoch: 2)).isValid)
        XCTAssertFalse((t(3, 1, epoch: 3) - t(1, 1, epoch: 1)).isValid)
        // Special values ignore epochs.
        XCTAssertTrue((t(3, 1, epoch: 3) + .positiveInfinity).isPositiveInfinity)
    }

    // MARK: Multiplication by an integer

    func testMultiplyKeepsTimescaleAndEpoch() {
        assertNumeric(CMTimeMultiply(t(3, 10), multiplier: 4), 12, 10)
        assertNumeric(CMTimeMultiply(t(3, 10), multiplier: -2), -6, 10)
        assertNumeric(CMTimeMultiply(t(3, 10), multiplier: 0), 0, 10)
        assertNumeric(CMTimeMultiply(t(1, 2, epoch: 5), multiplier: 3), 3, 2, epoch: 5)
        assertNumeric(CMTimeMultiply(roundedTime(1, 3), multiplier: 3), 3, 3, rounded: true)
    }

    func testMultiplyOverflow() {
        assertNumeric(CMTimeMultiply(t(.max, 4), multiplier: 2), .max, 2)
        assertNumeric(CMTimeMultiply(t(.max, 3), multiplier: 2), 6_148_914_691_236_517_205, 1, rounded: true)
        XCTAssertTrue(CMTimeMultiply(t(.max, 1), multiplier: 2).isPositiveInfinity)
        XCTAssertTrue(CMTimeMultiply(t(.max, 1), multiplier: -2).isNegativeInfinity)
        XCTAssertTrue(CMTimeMultiply(t(.min, 1), multiplier: -1).isPositiveInfinity)
        XCTAssertTrue(CMTimeMultiply(t(.max, 1), multiplier: .min).isNegativeInfinity)
        XCTAssertTrue(CMTimeMultiply(t(.min, 600), multiplier: .max).isNegativeInfinity)
    }

    func testMultiplySpecialValues() {
        XCTAssertFalse(CMTimeMultiply(.invalid, multiplier: 3).isValid)
        XCTAssertTrue(CMTimeMultiply(.indefinite, multiplier: 5).isIndefinite)
        XCTAssertTrue(CMTimeMultiply(.positiveInfinity, multiplier: 2).isPositiveInfinity)
        XCTAssertTrue(CMTimeMultiply(.positiveInfinity, multiplier: -2).isNegativeInfinity)
        XCTAssertTrue(CMTimeMultiply(.negativeInfinity, multiplier: -1).isPositiveInfinity)
        XCTAssertTrue(CMTimeMultiply(.negativeInfinity, multiplier: 7).isNegativeInfinity)
        XCTAssertTrue(CMTimeMultiply(.positiveInfinity, multiplier: 0).isPositiveInfinity)
    }

    // MARK: Multiplication by a Float64

    func testMultiplyByFloat64DoublesTimescaleToAtLeast65536() {
        assertNumeric(CMTimeMultiplyByFloat64(t(1, 1), multiplier: 0.5), 32_768, 65_536)
        assertNumeric(CMTimeMultiplyByFloat64(t(1, 1), multiplier: -0.5), -32_768, 65_536)
        // 600 doubles to 76800; 3/600 s * 2 = 768/76800 s.
        assertNumeric(CMTimeMultiplyByFloat64(t(3, 600), multiplier: 2), 768, 76_800)
        // 3 doubles to 98304; 1/3 s = 32768/98304 s.
        assertNumeric(CMTimeMultiplyByFloat64(t(1, 3), multiplier: 1), 32_768, 98_304)
        // A timescale of at least 65536 is kept.
        assertNumeric(CMTimeMultiplyByFloat64(t(1, 90_000), multiplier: 2), 2, 90_000)
        assertNumeric(CMTimeMultiplyByFloat64(t(1, 2, epoch: 3), multiplier: 2), 65_536, 65_536, epoch: 3)
    }

    func testMultiplyByFloat64Rounds() {
        // 65536 / 3 = 21845.33 units.
        assertNumeric(CMTimeMultiplyByFloat64(t(1, 1), multiplier: 1.0 / 3.0), 21_845, 65_536, rounded: true)
        assertNumeric(CMTimeMultiplyByFloat64(roundedTime(1, 1), multiplier: 1), 65_536, 65_536, rounded: true)
    }

    func testMultiplyByFloat64Overflow() {
        // 2^50 s: 2^66 units at 65536/s overflow, and so do 2^65 and 2^64 and 2^63; 4096/s gives 2^62.
        assertNumeric(CMTimeMultiplyByFloat64(t(1 << 50, 1), multiplier: 1), 1 << 62, 4096)
        XCTAssertTrue(CMTimeMultiplyByFloat64(t(.max, 1), multiplier: 2).isPositiveInfinity)
        XCTAssertTrue(CMTimeMultiplyByFloat64(t(.max, 1), multiplier: -2).isNegativeInfinity)
        XCTAssertTrue(CMTimeMultiplyByFloat64(t(1, 1), multiplier: 1e300).isPositiveInfinity)
    }

    func testMultiplyByFloat64SpecialValues() {
        XCTAssertFalse(CMTimeMultiplyByFloat64(.invalid, multiplier: 2).isValid)
        XCTAssertFalse(CMTimeMultiplyByFloat64(t(1, 1), multiplier: .nan).isValid)
        XCTAssertTrue(CMTimeMultiplyByFloat64(.indefinite, multiplier: 2).isIndefinite)
        XCTAssertTrue(CMTimeMultiplyByFloat64(.positiveInfinity, multiplier: -1.5).isNegativeInfinity)
        XCTAssertTrue(CMTimeMultiplyByFloat64(.negativeInfinity, multiplier: 1.5).isNegativeInfinity)
        XCTAssertTrue(CMTimeMultiplyByFloat64(t(1, 1), multiplier: .infinity).isPositiveInfinity)
        XCTAssertTrue(CMTimeMultiplyByFloat64(t(-1, 1), multiplier: .infinity).isNegativeInfinity)
        XCTAssertFalse(CMTimeMultiplyByFloat64(t(0, 1), multiplier: .infinity).isValid)
    }

    // MARK: Multiplication by a ratio

    func testMultiplyByRatioIsExact() {
        assertNumeric(CMTimeMultiplyByRatio(t(3, 30), multiplier: 2, divisor: 1), 6, 30)
        assertNumeric(CMTimeMultiplyByRatio(t(10, 600), multiplier: 1, divisor: 2), 5, 600)
        assertNumeric(CMTimeMultiplyByRatio(t(1, 600), multiplier: 1, divisor: 3), 1, 1800)
        assertNumeric(CMTimeMultiplyByRatio(t(1, 2), multiplier: 3, divisor: 4), 3, 8)
        assertNumeric(CMTimeMultiplyByRatio(t(1, 2), multiplier: 1, divisor: -2), -1, 4)
        assertNumeric(CMTimeMultiplyByRatio(t(-1, 2), multiplier: -1, divisor: -2), -1, 4)
        assertNumeric(CMTimeMultiplyByRatio(t(.max, 1), multiplier: 1, divisor: 3), .max, 3)
        assertNumeric(CMTimeMultiplyByRatio(t(1, 2, epoch: 9), multiplier: 2, divisor: 1), 2, 2, epoch: 9)
        // 1000/1e9 s / 7: 7e9 is too large a timescale, but in lowest terms it is 1/7000000 s.
        assertNumeric(CMTimeMultiplyByRatio(t(1000, 1_000_000_000), multiplier: 1, divisor: 7), 1, 7_000_000)
        assertNumeric(CMTimeMultiplyByRatio(roundedTime(1, 2), multiplier: 1, divisor: 1), 1, 2, rounded: true)
    }

    func testMultiplyByRatioRoundsWhenExactIsImpossible() {
        // 2/7e9 s = 1/3.5e9 s: no exact CMTime; 0.61 units of 1/2147483647 s.
        assertNumeric(
            CMTimeMultiplyByRatio(t(1, 1_000_000_000), multiplier: 2, divisor: 7), 1, 2_147_483_647, rounded: true)
        XCTAssertTrue(CMTimeMultiplyByRatio(t(.max, 1), multiplier: 3, divisor: 2).isPositiveInfinity)
        XCTAssertTrue(CMTimeMultiplyByRatio(t(.min, 1), multiplier: .max, divisor: 1).isNegativeInfinity)
    }

    func testMultiplyByRatioWithZeroDivisor() {
        XCTAssertTrue(CMTimeMultiplyByRatio(t(1, 1), multiplier: 1, divisor: 0).isPositiveInfinity)
        XCTAssertTrue(CMTimeMultiplyByRatio(t(-1, 1), multiplier: 1, divisor: 0).isNegativeInfinity)
        XCTAssertTrue(CMTimeMultiplyByRatio(t(1, 1), multiplier: -1, divisor: 0).isNegativeInfinity)
        XCTAssertTrue(CMTimeMultiplyByRatio(t(-1, 1), multiplier: -1, divisor: 0).isPositiveInfinity)
        XCTAssertFalse(CMTimeMultiplyByRatio(t(0, 1), multiplier: 1, divisor: 0).isValid)
        XCTAssertFalse(CMTimeMultiplyByRatio(t(1, 1), multiplier: 0, divisor: 0).isValid)
    }

    func testMultiplyByRatioSpecialValues() {
        XCTAssertFalse(CMTimeMultiplyByRatio(.invalid, multiplier: 1, divisor: 2).isValid)
        XCTAssertTrue(CMTimeMultiplyByRatio(.indefinite, multiplier: 1, divisor: 2).isIndefinite)
        XCTAssertTrue(CMTimeMultiplyByRatio(.positiveInfinity, multiplier: 1, divisor: 2).isPositiveInfinity)
        XCTAssertTrue(CMTimeMultiplyByRatio(.positiveInfinity, multiplier: -1, divisor: 2).isNegativeInfinity)
        XCTAssertTrue(CMTimeMultiplyByRatio(.positiveInfinity, multiplier: -1, divisor: -2).isPositiveInfinity)
        XCTAssertTrue(CMTimeMultiplyByRatio(.negativeInfinity, multiplier: 1, divisor: -2).isPositiveInfinity)
    }

    // MARK: Absolute value

    func testAbsoluteValue() {
        assertNumeric(CMTimeAbsoluteValue(t(-3, 10)), 3, 10)
        assertNumeric(CMTimeAbsoluteValue(t(3, 10)), 3, 10)
        assertNumeric(CMTimeAbsoluteValue(.zero), 0, 1)
        assertNumeric(CMTimeAbsoluteValue(t(-3, 10, epoch: 2)), 3, 10, epoch: 2)
        let rounded = CMTime(value: -3, timescale: 10, flags: [.valid, .hasBeenRounded], epoch: 0)
        assertNumeric(CMTimeAbsoluteValue(rounded), 3, 10, rounded: true)
        XCTAssertTrue(CMTimeAbsoluteValue(.negativeInfinity).isPositiveInfinity)
        XCTAssertTrue(CMTimeAbsoluteValue(.positiveInfinity).isPositiveInfinity)
        XCTAssertTrue(CMTimeAbsoluteValue(.indefinite).isIndefinite)
        XCTAssertFalse(CMTimeAbsoluteValue(.invalid).isValid)
    }

    func testAbsoluteValueOfInt64MinRescales() {
        // 2^63/2 s = 2^62/1 s, exact.
        assertNumeric(CMTimeAbsoluteValue(t(.min, 2)), 1 << 62, 1)
        // 2^63/3 s: 3074457345618258602.67 units at timescale 1.
        assertNumeric(CMTimeAbsoluteValue(t(.min, 3)), 3_074_457_345_618_258_603, 1, rounded: true)
        XCTAssertTrue(CMTimeAbsoluteValue(t(.min, 1)).isPositiveInfinity)
    }
}
