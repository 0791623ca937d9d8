import Foundation
import OAVFLocking
import PlaybackEngine

/// The presentation state of an asset played by a player.
///
/// `status` is `.unknown` at creation and starts loading only once the item is the current item of
/// a player (or queued in an `AVQueuePlayer`); it becomes `.readyToPlay` when the media is opened
/// and its first frames are decoded, or `.failed` with ``error`` set. Observable properties
/// (`status`, `duration`, `presentationSize`, `tracks`, `loadedTimeRanges`, the buffer flags …) can
/// be observed with `observe(\.status, options: [.initial, .new]) { item, change in }`, with Swift
/// Observation, and by Apple's notifications.
///
/// Thread-safe: every property may be read from any thread; reads never block on the engine.
open class AVPlayerItem: NSObject, NSCopying, @unchecked Sendable {
    /// Apple's raw values.
    public enum Status: Int, Sendable {
        /// The item has not been loaded into a player yet.
        case unknown = 0
        /// The item can be played.
        case readyToPlay = 1
        /// The item cannot be played; see ``AVPlayerItem/error``.
        case failed = 2
    }

    /// The asset the item plays.
    public let asset: AVAsset
    /// Asset keys loaded before the item becomes ready (all keys load together here).
    public let automaticallyLoadedAssetKeys: [String]

    /// Guards `state`: what the app set and the latest engine snapshot the item publishes, read and written by app
    /// threads and by the engine's event delivery. Public type: it keeps its lock for the snapshot it publishes
    /// (property reads never wait for the engine, DESIGN.md).
    let lock = ConditionLock()
    /// Guarded by `lock`.
    var state = State()
    /// Change notification for `observe(_:options:)` and Swift Observation.
    let observationHub = ObservationHub<AVPlayerItem>()
    /// The video composition and its renderer (own lock; see AVPlayerItem+VideoComposition.swift).
    let videoCompositionState = VideoCompositionState()
    /// Follows the timed metadata for ``timedMetadata`` while the item plays in a player.
    let timedMetadataFeed = TimedMetadataFeed()
    /// The item, weakly, for its timebase's reads.
    private let itemReference: WeakItemReference
    /// The read-only timebase ``timebase`` hands out (one per item).
    let ownTimebase: CMTimebase

