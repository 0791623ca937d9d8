/// The numerator of a `CMTime` (C `int64_t`).
public typealias CMTimeValue = Int64

/// The denominator of a `CMTime`: the number of units per second (C `int32_t`).
public typealias CMTimeScale = Int32

/// The epoch of a `CMTime` (C `int64_t`): distinguishes equal timestamps that belong to different passes of a loop
/// or items of a sequence.
public typealias CMTimeEpoch = Int64

/// The largest timescale a `CMTime` can have (0x7fffffff).
///
/// Apple's C header defines it as `0x7fffffffL`, which Swift imports as `Int`, so code writes
/// `CMTimeScale(kCMTimeMaxTimescale)`; it is an `Int` here too.
public var kCMTimeMaxTimescale: Int { 0x7fff_ffff }

/// A time, represented as a rational number `value / timescale` seconds.
///
/// Core Media represents time as a rational value, with a time value as the numerator and timescale as the
/// denominator. The structure can represent a specific numeric time in the media timeline, and also non-numeric
/// values: invalid and indefinite times, positive and negative infinity. A flag records whether the time was
/// rounded at some point. An epoch, usually 0, distinguishes unrelated timelines (e.g. passes of a loop).
///
/// `==` and `<` compare times as exact rationals through `CMTimeCompare(_:_:)`, so `1/2 == 500/1000`; like Apple's,
/// this type has no `CustomStringConvertible` conformance (use `CMTimeCopyDescription(allocator:time:)`).
public struct CMTime: Sendable {
    /// The value of the time: `value / timescale` = seconds.
    public var value: CMTimeValue

    /// The timescale of the time: `value / timescale` = seconds.
    public var timescale: CMTimeScale

    /// The flags, e.g. `.valid`, `.positiveInfinity`.
    public var flags: CMTimeFlags

    /// Differentiates between equal timestamps that are actually different because of looping, multi-item
    /// sequencing, etc. Used in comparisons: greater epochs happen after lesser ones. Addition and subtraction are
    /// only possible within one epoch, since epoch length may be unknown or variable.
    public var epoch: CMTimeEpoch

    /// Creates an invalid time: every field is zero, so `.valid` is not set.
    public init() {
        self.value = 0
        self.timescale = 0
        self.flags = []
        self.epoch = 0
    }

    /// Creates a time from all four fields as given (C memberwise initializer; no validation).
    public init(value: CMTimeValue, timescale: CMTimeScale, flags: CMTimeFlags, epoch: CMTimeEpoch) {
        self.value = value
        self.timescale = timescale
        self.flags = flags
        self.epoch = epoch
    }

    /// Creates a valid time with a value and timescale; the epoch is 0 (same as `CMTimeMake(value:timescale:)`).
    ///
    /// A timescale of 0 or less gives `.invalid` (a guess at Apple's behaviour; such a time cannot be numeric).
    public init(value: CMTimeValue, timescale: CMTimeScale) {
        self = CMTimeMake(value: value, timescale: timescale)
    }

    /// Creates a time that represents a number of seconds in a preferred timescale
    /// (same as `CMTimeMakeWithSeconds(_:preferredTimescale:)`).
    public init(seconds: Double, preferredTimescale: CMTimeScale) {
        self = CMTimeMakeWithSeconds(seconds, preferredTimescale: preferredTimescale)
    }

    /// Zero seconds: value 0, timescale 1, valid, epoch 0 (C `kCMTimeZero`).
    public static let zero = CMTime(value: 0, timescale: 1, flags: .valid, epoch: 0)

    /// The invalid time: all fields zero (C `kCMTimeInvalid`).
    public static let invalid = CMTime()

    /// The indefinite (unknown) time, e.g. the duration of a live stream (C `kCMTimeIndefinite`).
    public static let indefinite = CMTime(value: 0, timescale: 0, flags: [.valid, .indefinite], epoch: 0)

    /// Positive infinity (C `kCMTimePositiveInfinity`).
    public static let positiveInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .positiveInfinity], epoch: 0)

    /// Negative infinity (C `kCMTimeNegativeInfinity`).
    public static let negativeInfinity = CMTime(value: 0, timescale: 0, flags: [.valid, .negativeInfinity], epoch: 0)
}

// MARK: - Inspecting a time

extension CMTime {
    /// Whether the time is valid (`.valid` is set). Invalid times may have any other field values.
    public var isValid: Bool {
        flags.contains(.valid)
    }

    /// Whether the time is valid and positive infinity.
    public var isPositiveInfinity: Bool {
        isValid && flags.contains(.positiveInfinity)
    }

    /// Whether the time is valid and negative infinity.
    public var isNegativeInfinity: Bool {
        isValid && flags.contains(.negativeInfinity)
    }

    /// Whether the time is valid and indefinite.
    public var isIndefinite: Bool {
        isValid && flags.contains(.indefinite)
    }

    /// Whether the time is valid and neither infinite nor indefinite.
    public var isNumeric: Bool {
        flags.intersection([.valid, .impliedValueFlagsMask]) == .valid
    }

    /// Whether the time is numeric and has been rounded at some point.
    public var hasBeenRounded: Bool {
        isNumeric && flags.contains(.hasBeenRounded)
    }

    /// The time in seconds (`value / timescale` as `Double`; the epoch is ignored).
    ///
    /// NaN for invalid and indefinite times, ±infinity for the infinities.
    public var seconds: Double {
        CMTimeGetSeconds(self)
    }

    /// Returns this time converted to a new timescale, rounding as requested
    /// (same as `CMTimeConvertScale(_:timescale:method:)`).
    public func convertScale(_ newTimescale: Int32, method: CMTimeRoundingMethod) -> CMTime {
        CMTimeConvertScale(self, timescale: newTimescale, method: method)
    }
}

