// MARK: - Addition and subtraction

/// Returns the sum of two times.
///
/// If both operands have the same timescale, the result has it too. Otherwise the result's timescale is the least
/// common multiple of the operands' timescales; if that is greater than `kCMTimeMaxTimescale`, the result timescale
/// is `kCMTimeMaxTimescale` and default rounding is applied. If the result value overflows, the timescale is
/// repeatedly halved until it fits (default rounding again); if it still overflows at timescale 1 the result is
/// ±infinity by the direction of the overflow. `hasBeenRounded` is set if any rounding occurs or either operand has
/// it set.
///
/// Special values: an invalid operand gives invalid. If just one operand is infinite the result is that infinity;
/// +infinity + +infinity == +infinity, −infinity + −infinity == −infinity, +infinity + −infinity == invalid.
/// Otherwise an indefinite operand gives indefinite. Numeric operands with different non-zero epochs give invalid;
/// with the same non-zero epoch the result has epoch 0 (a duration); an epoch-0 operand (a duration) can be added to
/// a time in any epoch, and the result keeps that epoch.
public func CMTimeAdd(_ lhs: CMTime, _ rhs: CMTime) -> CMTime {
    combine(lhs, rhs, subtracting: false)
}

/// Returns the difference of two times (`lhs - rhs`).
///
/// Timescale, overflow, rounding and epoch rules are those of `CMTimeAdd(_:_:)`. Special values:
/// +infinity − +infinity == invalid, −infinity − −infinity == invalid, +infinity − −infinity == +infinity,
/// −infinity − +infinity == −infinity; otherwise as for addition.
public func CMTimeSubtract(_ lhs: CMTime, _ rhs: CMTime) -> CMTime {
    combine(lhs, rhs, subtracting: true)
}

extension CMTime {
    /// Returns the sum of two times (`CMTimeAdd(_:_:)`).
    public static func + (addend1: CMTime, addend2: CMTime) -> CMTime {
        CMTimeAdd(addend1, addend2)
    }

    /// Returns the difference of two times (`CMTimeSubtract(_:_:)`).
    public static func - (minuend: CMTime, subtrahend: CMTime) -> CMTime {
        CMTimeSubtract(minuend, subtrahend)
    }
}

/// The shared body of `CMTimeAdd` and `CMTimeSubtract`.
private func combine(_ lhs: CMTime, _ rhs: CMTime, subtracting: Bool) -> CMTime {
    let left = lhs.kind
    var right = rhs.kind
    if subtracting {
        // Subtracting an infinity adds the opposite one.
        if right == .positiveInfinity {
            right = .negativeInfinity
        } else if right == .negativeInfinity {
            right = .positiveInfinity
        }
    }
    if left == .invalid || right == .invalid { return .invalid }
    let leftInfinite = left == .positiveInfinity || left == .negativeInfinity
    let rightInfinite = right == .positiveInfinity || right == .negativeInfinity
    switch (leftInfinite, rightInfinite) {
    case (true, true): return left == right ? infinity(left) : .invalid
    case (true, false): return infinity(left)
    case (false, true): return infinity(right)
    case (false, false): break
    }
    if left == .indefinite || right == .indefinite { return .indefinite }

    guard let epoch = combinedEpoch(lhs.epoch, rhs.epoch) else { return .invalid }
    let rounded = lhs.carriesRoundedFlag || rhs.carriesRoundedFlag
    let leftValue = Int128(lhs.value)
    let rightValue = subtracting ? -Int128(rhs.value) : Int128(rhs.value)
    if lhs.timescale == rhs.timescale {
        return .fitting(
            numerator: leftValue + rightValue, denominator: Int128(lhs.timescale), timescale: lhs.timescale,
            epoch: epoch, rounded: rounded)
    }
    let leftScale = Int128(lhs.timescale)
    let rightScale = Int128(rhs.timescale)
    let lcm = leftScale / greatestCommonDivisor(leftScale, rightScale) * rightScale
    let timescale = Int32(clamping: min(lcm, Int128(kCMTimeMaxTimescale)))
    // Exact sum over the product of the timescales: |numerator| < 2^95, denominator < 2^62.
    return .fitting(
        numerator: leftValue * rightScale + rightValue * leftScale, denominator: leftScale * rightScale,
        timescale: timescale, epoch: epoch, rounded: rounded)
}

