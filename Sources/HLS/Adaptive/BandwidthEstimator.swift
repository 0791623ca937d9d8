import Foundation

/// A bandwidth estimate from measured transfers (Shaka Player's `EwmaBandwidthEstimator`): two exponentially
/// weighted moving averages, a fast one that follows a drop within a segment and a slow one that does not chase a
/// burst, and the estimate is the lower of the two. Each sample is weighted by the seconds of media it fetched (not
/// by the transfer's own duration: on a fast link a segment arrives in milliseconds and would barely count).
///
/// The first segment's sample is the first estimate (hls.js and ExoPlayer switch up after the first segment on a fast
/// link: a viewer's first seconds are the ones that count). Before any sample, the estimate is the ``prior`` when
/// one was given (what an earlier item of the same player measured of the same host), else there is none. A value
/// type; owned by whoever holds it.
package struct BandwidthEstimator: Sendable, Equatable {
    /// Half-life of the fast average in seconds of media (one 2 s segment halves the old value's weight).
    package static let fastHalfLife = 2.0
    /// Half-life of the slow average (Shaka's 5 s).
    package static let slowHalfLife = 5.0
    /// Samples needed before the measured estimate replaces the ``prior``.
    package static let minimumSamples = 1

    private var fast = MovingAverage(halfLife: BandwidthEstimator.fastHalfLife)
    private var slow = MovingAverage(halfLife: BandwidthEstimator.slowHalfLife)
    /// Samples taken so far.
    package private(set) var sampleCount = 0
    /// The last ``historyCount`` samples in bits per second, oldest first: what a model-predictive policy predicts
    /// the next segments' throughput from (``VariantSituation/throughputSamples``).
    package private(set) var recentSamples: [Double] = []
    /// Samples kept in ``recentSamples``: five to predict from and five more to measure how wrong those predictions
    /// were.
    package static let historyCount = 10

    /// The estimate before the first sample (bits per second); nil: none.
    package var prior: Double?

    /// An estimator that says `prior` (when finite and positive) until it measures something itself.
    package init(prior: Double? = nil) {
        self.prior = prior.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }

    /// Adds a measurement of `bitsPerSecond` over a transfer that fetched `mediaSeconds` of media (a non-positive
    /// weight or rate is ignored).
    package mutating func add(bitsPerSecond: Double, mediaSeconds: Double) {
        guard bitsPerSecond > 0, bitsPerSecond.isFinite, mediaSeconds > 0, mediaSeconds.isFinite else { return }
        fast.add(bitsPerSecond, weight: mediaSeconds)
        slow.add(bitsPerSecond, weight: mediaSeconds)
        sampleCount += 1
        recentSamples.append(bitsPerSecond)
        if recentSamples.count > Self.historyCount {
            recentSamples.removeFirst(recentSamples.count - Self.historyCount)
        }
    }

    /// The estimate in bits per second: the ``prior`` (or nil) before ``minimumSamples`` samples.
    package var estimate: Double? {
        guard sampleCount >= Self.minimumSamples else { return prior }
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
