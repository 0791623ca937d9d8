import CoreMedia

/// Rate, time control, the playback clock and starting/stopping it (Media3's `DefaultMediaClock` with the
/// play-when-ready logic of `ExoPlayerImplInternal`).
///
/// The playhead is ``playhead`` while the clock is stopped and ``clock``'s reading while it runs. Starting anchors
/// the clock at the playhead and a host time (the time a `play()` was asked at, or a scheduled start time); audio,
/// when it plays, re-bases it as it is heard (``follow(_:at:rate:)``). Every other re-anchoring bumps ``epoch``.
///
/// Engine thread only: every member belongs to it.
final class Transport {
    /// How the engine keeps time.
    let virtualClock: VirtualClock?
    /// The time-control status reported to the owner last.
    private(set) var timeControl: TimeControl = .paused
    /// The rate playback was asked to run at (0: paused; negative: backwards).
    var rate: Float = 0
    /// The current item's `audioTimePitchAlgorithm`.
    var algorithm = TimePitchAlgorithm.timeDomain
    /// Whether the clock runs (the item plays).
    private(set) var isRunning = false
    /// The playhead: where the clock stands while stopped; steppers move it as playback advances.
    var playhead: CMTime = .zero
    /// The clock: item time at any host time.
    private(set) var clock = ClockAnchor.frozen(at: .zero)
    /// Bumped at every re-anchoring that is not audio following (a pause's freeze point is valid within one epoch).
    private(set) var epoch: UInt64 = 0
    /// The epoch the clock continues without a jump back, while playback is asked to go on (a stall stops the clock
    /// where readers saw it, not earlier): nil after any other re-anchoring. ``SnapshotStore`` reads it.
    private(set) var continuesEpoch: UInt64?
    /// `setRate(_:time:atHostTime:)`: a start waits for this host time and is anchored on it.
    var startGate: UInt64?
    /// Manual clocks: when a start that had to wait (for a seek or a stream switch) was asked for.
    var deferredStartHost: UInt64?
    /// Untimed clocks: the host time the engine has moved the virtual clock to.
    private(set) var virtualHost: CMTime = .zero

    private let audio: AudioOutputDriver
    private let observers: TimeObserverRegistry
    private let outbox: EventOutbox

    init(virtualClock: VirtualClock?, audio: AudioOutputDriver, observers: TimeObserverRegistry, outbox: EventOutbox) {
        self.virtualClock = virtualClock
        self.audio = audio
        self.observers = observers
        self.outbox = outbox
    }

    // MARK: Time

    /// Host "now": real monotonic nanoseconds, or the virtual clock's time (``MediaClock``, which the sources'
    /// schedules read too). Any thread.
    static func hostNow(_ virtualClock: VirtualClock?) -> UInt64 {
        MediaClock(virtualClock).nanoseconds
    }

    /// Host "now" for this engine.
    func hostNow() -> UInt64 { Self.hostNow(virtualClock) }

    /// The clock's item time at `host`.
    func time(at host: UInt64) -> CMTime { clock.time(at: host) }

    /// The clock's item time now.
    func now() -> CMTime { clock.time(at: hostNow()) }

    /// Whether the clock is an untimed virtual clock (the engine moves it).
    var isUntimed: Bool { virtualClock?.mode == .untimed }
    /// Whether the clock is a manual virtual clock (the test moves it).
    var isManual: Bool { virtualClock?.mode == .manual }

    /// The rate time actually moves at: `.lowQualityZeroLatency` snaps to its table.
    func effectiveRate(_ rate: Float) -> Double { Self.effectiveRate(rate, algorithm) }

    /// The rate time moves at for `rate` with `algorithm` (any thread).
    static func effectiveRate(_ rate: Float, _ algorithm: TimePitchAlgorithm) -> Double {
        rate == 1 || rate < 0 ? Double(rate) : TimePitchProcessor.effectiveRate(Double(rate), algorithm: algorithm)
    }

    /// Called whenever the clock is re-anchored or frozen (not when it follows the audio): the engine publishes
    /// its snapshot then, so nobody sees a picture before the clock that goes with it.
    var onClockChange: () -> Void = {}

    // MARK: Clock

    /// Freezes the clock at `t` without stopping playback (untimed and reverse steppers move it themselves).
    func freezeClock(at t: CMTime) {
        clock = .frozen(at: t)
        onClockChange()
    }

    /// Stops the clock at `t`, which becomes the playhead. `continuing`: playback is still asked to go on (a stall),
    /// so readers of the published clock must not see it go back — the snapshot store stops it no earlier than what
    /// they may have read (and ``adopt(_:)`` brings that back here).
    func halt(at t: CMTime, continuing: Bool = false) {
        EngineThread.assertCurrent()
        continuesEpoch = continuing && isRunning ? epoch : nil
        playhead = t
        clock = .frozen(at: t)
        isRunning = false
        epoch &+= 1
        onClockChange()
    }

    /// Takes the clock as the snapshot store published it (re-based so that no reader sees time go back while
    /// playing; a few microseconds to milliseconds from the one set here): the engine keeps time on exactly the clock
    /// readers see, so the difference does not add up from step to step.
    func adopt(_ published: ClockAnchor) {
        EngineThread.assertCurrent()
        if isRunning {
            clock = published
        } else if !published.isRunning {
            clock = published
            playhead = published.item
        }
    }

