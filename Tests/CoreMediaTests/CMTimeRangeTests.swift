import CoreMedia
import XCTest

/// Ranges: construction, validity, containment (end exclusive), union, intersection, clamping, mapping, folding.
final class CMTimeRangeTests: XCTestCase {
    /// A range in whole seconds.
    private func seconds(_ start: Int64, _ duration: Int64) -> CMTimeRange {
        CMTimeRange(start: t(start, 1), duration: t(duration, 1))
    }

    // MARK: Construction and validity

    func testZeroInitializerIsInvalid() {
        let timeRange = CMTimeRange()
        XCTAssertFalse(timeRange.start.isValid)
        XCTAssertFalse(timeRange.duration.isValid)
        XCTAssertFalse(timeRange.isValid)
        XCTAssertFalse(timeRange.isEmpty)
        XCTAssertFalse(timeRange.isIndefinite)
        XCTAssertTrue(CMTIMERANGE_IS_INVALID(timeRange))
    }

    func testConstants() {
        XCTAssertTrue(CMTimeRange.zero.isValid)
        XCTAssertTrue(CMTimeRange.zero.isEmpty)
        assertNumeric(CMTimeRange.zero.start, 0, 1)
        assertNumeric(CMTimeRange.zero.duration, 0, 1)
        XCTAssertFalse(CMTimeRange.invalid.isValid)
        XCTAssertFalse(CMTimeRange.invalid.start.isValid)
        XCTAssertFalse(CMTimeRange.invalid.duration.isValid)
    }

    func testMake() {
        let made = CMTimeRangeMake(start: t(1, 1), duration: t(2, 1))
        assertNumeric(made.start, 1, 1)
        assertNumeric(made.duration, 2, 1)
        XCTAssertTrue(made.isValid)
        // A duration in a non-zero epoch is refused by CMTimeRangeMake, stored as is by the memberwise initializer.
        XCTAssertFalse(CMTimeRangeMake(start: t(1, 1), duration: t(2, 1, epoch: 1)).isValid)
        XCTAssertFalse(CMTimeRangeMake(start: t(1, 1), duration: t(2, 1, epoch: 1)).start.isValid)
        let raw = CMTimeRange(start: t(1, 1), duration: t(2, 1, epoch: 1))
        assertNumeric(raw.duration, 2, 1, epoch: 1)
        XCTAssertFalse(raw.isValid)
    }

    func testFromStartToEnd() {
        let timeRange = CMTimeRange(start: t(1, 2), end: t(3, 2))
        assertNumeric(timeRange.start, 1, 2)
        assertNumeric(timeRange.duration, 2, 2)
        XCTAssertTrue(timeRange.isValid)
        let mixed = CMTimeRangeFromTimeToTime(start: t(1, 3), end: t(1, 2))
        assertNumeric(mixed.duration, 1, 6)
        // Both in epoch 3: the duration is a plain duration and the end is back in epoch 3.
        let looped = CMTimeRange(start: t(1, 1, epoch: 3), end: t(4, 1, epoch: 3))
        assertNumeric(looped.duration, 3, 1)
        assertNumeric(looped.end, 4, 1, epoch: 3)
        XCTAssertTrue(looped.isValid)
        XCTAssertFalse(CMTimeRange(start: t(1, 1, epoch: 1), end: t(4, 1, epoch: 2)).isValid)
        XCTAssertFalse(CMTimeRange(start: t(4, 1), end: t(1, 1)).isValid, "negative duration")
    }

    func testValidityRules() {
        XCTAssertTrue(seconds(0, 5).isValid)
        XCTAssertTrue(CMTIMERANGE_IS_VALID(seconds(-3, 5)))
        XCTAssertFalse(seconds(0, -1).isValid)
        XCTAssertFalse(CMTimeRange(start: .invalid, duration: t(1, 1)).isValid)
        XCTAssertFalse(CMTimeRange(start: .zero, duration: .invalid).isValid)
        XCTAssertTrue(CMTimeRange(start: .zero, duration: .positiveInfinity).isValid)
    }