    struct State {
        var status = Status.unknown
        var error: (any Error)?
        var duration = CMTime.indefinite
        var presentationSize = CGSize.zero
        var tracks: [AVPlayerItemTrack] = []
        /// The tracks made for a session (see `sessionTracks()`), before or as `tracks` publishes them.
        var sessionTracks: (session: ObjectIdentifier?, tracks: [AVPlayerItemTrack])?
        var loadedTimeRanges: [NSValue] = []
        var seekableTimeRanges: [NSValue] = []
        var isPlaybackLikelyToKeepUp = false
        var isPlaybackBufferFull = false
        var isPlaybackBufferEmpty = true
        var preferredForwardBufferDuration: TimeInterval = 0
        var forwardPlaybackEndTime = CMTime.invalid
        var reversePlaybackEndTime = CMTime.invalid
        var timedMetadata: [AVMetadataItem]?
        var canPlayFastForward = false
        var canPlaySlowForward = false
        var canPlayReverse = false
        var canPlaySlowReverse = false
        var canPlayFastReverse = false
        var canStepForward = false
        var canStepBackward = false
        var audioTimePitchAlgorithm = AVAudioTimePitchAlgorithm.timeDomain
        var preferredPeakBitRate: Double = 0
        var preferredPeakBitRateForExpensiveNetworks: Double = 0
        var preferredMaximumResolution = CGSize.zero
        var preferredMaximumResolutionForExpensiveNetworks = CGSize.zero
        var canUseNetworkResourcesForLiveStreamingWhilePaused = false
        var videoApertureMode = AVVideoApertureMode.cleanAperture
        var allowedAudioSpatializationFormats: AVAudioSpatializationFormats?
        var appliesPerFrameHDRDisplayMetadata = true
        /// The live offsets (see `AVPlayerItem+LiveOffset.swift`): the app's (invalid: not set), the recommended one
        /// (invalid until a live item is ready).
        var configuredTimeOffsetFromLive = CMTime.invalid
        var recommendedTimeOffsetFromLive = CMTime.invalid
        var automaticallyPreservesTimeOffsetFromLive = false
        var startsOnFirstEligibleVariant = false
        var variantPreferences: AVVariantPreferences = []
        /// The app's variant policy (OpenAVFoundation extension), handed to each session's source.
        var variantPolicy: (any OAVFVariantPolicy)?
        /// The variant period at the current time (HLS), as last followed.
        var variantPlaying: VariantPeriod?
        var textStyleRules: [AVTextStyleRule]?
        var selection: AVMutableMediaSelection?
        var audioMix: AVAudioMix?
        var collectors: [AVPlayerItemMediaDataCollector] = []
        var outputs: [AVPlayerItemOutput] = []
        weak var player: AVPlayer?
        var session: ItemSession?
        var accessLog = AVPlayerItemAccessLog(events: [])
        var errorLog = AVPlayerItemErrorLog(events: [])
        /// How many of the source's failed requests and finished transfers are already in the logs (the transfers:
        /// the network log's cursor), and the main segments' packet bytes counted by the last access-log event; of
        /// `loggedNetworkLog`, the log they count in (a session after the item rejoined a player has a new source,
        /// whose log starts from zero).
        var loggedFailures = 0
        var loggedTransfers = 0
        var loggedMainPackets = NetworkLog.PacketBytes()
        weak var loggedNetworkLog: NetworkLog?
        var readyDate: Date?
        var attachDate: Date?
        /// Whether the engine reported the current session ready (its time is the engine's from then on).
        var sessionReady = false
        /// The item's own time while it is in no player: kept from the session it left (a removed or finished item
        /// keeps its time, as Apple's) and moved by seeks meanwhile. When it joins a player it is handed to the new
        /// session as where it starts (the engine seeks there once it is ready and current) and cleared: from then on
        /// the engine's time is the item's.
        var resumeTime: CMTime?
        /// A seek asked for while the item was in no player and had never been ready (the latest, with how it
        /// lands); handed to the session as where it starts, like ``resumeTime``.
        var seekWhenReady: (time: CMTime, mode: SeekMode)?
    }

    /// Creates an item for the asset at `URL` (`AVURLAsset(url:)`); returns at once, `.unknown`.
    public convenience init(url URL: URL) {
        self.init(asset: AVURLAsset(url: URL))
    }

    /// Creates an item that loads the asset's `duration` before becoming ready.
    public convenience init(asset: AVAsset) {
        self.init(asset: asset, automaticallyLoadedAssetKeys: nil)
    }

    /// Creates an item that loads `automaticallyLoadedAssetKeys` before becoming ready; if one fails
    /// to load, the item fails.
    public init(asset: AVAsset, automaticallyLoadedAssetKeys: [String]?) {
        self.asset = asset
        self.automaticallyLoadedAssetKeys = automaticallyLoadedAssetKeys ?? ["duration"]
        let reader = WeakItemReference()
        itemReference = reader
        ownTimebase = CMTimebase(following: { reader.item?.timebaseReading ?? (.invalid, 0) })
        super.init()
        reader.item = self
        timedMetadataFeed.owner = ItemTimedMetadata(self)
    }

    /// The async-property form (Apple's `AVPartialAsyncProperty` keys).
    public convenience init(asset: AVAsset, automaticallyLoadedAssetKeys: [AVPartialAsyncProperty<AVAsset>]) {
        self.init(asset: asset, automaticallyLoadedAssetKeys: automaticallyLoadedAssetKeys.map(\.key))
    }

