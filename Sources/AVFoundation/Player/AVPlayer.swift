import Foundation
import OAVFLocking
import PlaybackEngine

/// Plays one item at a time (`AVQueuePlayer` plays a queue).
///
/// Behaviour follows Apple's documentation: `play()` starts at ``defaultRate``; setting ``rate``
/// to non-zero plays (0 pauses); ``timeControlStatus`` is `.waitingToPlayAtSpecifiedRate` while an
/// item is loading or buffering (never `.paused` for a stall), with ``reasonForWaitingToPlay``;
/// ``actionAtItemEnd`` is `.pause` (`.advance` traps on a plain player, as Apple raises).
///
/// Audio plays through an SDL2 device when one can be opened (`SDL_AUDIODRIVER` picks the
/// driver, e.g. `disk` or `dummy` on a machine without sound); otherwise playback runs on the
/// system clock and the item's error log says why. Assign a `VirtualClock` to ``sourceClock``
/// (before the first item) to run without real time.
///
/// Thread-safe: every method may be called from any thread.
open class AVPlayer: NSObject, @unchecked Sendable {
    /// Apple's raw values.
    public enum Status: Int, Sendable {
        /// The player has not had an item yet.
        case unknown = 0
        /// The player can play: it has had an item (see <doc:PortingFromApplePlatforms>).
        case readyToPlay = 1
        /// The player cannot play any more; see ``AVPlayer/error``.
        case failed = 2
    }

    /// Apple's raw values.
    public enum TimeControlStatus: Int, Sendable {
        /// Paused: the rate is 0.
        case paused = 0
        /// Waiting to play at the rate: loading, buffering, or waiting for a host time; see
        /// ``AVPlayer/reasonForWaitingToPlay``.
        case waitingToPlayAtSpecifiedRate = 1
        /// Playing.
        case playing = 2
    }

    /// Apple's raw values.
    public enum ActionAtItemEnd: Int, Sendable {
        /// Go on to the next item (only for an `AVQueuePlayer`).
        case advance = 0
        /// Pause at the end of the item.
        case pause = 1
        /// Do nothing: time stays at the end.
        case none = 2
    }

    /// Why the player waits (Apple's string values).
    public struct WaitingReason: RawRepresentable, Hashable, Sendable {
        /// The string Apple's framework uses for this value.
        public let rawValue: String
        /// Creates a value from its raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Waiting until enough is buffered to play without stalling.
        public static let toMinimizeStalls = WaitingReason(rawValue: "AVPlayerWaitingToMinimizeStallsReason")
        /// Waiting while the buffering rate is measured.
        public static let evaluatingBufferingRate = WaitingReason(
            rawValue: "AVPlayerWaitingWhileEvaluatingBufferingRateReason")
        /// There is no item to play.
        public static let noItemToPlay = WaitingReason(rawValue: "AVPlayerWaitingWithNoItemToPlayReason")
        /// Waiting for coordinated playback (not used here).
        public static let waitingForCoordinatedPlayback = WaitingReason(
            rawValue: "AVPlayerWaitingForCoordinatedPlaybackReason")
        /// Waiting during an interstitial event (not used here).
        public static let interstitialEvent = WaitingReason(rawValue: "AVPlayerWaitingDuringInterstitialEventReason")
    }

    /// Guards `state`: what the app set and the latest engine snapshot the player publishes, read and written by app
    /// threads and by the engine's event delivery. Public type: it keeps its lock for the snapshot it publishes
    /// (property reads never wait for the engine, DESIGN.md).
    let lock = ConditionLock()
    /// Guarded by `lock`.
    var state = State()
    /// Change notification for `observe(_:options:)` and Swift Observation.
    let observationHub = ObservationHub<AVPlayer>()
    /// Gates of live time observers (closed on removal).
    let gateStore = GateStore()
    /// Called (engine thread) after a finished item left the queue (AVPlayerLooper re-inserts it).
    let itemLeftQueueHandlers = HandlerList()

    func addItemLeftQueueHandler(_ handler: @escaping @Sendable (AVPlayerItem) -> Void) {
        itemLeftQueueHandlers.append(handler)
    }

