import Foundation
import OAVFLocking

/// The caps an app sets on a streamed presentation's variants (`preferredPeakBitRate`,
/// `preferredMaximumResolution`; the expensive-network ones apply only on a network said to be expensive, and no
/// network is). A value: any thread.
package struct VariantCaps: Sendable, Equatable {
    /// Variants above this peak bit rate are not chosen; nil: no limit.
    package var maximumPeakBitRate: Double?
    /// Nor those larger than this; nil: no limit.
    package var maximumResolution: SourceOptions.PixelSize?

    package init(maximumPeakBitRate: Double? = nil, maximumResolution: SourceOptions.PixelSize? = nil) {
        self.maximumPeakBitRate = maximumPeakBitRate
        self.maximumResolution = maximumResolution
    }

    /// Whether `variant` is within the caps (a variant that does not state its resolution passes the resolution cap).
    package func admits(_ variant: VariantDescription) -> Bool {
        if let peak = maximumPeakBitRate, Double(variant.peakBitRate) > peak { return false }
        if let limit = maximumResolution, let width = variant.width, let height = variant.height,
            width > limit.width || height > limit.height
        {
            return false
        }
        return true
    }
}

/// What a ``VariantPolicy`` sees when the next segment is about to be fetched.
package struct VariantSituation: Sendable {
    /// Every variant, in playlist order (I-frame-only ones left out).
    package var variants: [VariantDescription]
    /// The index in ``variants`` of the variant playing.
    package var current: Int
    /// Indices of variants that may be chosen: within the caps and not failed (never empty: when none is within the
    /// caps, the lowest that did not fail).
    package var eligible: [Int]
    /// The bandwidth estimate in bits per second: the first segment's measurement onwards, before it the estimate an
    /// earlier item of the same player made of the host; nil before either.
    package var estimatedBitRate: Double?
    /// Seconds of media the source has read ahead of the playhead (the playhead the engine last published, or the
    /// start of reading before playback published one); nil when unknown.
    package var forwardBuffer: Double?
    /// The media sequence number and duration of the segment about to be fetched (in the variant playing).
    package var mediaSequence: Int
    package var segmentDuration: Double
    /// The caps in force.
    package var caps: VariantCaps
    /// Seconds of media from the start of the segment about to be fetched to the end of the presentation (nil for a
    /// live one): near the end of a video-on-demand item, what is buffered may carry the rest at a higher rung.
    package var remainingDuration: Double?
    /// The throughput of the last segments fetched (bits per second, oldest first; up to
    /// `BandwidthEstimator.historyCount`), each the sample the estimate took in; empty before the first.
    package var throughputSamples: [Double]

    package init(
        variants: [VariantDescription], current: Int, eligible: [Int], estimatedBitRate: Double?,
        forwardBuffer: Double?, mediaSequence: Int, segmentDuration: Double, caps: VariantCaps,
        remainingDuration: Double? = nil, throughputSamples: [Double] = []
    ) {
        self.remainingDuration = remainingDuration
        self.throughputSamples = throughputSamples
        self.variants = variants
        self.current = current
        self.eligible = eligible
        self.estimatedBitRate = estimatedBitRate
        self.forwardBuffer = forwardBuffer
        self.mediaSequence = mediaSequence
        self.segmentDuration = segmentDuration
        self.caps = caps
    }
}

/// Why a variant was chosen.
package enum VariantSwitchReason: String, Sendable, Equatable {
    /// The variant playback starts on.
    case start
    /// The estimate sustains a higher variant with margin, and the buffer is healthy.
    case bandwidthUp
    /// The estimate no longer sustains the variant playing.
    case bandwidthDown
    /// The forward buffer is running dry.
    case bufferLow
    /// Near the end of a video-on-demand item, the media buffered carries the rest of it on this variant (kept above
    /// the estimate, or moved up to).
    case endOfItem
    /// The variant playing is outside the caps now.
    case caps
    /// The variant playing (or the one asked for) could not be loaded.
    case fallback
    /// An app's policy chose it.
    case policy
    /// No change (a policy's answer that keeps the variant; never recorded).
    case hold
}

/// A policy's answer: the variant (an index into ``VariantSituation/variants``, one of the eligible) and why.
package struct VariantChoice: Sendable, Equatable {
    package var index: Int
    package var reason: VariantSwitchReason

    package init(index: Int, reason: VariantSwitchReason) {
        self.index = index
        self.reason = reason
    }
}

/// Chooses the variant of a streamed presentation the next segment comes from (beyond Apple: an app can replace
/// the default, see ``VariantControl/policy``). Called on the source's reading thread before each segment's download
/// starts; it must be quick and must not block. Returning the current index (or an ineligible one) keeps the variant.
package protocol VariantPolicy: Sendable {
    func chooseVariant(in situation: VariantSituation) -> VariantChoice
}

/// One decision that changed the variant, with what it was made on.
package struct VariantDecision: Sendable, Equatable {
    package var date: Date
    /// The media sequence number of the first segment fetched from the new variant.
    package var mediaSequence: Int
    /// The container time (microseconds) where that segment starts: from there on the new variant plays.
    package var startMicroseconds: Int64
    /// The variant left (nil at the start) and the one chosen.
    package var from: VariantDescription?
    package var to: VariantDescription
    package var reason: VariantSwitchReason
    /// What the choice was made on.
    package var estimatedBitRate: Double?
    package var forwardBuffer: Double?
    package var caps: VariantCaps

    package init(
        date: Date, mediaSequence: Int, startMicroseconds: Int64, from: VariantDescription?, to: VariantDescription,
        reason: VariantSwitchReason, estimatedBitRate: Double?, forwardBuffer: Double?, caps: VariantCaps
    ) {
        self.date = date
        self.mediaSequence = mediaSequence
        self.startMicroseconds = startMicroseconds
        self.from = from
        self.to = to
        self.reason = reason
        self.estimatedBitRate = estimatedBitRate
        self.forwardBuffer = forwardBuffer
        self.caps = caps
    }
}