// MARK: - C-style functions

/// Makes a valid time with a value and timescale; the epoch is implied to be 0.
///
/// A timescale of 0 or less gives `.invalid` (a guess at Apple's behaviour; such a time cannot be numeric).
public func CMTimeMake(value: Int64, timescale: Int32) -> CMTime {
    guard timescale > 0 else { return .invalid }
    return CMTime(value: value, timescale: timescale, flags: .valid, epoch: 0)
}

/// Makes a valid time with a value, timescale and epoch.
///
/// A timescale of 0 or less gives `.invalid` (as `CMTimeMake(value:timescale:)`).
public func CMTimeMakeWithEpoch(value: Int64, timescale: Int32, epoch: Int64) -> CMTime {
    guard timescale > 0 else { return .invalid }
    return CMTime(value: value, timescale: timescale, flags: .valid, epoch: epoch)
}

/// Makes a time from a number of seconds and a preferred timescale.
///
/// The value is `seconds * preferredTimescale` rounded half away from zero; `hasBeenRounded` is set when that
/// product (computed in `Float64`) is not a whole number. If the value overflows, the timescale is halved until it
/// fits; if it still overflows at timescale 1 the result is ±infinity. NaN seconds or a timescale of 0 or less give
/// `.invalid`; infinite seconds give the matching infinity. The epoch is 0.
public func CMTimeMakeWithSeconds(_ seconds: Float64, preferredTimescale: Int32) -> CMTime {
    guard preferredTimescale > 0, !seconds.isNaN else { return .invalid }
    guard seconds.isFinite else { return seconds > 0 ? .positiveInfinity : .negativeInfinity }
    var timescale = preferredTimescale
    while timescale >= 1 {
        let product = seconds * Double(timescale)
        let rounded = product.rounded(.toNearestOrAwayFromZero)
        // Int64 holds [-2^63, 2^63); both bounds are exact in Double.
        if rounded >= -0x1p63 && rounded < 0x1p63 {
            var flags = CMTimeFlags.valid
            if rounded != product { flags.insert(.hasBeenRounded) }
            return CMTime(value: Int64(rounded), timescale: timescale, flags: flags, epoch: 0)
        }
        timescale /= 2
    }
    return seconds > 0 ? .positiveInfinity : .negativeInfinity
}

/// Returns the time in seconds as a `Float64` (`value / timescale`; the epoch is ignored).
///
/// NaN for invalid and indefinite times (and for malformed "valid" times whose timescale is 0 or less),
/// ±infinity for the infinities.
public func CMTimeGetSeconds(_ time: CMTime) -> Float64 {
    switch time.kind {
    case .invalid, .indefinite: return .nan
    case .positiveInfinity: return .infinity
    case .negativeInfinity: return -.infinity
    case .numeric: return Double(time.value) / Double(time.timescale)
    }
}

/// Returns whether the time is valid (`time.isValid`).
public func CMTIME_IS_VALID(_ time: CMTime) -> Bool {
    time.isValid
}

/// Returns whether the time is invalid (`!time.isValid`).
public func CMTIME_IS_INVALID(_ time: CMTime) -> Bool {
    !time.isValid
}

/// Returns whether the time is positive infinity (`time.isPositiveInfinity`).
public func CMTIME_IS_POSITIVEINFINITY(_ time: CMTime) -> Bool {
    time.isPositiveInfinity
}

/// Returns whether the time is negative infinity (`time.isNegativeInfinity`).
public func CMTIME_IS_NEGATIVEINFINITY(_ time: CMTime) -> Bool {
    time.isNegativeInfinity
}

/// Returns whether the time is indefinite (`time.isIndefinite`).
public func CMTIME_IS_INDEFINITE(_ time: CMTime) -> Bool {
    time.isIndefinite
}

/// Returns whether the time is numeric: valid, not infinite, not indefinite (`time.isNumeric`).
public func CMTIME_IS_NUMERIC(_ time: CMTime) -> Bool {
    time.isNumeric
}

/// Returns whether the time is numeric and has been rounded (`time.hasBeenRounded`).
public func CMTIME_HAS_BEEN_ROUNDED(_ time: CMTime) -> Bool {
    time.hasBeenRounded
}

// MARK: - Constants renamed in Swift 4.2

/// Renamed to `CMTime.zero` in Swift 4.2 (as in Apple's SDK).
@available(swift, obsoleted: 4.2, renamed: "CMTime.zero")
public var kCMTimeZero: CMTime { .zero }

/// Renamed to `CMTime.invalid` in Swift 4.2 (as in Apple's SDK).
@available(swift, obsoleted: 4.2, renamed: "CMTime.invalid")
public var kCMTimeInvalid: CMTime { .invalid }

/// Renamed to `CMTime.indefinite` in Swift 4.2 (as in Apple's SDK).
@available(swift, obsoleted: 4.2, renamed: "CMTime.indefinite")
public var kCMTimeIndefinite: CMTime { .indefinite }

/// Renamed to `CMTime.positiveInfinity` in Swift 4.2 (as in Apple's SDK).
@available(swift, obsoleted: 4.2, renamed: "CMTime.positiveInfinity")
public var kCMTimePositiveInfinity: CMTime { .positiveInfinity }

/// Renamed to `CMTime.negativeInfinity` in Swift 4.2 (as in Apple's SDK).
@available(swift, obsoleted: 4.2, renamed: "CMTime.negativeInfinity")
public var kCMTimeNegativeInfinity: CMTime { .negativeInfinity }
