import Foundation
import PlaybackEngine

/// Delivers the item's subtitles as attributed strings to a delegate, at the times they are shown (Apple's
/// `AVPlayerItemLegibleOutput`):
///
///     let output = AVPlayerItemLegibleOutput()
///     output.setDelegate(self, queue: .main)
///     item.add(output)
///     // legibleOutput(_:didOutputAttributedStrings:nativeSampleBuffers:forItemTime:) as cues come and go
///
/// The output follows the option selected in the item's legible media-selection group. Each call carries every
/// cue shown from `itemTime` on — one attributed string per cue, in start order; an empty array means nothing is
/// shown any more. Cues arrive in order and each once as playback passes them, at any rate and in either
/// direction; after a seek ``AVPlayerItemOutputPushDelegate/outputSequenceWasFlushed(_:)`` comes first, then the
/// cues shown at the new time. The strings carry Core Media's text-markup attributes (`kCMTextMarkupAttribute_…`
/// as `NSAttributedString.Key`s) as far as the source has them: foreground colour, bold, italic, underline, and
/// for the whole string alignment and position (see `AVPlayerItemLegibleOutput+Text.swift`); rules of
/// `AVPlayerItem.textStyleRules` without a selector apply to every string.
///
/// With `suppressesPlayerRendering` set, an `AVPlayerLayer` of the item's player stops drawing the subtitles over the
/// picture (the app draws the delivered strings itself), as on Apple's systems.
///
/// Sources: SubRip, WebVTT, mov_text (3GPP timed text) and ASS/SSA subtitle tracks of files (libavcodec decodes
/// every one into ASS events, whose styling is mapped). Bitmap subtitles (PGS, DVB, VobSub) are decoded but carry
/// no text: nothing is delivered for them.
///
/// Differs from Apple:
/// - No `CMSampleBuffer`s exist here: `nativeSampleBuffers` is always empty, whatever
///   `mediaSubtypesForNativeRepresentation` lists (the list is kept and returned).
/// - With no delegate queue the delegate is called on the main queue.
/// - `itemTime` is the time the strings are shown from: a cue's start (its end, playing backwards), or the time
///   a seek landed on.
/// - ``textStylingResolution`` changes nothing: there are no user caption preferences on Linux, so `.default` and
///   `.sourceAndRulesOnly` give the same strings.
///
/// Thread-safe: every member may be called from any thread.
open class AVPlayerItemLegibleOutput: AVPlayerItemOutput, @unchecked Sendable {
    /// How far a text style goes (Apple's `AVPlayerItemLegibleOutput.TextStylingResolution`).
    public struct TextStylingResolution: RawRepresentable, Hashable, Sendable {
        /// The resolution's name.
        public let rawValue: String
        /// A resolution with this name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The source's styles, the item's text style rules and the user's preferences.
        public static let `default` = TextStylingResolution(
            rawValue: "AVPlayerItemLegibleOutputTextStylingResolutionDefault")
        /// Only the source's styles and the item's text style rules.
        public static let sourceAndRulesOnly = TextStylingResolution(
            rawValue: "AVPlayerItemLegibleOutputTextStylingResolutionSourceAndRulesOnly")
    }

    /// The subtypes asked for as native samples (kept; see the type's notes).
    private let nativeSubtypes: [NSNumber]
    /// Follows the playhead on the engine thread.
    let feed = LegibleOutputFeed()

    /// Guarded by `outputLock`.
    private weak var pushDelegate: (any AVPlayerItemLegibleOutputPushDelegate)?
    private var queue: DispatchQueue?
    private var advanceInterval: TimeInterval = 0
    private var stylingResolution = TextStylingResolution.default

    /// An output delivering every cue as an attributed string, as Apple's `init()`.
    public convenience override init() {
        self.init(mediaSubtypesForNativeRepresentation: [])
    }

    /// An output that would deliver cues of the listed subtypes (FourCCs) as sample buffers, as Apple's
    /// `init(mediaSubtypesForNativeRepresentation:)`. Here every cue comes as an attributed string (see the type's
    /// notes). Listing `'c608'` traps, as Apple raises for it.
    public init(mediaSubtypesForNativeRepresentation subtypes: [NSNumber]) {
        if subtypes.contains(where: { $0.uint32Value == 0x6336_3038 }) {
            apiViolation("'c608' cannot be delivered as native samples (AVPlayerItemLegibleOutput).")
        }
        nativeSubtypes = subtypes
        super.init()
        feed.owner = WeakLegibleOutput(self)
    }

    /// The subtypes given to ``init(mediaSubtypesForNativeRepresentation:)``.
    var mediaSubtypesForNativeRepresentation: [NSNumber] { nativeSubtypes }

    // MARK: Delegate

