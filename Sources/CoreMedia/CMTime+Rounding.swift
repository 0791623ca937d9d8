// MARK: - Converting the timescale

/// Returns a new time containing the source time converted to a new timescale, rounding as requested.
///
/// If the value needs to be rounded, `.hasBeenRounded` is set (it is also kept from the source). A time already in
/// `newTimescale` is returned unchanged. Non-numeric times (infinite, indefinite) are returned unchanged; an invalid
/// time gives `.invalid`.
///
/// Where this differs from or guesses at Apple: a `newTimescale` of 0 or less gives `.invalid`; a converted value
/// that does not fit in `Int64` gives ±infinity (Apple does not document this case).
public func CMTimeConvertScale(_ time: CMTime, timescale newTimescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
    switch time.kind {
    case .invalid: return .invalid
    case .positiveInfinity, .negativeInfinity, .indefinite: return time
    case .numeric: break
    }
    guard newTimescale > 0 else { return .invalid }
    guard newTimescale != time.timescale else { return time }
    let scaled = Int128(time.value) * Int128(newTimescale)
    let (quotient, inexact) = roundedQuotient(
        scaled, Int128(time.timescale), method: method, increasingPrecision: newTimescale > time.timescale)
    guard let value = Int64(exactly: quotient) else {
        return time.value < 0 ? .negativeInfinity : .positiveInfinity
    }
    return .numeric(
        value: value, timescale: newTimescale, epoch: time.epoch, rounded: time.carriesRoundedFlag || inexact)
}

// MARK: - Internal rounding

/// Divides `numerator` by a positive `denominator`, rounding to an integer as `method` says.
///
/// - Parameter increasingPrecision: whether the conversion goes to a larger timescale; only `.quickTime` looks at it.
/// - Returns: the rounded quotient, and whether it differs from the exact one.
func roundedQuotient(
    _ numerator: Int128, _ denominator: Int128, method: CMTimeRoundingMethod, increasingPrecision: Bool
) -> (quotient: Int128, inexact: Bool) {
    // Truncating division: the remainder has the numerator's sign and |remainder| < denominator.
    let (towardZero, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
    guard remainder != 0 else { return (towardZero, false) }
    let negative = numerator < 0
    let awayFromZero = negative ? towardZero - 1 : towardZero + 1
    let result: Int128
    switch method {
    case .roundHalfAwayFromZero:
        result = remainder.magnitude * 2 >= denominator.magnitude ? awayFromZero : towardZero
    case .roundTowardZero:
        result = towardZero
    case .roundAwayFromZero:
        result = awayFromZero
    case .quickTime:
        let candidate = increasingPrecision ? awayFromZero : towardZero
        // Never round a negative number to 0: give the smallest-magnitude negative number instead.
        result = negative && candidate == 0 ? -1 : candidate
    case .roundTowardPositiveInfinity:
        result = negative ? towardZero : awayFromZero
    case .roundTowardNegativeInfinity:
        result = negative ? awayFromZero : towardZero
    }
    return (result, true)
}

extension CMTime {
    /// The time nearest to `numerator / denominator` seconds in `timescale` (default rounding), as Apple's arithmetic
    /// functions build their results: if the value overflows `Int64` the timescale is halved until it fits, and if
    /// it still overflows at timescale 1 the result is ±infinity (by the sign of `numerator`).
    ///
    /// `denominator` must be positive and below 2^95 so that `remainder * timescale` fits in `Int128`; callers keep
    /// it there (products of two timescales are below 2^62). Never traps.
    static func fitting(
        numerator: Int128, denominator: Int128, timescale: Int32, epoch: Int64, rounded: Bool
    ) -> CMTime {
        guard denominator > 0, timescale > 0 else { return .invalid }
        let (whole, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
        var candidate = timescale
        while candidate >= 1 {
            let scale = Int128(candidate)
            let (wholeScaled, wholeOverflow) = whole.multipliedReportingOverflow(by: scale)
            let (partScaled, partOverflow) = remainder.multipliedReportingOverflow(by: scale)
            if !wholeOverflow && !partOverflow {
                // whole and remainder share the numerator's sign, so rounding the fractional part alone is exact
                // for the default (symmetric) method.
                let (part, inexact) = roundedQuotient(
                    partScaled, denominator, method: .default, increasingPrecision: false)
                let (total, totalOverflow) = wholeScaled.addingReportingOverflow(part)
                if !totalOverflow, let value = Int64(exactly: total) {
                    return .numeric(value: value, timescale: candidate, epoch: epoch, rounded: rounded || inexact)
                }
            }
            candidate /= 2
        }
        return numerator < 0 ? .negativeInfinity : .positiveInfinity
    }
}