/// A stretch of the presentation timeline played from one variant: from ``startMicroseconds`` (container time) to the
/// next period's start.
package struct VariantPeriod: Sendable, Equatable {
    package var startMicroseconds: Int64
    package var variant: VariantDescription
    /// The decision that chose the variant (for a period begun by a seek, the latest that chose it).
    package var decision: VariantDecision

    package init(startMicroseconds: Int64, variant: VariantDescription, decision: VariantDecision) {
        self.startMicroseconds = startMicroseconds
        self.variant = variant
        self.decision = decision
    }
}

/// Where a streamed source and its owners meet while it plays: the app's caps and policy (read by the source at each
/// segment boundary, so a change applies to the next segment), the playhead the engine publishes, and the log of the
/// source's variant decisions.
///
/// Thread-safe. Who writes what: the caps and policy, the engine thread (the facade posts them as a command,
/// `ItemSession.Setting.variantSettings`; a source used without an engine — tests, a second reader — is configured by
/// its owner); the playhead, the engine thread; the decisions, the source's reading thread. The caps and policy are
/// one `Locked` value, not a command to the source: the source's reading thread reads them before each segment, in
/// the middle of a read that no engine command can reach, and must not wait for the engine's loop.
package final class VariantControl: @unchecked Sendable {
    /// Guards the playhead and the decisions: the engine thread publishes the playhead, the source's reading thread
    /// decides. Not an engine command: the source's reading thread reads it at segment boundaries and cannot wait for
    /// the engine's mailbox.
    private let lock = ConditionLock()
    /// The caps in force and an app's policy (see the type's summary for who writes them).
    private let settings: Locked<(caps: VariantCaps, policy: (any VariantPolicy)?)>
    /// Guarded by `lock`.
    private var _playheadMicroseconds: Int64?
    private var _decisions: [VariantDecision] = []
    private var _estimatedBitRate: Double?
    /// The variant periods of the timeline read, in start order.
    private var _periods: [VariantPeriod] = []
    /// At most this many decisions are kept (the oldest go first).
    static let capacity = 1024

    package init(caps: VariantCaps = VariantCaps()) {
        settings = Locked((caps, nil))
    }

    /// The caps in force; a change applies to the next segment fetched.
    package var caps: VariantCaps {
        get { settings.withLock { $0.caps } }
        set { settings.withLock { $0.caps = newValue } }
    }

    /// An app's policy; nil: the source's default.
    package var policy: (any VariantPolicy)? {
        get { settings.withLock { $0.policy } }
        set { settings.withLock { $0.policy = newValue } }
    }

    /// Sets the caps and the policy together (the engine thread, applying the item's `variantSettings` command).
    package func apply(caps: VariantCaps, policy: (any VariantPolicy)?) {
        settings.withLock { $0 = (caps, policy) }
    }

    /// The playhead in container time (microseconds), as the engine last published it (nil before playback): the
    /// source measures its forward buffer from it (the engine's own measure lags a source reading segments in a
    /// burst).
    package var playheadMicroseconds: Int64? {
        get { lock.withLock { _playheadMicroseconds } }
        set { lock.withLock { _playheadMicroseconds = newValue } }
    }

    /// Records a decision; its variant plays from its start.
    package func record(_ decision: VariantDecision) {
        lock.withLock {
            _decisions.append(decision)
            if _decisions.count > Self.capacity { _decisions.removeFirst(_decisions.count - Self.capacity) }
            _periods.removeAll { $0.startMicroseconds > decision.startMicroseconds }
            _periods.append(
                VariantPeriod(startMicroseconds: decision.startMicroseconds, variant: decision.to, decision: decision))
            if _periods.count > Self.capacity { _periods.removeFirst(_periods.count - Self.capacity) }
        }
    }

    /// The source restarted reading at `microseconds` (a seek) with `variant`: the periods after it are gone (a switch
    /// decided ahead of the seek never happened), and `variant` plays from there.
    package func restartTimeline(atMicroseconds microseconds: Int64, variant: VariantDescription) {
        lock.withLock {
            _periods.removeAll { $0.startMicroseconds > microseconds }
            guard _periods.last?.variant != variant,
                let decision = _decisions.last(where: { $0.to == variant }) ?? _decisions.last
            else { return }
            _periods.append(VariantPeriod(startMicroseconds: microseconds, variant: variant, decision: decision))
        }
    }

    /// The period holding container time `microseconds`: the variant playing there; before the first period, the
    /// first (the start's variant: a live item's time zero is its window's start, before the segment reading
    /// started with; another stream's first packet may come before the variant's).
    package func period(atMicroseconds microseconds: Int64) -> VariantPeriod? {
        lock.withLock { _periods.last { $0.startMicroseconds <= microseconds } ?? _periods.first }
    }

    /// The source's latest bandwidth estimate (bits per second; nil before it had one), updated at each segment
    /// decision: what an engine remembers of the server for its next item (``BandwidthHistory``).
    package var estimatedBitRate: Double? {
        get { lock.withLock { _estimatedBitRate } }
        set { lock.withLock { _estimatedBitRate = newValue } }
    }

    /// The decisions so far, oldest first.
    package var decisions: [VariantDecision] { lock.withLock { _decisions } }

}
