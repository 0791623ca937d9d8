// MARK: - Clamping, mapping and folding times

/// Returns the time in the range nearest to `time`.
///
/// Times inside the range are returned unmodified; times before the start give the start, times at or after the end
/// give the end (even though the end is not contained in the range). An invalid time, an invalid range or an empty
/// range gives `.invalid`.
public func CMTimeClampToRange(_ time: CMTime, range: CMTimeRange) -> CMTime {
    guard time.isValid, range.isValid, !range.isEmpty else { return .invalid }
    if CMTimeCompare(time, range.start) < 0 { return range.start }
    let end = range.end
    if CMTimeCompare(time, end) > 0 { return end }
    return time
}

/// Translates a time through the linear mapping that sends `fromRange` onto `toRange`:
/// `(t - fromRange.start) * (toRange.duration / fromRange.duration) + toRange.start`.
///
/// The start and end of `fromRange` map exactly to the start and end of `toRange`. The result's epoch is
/// `toRange.start`'s; `t` and `fromRange.start` must be in the same epoch. The result is computed exactly and
/// expressed in `toRange.start`'s or `toRange.duration`'s timescale when that holds it exactly; otherwise it is
/// rounded (and marked `hasBeenRounded`).
///
/// Invalid results: an invalid `t`, an invalid or empty range on either side, a non-numeric range start or
/// duration, or an epoch mismatch. An infinite or indefinite `t` is returned unchanged (a guess: the mapping is
/// increasing).
public func CMTimeMapTimeFromRangeToRange(_ t: CMTime, fromRange: CMTimeRange, toRange: CMTimeRange) -> CMTime {
    guard t.isValid, let from = NumericRange(fromRange), let to = NumericRange(toRange),
        from.duration.numerator != 0, to.duration.numerator != 0
    else { return .invalid }
    guard t.kind == .numeric else { return t.kind == .invalid ? .invalid : t }
    guard t.epoch == fromRange.start.epoch, let time = ExactRational(t) else { return .invalid }
    let rounded = t.carriesRoundedFlag || from.rounded || to.rounded
    let epoch = toRange.start.epoch
    if let offset = time.subtracting(from.start),
        let scaled = offset.multiplied(by: to.duration)?.divided(by: from.duration),
        let mapped = scaled.adding(to.start)
    {
        return mapped.time(
            preferredTimescales: [toRange.start.timescale, toRange.duration.timescale], epoch: epoch, rounded: rounded)
    }
    // The exact value needs more than 128 bits: fall back to Float64 seconds.
    let seconds =
        (t.seconds - fromRange.start.seconds) * (toRange.duration.seconds / fromRange.duration.seconds)
        + toRange.start.seconds
    var result = CMTimeMakeWithSeconds(
        seconds, preferredTimescale: max(toRange.start.timescale, toRange.duration.timescale))
    if result.isNumeric {
        result.flags.insert(.hasBeenRounded)
        result.epoch = epoch
    }
    return result
}

/// Translates a duration through the mapping from `fromRange` to `toRange`, scaling it by the ratio of the ranges'
/// durations: `dur * (toRange.duration / fromRange.duration)`.
///
/// Invalid results: an invalid `dur`, a `dur` whose epoch is not 0, an invalid range on either side, a non-numeric
/// range duration, or an empty `fromRange`. An infinite or indefinite `dur` is returned unchanged (a guess). The
/// result is exact where possible, in `toRange.duration`'s or `dur`'s timescale when one of them holds it.
public func CMTimeMapDurationFromRangeToRange(_ dur: CMTime, fromRange: CMTimeRange, toRange: CMTimeRange) -> CMTime {
    guard dur.isValid, dur.epoch == 0, fromRange.isValid, toRange.isValid,
        let fromDuration = ExactRational(fromRange.duration), let toDuration = ExactRational(toRange.duration),
        fromDuration.numerator != 0
    else { return .invalid }
    guard dur.kind == .numeric else { return dur.kind == .invalid ? .invalid : dur }
    guard let duration = ExactRational(dur) else { return .invalid }
    let rounded = dur.carriesRoundedFlag || fromRange.duration.carriesRoundedFlag || toRange.duration.carriesRoundedFlag
    if let scaled = duration.multiplied(by: toDuration)?.divided(by: fromDuration) {
        return scaled.time(
            preferredTimescales: [toRange.duration.timescale, dur.timescale], epoch: 0, rounded: rounded)
    }
    let seconds = dur.seconds * (toRange.duration.seconds / fromRange.duration.seconds)
    var result = CMTimeMakeWithSeconds(
        seconds, preferredTimescale: max(toRange.duration.timescale, dur.timescale))
    if result.isNumeric { result.flags.insert(.hasBeenRounded) }
    return result
}

/// Folds a time into a range, as looping playback does: the result is
/// `foldRange.start + ((time - foldRange.start) mod foldRange.duration)`, with a non-negative remainder, so times
/// before the range fold in too and `foldRange.end` folds to `foldRange.start`.
///
/// Guesses (Apple only says "folds a time into the given range"): an invalid or non-numeric time, an invalid,
/// empty or non-numeric range, or a time in another non-zero epoch than the range's start gives `.invalid`. The
/// result is in `foldRange.start`'s epoch.
public func CMTimeFoldIntoRange(_ time: CMTime, foldRange: CMTimeRange) -> CMTime {
    guard let range = NumericRange(foldRange), range.duration.numerator > 0, time.kind == .numeric else {
        return .invalid
    }
    let offsetTime = CMTimeSubtract(time, foldRange.start)
    guard offsetTime.kind == .numeric, let offset = ExactRational(offsetTime),
        let turns = offset.divided(by: range.duration)?.floor,
        let turnCount = ExactRational(numerator: turns, denominator: 1),
        let whole = range.duration.multiplied(by: turnCount), let remainder = offset.subtracting(whole)
    else { return .invalid }
    let rounded = offsetTime.carriesRoundedFlag || range.rounded
    let inside = remainder.time(
        preferredTimescales: [foldRange.start.timescale, foldRange.duration.timescale, time.timescale], epoch: 0,
        rounded: rounded)
    return CMTimeAdd(foldRange.start, inside)
}

/// A valid range whose start and duration are numeric, as exact rationals.
private struct NumericRange {
    /// The start, epoch dropped.
    var start: ExactRational
    /// The duration.
    var duration: ExactRational
    /// Whether either time carries `hasBeenRounded`.
    var rounded: Bool

    /// Nil unless the range is valid with a numeric start and duration.
    init?(_ range: CMTimeRange) {
        guard range.isValid, let start = ExactRational(range.start), let duration = ExactRational(range.duration)
        else { return nil }
        self.start = start
        self.duration = duration
        self.rounded = range.start.carriesRoundedFlag || range.duration.carriesRoundedFlag
    }
}