    /// Runs the clock from item time `t` at host time `host` at `rate` (a seek landing while playing).
    func run(from t: CMTime, host: UInt64, rate: Float) {
        EngineThread.assertCurrent()
        continuesEpoch = nil
        playhead = t
        clock = ClockAnchor(item: t, host: host, rate: effectiveRate(rate))
        isRunning = true
        epoch &+= 1
        onClockChange()
    }

    /// Tuning for following the audio heard (mpv's `adjust_sync`, which moves a delay by a fraction of the error
    /// with a cap, instead of jumping):
    /// - the clock absorbs a difference with the audio over this much host time (seconds),
    static let followWindow = 0.25
    /// - running at most this much faster than the rate to catch up with audio ahead of it,
    static let followFastest = 0.1
    /// - and at most this much slower to let audio behind it catch up (never backwards, never stopped);
    static let followSlowest = 0.5
    /// - audio further ahead than this (seconds of item time) is jumped to: time moves forward at once.
    static let followJump = 0.2

    /// Follows the audio heard: item time `heard` at host time `host`. The running clock is pulled towards it, never
    /// moved backwards: readers on any thread (`currentTime()`, periodic observers, a display link's item time) see
    /// time move forward continuously while playing. A clock ahead of the audio slows down (down to
    /// ``followSlowest`` below the rate) until the audio catches up; one behind speeds up (up to ``followFastest``),
    /// or jumps forward when the audio is more than ``followJump`` ahead.
    func follow(_ heard: CMTime, at host: UInt64, rate: Float) {
        EngineThread.assertCurrent()
        let nominal = effectiveRate(rate)
        let now = clock.time(at: host)
        let ahead = (heard - now).seconds
        guard ahead.isFinite, nominal > 0 else {
            clock = ClockAnchor(item: heard, host: host, rate: nominal)
            return
        }
        let limit = clock.limit
        if ahead > Self.followJump {
            clock = ClockAnchor(item: heard, host: host, rate: nominal)
        } else {
            let correction = min(Self.followFastest, max(-Self.followSlowest, ahead / nominal / Self.followWindow))
            clock = ClockAnchor(item: now, host: host, rate: nominal * (1 + correction))
        }
        clock.limit = limit
    }

    /// Limits the running clock to item time `end` (``ClockAnchor/limit``; nil lifts the limit) until it is next
    /// re-anchored (a start, a seek, a stop): a network source's clock stops at the end of what has been read.
    func limitClock(to end: CMTime?) {
        EngineThread.assertCurrent()
        guard isRunning, clock.limit != end else { return }
        clock.limit = end
    }

    /// Moves an untimed virtual clock forward by `delta` of item time played at `rate`.
    func advanceVirtualHost(by delta: CMTime, rate: Float) {
        guard let virtualClock, delta > .zero else { return }
        virtualHost = virtualHost + CMTimeMultiplyByFloat64(delta, multiplier: 1 / abs(effectiveRate(rate)))
        virtualClock.set(virtualHost)
    }

    /// Stops the running clock as of `host` (a pause or a rate change): at `freeze` when the caller saw it in this
    /// epoch, else at the clock's reading. Returns the playhead.
    @discardableResult
    func stop(asOf host: UInt64, freeze: EngineCommand.FreezePoint? = nil) -> CMTime {
        let t = freeze.flatMap { $0.epoch == epoch ? $0.time : nil } ?? clock.time(at: host)
        halt(at: t)
        return t
    }

    /// Starts the clock at the playhead if it is not running, as of `host`; false when it runs already or a
    /// scheduled start is still to come. `hasAudio`: whether the item's audio plays.
    @discardableResult
    func start(asOf host: UInt64, hasAudio: Bool) -> Bool {
        guard !isRunning else { return false }
        // A start scheduled for a host time (`setRate(_:time:atHost:)`) waits for it, and is anchored on it.
        if let gate = startGate, host < gate, !isUntimed { return false }
        let anchor = startGate.map { min($0, host) } ?? deferredStartHost.map { min($0, host) } ?? host
        startGate = nil
        deferredStartHost = nil
        run(from: playhead, host: anchor, rate: rate)
        audio.renderer.setActive(hasAudio && audio.plays(rate: rate, algorithm: algorithm))
        // Periodic observers hear of a start, not of resuming after a seek or a stream switch.
        if timeControl != .playing { observers.event(at: playhead) }
        setTimeControl(.playing)
        return true
    }

    // MARK: Time control

    /// Publishes a time-control change.
    func setTimeControl(_ t: TimeControl) {
        EngineThread.assertCurrent()
        guard t != timeControl else { return }
        timeControl = t
        outbox.emit(.timeControlChanged(t))
    }

    /// The engine set the rate itself (an item ended with `.pause`, a stall without automatic waiting, a step).
    func pauseOnItsOwn() {
        rate = 0
        outbox.emit(.rateChanged(0))
        setTimeControl(.paused)
    }
}
