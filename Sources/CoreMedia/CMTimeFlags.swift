/// Flag bits for a `CMTime`.
///
/// Only `valid` is needed for a plain numeric time; the implied-value flags mark the non-numeric values
/// (positive infinity, negative infinity, indefinite). Test non-numeric times with `CMTime.isValid`,
/// `isIndefinite`, `isPositiveInfinity`, `isNegativeInfinity` or `isNumeric`, never by comparing fields:
/// many bit patterns mean "indefinite" or "invalid".
public struct CMTimeFlags: OptionSet, Hashable, Sendable {
    /// The raw flag bits (C `CMTimeFlags`, a `uint32_t`).
    public var rawValue: UInt32

    /// Creates a flag set from raw bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The time is valid (C `kCMTimeFlags_Valid` = 1). Must be set, or the time is invalid.
    public static let valid = CMTimeFlags(rawValue: 1 << 0)

    /// The time has been rounded at some point (C `kCMTimeFlags_HasBeenRounded` = 2).
    public static let hasBeenRounded = CMTimeFlags(rawValue: 1 << 1)

    /// The time is positive infinity (C `kCMTimeFlags_PositiveInfinity` = 4); value and timescale are ignored.
    public static let positiveInfinity = CMTimeFlags(rawValue: 1 << 2)

    /// The time is negative infinity (C `kCMTimeFlags_NegativeInfinity` = 8); value and timescale are ignored.
    public static let negativeInfinity = CMTimeFlags(rawValue: 1 << 3)

    /// The time is indefinite, unknown (C `kCMTimeFlags_Indefinite` = 16); value and timescale are ignored.
    public static let indefinite = CMTimeFlags(rawValue: 1 << 4)

    /// The flags that imply a non-numeric value: `positiveInfinity`, `negativeInfinity` and `indefinite`
    /// (C `kCMTimeFlags_ImpliedValueFlagsMask` = 28).
    public static let impliedValueFlagsMask: CMTimeFlags = [.positiveInfinity, .negativeInfinity, .indefinite]
}
