import CoreGraphics
import CoreMedia
import Foundation
import PlaybackEngine

/// Preferences for the variants an item may play (Apple's `AVVariantPreferences`).
public struct AVVariantPreferences: OptionSet, Sendable {
    /// The preferences' bits.
    public let rawValue: UInt

    /// Preferences from their bits.
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Variants with lossless audio may be chosen above the lossy ones when the network allows. Stored: the HLS
    /// source chooses among a presentation's variants by bit rate and caps, and treats every audio codec alike.
    public static let scalabilityToLosslessAudio = AVVariantPreferences(rawValue: 1 << 0)
}

/// **OpenAVFoundation extension, not Apple API.** What a variant policy sees before the next segment of an HTTP
/// Live Streaming item is fetched (see ``AVPlayerItem/oavfVariantPolicy``).
public struct OAVFVariantSituation: Sendable {
    /// One variant of the multivariant playlist.
    public struct Variant: Sendable, Equatable {
        /// `BANDWIDTH`, bits per second.
        public let peakBitRate: Double
        /// `AVERAGE-BANDWIDTH`, when stated.
        public let averageBitRate: Double?
        /// `RESOLUTION`, when stated.
        public let presentationSize: CGSize?
    }

    /// Every variant (I-frame-only ones left out), in playlist order.
    public let variants: [Variant]
    /// The index of the variant playing.
    public let currentVariant: Int
    /// The indices that may be chosen: within the item's caps (`preferredPeakBitRate`,
    /// `preferredMaximumResolution`) and whose playlist did not fail.
    public let eligibleVariants: [Int]
    /// The bandwidth estimate in bits per second from the segments fetched so far; nil until two were measured.
    public let estimatedBitRate: Double?
    /// Seconds of media read ahead of the playhead; nil when unknown.
    public let forwardBufferDuration: TimeInterval?
    /// The media sequence number of the segment about to be fetched.
    public let mediaSequence: Int
    /// The duration (`EXTINF`) of the segment about to be fetched, in seconds.
    public let segmentDuration: TimeInterval
}

/// **OpenAVFoundation extension, not Apple API.** Chooses the variant each segment of an HTTP Live Streaming item
/// comes from, in place of the built-in adaptive choice (Apple's is not replaceable). Called on the item's reading
/// thread before each segment is fetched; it must return quickly.
public protocol OAVFVariantPolicy: Sendable {
    /// The index in `situation.variants` of the variant the next segment comes from: one of
    /// `situation.eligibleVariants` (another index keeps the variant playing; when the variant playing is no longer
    /// eligible, the built-in choice decides).
    func chooseVariant(in situation: OAVFVariantSituation) -> Int
}

/// **OpenAVFoundation extension, not Apple API.** A change of variant of an HTTP Live Streaming item, with what it
/// was decided on (see ``AVPlayerItem/oavfVariantDecisions``).
public struct OAVFVariantDecision: Sendable, Equatable {
    /// Why the variant was chosen.
    public enum Reason: Sendable {
        /// The variant playback started on.
        case start
        /// The estimate sustains a higher variant with margin, and its next segment arrives before the buffer runs
        /// dry.
        case bandwidthUp
        /// The estimate no longer covers the variant.
        case bandwidthDown
        /// The forward buffer was running dry.
        case bufferLow
        /// Near the end of a video-on-demand item, the media buffered carries the rest of it on the variant chosen,
        /// above what the estimate alone sustains.
        case endOfItem
        /// The variant left the caps.
        case caps
        /// A variant's playlist failed to load.
        case fallback
        /// The app's ``OAVFVariantPolicy`` chose it.
        case policy
    }

    /// When it was decided (ahead of playback: when the segment was requested).
    public let date: Date
    /// The media sequence number of the first segment from the new variant.
    public let mediaSequence: Int
    /// The item time where the new variant starts playing.
    public let itemTime: CMTime
    /// The peak bit rate (`BANDWIDTH`) of the variant left; nil at the start.
    public let fromPeakBitRate: Double?
    /// The peak bit rate (`BANDWIDTH`) of the variant chosen.
    public let toPeakBitRate: Double
    /// The chosen variant's `RESOLUTION`, when stated.
    public let toPresentationSize: CGSize?
    /// Why the variant was chosen.
    public let reason: Reason
    /// The bandwidth estimate (bits per second) the choice was made on; nil before there was one.
    public let estimatedBitRate: Double?
    /// The forward buffer (seconds) the choice was made on; nil when unknown.
    public let forwardBufferDuration: TimeInterval?
    /// The peak bit rate cap in force (`preferredPeakBitRate`); nil: none.
    public let peakBitRateCap: Double?
    /// The resolution cap in force (`preferredMaximumResolution`); nil: none.
    public let maximumResolutionCap: CGSize?
}

extension OAVFVariantDecision {
    init(_ d: VariantDecision, session: ItemSession) {
        date = d.date
        mediaSequence = d.mediaSequence
        itemTime = session.itemTime(CMTime(value: d.startMicroseconds, timescale: 1_000_000))
        fromPeakBitRate = d.from.map { Double($0.peakBitRate) }
        toPeakBitRate = Double(d.to.peakBitRate)
        toPresentationSize = d.to.presentationSize
        reason = Reason(d.reason)
        estimatedBitRate = d.estimatedBitRate
        forwardBufferDuration = d.forwardBuffer
        peakBitRateCap = d.caps.maximumPeakBitRate
        maximumResolutionCap = d.caps.maximumResolution.map { CGSize(width: $0.width, height: $0.height) }
    }
}

