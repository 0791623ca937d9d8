import CoreMedia
import XCTest

/// Construction, constants, predicates, seconds and `CMTimeMakeWithSeconds`.
final class CMTimeTests: XCTestCase {
    func testZeroInitializerIsInvalid() {
        let time = CMTime()
        XCTAssertEqual(time.value, 0)
        XCTAssertEqual(time.timescale, 0)
        XCTAssertEqual(time.flags, [])
        XCTAssertEqual(time.epoch, 0)
        XCTAssertFalse(time.isValid)
        XCTAssertTrue(time == .invalid)
    }

    func testMakeFunctionsAndInitializers() {
        assertNumeric(CMTimeMake(value: 1, timescale: 2), 1, 2)
        assertNumeric(CMTime(value: -7, timescale: 600), -7, 600)
        assertNumeric(CMTimeMakeWithEpoch(value: 5, timescale: 10, epoch: 3), 5, 10, epoch: 3)
        let memberwise = CMTime(value: 9, timescale: 0, flags: [.valid, .indefinite], epoch: 4)
        XCTAssertEqual(memberwise.value, 9)
        XCTAssertEqual(memberwise.timescale, 0)
        XCTAssertEqual(memberwise.flags, [.valid, .indefinite])
        XCTAssertEqual(memberwise.epoch, 4)
    }

    func testNonPositiveTimescaleMakesInvalidTime() {
        XCTAssertFalse(CMTimeMake(value: 1, timescale: 0).isValid)
        XCTAssertFalse(CMTime(value: 1, timescale: -600).isValid)
        XCTAssertFalse(CMTimeMakeWithEpoch(value: 1, timescale: 0, epoch: 1).isValid)
    }

    func testConstants() {
        assertNumeric(.zero, 0, 1)
        XCTAssertEqual(CMTime.invalid.flags, [])
        XCTAssertEqual(CMTime.indefinite.flags, [.valid, .indefinite])
        XCTAssertEqual(CMTime.positiveInfinity.flags, [.valid, .positiveInfinity])
        XCTAssertEqual(CMTime.negativeInfinity.flags, [.valid, .negativeInfinity])
        XCTAssertEqual(kCMTimeMaxTimescale, 0x7fff_ffff)
        XCTAssertEqual(kCMPersistentTrackID_Invalid, 0)
    }

    func testFlagAndRoundingMethodRawValues() {
        XCTAssertEqual(CMTimeFlags.valid.rawValue, 1)
        XCTAssertEqual(CMTimeFlags.hasBeenRounded.rawValue, 2)
        XCTAssertEqual(CMTimeFlags.positiveInfinity.rawValue, 4)
        XCTAssertEqual(CMTimeFlags.negativeInfinity.rawValue, 8)
        XCTAssertEqual(CMTimeFlags.indefinite.rawValue, 16)
        XCTAssertEqual(CMTimeFlags.impliedValueFlagsMask.rawValue, 28)
        XCTAssertEqual(CMTimeRoundingMethod.roundHalfAwayFromZero.rawValue, 1)
        XCTAssertEqual(CMTimeRoundingMethod.roundTowardZero.rawValue, 2)
        XCTAssertEqual(CMTimeRoundingMethod.roundAwayFromZero.rawValue, 3)
        XCTAssertEqual(CMTimeRoundingMethod.quickTime.rawValue, 4)
        XCTAssertEqual(CMTimeRoundingMethod.roundTowardPositiveInfinity.rawValue, 5)
        XCTAssertEqual(CMTimeRoundingMethod.roundTowardNegativeInfinity.rawValue, 6)
        XCTAssertEqual(CMTimeRoundingMethod.default, .roundHalfAwayFromZero)
        XCTAssertEqual(CMTimeRoundingMethod(rawValue: 4), .quickTime)
        XCTAssertNil(CMTimeRoundingMethod(rawValue: 0))
    }

    func testPredicates() {
        // (time, valid, numeric, indefinite, +inf, -inf)
        let table: [(CMTime, Bool, Bool, Bool, Bool, Bool)] = [
            (t(3, 4), true, true, false, false, false),
            (.zero, true, true, false, false, false),
            (.invalid, false, false, false, false, false),
            (.indefinite, true, false, true, false, false),
            (.positiveInfinity, true, false, false, true, false),
            (.negativeInfinity, true, false, false, false, true),
            // Implied-value flags without `.valid` mean nothing.
            (CMTime(value: 0, timescale: 0, flags: .positiveInfinity, epoch: 0), false, false, false, false, false),
            (CMTime(value: 0, timescale: 0, flags: .indefinite, epoch: 0), false, false, false, false, false),
        ]
        for (index, row) in table.enumerated() {
            let (time, valid, numeric, indefinite, positive, negative) = row
            XCTAssertEqual(time.isValid, valid, "row \(index)")
            XCTAssertEqual(CMTIME_IS_VALID(time), valid, "row \(index)")
            XCTAssertEqual(CMTIME_IS_INVALID(time), !valid, "row \(index)")
            XCTAssertEqual(time.isNumeric, numeric, "row \(index)")
            XCTAssertEqual(CMTIME_IS_NUMERIC(time), numeric, "row \(index)")
            XCTAssertEqual(time.isIndefinite, indefinite, "row \(index)")
            XCTAssertEqual(CMTIME_IS_INDEFINITE(time), indefinite, "row \(index)")
            XCTAssertEqual(time.isPositiveInfinity, positive, "row \(index)")
            XCTAssertEqual(CMTIME_IS_POSITIVEINFINITY(time), positive, "row \(index)")
            XCTAssertEqual(time.isNegativeInfinity, negative, "row \(index)")
            XCTAssertEqual(CMTIME_IS_NEGATIVEINFINITY(time), negative, "row \(index)")
        }
    }

