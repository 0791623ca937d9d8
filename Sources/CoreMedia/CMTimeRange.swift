/// A range of time, represented by a start time and a duration.
///
/// A time range does not include its end time (start + duration): `range.containsTime(range.end)` is always false.
/// The epoch of the duration should always be 0 and its value non-negative. Range operations such as `union(_:)`
/// can only be performed on ranges whose starts have the same epoch; a range cannot span epochs.
public struct CMTimeRange: Sendable {
    /// The start time of the range.
    public var start: CMTime

    /// The duration of the range.
    public var duration: CMTime

    /// Creates a range whose start and duration are all-zero, hence invalid times: `isValid` is false.
    ///
    /// (Apple's documentation calls this "an empty time range at zero", but the zero-initialised C struct has no
    /// `.valid` flags; use `CMTimeRange.zero` for the valid empty range at zero.)
    public init() {
        self.start = CMTime()
        self.duration = CMTime()
    }

    /// Creates a range from a start time and a duration, as given (C memberwise initializer; no validation,
    /// unlike `CMTimeRangeMake(start:duration:)`).
    public init(start: CMTime, duration: CMTime) {
        self.start = start
        self.duration = duration
    }

    /// The valid empty range at zero: start `CMTime.zero`, duration `CMTime.zero` (C `kCMTimeRangeZero`).
    public static let zero = CMTimeRange(start: .zero, duration: .zero)

    /// The invalid range: invalid start and duration (C `kCMTimeRangeInvalid`).
    public static let invalid = CMTimeRange(start: .invalid, duration: .invalid)
}

extension CMTimeRange {
    /// Creates a range from a start time and an end time (`CMTimeRangeFromTimeToTime(start:end:)`).
    public init(start: CMTime, end: CMTime) {
        self = CMTimeRangeFromTimeToTime(start: start, end: end)
    }

    /// Whether the range is valid: start and duration valid, duration epoch 0 and duration value not negative.
    public var isValid: Bool {
        start.isValid && duration.isValid && duration.epoch == 0 && duration.value >= 0
    }

    /// Whether the range is valid and its start or duration is indefinite.
    public var isIndefinite: Bool {
        isValid && (start.isIndefinite || duration.isIndefinite)
    }

    /// Whether the range is valid and its duration is zero.
    public var isEmpty: Bool {
        isValid && duration == .zero
    }

    /// The end of the range, start + duration (`CMTimeRangeGetEnd(_:)`); not contained in the range.
    public var end: CMTime {
        CMTimeRangeGetEnd(self)
    }

    /// The smallest range that contains both ranges (`CMTimeRangeGetUnion(_:otherRange:)`).
    public func union(_ otherRange: CMTimeRange) -> CMTimeRange {
        CMTimeRangeGetUnion(self, otherRange: otherRange)
    }

    /// The largest range contained in both ranges (`CMTimeRangeGetIntersection(_:otherRange:)`).
    public func intersection(_ otherRange: CMTimeRange) -> CMTimeRange {
        CMTimeRangeGetIntersection(self, otherRange: otherRange)
    }

    /// Whether the time lies in the range: start ≤ time < end (`CMTimeRangeContainsTime(_:time:)`).
    public func containsTime(_ time: CMTime) -> Bool {
        CMTimeRangeContainsTime(self, time: time)
    }

    /// Whether the other range lies inside this one (`CMTimeRangeContainsTimeRange(_:otherRange:)`).
    public func containsTimeRange(_ range: CMTimeRange) -> Bool {
        CMTimeRangeContainsTimeRange(self, otherRange: range)
    }
}

// MARK: - C-style functions

/// Makes a valid range with a start time and a duration.
///
/// The duration must have epoch 0; otherwise `CMTimeRange.invalid` is returned.
public func CMTimeRangeMake(start: CMTime, duration: CMTime) -> CMTimeRange {
    guard duration.epoch == 0 else { return .invalid }
    return CMTimeRange(start: start, duration: duration)
}

/// Makes a valid range from a start time and an end time: the duration is `end - start` (`CMTimeSubtract`).
///
/// If the times are in different non-zero epochs the duration is invalid, so the range is too; an end before the
/// start gives a negative duration, hence an invalid range.
public func CMTimeRangeFromTimeToTime(start: CMTime, end: CMTime) -> CMTimeRange {
    CMTimeRangeMake(start: start, duration: CMTimeSubtract(end, start))
}

/// Returns the end of a range: `CMTimeAdd(range.start, range.duration)`.
public func CMTimeRangeGetEnd(_ range: CMTimeRange) -> CMTime {
    CMTimeAdd(range.start, range.duration)
}