    /// An independent item for the same asset with the same settings, audio mix and video composition (outputs are
    /// not copied).
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = AVPlayerItem(asset: asset, automaticallyLoadedAssetKeys: automaticallyLoadedAssetKeys)
        let s = read { $0 }
        copy.mutate {
            $0.preferredForwardBufferDuration = s.preferredForwardBufferDuration
            $0.forwardPlaybackEndTime = s.forwardPlaybackEndTime
            $0.reversePlaybackEndTime = s.reversePlaybackEndTime
            $0.audioTimePitchAlgorithm = s.audioTimePitchAlgorithm
            $0.preferredPeakBitRate = s.preferredPeakBitRate
            $0.preferredMaximumResolution = s.preferredMaximumResolution
            $0.preferredPeakBitRateForExpensiveNetworks = s.preferredPeakBitRateForExpensiveNetworks
            $0.preferredMaximumResolutionForExpensiveNetworks = s.preferredMaximumResolutionForExpensiveNetworks
            $0.startsOnFirstEligibleVariant = s.startsOnFirstEligibleVariant
            $0.variantPreferences = s.variantPreferences
            $0.variantPolicy = s.variantPolicy
            $0.configuredTimeOffsetFromLive = s.configuredTimeOffsetFromLive
            $0.automaticallyPreservesTimeOffsetFromLive = s.automaticallyPreservesTimeOffsetFromLive
            $0.canUseNetworkResourcesForLiveStreamingWhilePaused = s.canUseNetworkResourcesForLiveStreamingWhilePaused
        }
        copy.audioMix = audioMix
        copy.videoComposition = videoComposition
        copy.seekingWaitsForVideoCompositionRendering = seekingWaitsForVideoCompositionRendering
        return copy
    }

    func read<T>(_ body: (State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(state)
    }

    func mutate<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    // MARK: Status

    /// Whether the item can be played: unknown, ready to play, or failed.
    open var status: Status { access(\.status) { $0.status } }
    /// Set when `status` is `.failed`: an `AVError` (bridge with `as NSError`).
    open var error: (any Error)? { access(\.error) { $0.error } }
    /// `.indefinite` until ready.
    open var duration: CMTime { access(\.duration) { $0.duration } }
    /// The display size of the video (after rotation and pixel aspect ratio); `.zero` until ready
    /// and for audio-only items.
    open var presentationSize: CGSize { access(\.presentationSize) { $0.presentationSize } }
    /// Empty until ready.
    open var tracks: [AVPlayerItemTrack] { access(\.tracks) { $0.tracks } }
    /// The items of the timed-metadata group in effect at the current time (deprecated by Apple in favour of
    /// ``AVPlayerItemMetadataOutput``, which delivers the same groups): nil before the first (also after a seek there);
    /// changes on the main queue. See ``AVPlayerItemMetadataOutput`` for the sources.
    open var timedMetadata: [AVMetadataItem]? { access(\.timedMetadata) { $0.timedMetadata } }

    // MARK: Buffering

    /// Item-time ranges of media that is readily available (from the playhead to what is demuxed).
    open var loadedTimeRanges: [NSValue] { access(\.loadedTimeRanges) { $0.loadedTimeRanges } }
    /// The whole item for local media once ready.
    open var seekableTimeRanges: [NSValue] { access(\.seekableTimeRanges) { $0.seekableTimeRanges } }
    /// Whether playback is likely to keep up without stalling, from what is buffered and how fast it arrives.
    open var isPlaybackLikelyToKeepUp: Bool { access(\.isPlaybackLikelyToKeepUp) { $0.isPlaybackLikelyToKeepUp } }
    /// Whether the buffer is full: reading ahead has stopped at the buffering limit.
    open var isPlaybackBufferFull: Bool { access(\.isPlaybackBufferFull) { $0.isPlaybackBufferFull } }
    /// Whether the buffer is empty: playback stalls or will.
    open var isPlaybackBufferEmpty: Bool { access(\.isPlaybackBufferEmpty) { $0.isPlaybackBufferEmpty } }

    /// Seconds of media to read ahead; 0 lets the engine choose.
    open var preferredForwardBufferDuration: TimeInterval {
        get { access(\.preferredForwardBufferDuration) { $0.preferredForwardBufferDuration } }
        set {
            let seconds = max(0, newValue)
            set(\.preferredForwardBufferDuration) { $0.preferredForwardBufferDuration = seconds }
            if let (session, engine) = sessionAndEngine() {
                engine.configure(session, .forwardBufferDuration(seconds > 0 ? seconds : nil))
            }
        }
    }

    /// The highest `BANDWIDTH` of the HTTP Live Streaming variants chosen, bits per second; 0: no limit. Applies at
    /// once, also while playing: the next segment comes from a variant within it (the lowest when none is).
    open var preferredPeakBitRate: Double {
        get { access(\.preferredPeakBitRate) { $0.preferredPeakBitRate } }
        set {
            set(\.preferredPeakBitRate) { $0.preferredPeakBitRate = newValue }
            applyVariantSettings()
        }
    }

    /// The peak bit rate on expensive networks: stored. Every network counts as inexpensive (there is no
    /// expensive-network signal on Linux), so it never applies.
    open var preferredPeakBitRateForExpensiveNetworks: Double {
        get { access(\.preferredPeakBitRateForExpensiveNetworks) { $0.preferredPeakBitRateForExpensiveNetworks } }
        set {
            set(\.preferredPeakBitRateForExpensiveNetworks) { $0.preferredPeakBitRateForExpensiveNetworks = newValue }
        }
    }

    /// The largest `RESOLUTION` of the HTTP Live Streaming variants chosen; `.zero`: no limit. Applies at once, also
    /// while playing, as ``preferredPeakBitRate`` does.
    open var preferredMaximumResolution: CGSize {
        get { access(\.preferredMaximumResolution) { $0.preferredMaximumResolution } }
        set {
            set(\.preferredMaximumResolution) { $0.preferredMaximumResolution = newValue }
            applyVariantSettings()
        }
    }

    /// The maximum resolution on expensive networks: stored. Every network counts as inexpensive (there is no
    /// expensive-network signal on Linux), so it never applies.
    open var preferredMaximumResolutionForExpensiveNetworks: CGSize {
        get {
            access(\.preferredMaximumResolutionForExpensiveNetworks) {
                $0.preferredMaximumResolutionForExpensiveNetworks
            }
        }
        set {
            set(\.preferredMaximumResolutionForExpensiveNetworks) {
                $0.preferredMaximumResolutionForExpensiveNetworks = newValue
            }
        }
    }

    /// Whether a paused live item keeps reloading its playlists (its `seekableTimeRanges` stay current). Default
    /// false: while the item's player is paused no playlist is reloaded (what is listed may still be fetched into
    /// the buffer), and a playhead the window left behind meanwhile resumes at the window's start.
    open var canUseNetworkResourcesForLiveStreamingWhilePaused: Bool {
        get {
            access(\.canUseNetworkResourcesForLiveStreamingWhilePaused) {
                $0.canUseNetworkResourcesForLiveStreamingWhilePaused
            }
        }
        set {
            set(\.canUseNetworkResourcesForLiveStreamingWhilePaused) {
                $0.canUseNetworkResourcesForLiveStreamingWhilePaused = newValue
            }
            updateLiveNetworkUse()
        }
    }

    /// The offset from the live edge at which a live item starts playing, and resumes after a seek to
    /// `.positiveInfinity`. Until set, the ``recommendedTimeOffsetFromLive``; `.invalid` for content that is not
    /// live. Set it before the item is given to a player for it to choose where playback starts (Apple reads it at
    /// that time too); the start lands on the segment holding that time.
    open var configuredTimeOffsetFromLive: CMTime {
        get {
            // Live once ready (the recommended offset is then valid); before ready, what the app set.
            access(\.configuredTimeOffsetFromLive) { s in
                if s.status == .unknown { return s.configuredTimeOffsetFromLive }
                guard s.recommendedTimeOffsetFromLive.isValid else { return .invalid }
                return s.configuredTimeOffsetFromLive.isValid
                    ? s.configuredTimeOffsetFromLive : s.recommendedTimeOffsetFromLive
            }
        }
        set {
            let offset = newValue.isNumeric && newValue >= .zero ? newValue : CMTime.invalid
            set(\.configuredTimeOffsetFromLive) { $0.configuredTimeOffsetFromLive = offset }
        }
    }

    /// A recommended offset from the live edge: three target durations (the distance RFC 8216 §6.3.3 keeps from the
    /// edge), one more after each stall of a live item (the network did not keep up), at most the window's length.
    /// `.invalid` for content that is not live. Changes post ``recommendedTimeOffsetFromLiveDidChangeNotification``.
    open var recommendedTimeOffsetFromLive: CMTime {
        access(\.recommendedTimeOffsetFromLive) { $0.recommendedTimeOffsetFromLive }
    }

    /// Whether, after a stall of a live item, the player seeks forward to restore the playhead's offset from the end
    /// of `seekableTimeRanges` as it was when the stall began. Default false; no effect on content that is not live.
    open var automaticallyPreservesTimeOffsetFromLive: Bool {
        get { access(\.automaticallyPreservesTimeOffsetFromLive) { $0.automaticallyPreservesTimeOffsetFromLive } }
        set {
            set(\.automaticallyPreservesTimeOffsetFromLive) { $0.automaticallyPreservesTimeOffsetFromLive = newValue }
            // The engine makes the seek when a stall ends.
            if let (session, engine) = sessionAndEngine() { engine.configure(session, .preservesLiveOffset(newValue)) }
        }
    }

    /// Whether an HTTP Live Streaming item starts on the first variant of the multivariant playlist within the
    /// caps. Playback always does here (no bandwidth is known before the first segment, and none is remembered
    /// from earlier items), so `false` behaves as `true`; stored and observable.
    open var startsOnFirstEligibleVariant: Bool {
        get { access(\.startsOnFirstEligibleVariant) { $0.startsOnFirstEligibleVariant } }
        set { set(\.startsOnFirstEligibleVariant) { $0.startsOnFirstEligibleVariant = newValue } }
    }

    /// Preferences for the variants chosen; `[]` (the default): none. Stored (see
    /// ``AVVariantPreferences/scalabilityToLosslessAudio``).
    open var variantPreferences: AVVariantPreferences {
        get { access(\.variantPreferences) { $0.variantPreferences } }
        set { set(\.variantPreferences) { $0.variantPreferences = newValue } }
    }

    /// Styling laid over the item's subtitles, as Apple's `textStyleRules`: rules without a `textSelector` apply to
    /// every cue, later rules over earlier ones. They reach the strings of legible outputs (their attributes added to
    /// each string) and the subtitles drawn in an `AVPlayerLayer`'s window (foreground colour, bold, italic,
    /// underline, font family, and font size as a percentage of the video's height or relative to the size
    /// otherwise used, each replacing what the stream's styles say; a cue's own inline styling still applies to its
    /// runs). Differs from Apple: Apple applies the rules to WebVTT only; here to every text subtitle format. Rules
    /// with a selector are ignored (no format here carries the cue classes they would match).
    open var textStyleRules: [AVTextStyleRule]? {
        get { access(\.textStyleRules) { $0.textStyleRules } }
        set { set(\.textStyleRules) { $0.textStyleRules = newValue } }
    }

    // MARK: Rates and stepping (what the engine supports now)

    /// Whether the item can play forward faster than 1: true when it has video.
    open var canPlayFastForward: Bool { access(\.canPlayFastForward) { $0.canPlayFastForward } }
    /// Whether the item can play forward slower than 1.
    open var canPlaySlowForward: Bool { access(\.canPlaySlowForward) { $0.canPlaySlowForward } }
    /// False until reverse playback lands.
    open var canPlayReverse: Bool { access(\.canPlayReverse) { $0.canPlayReverse } }
    /// Whether the item can play backward slower than 1 (seekable media).
    open var canPlaySlowReverse: Bool { access(\.canPlaySlowReverse) { $0.canPlaySlowReverse } }
    /// Whether the item can play backward faster than 1 (seekable media).
    open var canPlayFastReverse: Bool { access(\.canPlayFastReverse) { $0.canPlayFastReverse } }
    /// True for items with video once ready (fixed from then on).
    open var canStepForward: Bool { access(\.canStepForward) { $0.canStepForward } }
    /// Whether the item can step backward: true for seekable media with video.
    open var canStepBackward: Bool { access(\.canStepBackward) { $0.canStepBackward } }

    /// The algorithm for audio at rates other than 1 (default `.timeDomain`): `.timeDomain` (WSOLA,
    /// FFmpeg's atempo) and `.spectral` (Rubber Band) keep the pitch, `.varispeed` lets it follow the
    /// rate, `.lowQualityZeroLatency` snaps the rate to {0.5, 0.666667, 0.8, 1, 1.25, 1.5, 2} (the
    /// player still reports the rate you set; time moves at the snapped one). Outside 1/32…32 audio
    /// is muted and video plays on. Traps for an unknown constant, as Apple raises.
    open var audioTimePitchAlgorithm: AVAudioTimePitchAlgorithm {
        get { access(\.audioTimePitchAlgorithm) { $0.audioTimePitchAlgorithm } }
        set {
            guard Self.engineAlgorithm(newValue) != nil else {
                apiViolation("Unknown audioTimePitchAlgorithm “\(newValue.rawValue)”.")
            }
            set(\.audioTimePitchAlgorithm) { $0.audioTimePitchAlgorithm = newValue }
            applyTimePitchAlgorithm()
        }
    }

    /// The engine's algorithm for Apple's constant (nil for an unknown one).
    static func engineAlgorithm(_ a: AVAudioTimePitchAlgorithm) -> TimePitchAlgorithm? {
        switch a {
        case .timeDomain: return .timeDomain
        case .spectral: return .spectral
        case .varispeed: return .varispeed
        case .lowQualityZeroLatency: return .lowQualityZeroLatency
        default: return nil
        }
    }

    /// Per-track volume over time for playback (a copy is kept; changing the mix you passed has
    /// no effect until you set it again). Applies to the audio track being played.
    open var audioMix: AVAudioMix? {
        get { access(\.audioMix) { $0.audioMix } }
        set {
            let copy = newValue?.copy() as? AVAudioMix
            set(\.audioMix) { $0.audioMix = copy }
            applyAudioMix()
        }
    }

    /// Gives the engine the volume curve and time-pitch algorithm of the audio track played now (`audioStream`, or
    /// the session's).
    func applyAudioMix(audioStream: Int? = nil) {
        guard let (session, engine) = sessionAndEngine() else { return }
        let mix = read { $0.audioMix }
        let index = audioStream ?? session.descriptor.audioStream
        defer { applyTimePitchAlgorithm(audioStream: index) }
        guard let mix, let index,
            let trackID = asset.loader.loaded?.tracks.first(where: { $0.streamIndex == index })?.trackID
        else {
            engine.configure(session, .volumeCurve(nil))
            return
        }
        engine.configure(session, .volumeCurve(mix.volumeCurve(for: trackID)))
    }

    /// The algorithm for the played audio track (`audioStream`, or the session's): the audio mix's input parameters
    /// for that track when they name one, else the item's ``audioTimePitchAlgorithm``, as Apple documents.
    func playedTimePitchAlgorithm(audioStream: Int? = nil) -> TimePitchAlgorithm {
        let own = Self.engineAlgorithm(audioTimePitchAlgorithm) ?? .timeDomain
        guard let mix = read({ $0.audioMix }),
            let index = audioStream ?? read({ $0.session })?.descriptor.audioStream,
            let trackID = asset.loader.loaded?.tracks.first(where: { $0.streamIndex == index })?.trackID,
            let chosen = mix.inputParameters.first(where: { $0.trackID == trackID })?.audioTimePitchAlgorithm,
            let algorithm = Self.engineAlgorithm(chosen)
        else { return own }
        return algorithm
    }

    /// Tells the engine the played track's algorithm when this is its player's current item.
    func applyTimePitchAlgorithm(audioStream: Int? = nil) {
        guard let player, player.currentItem === self, let engine = player.existingEngine else { return }
        engine.setTimePitchAlgorithm(playedTimePitchAlgorithm(audioStream: audioStream))
    }

    // MARK: Time

    /// The item's current time (not key-value observable, as on Apple's systems). An item that left its player keeps
    /// its time (and a seek moves it); queued again, it continues from there.
    open func currentTime() -> CMTime {
        // Its own time while in no player (or leaving one: the end it kept), else the engine's.
        let (session, player, resume) = read { ($0.session, $0.player, $0.resumeTime) }
        if let resume { return resume }
        guard let session, let engine = player?.existingEngine else { return .zero }
        return engine.currentTime(of: session)
    }

    /// Playback ends here (with the end notification) instead of at the end of the media.
    /// `.invalid` (default) means the duration.
    open var forwardPlaybackEndTime: CMTime {
        get { access(\.forwardPlaybackEndTime) { $0.forwardPlaybackEndTime } }
        set {
            set(\.forwardPlaybackEndTime) { $0.forwardPlaybackEndTime = newValue }
            if let (session, engine) = sessionAndEngine() {
                engine.configure(session, .forwardEndTime(newValue.isNumeric ? newValue : nil))
            }
        }
    }

    /// Playback at a negative rate ends here (with the end notification) instead of at the start.
    /// `.invalid` (default) means zero.
    open var reversePlaybackEndTime: CMTime {
        get { access(\.reversePlaybackEndTime) { $0.reversePlaybackEndTime } }
        set {
            set(\.reversePlaybackEndTime) { $0.reversePlaybackEndTime = newValue }
            if let (session, engine) = sessionAndEngine() {
                engine.configure(session, .reverseEndTime(newValue.isNumeric ? newValue : nil))
            }
        }
    }

    func sessionAndEngine() -> (ItemSession, PlayerEngine)? {
        let (session, player) = read { ($0.session, $0.player) }
        guard let session, let engine = player?.existingEngine else { return nil }
        return (session, engine)
    }

    // MARK: Media selection

    /// The selected option of each group; automatic (the group's default) until `select(_:in:)`.
    open var currentMediaSelection: AVMediaSelection {
        access(\.currentMediaSelection) { s in
            s.selection.map { $0.copy() as! AVMediaSelection }
                ?? AVMediaSelection(asset: asset, groups: [], selections: [:])
        }
    }

    /// Selects `option` in `group` (nil for none where the group allows it). The audible option switches the
    /// played audio at once (playback continues from the same time); the legible option, the subtitles read.
    open func select(_ mediaSelectionOption: AVMediaSelectionOption?, in mediaSelectionGroup: AVMediaSelectionGroup) {
        set(\.currentMediaSelection) { s in
            if s.selection == nil {
                s.selection = asset.preferredMediaSelection.mutableCopy() as? AVMutableMediaSelection
            }
            s.selection?.select(mediaSelectionOption, in: mediaSelectionGroup)
        }
        NotificationCenter.default.post(name: AVPlayerItem.mediaSelectionDidChangeNotification, object: self)
        if mediaSelectionGroup.characteristic == .audible {
            // The selected audio option's track is the one enabled audio track.
            for t in tracks where t.assetTrack?.mediaType == .audio {
                t.setEnabledSilently(
                    mediaSelectionOption != nil && t.assetTrack?.trackID == mediaSelectionOption?.trackID)
            }
            applyPlayedStreams()
            // The forced subtitles shown follow the audio's language.
            applyMediaSelectionCriteria()
        }
        if mediaSelectionGroup.characteristic == .legible { applyLegibleStream() }
    }

    /// The option selected in `mediaSelectionGroup` (Apple's deprecated spelling of
    /// `currentMediaSelection.selectedMediaOption(in:)`).
    @available(iOS, deprecated: 11.0, message: "Use currentMediaSelection to obtain an instance of AVMediaSelection")
    open func selectedMediaOption(in mediaSelectionGroup: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        currentMediaSelection.selectedMediaOption(in: mediaSelectionGroup)
    }

    /// Returns the group to automatic selection: its default option, or what the player's media-selection criteria
    /// or the forced subtitles of the audio's language choose.
    open func selectMediaOptionAutomatically(in mediaSelectionGroup: AVMediaSelectionGroup) {
        set(\.currentMediaSelection) { s in
            s.selection?.selections[ObjectIdentifier(mediaSelectionGroup)] = nil
        }
        NotificationCenter.default.post(name: AVPlayerItem.mediaSelectionDidChangeNotification, object: self)
        if mediaSelectionGroup.characteristic == .audible {
            // Back to the group's default option: its track becomes the enabled audio track, live.
            let option = currentMediaSelection.selectedMediaOption(in: mediaSelectionGroup)
            for t in tracks where t.assetTrack?.mediaType == .audio {
                t.setEnabledSilently(option != nil && t.assetTrack?.trackID == option?.trackID)
            }
            applyPlayedStreams()
        }
        if mediaSelectionGroup.characteristic == .legible { applyLegibleStream() }
        // Criteria, and the forced subtitles of the audio's language, apply to the group again.
        applyMediaSelectionCriteria()
    }

    // MARK: Collectors

    /// The media-data collectors added to the item.
    open var mediaDataCollectors: [AVPlayerItemMediaDataCollector] { read { $0.collectors } }

    /// Adds a media-data collector, as Apple's `add(_:)`: an ``AVPlayerItemMetadataCollector`` delivers the item's
    /// HTTP Live Streaming date ranges while the item plays in a player. Adding it twice does nothing.
    open func add(_ collector: AVPlayerItemMediaDataCollector) {
        let added: Bool = mutate { s in
            if s.collectors.contains(where: { $0 === collector }) { return false }
            s.collectors.append(collector)
            return true
        }
        if added, let (session, engine) = sessionAndEngine() {
            collector.bindingChanged(session: session, engine: engine)
        }
    }

    /// Removes a media-data collector, as Apple's `remove(_:)`; it delivers nothing more.
    open func remove(_ collector: AVPlayerItemMediaDataCollector) {
        let removed: Bool = mutate { s in
            guard s.collectors.contains(where: { $0 === collector }) else { return false }
            s.collectors.removeAll { $0 === collector }
            return true
        }
        if removed { collector.bindingChanged(session: nil, engine: nil) }
    }

    // MARK: Logs

    /// A snapshot of the access log (nil before anything was logged).
    open func accessLog() -> AVPlayerItemAccessLog? {
        // A copy taken under the item's lock: later events do not change a log the app holds.
        let log = read { $0.accessLog.events.isEmpty ? nil : $0.accessLog.copy() as? AVPlayerItemAccessLog }
        return log
    }

    /// A snapshot of the error log (nil when empty).
    open func errorLog() -> AVPlayerItemErrorLog? {
        logFailedRequests()
        return read { $0.errorLog.events.isEmpty ? nil : $0.errorLog.copy() as? AVPlayerItemErrorLog }
    }

    /// A description for debugging.
    open override var description: String {
        "<AVPlayerItem status=\(status.rawValue) asset=\((asset as? AVURLAsset)?.url.lastPathComponent ?? "?")>"
    }
}
