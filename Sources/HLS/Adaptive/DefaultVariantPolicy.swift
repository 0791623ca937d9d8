import Foundation
import PlaybackEngine

/// The variant choice an HLS source makes unless the app gives its own policy (ExoPlayer's
/// `AdaptiveTrackSelection`, Shaka's `SimpleAbrManager`, in a few rules):
///
/// 1. The variant playing left the eligible set (a cap, a failed playlist): the highest eligible one the estimate
///    sustains (with ``bandwidthFraction``), else the lowest eligible (`caps` / `fallback`).
/// 2. No estimate yet (the first segment does not decide alone): keep the variant.
/// 3. The estimate no longer covers the variant's `BANDWIDTH`: down to the highest the estimate sustains
///    (`bandwidthDown`).
/// 4. The forward buffer holds less than ``lowBufferSegments`` segments and ``bandwidthFraction`` of the estimate does
///    not cover the variant: one rung down before it runs dry (`bufferLow`).
/// 5. ``bandwidthFraction`` of the estimate covers a higher variant and the buffer holds at least
///    ``healthyBufferSegments`` segments: up to the highest such (`bandwidthUp`).
///
/// A value: any thread.
package struct DefaultVariantPolicy: VariantPolicy {
    /// The share of the estimate a variant's `BANDWIDTH` may use (ExoPlayer's 0.7: room for the estimate's error
    /// and the audio fetched beside).
    package static let bandwidthFraction = 0.7
    /// Segments buffered ahead below which the buffer counts as running dry.
    package static let lowBufferSegments = 0.75
    /// Segments buffered ahead needed before stepping up (a bigger segment must arrive before the buffer runs out).
    package static let healthyBufferSegments = 1.0

    package init() {}

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
                return VariantChoice(index: sustained(by: estimate, fraction: Self.bandwidthFraction), reason: .caps)
            }
            // No estimate: the highest eligible one not above the variant left.
            return VariantChoice(index: eligible.last { rate($0) <= current } ?? lowest, reason: .caps)
        }
        guard let estimate = s.estimatedBitRate else { return VariantChoice(index: s.current, reason: .hold) }
        if estimate < current {
            return VariantChoice(
                index: sustained(by: estimate, fraction: Self.bandwidthFraction), reason: .bandwidthDown)
        }
        let buffer = s.forwardBuffer ?? 0
        let segment = max(s.segmentDuration, 0.5)
        if buffer < Self.lowBufferSegments * segment && estimate * Self.bandwidthFraction < current {
            return VariantChoice(index: eligible.last { rate($0) < current } ?? lowest, reason: .bufferLow)
        }
        let target = sustained(by: estimate, fraction: Self.bandwidthFraction)
        if rate(target) > current && buffer >= Self.healthyBufferSegments * segment {
            return VariantChoice(index: target, reason: .bandwidthUp)
        }
        return VariantChoice(index: s.current, reason: .hold)
    }
}