    func testIndefiniteAndEmpty() {
        let live = CMTimeRange(start: .zero, duration: .indefinite)
        XCTAssertTrue(live.isIndefinite)
        XCTAssertTrue(CMTIMERANGE_IS_INDEFINITE(live))
        XCTAssertTrue(CMTimeRange(start: .indefinite, duration: t(1, 1)).isIndefinite)
        XCTAssertFalse(seconds(0, 1).isIndefinite)
        XCTAssertTrue(CMTimeRange(start: t(5, 1), duration: t(0, 600)).isEmpty)
        XCTAssertTrue(CMTIMERANGE_IS_EMPTY(CMTimeRange(start: t(5, 1), duration: t(0, 600))))
        XCTAssertFalse(seconds(0, 1).isEmpty)
        XCTAssertFalse(CMTimeRange(start: .invalid, duration: .zero).isEmpty)
    }

    func testEnd() {
        assertNumeric(CMTimeRange(start: t(1, 2), duration: t(1, 3)).end, 5, 6)
        assertNumeric(CMTimeRangeGetEnd(seconds(2, 3)), 5, 1)
        XCTAssertTrue(CMTimeRange(start: .zero, duration: .indefinite).end.isIndefinite)
        XCTAssertFalse(CMTimeRange.invalid.end.isValid)
    }

    // MARK: Containment

    func testContainsTimeExcludesTheEnd() {
        let timeRange = seconds(1, 2)
        XCTAssertTrue(timeRange.containsTime(t(1, 1)))
        XCTAssertTrue(timeRange.containsTime(t(2, 1)))
        XCTAssertTrue(timeRange.containsTime(t(2999, 1000)))
        XCTAssertFalse(timeRange.containsTime(t(3, 1)), "the end is not in the range")
        XCTAssertFalse(timeRange.containsTime(timeRange.end))
        XCTAssertFalse(timeRange.containsTime(t(1, 2)))
        XCTAssertFalse(CMTimeRangeContainsTime(timeRange, time: .invalid))
        XCTAssertFalse(CMTimeRangeContainsTime(.invalid, time: t(1, 1)))
        XCTAssertFalse(CMTimeRange(start: t(5, 1), duration: .zero).containsTime(t(5, 1)), "empty ranges hold nothing")
        XCTAssertTrue(CMTimeRange(start: .zero, duration: .indefinite).containsTime(t(1_000_000_000, 1)))
    }

    func testContainsTimeRange() {
        XCTAssertTrue(seconds(0, 10).containsTimeRange(seconds(2, 3)))
        XCTAssertTrue(seconds(0, 10).containsTimeRange(seconds(0, 10)))
        XCTAssertTrue(CMTimeRangeContainsTimeRange(seconds(0, 10), otherRange: seconds(9, 1)))
        XCTAssertFalse(seconds(0, 10).containsTimeRange(seconds(5, 10)))
        XCTAssertFalse(seconds(2, 3).containsTimeRange(seconds(0, 10)))
        XCTAssertFalse(seconds(0, 10).containsTimeRange(.invalid))
        XCTAssertFalse(CMTimeRange.invalid.containsTimeRange(seconds(0, 1)))
    }

    // MARK: Union and intersection

    func testUnion() {
        XCTAssertEqual(seconds(0, 2).union(seconds(5, 1)), seconds(0, 6))
        XCTAssertEqual(seconds(0, 5).union(seconds(3, 5)), seconds(0, 8))
        XCTAssertEqual(CMTimeRangeGetUnion(seconds(3, 5), otherRange: seconds(0, 5)), seconds(0, 8))
        XCTAssertEqual(seconds(0, 10).union(seconds(2, 1)), seconds(0, 10))
        let mixed = CMTimeRange(start: t(1, 2), duration: t(1, 2)).union(CMTimeRange(start: t(1, 3), duration: t(1, 3)))
        XCTAssertEqual(mixed.start, t(1, 3))
        XCTAssertEqual(mixed.end, t(1, 1))
        XCTAssertFalse(seconds(0, 1).union(.invalid).isValid)
        XCTAssertFalse(CMTimeRange.invalid.union(seconds(0, 1)).isValid)
    }

