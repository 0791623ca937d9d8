import Foundation

/// The range of frame rates a ``CADisplayLink`` may call back at, and the rate it prefers, as QuartzCore's
/// `CAFrameRateRange` (which `import AVFoundation` brings in on Apple's systems).
///
/// A zero `minimum` / `maximum` and a nil `preferred` (``default``) leave the choice to the display: the link calls
/// back at the display's refresh rate.
public struct CAFrameRateRange: Sendable {
    /// The lowest acceptable rate in frames per second (0: no bound).
    public var minimum: Float
    /// The highest acceptable rate in frames per second (0: no bound).
    public var maximum: Float
    /// The rate wanted in frames per second; nil: the highest the range allows.
    public var preferred: Float?

    /// The default range: no bounds, no preference (the display's rate), as Apple's `init()`.
    public init() {
        self.init(minimum: 0, maximum: 0, preferred: nil)
    }

    /// A range from `minimum` to `maximum` frames per second preferring `preferred`, as Apple's
    /// `init(minimum:maximum:preferred:)`.
    public init(minimum: Float, maximum: Float, preferred: Float? = nil) {
        self.minimum = minimum
        self.maximum = maximum
        self.preferred = preferred
    }

    /// The range a display link starts with: the display's own rate, as Apple's `CAFrameRateRange.default`.
    public static let `default` = CAFrameRateRange()
}

/// Whether two ranges are the same, as Apple's `CAFrameRateRangeIsEqualToRange` (a nil and a zero preference are
/// the same).
public func CAFrameRateRangeIsEqualToRange(_ range: CAFrameRateRange, _ other: CAFrameRateRange) -> Bool {
    range.minimum == other.minimum && range.maximum == other.maximum
        && (range.preferred ?? 0) == (other.preferred ?? 0)
}