/// The epoch of a sum or difference of numeric times, or nil when the epochs cannot be combined.
///
/// Epoch 0 marks a duration, which combines with any epoch; two times in the same non-zero epoch give epoch 0.
private func combinedEpoch(_ lhs: Int64, _ rhs: Int64) -> Int64? {
    if lhs == rhs { return 0 }
    if lhs == 0 { return rhs }
    if rhs == 0 { return lhs }
    return nil
}

/// `CMTime.positiveInfinity` or `.negativeInfinity` for an infinite kind.
private func infinity(_ kind: CMTime.Kind) -> CMTime {
    kind == .negativeInfinity ? .negativeInfinity : .positiveInfinity
}

// MARK: - Multiplication

/// Returns the product of a time and a 32-bit integer.
///
/// The result has the operand's timescale and epoch. Overflow halves the timescale (default rounding) down to 1, then
/// gives ±infinity. `hasBeenRounded` is set if rounding occurs or the operand has it. An invalid operand gives
/// invalid, an infinite one an infinity whose sign is the product of the signs, an indefinite one indefinite.
///
/// Guess: an infinity times 0 keeps its sign (Apple does not say).
public func CMTimeMultiply(_ time: CMTime, multiplier: Int32) -> CMTime {
    switch time.kind {
    case .invalid: return .invalid
    case .indefinite: return .indefinite
    case .positiveInfinity: return multiplier < 0 ? .negativeInfinity : .positiveInfinity
    case .negativeInfinity: return multiplier < 0 ? .positiveInfinity : .negativeInfinity
    case .numeric:
        return .fitting(
            numerator: Int128(time.value) * Int128(multiplier), denominator: Int128(time.timescale),
            timescale: time.timescale, epoch: time.epoch, rounded: time.carriesRoundedFlag)
    }
}

/// Returns the product of a time and a 64-bit float.
///
/// The result starts with the operand's timescale; if that is less than 65536 it is doubled until it is at least
/// 65536. The value (computed in `Float64`) is rounded half away from zero; on overflow the timescale is halved down
/// to 1, then the result is ±infinity. `hasBeenRounded` is set if rounding occurs or the operand has it. An invalid
/// operand gives invalid, an infinite one an infinity whose sign is the product of the signs, an indefinite one
/// indefinite. The epoch is kept.
///
/// Guesses (Apple does not say): a NaN multiplier gives invalid; an infinite multiplier gives ±infinity (invalid for
/// a zero time); an infinity times 0 keeps its sign.
public func CMTimeMultiplyByFloat64(_ time: CMTime, multiplier: Float64) -> CMTime {
    let kind = time.kind
    if kind == .invalid || multiplier.isNaN { return .invalid }
    switch kind {
    case .indefinite: return .indefinite
    case .positiveInfinity: return multiplier < 0 ? .negativeInfinity : .positiveInfinity
    case .negativeInfinity: return multiplier < 0 ? .positiveInfinity : .negativeInfinity
    default: break
    }
    if multiplier.isInfinite {
        if time.value == 0 { return .invalid }
        return (time.value < 0) == (multiplier < 0) ? .positiveInfinity : .negativeInfinity
    }
    var timescale = time.timescale
    while timescale < 65536 { timescale *= 2 }
    let sign = (time.value < 0) != (multiplier < 0)
    while timescale >= 1 {
        // timescale / time.timescale is a power of two while doubling, so the only rounding is value * multiplier.
        let scaled = Double(time.value) * multiplier * (Double(timescale) / Double(time.timescale))
        let rounded = scaled.rounded(.toNearestOrAwayFromZero)
        if rounded >= -0x1p63 && rounded < 0x1p63 {
            return .numeric(
                value: Int64(rounded), timescale: timescale, epoch: time.epoch,
                rounded: time.carriesRoundedFlag || rounded != scaled)
        }
        timescale /= 2
    }
    return sign ? .negativeInfinity : .positiveInfinity
}