    /// What the player publishes. Owners: the app's values (Apple's stored properties: `rate` as set, `defaultRate`,
    /// volume, mute, `actionAtItemEnd`, waiting policy, the queue, criteria, the platform settings) are written by the
    /// setters on the caller's thread; what the engine decides (`timeControlStatus`, its reason, a rate the engine set
    /// itself, `status`) is written only from the engine's events, as of the command they report (``rateCommand``) —
    /// but for the provisional time control a rate setter shows until the engine reports (as Apple's does at once).
    /// Playback time is never copied here: it is read from the engine's snapshot. Guarded by ``lock``.
    struct State {
        var status = Status.unknown
        var error: (any Error)?
        /// What the app set (Apple's stored `rate`); the engine may set it too (0 at an item's end), as of a command.
        var rate: Float = 0
        /// The engine command carrying the last rate the app set: the engine's reports of rate and time control as of
        /// an earlier command are stale (they do not reflect it yet; the engine reports again once it applied it).
        var rateCommand: UInt64 = 0
        /// The engine's latest report of its time control and the command it is as of, kept even while it is stale
        /// for ``rateCommand`` (a report that crossed a rate command being posted is applied once the command's
        /// sequence is known).
        var engineTimeControl: (value: TimeControl, asOf: UInt64)?
        /// The engine's latest report of a rate it set itself (0: it cannot play, an item's end), kept in the same
        /// way.
        var engineRate: (value: Float, asOf: UInt64)?
        var defaultRate: Float = 1
        var timeControlStatus = TimeControlStatus.paused
        var reasonForWaitingToPlay: WaitingReason?
        var automaticallyWaitsToMinimizeStalling = true
        var volume: Float = 1
        var isMuted = false
        var actionAtItemEnd = ActionAtItemEnd.pause
        /// The play queue; the first is the current item.
        var items: [AVPlayerItem] = []
        var sourceClock: CMClock?
        var engine: PlayerEngine?
        var appliesMediaSelectionCriteriaAutomatically = true
        var criteria: [AVMediaCharacteristic: AVPlayerMediaSelectionCriteria] = [:]
        var allowsExternalPlayback = true
        var preventsDisplaySleepDuringVideoPlayback = true
        var audiovisualBackgroundPlaybackPolicy = AVPlayerAudiovisualBackgroundPlaybackPolicy.automatic
        var preferredVideoDecoderGPURegistryID: UInt64 = 0
        var audioOutputDeviceUniqueID: String?
        var observerTokens: Set<UInt64> = []
        var playStart: (date: Date, itemTime: CMTime, dropped: Int, stalls: Int)?
    }

    /// A player with no item.
    public override init() {
        super.init()
        PlatformOutputs.installDisplayModes()
    }

    /// A player for an item made from `URL` (designated, as Apple's, so subclasses can call it).
    public init(url URL: URL) {
        super.init()
        PlatformOutputs.installDisplayModes()
        replaceCurrentItem(with: AVPlayerItem(url: URL))
    }

    /// A player for `item` (traps if the item belongs to another player; designated, as Apple's).
    public init(playerItem item: AVPlayerItem?) {
        super.init()
        PlatformOutputs.installDisplayModes()
        if let item { replaceCurrentItem(with: item) }
    }