    func testIntersection() {
        XCTAssertEqual(seconds(0, 5).intersection(seconds(3, 5)), seconds(3, 2))
        XCTAssertEqual(CMTimeRangeGetIntersection(seconds(3, 5), otherRange: seconds(0, 5)), seconds(3, 2))
        XCTAssertEqual(seconds(0, 10).intersection(seconds(2, 1)), seconds(2, 1))
        let disjoint = seconds(0, 2).intersection(seconds(5, 1))
        XCTAssertTrue(disjoint.isEmpty)
        XCTAssertEqual(disjoint, .zero)
        XCTAssertTrue(seconds(0, 5).intersection(seconds(5, 3)).isEmpty, "touching ranges share no time")
        XCTAssertFalse(seconds(0, 1).intersection(.invalid).isValid)
    }

    // MARK: Equality

    func testEqualityIsRational() {
        let a = CMTimeRange(start: t(1, 2), duration: t(1, 1))
        let b = CMTimeRange(start: t(2, 4), duration: t(3, 3))
        XCTAssertTrue(CMTimeRangeEqual(a, b))
        XCTAssertTrue(a == b)
        XCTAssertFalse(a != b)
        XCTAssertEqual(a.hashValue, b.hashValue)
        XCTAssertEqual(Set([a, b, seconds(0, 1)]).count, 2)
        XCTAssertFalse(a == CMTimeRange(start: t(1, 2), duration: t(2, 1)))
        XCTAssertTrue(CMTimeRange.invalid == CMTimeRange())
    }

    // MARK: Clamping

    func testClamp() {
        let timeRange = seconds(1, 2)
        assertNumeric(CMTimeClampToRange(t(0, 1), range: timeRange), 1, 1)
        assertNumeric(CMTimeClampToRange(t(4, 2), range: timeRange), 4, 2)  // inside: unmodified
        assertNumeric(CMTimeClampToRange(t(5, 1), range: timeRange), 3, 1)
        XCTAssertEqual(CMTimeClampToRange(t(3, 1), range: timeRange), t(3, 1), "the end, though not contained")
        XCTAssertFalse(CMTimeClampToRange(.invalid, range: timeRange).isValid)
        XCTAssertFalse(CMTimeClampToRange(t(1, 1), range: CMTimeRange(start: t(1, 1), duration: .zero)).isValid)
        XCTAssertFalse(CMTimeClampToRange(t(1, 1), range: .invalid).isValid)
        assertNumeric(CMTimeClampToRange(.negativeInfinity, range: timeRange), 1, 1)
        assertNumeric(CMTimeClampToRange(.positiveInfinity, range: timeRange), 3, 1)
    }

    // MARK: Mapping

    func testMapTimeIsLinearAndExact() {
        let from = seconds(0, 10)
        let to = seconds(100, 20)
        XCTAssertEqual(CMTimeMapTimeFromRangeToRange(t(5, 1), fromRange: from, toRange: to), t(110, 1))
        XCTAssertEqual(CMTimeMapTimeFromRangeToRange(t(0, 1), fromRange: from, toRange: to), t(100, 1))
        XCTAssertEqual(CMTimeMapTimeFromRangeToRange(from.end, fromRange: from, toRange: to), to.end)
        XCTAssertEqual(CMTimeMapTimeFromRangeToRange(t(-1, 1), fromRange: from, toRange: to), t(98, 1))
        // 1/3 s -> 2/3 + 100 = 302/3 s, exactly.
        let third = CMTimeMapTimeFromRangeToRange(t(1, 3), fromRange: from, toRange: to)
        XCTAssertEqual(third, t(302, 3))
        XCTAssertFalse(third.hasBeenRounded)
    }

    func testMapTimeUsesTheTargetTimescale() {
        let from = CMTimeRange(start: t(0, 600), duration: t(6000, 600))
        let to = CMTimeRange(start: t(0, 600), duration: t(3000, 600))
        assertNumeric(CMTimeMapTimeFromRangeToRange(t(3000, 600), fromRange: from, toRange: to), 1500, 600)
        let mixed = CMTimeRange(start: t(0, 90_000), duration: t(900_000, 90_000))
        assertNumeric(CMTimeMapTimeFromRangeToRange(t(1, 3), fromRange: seconds(0, 10), toRange: mixed), 30_000, 90_000)
    }