/// Returns the result of multiplying a time by an integer, then dividing by another integer
/// (`time * multiplier / divisor`).
///
/// The exact rational value is preserved if possible without overflow: first in a multiple of the operand's
/// timescale (`time.timescale * divisor / gcd`), then in lowest terms. If neither fits, the result is rounded
/// (default rounding) to `kCMTimeMaxTimescale`, the timescale with the least rounding error, whose value overflow
/// halves the timescale down to 1 and then gives ±infinity. `hasBeenRounded` is set if rounding occurs or the
/// operand has it.
///
/// If the divisor is 0 and either the time value or the multiplier is 0, the result is invalid; if only the divisor
/// is 0, the result is ±infinity by the signs of the other arguments. An invalid time gives invalid, an infinite one
/// an infinity (sign flipped when the ratio is negative — a guess), an indefinite one indefinite. The epoch is kept.
public func CMTimeMultiplyByRatio(_ time: CMTime, multiplier: Int32, divisor: Int32) -> CMTime {
    let negativeRatio = (multiplier < 0) != (divisor < 0)
    switch time.kind {
    case .invalid: return .invalid
    case .indefinite: return .indefinite
    case .positiveInfinity: return negativeRatio ? .negativeInfinity : .positiveInfinity
    case .negativeInfinity: return negativeRatio ? .positiveInfinity : .negativeInfinity
    case .numeric: break
    }
    if divisor == 0 {
        if time.value == 0 || multiplier == 0 { return .invalid }
        return (time.value < 0) == (multiplier < 0) ? .positiveInfinity : .negativeInfinity
    }
    var numerator = Int128(time.value) * Int128(multiplier)
    var divisorMagnitude = Int128(divisor)
    if divisorMagnitude < 0 {
        numerator = -numerator
        divisorMagnitude = -divisorMagnitude
    }
    let rounded = time.carriesRoundedFlag
    let maxTimescale = Int128(kCMTimeMaxTimescale)

    // Exact, keeping the operand's timescale as a factor of the new one.
    let common = greatestCommonDivisor(numerator, divisorMagnitude)
    let keptScale = Int128(time.timescale) * (divisorMagnitude / common)
    if keptScale <= maxTimescale, let value = Int64(exactly: numerator / common) {
        return .numeric(value: value, timescale: Int32(keptScale), epoch: time.epoch, rounded: rounded)
    }
    // Exact, in lowest terms.
    let denominator = Int128(time.timescale) * divisorMagnitude
    let lowest = greatestCommonDivisor(numerator, denominator)
    if denominator / lowest <= maxTimescale, let value = Int64(exactly: numerator / lowest) {
        return .numeric(value: value, timescale: Int32(denominator / lowest), epoch: time.epoch, rounded: rounded)
    }
    return .fitting(
        numerator: numerator, denominator: denominator, timescale: Int32(kCMTimeMaxTimescale), epoch: time.epoch,
        rounded: rounded)
}

// MARK: - Absolute value

/// Returns the absolute value of a time: the same time with its sign inverted if negative.
///
/// −infinity gives +infinity; invalid, indefinite and +infinity are returned unchanged. The one numeric value with
/// no positive counterpart (`Int64.min`) is rescaled like an overflow (timescale halved, `hasBeenRounded` if that
/// rounds).
public func CMTimeAbsoluteValue(_ time: CMTime) -> CMTime {
    switch time.kind {
    case .negativeInfinity: return .positiveInfinity
    case .invalid, .indefinite, .positiveInfinity: return time
    case .numeric:
        guard time.value < 0 else { return time }
        if time.value != .min {
            var result = time
            result.value = -time.value
            return result
        }
        return .fitting(
            numerator: -Int128(time.value), denominator: Int128(time.timescale), timescale: time.timescale,
            epoch: time.epoch, rounded: time.carriesRoundedFlag)
    }
}

// MARK: - Internal

/// The greatest common divisor of two integers (non-negative; gcd(0, n) = |n|).
func greatestCommonDivisor(_ a: Int128, _ b: Int128) -> Int128 {
    var x = a.magnitude
    var y = b.magnitude
    while y != 0 { (x, y) = (y, x % y) }
    return Int128(x)
}