    /// The delegate, held weakly, as Apple's `delegate`.
    open var delegate: (any AVPlayerItemLegibleOutputPushDelegate)? { outputLock.withLock { pushDelegate } }

    /// The queue delegate methods are called on, as Apple's `delegateQueue`.
    open var delegateQueue: DispatchQueue? { outputLock.withLock { queue } }

    /// Sets the delegate (held weakly) and its queue, as Apple's `setDelegate(_:queue:)`. Differs from Apple: a nil
    /// queue means the main queue. Use a serial queue: calls are made in order, one after another.
    open func setDelegate(_ delegate: (any AVPlayerItemLegibleOutputPushDelegate)?, queue delegateQueue: DispatchQueue?)
    {
        outputLock.withLock {
            pushDelegate = delegate
            queue = delegateQueue
        }
    }

    /// How long before a cue is shown it may be delivered, in seconds of playback, as Apple's
    /// `advanceIntervalForDelegateInvocation` (default 0: when it is shown). A negative or non-finite value counts
    /// as 0.
    open var advanceIntervalForDelegateInvocation: TimeInterval {
        get { outputLock.withLock { advanceInterval } }
        set { outputLock.withLock { advanceInterval = newValue.isFinite ? max(0, newValue) : 0 } }
    }

    /// How far text styles go, as Apple's `textStylingResolution`; any other value traps (Apple raises).
    open var textStylingResolution: TextStylingResolution {
        get { outputLock.withLock { stylingResolution } }
        set {
            guard newValue == .default || newValue == .sourceAndRulesOnly else {
                apiViolation("Unknown text styling resolution \(newValue.rawValue).")
            }
            outputLock.withLock { stylingResolution = newValue }
        }
    }

    // MARK: Engine side

    override func bindingChanged(from old: Binding?, to new: Binding?) {
        if let old, old.engine !== new?.engine { old.engine.removePlayheadSink(feed) }
        feed.setSession(new?.session)
        new?.engine.addPlayheadSink(feed)
    }

    /// Calls `legibleOutput(_:didOutputAttributedStrings:…)` on the delegate queue with `cues` as strings.
    func deliver(_ cues: [SubtitleCue], script: ASSScript, at itemTime: CMTime) {
        let rules = attachedItem?.read { $0.textStyleRules } ?? []
        let strings = cues.compactMap { Self.attributedString(for: $0, script: script, rules: rules) }
        send { delegate, output in
            delegate.legibleOutput(
                output, didOutputAttributedStrings: strings, nativeSampleBuffers: [], forItemTime: itemTime)
        }
    }

    /// Calls `outputSequenceWasFlushed` on the delegate queue.
    func notifySequenceWasFlushed() {
        send { delegate, output in delegate.outputSequenceWasFlushed(output) }
    }

    private func send(_ call: @escaping (any AVPlayerItemLegibleOutputPushDelegate, AVPlayerItemLegibleOutput) -> Void)
    {
        let (delegate, queue) = outputLock.withLock { (pushDelegate, self.queue) }
        guard let delegate else { return }
        // The delegate is used only on its queue, as the API contract says.
        let work = UncheckedLegibleDelivery(delegate: delegate, output: self, call: call)
        (queue ?? .main).async { work.run() }
    }
}

/// What a legible output hands its delegate, as Apple's `AVPlayerItemLegibleOutputPushDelegate`.
///
/// Differs from Apple: the method is `@objc optional` there; here a protocol extension gives a default that does
/// nothing.
public protocol AVPlayerItemLegibleOutputPushDelegate: AVPlayerItemOutputPushDelegate {
    /// The cues shown from `itemTime` on (one string per cue; empty: nothing is shown). `nativeSamples` is always
    /// empty here.
    func legibleOutput(
        _ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
        nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime)
}

extension AVPlayerItemLegibleOutputPushDelegate {
    /// Does nothing (Apple: an optional method not implemented).
    public func legibleOutput(
        _ output: AVPlayerItemLegibleOutput, didOutputAttributedStrings strings: [NSAttributedString],
        nativeSampleBuffers nativeSamples: [Any], forItemTime itemTime: CMTime
    ) {}
}

/// A delegate call handed to the delegate queue (the delegate need not be `Sendable`; it is only used there).
private struct UncheckedLegibleDelivery: @unchecked Sendable {
    let delegate: any AVPlayerItemLegibleOutputPushDelegate
    let output: AVPlayerItemLegibleOutput
    let call: (any AVPlayerItemLegibleOutputPushDelegate, AVPlayerItemLegibleOutput) -> Void

    func run() { call(delegate, output) }
}

/// The feed's weak reference to its output (set once, before the feed is registered anywhere).
final class WeakLegibleOutput: @unchecked Sendable {
    weak var output: AVPlayerItemLegibleOutput?
    init(_ output: AVPlayerItemLegibleOutput) { self.output = output }
}
