/// An exact rational number of seconds, for the range functions that scale and add times
/// (`CMTimeMapTimeFromRangeToRange`, `CMTimeMapDurationFromRangeToRange`, `CMTimeFoldIntoRange`).
///
/// Kept in lowest terms with a positive denominator. Every operation reports overflow as nil instead of trapping;
/// the denominator is kept below `denominatorLimit` so that `CMTime.fitting` can scale remainders safely.
struct ExactRational {
    /// The numerator.
    var numerator: Int128
    /// The denominator, positive.
    var denominator: Int128

    /// Denominators at or above 2^95 are refused: `CMTime.fitting` multiplies remainders by a 31-bit timescale.
    static let denominatorLimit = Int128(1) << 95

    /// The rational in lowest terms, or nil for a zero denominator or one past `denominatorLimit`.
    init?(numerator: Int128, denominator: Int128) {
        guard denominator != 0 else { return nil }
        let common = greatestCommonDivisor(numerator, denominator)
        var top = numerator / common
        var bottom = denominator / common
        if bottom < 0 {
            top = -top
            bottom = -bottom
        }
        guard bottom < Self.denominatorLimit else { return nil }
        self.numerator = top
        self.denominator = bottom
    }

    /// The value of a numeric time (epoch ignored); nil for any other kind.
    init?(_ time: CMTime) {
        guard time.kind == .numeric else { return nil }
        self.init(numerator: Int128(time.value), denominator: Int128(time.timescale))
    }

    /// `self + other`, or nil on overflow.
    func adding(_ other: ExactRational) -> ExactRational? {
        let (left, leftOverflow) = numerator.multipliedReportingOverflow(by: other.denominator)
        let (right, rightOverflow) = other.numerator.multipliedReportingOverflow(by: denominator)
        let (sum, sumOverflow) = left.addingReportingOverflow(right)
        let (bottom, bottomOverflow) = denominator.multipliedReportingOverflow(by: other.denominator)
        guard !(leftOverflow || rightOverflow || sumOverflow || bottomOverflow) else { return nil }
        return ExactRational(numerator: sum, denominator: bottom)
    }

    /// `self - other`, or nil on overflow.
    func subtracting(_ other: ExactRational) -> ExactRational? {
        let (negated, overflow) = Int128(0).subtractingReportingOverflow(other.numerator)
        guard !overflow else { return nil }
        return adding(ExactRational(numerator: negated, denominator: other.denominator, reduced: ()))
    }

    /// `self * other`, cross-reducing first; nil on overflow.
    func multiplied(by other: ExactRational) -> ExactRational? {
        let first = greatestCommonDivisor(numerator, other.denominator)
        let second = greatestCommonDivisor(other.numerator, denominator)
        let (top, topOverflow) = (numerator / first).multipliedReportingOverflow(by: other.numerator / second)
        let (bottom, bottomOverflow) = (denominator / second).multipliedReportingOverflow(by: other.denominator / first)
        guard !(topOverflow || bottomOverflow) else { return nil }
        return ExactRational(numerator: top, denominator: bottom)
    }

    /// `self / other`, or nil when `other` is zero or on overflow.
    func divided(by other: ExactRational) -> ExactRational? {
        guard other.numerator != 0, other.numerator != .min else { return nil }
        return multiplied(by: ExactRational(numerator: other.denominator, denominator: other.numerator, reduced: ()))
    }

    /// The greatest integer not above the value.
    var floor: Int128 {
        let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: denominator)
        return remainder < 0 ? quotient - 1 : quotient
    }

    /// The value as a time: exactly in the first of `preferredTimescales` that can hold it, else exactly in lowest
    /// terms, else rounded to `kCMTimeMaxTimescale` as the arithmetic functions round.
    func time(preferredTimescales: [Int32], epoch: Int64, rounded: Bool) -> CMTime {
        for timescale in preferredTimescales where timescale > 0 && Int128(timescale) % denominator == 0 {
            let (scaled, overflow) = numerator.multipliedReportingOverflow(by: Int128(timescale) / denominator)
            if !overflow, let value = Int64(exactly: scaled) {
                return .numeric(value: value, timescale: timescale, epoch: epoch, rounded: rounded)
            }
        }
        if denominator <= Int128(kCMTimeMaxTimescale), let value = Int64(exactly: numerator) {
            return .numeric(value: value, timescale: Int32(denominator), epoch: epoch, rounded: rounded)
        }
        return .fitting(
            numerator: numerator, denominator: denominator, timescale: Int32(kCMTimeMaxTimescale), epoch: epoch,
            rounded: rounded)
    }

    /// A rational already in lowest terms, its sign normalised here (for negation and reciprocals; the caller has
    /// ruled out `Int128.min`).
    private init(numerator: Int128, denominator: Int128, reduced: Void) {
        if denominator < 0 {
            self.numerator = -numerator
            self.denominator = -denominator
        } else {
            self.numerator = numerator
            self.denominator = denominator
        }
    }
}
