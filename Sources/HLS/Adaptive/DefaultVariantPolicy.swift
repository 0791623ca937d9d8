import Foundation
import PlaybackEngine

/// The variant choice an HLS source makes unless the app gives its own policy: throughput and buffer together, as
/// hls.js's `findBestLevel`, ExoPlayer's `AdaptiveTrackSelection` and BOLA's buffer term combine them. A variant is
/// judged by the share of the bandwidth estimate its `BANDWIDTH` takes — the deeper the buffer, the larger the share
/// allowed — and by the time its next segment would take to arrive at the estimate (its `BANDWIDTH` × the segment's
/// duration ÷ the estimate) against the media buffered ahead, which plays meanwhile:
///
/// 1. The variant playing left the eligible set (a cap, a failed playlist): the highest eligible one the estimate
///    sustains (with ``upFraction``), else the lowest eligible (`caps` / `fallback`).
/// 2. No estimate yet (none measured, none from an earlier item): keep the variant.
/// 3. Down, before the buffer runs dry: when the variant takes more than ``downFraction(buffer:segment:)`` of the
///    estimate (`bandwidthDown`), or its next segment would take longer to arrive than ``starvationShare`` of the
///    media ahead — the buffer measured plus the segment being read (`bufferLow`): to the highest variant that passes
///    both tests, else the lowest.
/// 4. Up: to the highest variant within ``upFraction(buffer:segment:)`` of the estimate whose segment would arrive
///    within ``upShare`` of the media ahead (at the start, the first segment: its measurement may move up at once)
///    (`bandwidthUp`).
/// 5. Near the end of a video-on-demand item (at most ``endSegments`` segments left,
///    ``VariantSituation/remainingDuration``): a variant whose segments, all of them to the end, arrive at
///    ``endEstimateShare`` of the estimate before the media ahead runs out is kept (no step 3) or moved up to
///    (`endOfItem`): a buffer left at the end is of no use (BOLA-E; the oracle of the trace bench spends it there).
///
/// The shares grow with the buffer from one segment to ``fullBufferSegments`` (0.85 → 2.0 up, 1.2 → 2.4 down): a deep
/// buffer absorbs segments above the link's rate for a while (BOLA's buffer term), a shallow one does not. The numbers
/// were chosen on the trace bench's simulation (``ABRSimulation``, ``ABROracle``: `ABRTraceTests`) together with
/// constant links from 0.7 to 3.0 Mbit/s: bolder full-buffer shares (2.5 up, 3.0 down) score higher on the 3G-like
/// trace but flip between rungs on a constant link (8 switches in 60 s at 1.5 Mbit/s). A sweep of the shares and of
/// the estimator's half-lives (`ABRTraceTests.floors` says what it found) had no setting that lifts the step up or
/// the 3G-like trace to 90 % of the oracle without costing the other or the constant links: the step up's missing
/// share is a climb before the link rises, which on a constant link below the rung is a climb that comes down again.
/// The gap between the up and down shares is the hysteresis that keeps a link near a rung's rate from flipping
/// between two variants. A value: any thread.
package struct DefaultVariantPolicy: VariantPolicy {
    /// The share of the estimate a higher variant's `BANDWIDTH` may use with a buffer of a segment or less (room for
    /// the estimate's error and the audio fetched beside; ExoPlayer and hls.js take 0.7, which on the trace bench
    /// left a link 1.3 × a rung's rate on the rung below for good).
    package static let upFraction = 0.85
    /// The old name of ``upFraction``.
    package static let bandwidthFraction = upFraction
    /// The share a higher variant may use with a full buffer (its segments then drain the buffer, slowly enough for
    /// the down test to leave it before the buffer is low).
    package static let fullBufferUpFraction = 2.0
    /// The share of the estimate the variant playing may use before it is left, with a buffer of a segment or less
    /// (the estimate and its usual error: the starvation test guards a shallow buffer), and with a full buffer.
    package static let downFraction = 1.2
    package static let fullBufferDownFraction = 2.4
    /// Segments of buffer that count as full (4 × 2 s: about what the engine reads ahead, 10 s, less the segment
    /// under way).
    package static let fullBufferSegments = 4.0
    /// The share of the media ahead a segment of the variant playing may take to arrive before playback would run
    /// dry (the rest is the margin for the estimate's error).
    package static let starvationShare = 0.8
    /// The share of the media ahead a segment of a higher variant may take to arrive.
    package static let upShare = 0.8

    /// The end of a video-on-demand item counts when at most this many segments are left.
    package static let endSegments = 10.0
    /// The share of the estimate the rest of the item is planned on near its end.
    package static let endEstimateShare = 0.9

    /// The policy's numbers (the statics above unless a bench tries others).
    package struct Tuning: Sendable, Equatable {
        package var upFraction = DefaultVariantPolicy.upFraction
        package var fullBufferUpFraction = DefaultVariantPolicy.fullBufferUpFraction
        package var downFraction = DefaultVariantPolicy.downFraction
        package var fullBufferDownFraction = DefaultVariantPolicy.fullBufferDownFraction
        package var fullBufferSegments = DefaultVariantPolicy.fullBufferSegments
        package var starvationShare = DefaultVariantPolicy.starvationShare
        package var upShare = DefaultVariantPolicy.upShare
        package var endSegments = DefaultVariantPolicy.endSegments
        package var endEstimateShare = DefaultVariantPolicy.endEstimateShare

        package init() {}
    }

    package var tuning: Tuning

    package init(tuning: Tuning = Tuning()) {
        self.tuning = tuning
    }

    /// How full the buffer is, from 0 (a segment or less) to 1 (``fullBufferSegments``).
    func fullness(buffer: Double, segment: Double) -> Double {
        min(1, max(0, (buffer - segment) / (max(0.5, tuning.fullBufferSegments - 1) * segment)))
    }

    /// The share of the estimate a higher variant may use with `buffer` seconds buffered.
    package func upFraction(buffer: Double, segment: Double) -> Double {
        tuning.upFraction + (tuning.fullBufferUpFraction - tuning.upFraction)
            * fullness(buffer: buffer, segment: segment)
    }

    /// The share of the estimate the variant playing may use with `buffer` seconds buffered.
    package func downFraction(buffer: Double, segment: Double) -> Double {
        tuning.downFraction + (tuning.fullBufferDownFraction - tuning.downFraction)
            * fullness(buffer: buffer, segment: segment)
    }

    package func chooseVariant(in s: VariantSituation) -> VariantChoice {
        let rate = { (index: Int) in Double(s.variants[index].peakBitRate) }
        let eligible = s.eligible.sorted { rate($0) < rate($1) }
        guard let lowest = eligible.first else { return VariantChoice(index: s.current, reason: .caps) }
        let current = rate(s.current)
        /// The highest eligible variant that `fraction` of the estimate covers, else the lowest.
        func sustained(by estimate: Double, fraction: Double) -> Int {
            eligible.last { rate($0) <= estimate * fraction } ?? lowest
        }
        guard eligible.contains(s.current) else {
            if let estimate = s.estimatedBitRate {
                return VariantChoice(index: sustained(by: estimate, fraction: tuning.upFraction), reason: .caps)
            }
            // No estimate: the highest eligible one not above the variant left.
            return VariantChoice(index: eligible.last { rate($0) <= current } ?? lowest, reason: .caps)
        }
        guard let estimate = s.estimatedBitRate, estimate > 0 else {
            return VariantChoice(index: s.current, reason: .hold)
        }
        let buffer = max(0, s.forwardBuffer ?? 0)
        let segment = max(s.segmentDuration, 0.5)
        /// Seconds a segment of variant `index` takes to arrive at the estimate.
        func arrival(_ index: Int) -> Double { rate(index) * segment / estimate }
        // The time a segment may take before playback runs dry: the buffer measured leaves out the segment being
        // read (``VariantSituation/forwardBuffer``), which has usually arrived (it was fetched ahead) and plays too.
        let starvation = tuning.starvationShare * (buffer + segment)
        /// Whether the rest of a video-on-demand item arrives from variant `index` before playback runs dry (BOLA-E's
        /// end of the video: a buffer that is no use after the end may pay for a higher rung). Its n segments come one
        /// after the other at the estimate's rate; the k-th must arrive within the media ahead (``starvationShare`` of
        /// it) plus the k − 1 fetched before it. Above the estimate the last is the hardest; at or below, the first.
        func carriesTheRest(_ index: Int) -> Bool {
            guard let remaining = s.remainingDuration, remaining > 0 else { return false }
            let count = (remaining / segment - 0.01).rounded(.up)
            guard count <= tuning.endSegments else { return false }
            let ratio = rate(index) / (estimate * tuning.endEstimateShare)
            let k = ratio > 1 ? count : 1
            return k * segment * ratio <= starvation + (k - 1) * segment
        }
        let keeps = estimate * downFraction(buffer: buffer, segment: segment)
        if current > keeps || arrival(s.current) > starvation, !carriesTheRest(s.current) {
            let target =
                eligible.last { rate($0) < current && rate($0) <= keeps && arrival($0) <= starvation } ?? lowest
            guard target != s.current else { return VariantChoice(index: s.current, reason: .hold) }
            return VariantChoice(index: target, reason: current > keeps ? .bandwidthDown : .bufferLow)
        }
        let fraction = upFraction(buffer: buffer, segment: segment)
        let target = eligible.last {
            rate($0) > current && rate($0) <= estimate * fraction && arrival($0) <= tuning.upShare * (buffer + segment)
        }
        let end = eligible.last { rate($0) > current && carriesTheRest($0) }
        if let end, target.map({ rate(end) > rate($0) }) ?? true {
            return VariantChoice(index: end, reason: .endOfItem)
        }
        if let target { return VariantChoice(index: target, reason: .bandwidthUp) }
        return VariantChoice(index: s.current, reason: .hold)
    }
}
