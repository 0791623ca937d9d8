import Foundation

/// One property of a layer instruction over time (transform, opacity or crop rectangle): values set at a time
/// (`set…(_:at:)`) and linear ramps across a time range (`set…Ramp(…)`), as Apple's layer instructions keep them.
///
/// Before the first entry the property has its default; an entry set at a time holds until the next entry; a ramp
/// interpolates across its range and then holds its end value until the next entry. A value type: the owning
/// instruction guards it with its lock.
struct CompositionTimeline<Value: Sendable>: Sendable {
    /// One change: `start` … `end` across `timeRange` (a zero duration for a value set at a time).
    struct Entry: Sendable {
        /// When the change starts and how long the ramp lasts (zero for a step).
        var timeRange: CMTimeRange
        /// The value at the start of `timeRange`.
        var start: Value
        /// The value at the end of `timeRange` (equal to `start` for a step).
        var end: Value
    }

    /// The changes, sorted by start time, at most one per start time.
    private(set) var entries: [Entry] = []

    /// Holds `value` from `time` on (replacing another change that starts at `time`).
    mutating func set(_ value: Value, at time: CMTime) {
        guard time.isNumeric else { return }
        insert(Entry(timeRange: CMTimeRange(start: time, duration: .zero), start: value, end: value))
    }

    /// Interpolates from `start` to `end` across `timeRange` (replacing another change that starts at the same time).
    mutating func setRamp(from start: Value, to end: Value, timeRange: CMTimeRange) {
        guard timeRange.isValid, timeRange.start.isNumeric, timeRange.duration.isNumeric,
            timeRange.duration >= .zero
        else { return }
        insert(Entry(timeRange: timeRange, start: start, end: end))
    }

    private mutating func insert(_ entry: Entry) {
        entries.removeAll { $0.timeRange.start == entry.timeRange.start }
        let index = entries.firstIndex { $0.timeRange.start > entry.timeRange.start } ?? entries.count
        entries.insert(entry, at: index)
    }

    /// The value at `time`: nil before the first change (the caller's default applies).
    func value(at time: CMTime, interpolate: (Value, Value, Double) -> Value) -> Value? {
        guard time.isNumeric, let entry = entries.last(where: { $0.timeRange.start <= time }) else { return nil }
        let range = entry.timeRange
        guard range.duration > .zero, time < range.end else { return entry.end }
        let fraction = (time - range.start).seconds / range.duration.seconds
        return interpolate(entry.start, entry.end, min(max(fraction, 0), 1))
    }

    /// The change in effect at `time` (a step lasting until the next change, or to infinity when last), else the
    /// first change after `time`; nil when `time` is past the end of the last ramp (Apple's `get…Ramp` → false).
    func ramp(for time: CMTime) -> (start: Value, end: Value, timeRange: CMTimeRange)? {
        for (i, entry) in entries.enumerated() {
            let next = i + 1 < entries.count ? entries[i + 1].timeRange.start : CMTime.positiveInfinity
            let range: CMTimeRange
            if entry.timeRange.duration > .zero {
                range = entry.timeRange
            } else {
                range = CMTimeRange(start: entry.timeRange.start, end: next)
            }
            if time < range.start || (time >= range.start && time < range.end) {
                return (entry.start, entry.end, range)
            }
        }
        return nil
    }
}

/// Linear interpolation of the six coefficients (how Apple's built-in compositor ramps transforms).
func interpolateTransform(_ a: CGAffineTransform, _ b: CGAffineTransform, _ f: Double) -> CGAffineTransform {
    func mix(_ x: CGFloat, _ y: CGFloat) -> CGFloat { x + (y - x) * CGFloat(f) }
    return CGAffineTransform(
        a: mix(a.a, b.a), b: mix(a.b, b.b), c: mix(a.c, b.c), d: mix(a.d, b.d), tx: mix(a.tx, b.tx),
        ty: mix(a.ty, b.ty))
}

/// Linear interpolation of opacity.
func interpolateOpacity(_ a: Float, _ b: Float, _ f: Double) -> Float { a + (b - a) * Float(f) }

/// Linear interpolation of a rectangle's origin and size.
func interpolateRect(_ a: CGRect, _ b: CGRect, _ f: Double) -> CGRect {
    func mix(_ x: CGFloat, _ y: CGFloat) -> CGFloat { x + (y - x) * CGFloat(f) }
    return CGRect(
        x: mix(a.origin.x, b.origin.x), y: mix(a.origin.y, b.origin.y), width: mix(a.size.width, b.size.width),
        height: mix(a.size.height, b.size.height))
}