extension OAVFVariantDecision.Reason {
    init(_ reason: VariantSwitchReason) {
        switch reason {
        case .start, .hold: self = .start
        case .bandwidthUp: self = .bandwidthUp
        case .bandwidthDown: self = .bandwidthDown
        case .bufferLow: self = .bufferLow
        case .endOfItem: self = .endOfItem
        case .caps: self = .caps
        case .fallback: self = .fallback
        case .policy: self = .policy
        }
    }
}

extension VariantDescription {
    /// `RESOLUTION` as a size, when stated.
    var presentationSize: CGSize? {
        guard let width, let height else { return nil }
        return CGSize(width: width, height: height)
    }
}

/// The engine-side face of an app's ``OAVFVariantPolicy``.
struct AppVariantPolicy: VariantPolicy {
    let policy: any OAVFVariantPolicy

    func chooseVariant(in s: VariantSituation) -> VariantChoice {
        let situation = OAVFVariantSituation(
            variants: s.variants.map {
                .init(
                    peakBitRate: Double($0.peakBitRate), averageBitRate: $0.averageBitRate.map(Double.init),
                    presentationSize: $0.presentationSize)
            },
            currentVariant: s.current, eligibleVariants: s.eligible, estimatedBitRate: s.estimatedBitRate,
            forwardBufferDuration: s.forwardBuffer, mediaSequence: s.mediaSequence,
            segmentDuration: s.segmentDuration)
        return VariantChoice(index: policy.chooseVariant(in: situation), reason: .policy)
    }
}

extension AVPlayerItem {
    /// **OpenAVFoundation extension, not Apple API.** The policy that chooses the variant of each segment of an
    /// HTTP Live Streaming item; nil (the default): the built-in one, on the bandwidth estimate (from the first
    /// segment's transfer on; before it, what an earlier item of the same player measured of the same host) and the
    /// buffer together: up to the first rung of the best plan for the next few segments (RobustMPC: the rungs'
    /// bit rates less stalls and switches, on the recent segments' throughput discounted by how far that prediction
    /// recently overshot), down when that plan starts lower and the variant takes more than 1.2 × the estimate (2.4 ×
    /// with a full buffer) or its next segment would arrive too late. A change applies from the next segment; the
    /// caps still bound the choice.
    public var oavfVariantPolicy: (any OAVFVariantPolicy)? {
        get { read { $0.variantPolicy } }
        set {
            mutate { $0.variantPolicy = newValue }
            applyVariantSettings()
        }
    }

    /// **OpenAVFoundation extension, not Apple API.** Every change of variant of an HTTP Live Streaming item so far
    /// (the start first), with its reason and what it was decided on; empty for other items. `avplay --events`
    /// prints them.
    public var oavfVariantDecisions: [OAVFVariantDecision] {
        guard let session = read({ $0.session }), let control = session.variantControl else { return [] }
        return control.decisions.map { OAVFVariantDecision($0, session: session) }
    }

    /// The caps the item's settings make (every network counts as inexpensive: the `ForExpensiveNetworks` ones do
    /// not apply).
    static func variantCaps(_ s: State) -> VariantCaps {
        var caps = VariantCaps()
        if s.preferredPeakBitRate > 0 { caps.maximumPeakBitRate = s.preferredPeakBitRate }
        let size = s.preferredMaximumResolution
        if size.width > 0 && size.height > 0 {
            caps.maximumResolution = SourceOptions.PixelSize(width: Int(size.width), height: Int(size.height))
        }
        return caps
    }

    /// Hands the caps and policy to the source playing the item, which reads them before each segment: a command,
    /// applied by the engine thread (no caller thread writes the source's settings).
    func applyVariantSettings() {
        guard let (session, engine) = sessionAndEngine() else { return }
        let (caps, policy) = read { (Self.variantCaps($0), $0.variantPolicy) }
        engine.configure(session, .variantSettings(caps, policy: policy.map { AppVariantPolicy(policy: $0) }))
    }

    /// Follows the variant playing at the current time: `presentationSize` takes its size, and (after the start)
    /// the access log closes the period of the variant left.
    func refreshPlayingVariant() {
        guard let session = read({ $0.session }), let control = session.variantControl else { return }
        let now = currentTime()
        guard now.isNumeric,
            let playing = control.period(
                atMicroseconds: session.containerTime(now).convertScale(1_000_000, method: .default).value)
        else { return }
        let previous = read { $0.variantPlaying }
        guard previous?.variant != playing.variant else {
            if previous != playing { mutate { $0.variantPlaying = playing } }
            return
        }
        if previous != nil, let player = read({ $0.player }) { player.closeAccessLogPeriod(of: self) }
        mutate { $0.variantPlaying = playing }
        if let width = playing.variant.width, let height = playing.variant.height {
            let size = CGSize(width: width, height: height)
            if read({ $0.presentationSize }) != size { set(\.presentationSize) { $0.presentationSize = size } }
        }
    }
}
