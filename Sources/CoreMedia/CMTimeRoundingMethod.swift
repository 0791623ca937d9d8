/// Rounding methods for `CMTime` conversions (raw values are Apple's).
///
/// Used by `CMTimeConvertScale(_:timescale:method:)` and `CMTime.convertScale(_:method:)`. The arithmetic
/// functions (`CMTimeAdd`, `CMTimeMultiply`, …) always use `.default`.
public enum CMTimeRoundingMethod: UInt32, Sendable {
    /// Round toward zero if abs(fraction) < 0.5, away from zero if abs(fraction) >= 0.5.
    case roundHalfAwayFromZero = 1

    /// Round toward zero if the fraction is not 0 (truncate).
    case roundTowardZero = 2

    /// Round away from zero if abs(fraction) > 0.
    case roundAwayFromZero = 3

    /// Round toward zero when converting from a larger to a smaller timescale (less precision), away from zero
    /// when converting from a smaller to a larger timescale (more precision). Never rounds a negative number
    /// to 0: it gives the smallest-magnitude negative number instead (−1 in the new timescale).
    case quickTime = 4

    /// Round toward +infinity if the fraction is not 0 (ceiling).
    case roundTowardPositiveInfinity = 5

    /// Round toward −infinity if the fraction is not 0 (floor).
    case roundTowardNegativeInfinity = 6

    /// The default rounding method: `roundHalfAwayFromZero`.
    public static var `default`: CMTimeRoundingMethod { .roundHalfAwayFromZero }
}