/// Returns the union of two ranges: from the earlier start to the later end.
///
/// An invalid range on either side gives `CMTimeRange.invalid`.
public func CMTimeRangeGetUnion(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange {
    guard range.isValid, otherRange.isValid else { return .invalid }
    return CMTimeRangeFromTimeToTime(
        start: CMTimeMinimum(range.start, otherRange.start), end: CMTimeMaximum(range.end, otherRange.end))
}

/// Returns the intersection of two ranges: from the later start to the earlier end.
///
/// An invalid range on either side gives `CMTimeRange.invalid`. Ranges that do not overlap (including ranges that
/// only touch) give `CMTimeRange.zero` — a guess at Apple's result; test with `isEmpty` rather than comparing starts.
public func CMTimeRangeGetIntersection(_ range: CMTimeRange, otherRange: CMTimeRange) -> CMTimeRange {
    guard range.isValid, otherRange.isValid else { return .invalid }
    let start = CMTimeMaximum(range.start, otherRange.start)
    let end = CMTimeMinimum(range.end, otherRange.end)
    guard CMTimeCompare(start, end) < 0 else { return .zero }
    return CMTimeRangeFromTimeToTime(start: start, end: end)
}

/// Returns whether a time lies in a range: `range.start <= time < range.end` (the end is excluded).
///
/// False for an invalid range or an invalid time.
public func CMTimeRangeContainsTime(_ range: CMTimeRange, time: CMTime) -> Bool {
    guard range.isValid, time.isValid else { return false }
    return CMTimeCompare(time, range.start) >= 0 && CMTimeCompare(time, range.end) < 0
}

/// Returns whether `otherRange` lies inside `range`: `range.start <= otherRange.start` and
/// `otherRange.end <= range.end`.
///
/// False if either range is invalid.
public func CMTimeRangeContainsTimeRange(_ range: CMTimeRange, otherRange: CMTimeRange) -> Bool {
    guard range.isValid, otherRange.isValid else { return false }
    return CMTimeCompare(otherRange.start, range.start) >= 0 && CMTimeCompare(otherRange.end, range.end) <= 0
}

/// Returns whether two ranges are identical: equal starts and equal durations under `CMTimeCompare(_:_:)`.
public func CMTimeRangeEqual(_ range1: CMTimeRange, _ range2: CMTimeRange) -> Bool {
    CMTimeCompare(range1.start, range2.start) == 0 && CMTimeCompare(range1.duration, range2.duration) == 0
}

/// Returns whether the range is valid (`range.isValid`).
public func CMTIMERANGE_IS_VALID(_ range: CMTimeRange) -> Bool {
    range.isValid
}

/// Returns whether the range is invalid (`!range.isValid`).
public func CMTIMERANGE_IS_INVALID(_ range: CMTimeRange) -> Bool {
    !range.isValid
}

/// Returns whether the range is valid and indefinite (`range.isIndefinite`).
public func CMTIMERANGE_IS_INDEFINITE(_ range: CMTimeRange) -> Bool {
    range.isIndefinite
}

/// Returns whether the range is valid and empty (`range.isEmpty`).
public func CMTIMERANGE_IS_EMPTY(_ range: CMTimeRange) -> Bool {
    range.isEmpty
}

// MARK: - Equatable, Hashable

/// Equality is `CMTimeRangeEqual(_:_:)`, as in Apple's overlay (so starts and durations compare as rationals).
extension CMTimeRange: Equatable {
    /// Whether the ranges are identical (`CMTimeRangeEqual(range1, range2)`).
    public static func == (range1: CMTimeRange, range2: CMTimeRange) -> Bool {
        CMTimeRangeEqual(range1, range2)
    }

    /// Whether the ranges differ (`!CMTimeRangeEqual(range1, range2)`).
    public static func != (range1: CMTimeRange, range2: CMTimeRange) -> Bool {
        !CMTimeRangeEqual(range1, range2)
    }
}

/// Hashable, consistent with `==` (hashes start and duration with `CMTime`'s hash). Apple declares
/// `CMTime: Hashable` from macOS 13 / iOS 16, and current apps build `Set<CMTimeRange>`, so the SDK appears to declare
/// this too; the declaration itself could not be checked. (A duplicate conformance in app code is only a warning.)
extension CMTimeRange: Hashable {
    /// Feeds the range's identity under `==` into the hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(start)
        hasher.combine(duration)
    }
}

// MARK: - Constants renamed in Swift 4.2

/// Renamed to `CMTimeRange.zero` in Swift 4.2 (as in Apple's SDK).
@available(swift, obsoleted: 4.2, renamed: "CMTimeRange.zero")
public var kCMTimeRangeZero: CMTimeRange { .zero }

/// Renamed to `CMTimeRange.invalid` in Swift 4.2 (as in Apple's SDK).
@available(swift, obsoleted: 4.2, renamed: "CMTimeRange.invalid")
public var kCMTimeRangeInvalid: CMTimeRange { .invalid }
