import CoreMedia
import Dispatch
import Foundation
import OAVFLocking
import XCTest

/// The host time clock, host-time conversions, invalidation and subclassing.
final class CMClockTests: XCTestCase {
    /// A clock that tells whatever time the test sets, as the engine's virtual clock will.
    private final class ManualClock: CMClock, @unchecked Sendable {
        private let lock = ConditionLock()
        private var current = CMTime.zero

        override var time: CMTime {
            lock.withLock { current }
        }

        func set(_ time: CMTime) {
            lock.withLock { current = time }
        }
    }

    func testHostTimeClockIsASingleton() {
        XCTAssertTrue(CMClockGetHostTimeClock() === CMClock.hostTimeClock)
        XCTAssertTrue(CMClockGetHostTimeClock() === CMClockGetHostTimeClock())
    }

    func testHostTimeIsNumericNanosecondsAndMonotonic() {
        var previous = CMClockGetTime(CMClockGetHostTimeClock())
        XCTAssertTrue(previous.isNumeric)
        XCTAssertEqual(previous.timescale, 1_000_000_000)
        XCTAssertEqual(previous.epoch, 0)
        XCTAssertGreaterThan(previous.value, 0)
        for _ in 0..<10_000 {
            let now = CMClock.hostTimeClock.time
            XCTAssertGreaterThanOrEqual(now, previous)
            previous = now
        }
    }

    func testHostTimeAdvances() {
        let start = CMClock.hostTimeClock.time
        Thread.sleep(forTimeInterval: 0.02)  // real time by design: the host clock must advance with it
        let elapsed = CMClock.hostTimeClock.time - start
        XCTAssertGreaterThanOrEqual(elapsed.seconds, 0.015)
        XCTAssertLessThan(elapsed.seconds, 5)
    }

    func testHostTimeIsMonotonicClock() {
        var before = timespec()
        clock_gettime(CLOCK_MONOTONIC, &before)
        let hostTime = CMClock.hostTimeClock.time
        var after = timespec()
        clock_gettime(CLOCK_MONOTONIC, &after)
        let units = CMClockConvertHostTimeToSystemUnits(hostTime)
        XCTAssertGreaterThanOrEqual(units, UInt64(before.tv_sec) * 1_000_000_000 + UInt64(before.tv_nsec))
        XCTAssertLessThanOrEqual(units, UInt64(after.tv_sec) * 1_000_000_000 + UInt64(after.tv_nsec))
    }

    func testSystemUnitsToHostTime() {
        assertNumeric(CMClockMakeHostTimeFromSystemUnits(1_500_000_000), 1_500_000_000, 1_000_000_000)
        assertNumeric(CMClock.convertSystemUnitsToHostTime(0), 0, 1_000_000_000)
        // Beyond Int64.max nanoseconds: the timescale halves twice; (2^64 - 1) / 4 = ...903.75 units.
        assertNumeric(CMClockMakeHostTimeFromSystemUnits(.max), 4_611_686_018_427_387_904, 250_000_000, rounded: true)
    }

    func testHostTimeToSystemUnits() {
        XCTAssertEqual(CMClockConvertHostTimeToSystemUnits(t(3, 2)), 1_500_000_000)
        XCTAssertEqual(CMClock.convertHostTimeToSystemUnits(t(1, 3)), 333_333_333)
        XCTAssertEqual(CMClockConvertHostTimeToSystemUnits(t(2, 3)), 666_666_667)
        XCTAssertEqual(CMClockConvertHostTimeToSystemUnits(t(7, 1_000_000_000)), 7)
        XCTAssertEqual(CMClockConvertHostTimeToSystemUnits(t(.max, 1)), .max, "clamped")
        XCTAssertEqual(CMClockConvertHostTimeToSystemUnits(t(-1, 1)), 0)
        XCTAssertEqual(CMClockConvertHostTimeToSystemUnits(.invalid), 0)
        XCTAssertEqual(CMClockConvertHostTimeToSystemUnits(.positiveInfinity), 0)
    }

    func testConversionsRoundTrip() {
        for units: UInt64 in [0, 1, 999_999_999, 1_000_000_000, 123_456_789_012_345, UInt64(Int64.max), .max] {
            XCTAssertEqual(CMClockConvertHostTimeToSystemUnits(CMClockMakeHostTimeFromSystemUnits(units)), units)
        }
        let now = CMClock.hostTimeClock.time
        XCTAssertEqual(CMClockMakeHostTimeFromSystemUnits(CMClockConvertHostTimeToSystemUnits(now)), now)
    }

    func testInvalidation() {
        let clock = CMClock()
        XCTAssertTrue(clock.time.isNumeric)
        CMClockInvalidate(clock)
        XCTAssertFalse(clock.time.isValid)
        XCTAssertFalse(CMClockGetTime(clock).isValid)
        CMClock.hostTimeClock.invalidate()
        XCTAssertTrue(CMClock.hostTimeClock.time.isNumeric, "the host time clock ignores invalidation")
    }

    func testSubclassProvidesItsOwnTime() {
        let clock = ManualClock()
        clock.set(t(5, 1))
        XCTAssertEqual(CMClockGetTime(clock), t(5, 1))
        clock.set(t(6, 1))
        XCTAssertEqual(clock.time, t(6, 1))
    }

    func testDrift() {
        let host = CMClock.hostTimeClock
        XCTAssertFalse(host.mightDrift(relativeTo: host))
        XCTAssertFalse(CMClockMightDrift(host, CMClock()))
        let manual = ManualClock()
        XCTAssertTrue(CMClockMightDrift(host, manual))
        XCTAssertTrue(manual.mightDrift(relativeTo: host))
        XCTAssertFalse(manual.mightDrift(relativeTo: manual))
    }

    func testConcurrentReads() {
        let clock = CMClock.hostTimeClock
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            var previous = clock.time
            for _ in 0..<1000 {
                let now = clock.time
                XCTAssertTrue(now >= previous)
                previous = now
            }
        }
    }
}