    func testMapTimeEpochsAndInvalidInputs() {
        let from = seconds(0, 10)
        let to = CMTimeRange(start: t(100, 1, epoch: 4), duration: t(20, 1))
        assertNumeric(CMTimeMapTimeFromRangeToRange(t(5, 1), fromRange: from, toRange: to), 110, 1, epoch: 4)
        XCTAssertFalse(CMTimeMapTimeFromRangeToRange(t(5, 1, epoch: 1), fromRange: from, toRange: to).isValid)
        XCTAssertFalse(CMTimeMapTimeFromRangeToRange(.invalid, fromRange: from, toRange: to).isValid)
        XCTAssertFalse(CMTimeMapTimeFromRangeToRange(t(5, 1), fromRange: seconds(0, 0), toRange: to).isValid)
        XCTAssertFalse(CMTimeMapTimeFromRangeToRange(t(5, 1), fromRange: from, toRange: seconds(3, 0)).isValid)
        XCTAssertFalse(CMTimeMapTimeFromRangeToRange(t(5, 1), fromRange: .invalid, toRange: to).isValid)
        XCTAssertTrue(CMTimeMapTimeFromRangeToRange(.positiveInfinity, fromRange: from, toRange: to).isPositiveInfinity)
    }

    func testMapDuration() {
        XCTAssertEqual(
            CMTimeMapDurationFromRangeToRange(t(2, 1), fromRange: seconds(0, 10), toRange: seconds(7, 5)), t(1, 1))
        assertNumeric(
            CMTimeMapDurationFromRangeToRange(
                t(600, 600), fromRange: seconds(0, 3), toRange: CMTimeRange(start: .zero, duration: t(600, 600))),
            200, 600)
        XCTAssertFalse(
            CMTimeMapDurationFromRangeToRange(t(2, 1, epoch: 1), fromRange: seconds(0, 10), toRange: seconds(0, 5))
                .isValid)
        XCTAssertFalse(
            CMTimeMapDurationFromRangeToRange(t(2, 1), fromRange: seconds(0, 0), toRange: seconds(0, 5)).isValid)
        XCTAssertFalse(
            CMTimeMapDurationFromRangeToRange(.invalid, fromRange: seconds(0, 1), toRange: seconds(0, 5)).isValid)
    }

    // MARK: Folding

    func testFoldIntoRange() {
        let loop = seconds(10, 5)
        XCTAssertEqual(CMTimeFoldIntoRange(t(12, 1), foldRange: loop), t(12, 1))
        XCTAssertEqual(CMTimeFoldIntoRange(t(10, 1), foldRange: loop), t(10, 1))
        XCTAssertEqual(CMTimeFoldIntoRange(t(15, 1), foldRange: loop), t(10, 1), "the end folds to the start")
        XCTAssertEqual(CMTimeFoldIntoRange(t(17, 1), foldRange: loop), t(12, 1))
        XCTAssertEqual(CMTimeFoldIntoRange(t(37, 2), foldRange: loop), t(27, 2))
        XCTAssertEqual(CMTimeFoldIntoRange(t(9, 1), foldRange: loop), t(14, 1), "times before the range fold in")
        XCTAssertEqual(CMTimeFoldIntoRange(t(-1, 1), foldRange: loop), t(14, 1))
        XCTAssertEqual(CMTimeFoldIntoRange(t(1_000_000_003, 1), foldRange: loop), t(13, 1))
        let thirds = CMTimeRange(start: .zero, duration: t(1, 3))
        XCTAssertEqual(CMTimeFoldIntoRange(t(1, 2), foldRange: thirds), t(1, 6))
    }

    func testFoldKeepsTheRangeEpochAndRejectsBadInput() {
        let loop = CMTimeRange(start: t(10, 1, epoch: 2), duration: t(5, 1))
        assertNumeric(CMTimeFoldIntoRange(t(17, 1, epoch: 2), foldRange: loop), 12, 1, epoch: 2)
        XCTAssertFalse(CMTimeFoldIntoRange(t(17, 1, epoch: 3), foldRange: loop).isValid)
        XCTAssertFalse(CMTimeFoldIntoRange(.invalid, foldRange: seconds(0, 1)).isValid)
        XCTAssertFalse(CMTimeFoldIntoRange(.positiveInfinity, foldRange: seconds(0, 1)).isValid)
        XCTAssertFalse(CMTimeFoldIntoRange(t(1, 1), foldRange: seconds(0, 0)).isValid)
        XCTAssertFalse(CMTimeFoldIntoRange(t(1, 1), foldRange: .invalid).isValid)
    }
}