    deinit {
        let (engine, items) = (state.engine, state.items)
        engine?.shutdown()
        for item in items { item.detach() }
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

    /// `.readyToPlay` once the player has an engine (it got its first item); `.failed` is terminal.
    open var status: Status { access(\.status) { $0.status } }
    /// The error that made the player fail, when ``status`` is `.failed`.
    open var error: (any Error)? { access(\.error) { $0.error } }

    // MARK: Item

    /// The item being played, if any.
    open var currentItem: AVPlayerItem? { access(\.currentItem) { $0.items.first } }

    /// Replaces the current item at once (the same item is a no-op; nil clears). Traps when `item`
    /// belongs to another player.
    open func replaceCurrentItem(with item: AVPlayerItem?) {
        let changed: Bool = lock.withLock { state.items.first !== item }
        guard changed else { return }
        if let item, let owner = item.player, owner !== self {
            apiViolation(
                "An AVPlayerItem cannot be associated with more than one instance of AVPlayer "
                    + "(\(item) already belongs to \(owner)).")
        }
        if let item, read({ $0.items.dropFirst().contains { $0 === item } }) {
            apiViolation("\(item) is already in the queue: an item cannot be queued twice.")
        }
        changeQueue { items in
            if items.isEmpty {
                if let item { items = [item] }
            } else if let item {
                items[0] = item
            } else {
                items.removeFirst()
            }
        }
        syncEngineQueue()
        // Apple's player posts `timeControlStatus` when the item is replaced, also when it stays the same (paused).
        refreshWaitingState(announce: true)
    }

    /// Changes the queue and announces `currentItem`. Items that left it are detached (they keep their time) before
    /// observers hear of the change, so an observer may queue them again at once, as Apple's looping sample does.
    /// Returns the items that left.
    /// Observers hear of it only when the current item changes (a queued item inserted or removed behind it is not
    /// a change of `currentItem`).
    @discardableResult
    func changeQueue(_ body: (inout [AVPlayerItem]) -> Void) -> [AVPlayerItem] {
        func apply() -> [AVPlayerItem] {
            let left: [AVPlayerItem] = mutate { s in
                let before = s.items
                body(&s.items)
                return before.filter { old in !s.items.contains { $0 === old } }
            }
            for item in left { item.detach() }
            return left
        }
        let currentChanges: Bool = read { s in
            var items = s.items
            body(&items)
            return items.first !== s.items.first
        }
        guard currentChanges else { return apply() }
        // A new item interrupts a preroll: the engine completes it when it takes the new queue.
        return observationHub.withMutation(of: self, keyPaths: [\.currentItem]) { apply() }
    }

    /// What happens when the current item ends. `.advance` is only valid for `AVQueuePlayer`.
    open var actionAtItemEnd: ActionAtItemEnd {
        get { access(\.actionAtItemEnd) { $0.actionAtItemEnd } }
        set {
            if newValue == .advance && !(self is AVQueuePlayer) {
                apiViolation("actionAtItemEnd = .advance is only supported by AVQueuePlayer.")
            }
            set(\.actionAtItemEnd) { $0.actionAtItemEnd = newValue }
            existingEngine?.setEndAction(Self.endAction(newValue))
        }
    }

    static func endAction(_ a: ActionAtItemEnd) -> EndAction {
        switch a {
        case .advance: return .advance
        case .pause: return .pause
        case .none: return .none
        }
    }

    // MARK: Rate

    /// The rate playback should run at: 0 paused, 1 natural. While waiting, the rate playback will
    /// resume at. Setting it neither uses nor changes ``defaultRate``.
    open var rate: Float {
        get { access(\.rate) { $0.rate } }
        set { setRate(newValue, reason: .setRateCalled) }
    }

    /// The rate `play()` uses (default 1).
    open var defaultRate: Float {
        get { access(\.defaultRate) { $0.defaultRate } }
        set { set(\.defaultRate) { $0.defaultRate = newValue } }
    }

    /// Begins playback at ``defaultRate``.
    open func play() {
        setRate(read { $0.defaultRate }, reason: .setRateCalled)
    }

    /// Same as `rate = 0`.
    open func pause() {
        setRate(0, reason: .setRateCalled)
    }

    /// Plays at `rate` now, without waiting to minimise stalls: with a ready item the time-control status is
    /// `.playing` at once (an engine stall later reports waiting as usual).
    open func playImmediately(atRate rate: Float) {
        setRate(rate, reason: .setRateCalled)
        if rate != 0, currentItem?.status == .readyToPlay { applyTimeControl(.playing) }
    }

    /// Plays at `rate` so that item time `itemTime` (`.invalid`: the current time) is reached at host time
    /// `hostClockTime` (`.invalid`: now), to keep in step with an external timeline or another player. Traps unless
    /// ``automaticallyWaitsToMinimizeStalling`` is false, as Apple raises. Host time is `CMClockGetHostTimeClock()`'s
    /// (a `VirtualClock`'s time when ``sourceClock`` is one). Until that host time the player waits
    /// (`.waitingToPlayAtSpecifiedRate`); an item time seeks exactly first.
    open func setRate(_ rate: Float, time itemTime: CMTime, atHostTime hostClockTime: CMTime) {
        guard !automaticallyWaitsToMinimizeStalling else {
            apiViolation("setRate(_:time:atHostTime:) needs automaticallyWaitsToMinimizeStalling to be false.")
        }
        let host = hostClockTime.isNumeric ? CMClockConvertHostTimeToSystemUnits(hostClockTime) : nil
        setRate(rate, reason: .setRateCalled) { engine in
            engine.setRate(rate, time: itemTime.isNumeric ? itemTime : nil, atHost: host)
        }
    }

    /// The engine command `sequence` carries the app's latest rate: from now on the engine's reports as of earlier
    /// commands are stale. Reports as of it that arrived while it was being posted (on the engine thread, while the
    /// command was still pending) were kept: they are applied now — the engine reports each once (a player whose
    /// audio device failed answers `play()` with a rate of 0 only). `posted`: whether an engine got the command.
    func adoptRateCommand(_ sequence: UInt64, posted: Bool) {
        let late: (rate: Float?, timeControl: TimeControl?) = mutate { s in
            s.rateCommand = sequence
            guard posted else { return (nil, nil) }
            return (
                s.engineRate.flatMap { $0.asOf >= sequence ? $0.value : nil },
                s.engineTimeControl.flatMap { $0.asOf >= sequence ? $0.value : nil }
            )
        }
        if let rate = late.rate { applyReportedRate(rate) }
        if let timeControl = late.timeControl { applyTimeControl(timeControl) }
    }

    /// Sets ``rate`` (with its notification when it changes) and tells the engine through `apply` (by default
    /// `setRate(_:)`).
    func setRate(
        _ newRate: Float, reason: RateDidChangeReason, apply: ((PlayerEngine) -> UInt64)? = nil
    ) {
        guard newRate.isFinite else { return }
        let changed: Bool = lock.withLock { state.rate != newRate }
        // Apple's setter posts `rate` (and `timeControlStatus`, below) also when the value stays the same; the
        // notification is for a change only.
        set(\.rate) { s in
            s.rate = newRate
            // Until the engine has the command, its reports are stale (the provisional state is announced first, so
            // observers hear the changes in the order they happened: this one before what the engine then reports).
            if changed { s.rateCommand = .max }
        }
        if changed {
            NotificationCenter.default.post(
                name: Self.rateDidChangeNotification, object: self,
                userInfo: [Self.rateDidChangeReasonKey: reason])
        }
        refreshWaitingState(announce: true)
        if newRate != 0 && read({ $0.items.isEmpty == false }) {
            _ = engineCreatingIfNeeded()
        }
        let engine = existingEngine
        let sequence = engine.map { engine in apply.map { $0(engine) } ?? engine.setRate(newRate) } ?? 0
        if changed { adoptRateCommand(sequence, posted: engine != nil) }
        if newRate == 0 { noteStopped() } else { noteStarted() }
        // A rate change changes how the item's timebase moves (and interrupts a preroll: the engine completes it).
        if changed { currentItem?.ownTimebase.followedTimelineChanged(jumped: false) }
    }

    /// Whether the player waits for enough data before playing (files always have it).
    open var automaticallyWaitsToMinimizeStalling: Bool {
        get { access(\.automaticallyWaitsToMinimizeStalling) { $0.automaticallyWaitsToMinimizeStalling } }
        set {
            set(\.automaticallyWaitsToMinimizeStalling) { $0.automaticallyWaitsToMinimizeStalling = newValue }
            existingEngine?.setAutomaticallyWaitsToMinimizeStalling(newValue)
        }
    }

    /// Whether the player is playing, paused, or waiting to play at its rate.
    open var timeControlStatus: TimeControlStatus { access(\.timeControlStatus) { $0.timeControlStatus } }
    /// Nil unless `timeControlStatus` is `.waitingToPlayAtSpecifiedRate`.
    open var reasonForWaitingToPlay: WaitingReason? {
        access(\.reasonForWaitingToPlay) { $0.reasonForWaitingToPlay }
    }

    /// Sets the time-control state the facade can know at once (paused at rate 0, waiting without an item or until
    /// the engine reports); the engine reports the rest. `announce`: post `timeControlStatus` even when it stays the
    /// same, as Apple's player does when its rate is set or its item replaced.
    func refreshWaitingState(announce: Bool = false) {
        let (rate, hasItem, current) = read { ($0.rate, !$0.items.isEmpty, $0.timeControlStatus) }
        if rate == 0 {
            applyTimeControl(.paused, announce: announce)
        } else if !hasItem {
            applyTimeControl(.waiting(.noItemToPlay), announce: announce)
        } else if current == .paused {
            applyTimeControl(.waiting(.evaluatingBufferingRate), announce: announce)
        } else if announce {
            set([\.timeControlStatus, \.reasonForWaitingToPlay]) { _ in }
        }
    }

    func applyTimeControl(_ t: TimeControl, announce: Bool = false) {
        let (status, reason): (TimeControlStatus, WaitingReason?)
        switch t {
        case .paused: (status, reason) = (.paused, nil)
        case .playing: (status, reason) = (.playing, nil)
        case .waiting(.toMinimizeStalls): (status, reason) = (.waitingToPlayAtSpecifiedRate, .toMinimizeStalls)
        case .waiting(.evaluatingBufferingRate):
            (status, reason) = (.waitingToPlayAtSpecifiedRate, .evaluatingBufferingRate)
        case .waiting(.noItemToPlay): (status, reason) = (.waitingToPlayAtSpecifiedRate, .noItemToPlay)
        }
        let same = read { $0.timeControlStatus == status && $0.reasonForWaitingToPlay == reason }
        if same && !announce { return }
        set([\.timeControlStatus, \.reasonForWaitingToPlay]) { s in
            s.timeControlStatus = status
            s.reasonForWaitingToPlay = reason
        }
        if same { return }
        // The item's timebase moves at the rate only while playing.
        currentItem?.ownTimebase.followedTimelineChanged(jumped: false)
        currentItem?.updateLiveNetworkUse()
    }

    // MARK: Audio

    /// The item's audio gain, 0…1 (default 1), applied in the audio sink.
    open var volume: Float {
        get { access(\.volume) { $0.volume } }
        set {
            let v = min(max(newValue, 0), 1)
            set(\.volume) { $0.volume = v }
            existingEngine?.setVolume(v, muted: read { $0.isMuted })
        }
    }

    /// Whether the sound is muted.
    open var isMuted: Bool {
        get { access(\.isMuted) { $0.isMuted } }
        set {
            set(\.isMuted) { $0.isMuted = newValue }
            existingEngine?.setVolume(read { $0.volume }, muted: newValue)
        }
    }

    // MARK: Time

    /// The current item's time; `.invalid` with no item. Not key-value observable.
    open func currentTime() -> CMTime {
        guard let item = currentItem else { return .invalid }
        return item.currentTime()
    }

    // MARK: Clock

    /// The clock the player's timebase follows; nil (default) is the host time clock.
    ///
    /// OpenAVFoundation extension: a `VirtualClock` runs the engine without real time (untimed or
    /// manually advanced). Set it before giving the player an item; setting it later restarts the
    /// engine (items reload).
    open var sourceClock: CMClock? {
        get { access(\.sourceClock) { $0.sourceClock } }
        set {
            let engine: PlayerEngine? = set(\.sourceClock) { s in
                s.sourceClock = newValue
                let e = s.engine
                s.engine = nil
                return e
            }
            if let engine {
                engine.shutdown()
                for item in read({ $0.items }) { item.detach() }
                syncEngineQueue()
            }
        }
    }

    /// The platform audio device of this player's engines and the device name they use.
    let platformAudio = PlatformAudioDevice()

    /// Test hook: the audio sink the next engine uses (e.g. a capturing sink with a virtual clock).
    var audioSinkOverride: (@Sendable () -> (any AudioSink)?)?

    var existingEngine: PlayerEngine? { read { $0.engine } }

    /// The engine, made on first need with the configured clock and sink.
    func engineCreatingIfNeeded() -> PlayerEngine {
        if let e = existingEngine { return e }
        let clock = read { $0.sourceClock } as? VirtualClock
        let override = audioSinkOverride
        let device = platformAudio
        let sinkFactory: @Sendable () -> (any AudioSink)? = {
            if let override { return override() }
            if clock != nil { return NullAudioSink() }
            return device.makeSink()
        }
        let engine = PlayerEngine(configuration: EngineConfiguration(virtualClock: clock, audioSink: sinkFactory))
        let (created, volume, muted, action): (PlayerEngine, Float, Bool, ActionAtItemEnd) = mutate { s in
            if let e = s.engine { return (e, s.volume, s.isMuted, s.actionAtItemEnd) }
            s.engine = engine
            return (engine, s.volume, s.isMuted, s.actionAtItemEnd)
        }
        if created !== engine {
            engine.shutdown()
            return created
        }
        engine.onEvent = { [weak self] event, asOf in ChangeOrigin.engine { self?.handle(event, asOf: asOf) } }
        engine.setVolume(volume, muted: muted)
        engine.setEndAction(Self.endAction(action))
        engine.setAutomaticallyWaitsToMinimizeStalling(read { $0.automaticallyWaitsToMinimizeStalling })
        let sequence = engine.setRate(read { $0.rate })
        adoptRateCommand(sequence, posted: true)
        if read({ $0.status }) == .unknown {
            // (`.failed` instead if the engine's audio device failed to open: its event is on its way.)
            set(\.status) { s in if s.status == .unknown { s.status = .readyToPlay } }
        }
        return engine
    }

    /// Sends the queue of sessions to the engine (attaching items as needed).
    func syncEngineQueue() {
        let items = read { $0.items }
        guard !items.isEmpty || existingEngine != nil else { return }
        let engine = engineCreatingIfNeeded()
        let sessions = items.map { $0.attach(to: self, audioFormat: engine.audioFormat) }
        if let first = items.first { engine.setTimePitchAlgorithm(first.playedTimePitchAlgorithm()) }
        engine.setQueue(sessions)
    }

    func item(for session: ItemSession) -> AVPlayerItem? {
        read { $0.items.first { $0.session === session } }
    }

    // MARK: Media selection criteria

    /// Whether the player applies its media-selection criteria to items automatically (default true).
    open var appliesMediaSelectionCriteriaAutomatically: Bool {
        get { access(\.appliesMediaSelectionCriteriaAutomatically) { $0.appliesMediaSelectionCriteriaAutomatically } }
        set {
            set(\.appliesMediaSelectionCriteriaAutomatically) {
                $0.appliesMediaSelectionCriteriaAutomatically = newValue
            }
            currentItem?.applyMediaSelectionCriteria()
        }
    }

    /// Sets how options of `mediaCharacteristic` are chosen for items whose selection in that group the app has not
    /// made (preferred languages, then preferred characteristics); applied when items become ready, and at once to a
    /// ready current item (its audio switches live).
    open func setMediaSelectionCriteria(
        _ criteria: AVPlayerMediaSelectionCriteria?, forMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic
    ) {
        mutate { $0.criteria[mediaCharacteristic] = criteria }
        currentItem?.applyMediaSelectionCriteria()
    }

    /// The media-selection criteria set for a characteristic, if any.
    open func mediaSelectionCriteria(
        forMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic
    )
        -> AVPlayerMediaSelectionCriteria?
    {
        read { $0.criteria[mediaCharacteristic] }
    }

    // MARK: Platform settings without effect on Linux (stored)

    /// Whether external playback is allowed: stored (there is no external playback on Linux).
    open var allowsExternalPlayback: Bool {
        get { read { $0.allowsExternalPlayback } }
        set { mutate { $0.allowsExternalPlayback = newValue } }
    }

    /// Whether external playback is active: always false.
    open var isExternalPlaybackActive: Bool { false }

    /// Whether the player keeps the display awake while video plays: stored (nothing here sleeps the display).
    open var preventsDisplaySleepDuringVideoPlayback: Bool {
        get { read { $0.preventsDisplaySleepDuringVideoPlayback } }
        set { mutate { $0.preventsDisplaySleepDuringVideoPlayback = newValue } }
    }

    /// The output device the player's audio plays on, by SDL device name (as `SDL_GetAudioDeviceName` lists it;
    /// Apple's is a Core Audio device UID); nil (default) is the system's default device. Changing it while playing
    /// moves the sound to the new device at once. A name no device has plays on the default device.
    open var audioOutputDeviceUniqueID: String? {
        get { read { $0.audioOutputDeviceUniqueID } }
        set {
            mutate { $0.audioOutputDeviceUniqueID = newValue }
            platformAudio.select(newValue)
        }
    }

    /// Whether output is hidden for lack of external protection: always false.
    open var isOutputObscuredDueToInsufficientExternalProtection: Bool { false }

    /// Engine counters (OpenAVFoundation extension): frames presented and dropped, audio rendered.
    package var playbackStatistics: PlaybackStatistics { existingEngine?.statistics ?? PlaybackStatistics() }
}