    func testHasBeenRoundedRequiresNumericTime() {
        XCTAssertTrue(roundedTime(1, 3).hasBeenRounded)
        XCTAssertTrue(CMTIME_HAS_BEEN_ROUNDED(roundedTime(1, 3)))
        XCTAssertFalse(t(1, 3).hasBeenRounded)
        let roundedInfinity = CMTime(
            value: 0, timescale: 0, flags: [.valid, .positiveInfinity, .hasBeenRounded], epoch: 0)
        XCTAssertFalse(roundedInfinity.hasBeenRounded)
        let roundedInvalid = CMTime(value: 1, timescale: 3, flags: .hasBeenRounded, epoch: 0)
        XCTAssertFalse(roundedInvalid.hasBeenRounded)
    }

    func testSeconds() {
        XCTAssertEqual(t(1, 4).seconds, 0.25)
        XCTAssertEqual(t(-3, 2).seconds, -1.5)
        XCTAssertEqual(CMTimeGetSeconds(t(90_000, 90_000)), 1.0)
        XCTAssertEqual(t(3, 2, epoch: 7).seconds, 1.5, "the epoch is ignored")
        XCTAssertTrue(CMTime.invalid.seconds.isNaN)
        XCTAssertTrue(CMTime.indefinite.seconds.isNaN)
        XCTAssertEqual(CMTime.positiveInfinity.seconds, .infinity)
        XCTAssertEqual(CMTime.negativeInfinity.seconds, -.infinity)
        XCTAssertTrue(CMTime(value: 1, timescale: 0, flags: .valid, epoch: 0).seconds.isNaN)
    }

    func testMakeWithSecondsExact() {
        assertNumeric(CMTimeMakeWithSeconds(0.25, preferredTimescale: 600), 150, 600)
        assertNumeric(CMTimeMakeWithSeconds(2.5, preferredTimescale: 2), 5, 2)
        assertNumeric(CMTimeMakeWithSeconds(-1.5, preferredTimescale: 1000), -1500, 1000)
        assertNumeric(CMTimeMakeWithSeconds(0, preferredTimescale: 44_100), 0, 44_100)
        assertNumeric(CMTime(seconds: 3, preferredTimescale: 30), 90, 30)
    }

    func testMakeWithSecondsRoundsHalfAwayFromZero() {
        // 1.234 s at 10/s is 12.34 units.
        assertNumeric(CMTimeMakeWithSeconds(1.234, preferredTimescale: 10), 12, 10, rounded: true)
        assertNumeric(CMTimeMakeWithSeconds(2.5, preferredTimescale: 1), 3, 1, rounded: true)
        assertNumeric(CMTimeMakeWithSeconds(-2.5, preferredTimescale: 1), -3, 1, rounded: true)
        // 0.0015 s at 1000/s is 1.5 units (the product is exactly 1.5 in Float64).
        assertNumeric(CMTimeMakeWithSeconds(0.0015, preferredTimescale: 1000), 2, 1000, rounded: true)
        assertNumeric(CMTimeMakeWithSeconds(-0.0015, preferredTimescale: 1000), -2, 1000, rounded: true)
        assertNumeric(CMTimeMakeWithSeconds(1.7, preferredTimescale: 1), 2, 1, rounded: true)
        assertNumeric(CMTimeMakeWithSeconds(-1.2, preferredTimescale: 1), -1, 1, rounded: true)
    }

    func testMakeWithSecondsHalvesTimescaleOnOverflow() {
        // 1e10 s at 1e9/s is 1e19 > Int64.max; at 5e8/s it is 5e18, exact.
        assertNumeric(
            CMTimeMakeWithSeconds(1e10, preferredTimescale: 1_000_000_000), 5_000_000_000_000_000_000, 500_000_000)
        // An odd timescale halves by integer division: 999_999_999 -> 499_999_999.
        assertNumeric(
            CMTimeMakeWithSeconds(1e10, preferredTimescale: 999_999_999), 4_999_999_990_000_000_000, 499_999_999)
    }

    func testMakeWithSecondsSpecialInputs() {
        XCTAssertFalse(CMTimeMakeWithSeconds(.nan, preferredTimescale: 600).isValid)
        XCTAssertFalse(CMTimeMakeWithSeconds(1, preferredTimescale: 0).isValid)
        XCTAssertFalse(CMTimeMakeWithSeconds(1, preferredTimescale: -600).isValid)
        XCTAssertTrue(CMTimeMakeWithSeconds(.infinity, preferredTimescale: 600).isPositiveInfinity)
        XCTAssertTrue(CMTimeMakeWithSeconds(-.infinity, preferredTimescale: 600).isNegativeInfinity)
        // Overflow even at timescale 1.
        XCTAssertTrue(CMTimeMakeWithSeconds(1e30, preferredTimescale: 1).isPositiveInfinity)
        XCTAssertTrue(CMTimeMakeWithSeconds(-1e30, preferredTimescale: 600).isNegativeInfinity)
        XCTAssertTrue(CMTime(seconds: 9.3e18, preferredTimescale: 1).isPositiveInfinity)
    }

    func testSendable() async {
        let time = t(1, 2)
        let doubled = await Task.detached { time + time }.value
        XCTAssertEqual(doubled, t(1, 1))
    }
}
