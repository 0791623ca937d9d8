import Foundation

/// A bandwidth estimate from measured transfers (Shaka Player's `EwmaBandwidthEstimator`): two exponentially
/// weighted moving averages, a fast one that follows a drop within a segment and a slow one that does not chase a
/// burst, and the estimate is the lower of the two. Each sample is weighted by the seconds of media it fetched (not
/// by the transfer's own duration: on a fast link a segment arrives in milliseconds and would barely count).
///
/// Until ``minimumSamples`` samples were taken there is no estimate: the first segment of a session does not decide
/// alone. A value type; owned by whoever holds it.
package struct BandwidthEstimator: Sendable, Equatable {
    /// Half-life of the fast average in seconds of media (one 2 s segment halves the old value's weight).
    package static let fastHalfLife = 2.0
    /// Half-life of the slow average (Shaka's 5 s).
    package static let slowHalfLife = 5.0
    /// Samples needed before an estimate exists.
    package static let minimumSamples = 2

    private var fast = MovingAverage(halfLife: BandwidthEstimator.fastHalfLife)
    private var slow = MovingAverage(halfLife: BandwidthEstimator.slowHalfLife)
    /// Samples taken so far.
    package private(set) var sampleCount = 0

    package init() {}

    /// Adds a measurement of `bitsPerSecond` over a transfer that fetched `mediaSeconds` of media (a non-positive
    /// weight or rate is ignored).
    package mutating func add(bitsPerSecond: Double, mediaSeconds: Double) {
        guard bitsPerSecond > 0, bitsPerSecond.isFinite, mediaSeconds > 0, mediaSeconds.isFinite else { return }
        fast.add(bitsPerSecond, weight: mediaSeconds)
        slow.add(bitsPerSecond, weight: mediaSeconds)
        sampleCount += 1
    }

    /// The estimate in bits per second; nil before ``minimumSamples`` samples.
    package var estimate: Double? {
        guard sampleCount >= Self.minimumSamples else { return nil }
        return min(fast.value, slow.value)
    }

    /// An exponentially weighted moving average whose start is corrected for the zero it began from.
    private struct MovingAverage: Sendable, Equatable {
        let halfLife: Double
        private var raw = 0.0
        private var totalWeight = 0.0

        init(halfLife: Double) { self.halfLife = halfLife }

        mutating func add(_ value: Double, weight: Double) {
            let alpha = pow(0.5, weight / halfLife)
            raw = alpha * raw + (1 - alpha) * value
            totalWeight += weight
        }

        var value: Double {
            let zeroFactor = 1 - pow(0.5, totalWeight / halfLife)
            return zeroFactor > 0 ? raw / zeroFactor : 0
        }
    }
}
