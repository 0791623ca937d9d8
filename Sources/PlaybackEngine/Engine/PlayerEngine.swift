import CoreMedia
import CoreVideo
import Foundation
import OAVFLocking

/// The playback engine of one player, as its owner (the `AVPlayer` facade) sees it: commands in, snapshots out
/// (Media3's `ExoPlayerImpl` in front of `ExoPlayerImplInternal`).
///
/// - Commands: every method below that changes something posts a command, stamped with the host time of the call,
///   to the engine thread ("oavf.playback") and returns at once. The engine applies commands in the order posted,
///   each as of its stamp: a `play()` counts from the call, a pause freezes the playhead where the caller saw it.
/// - Reads (``currentTime(of:)``, ``itemTime(forHost:session:)``, ``currentRate``, ``statistics``) come from the
///   snapshot the engine publishes after each iteration, with rate changes posted but not yet applied laid over it;
///   they never wait for the engine.
/// - Events leave through ``onEvent`` on the engine thread, with no lock held; completion handlers are called
///   there too, each exactly once (`false` when superseded, cancelled, or the engine shuts down).
///
/// State machine of the current item: `idle → preparing → ready → (playing ⇄ paused/waiting) → ended`; `failed`
/// from preparing or playing (see ``ItemState``). Seeks and item changes bump serials in the pipeline.
///
/// Lifetime: the engine thread holds the engine's core, never this handle; the last release of the handle (or
/// ``shutdown()``) stops the core and joins its thread, which first stops every item's pipeline, the preparation
/// threads and the audio device.
package final class PlayerEngine: @unchecked Sendable {
    package let configuration: EngineConfiguration
    /// The format audio is decoded to (the sink's, or the standard format without a sink).
    package let audioFormat: AudioFormat
    /// The audio renderer (thread-safe): the audio device pulls it.
    package let renderer: AudioRenderer
    /// Commands to the engine thread and its wake-ups.
    private let mailbox = EngineMailbox()
    /// What the engine thread publishes.
    private let snapshots = SnapshotStore()
    /// The engine thread.
    private let thread: WorkerThread
    /// A manual virtual clock's listener (wakes the engine thread when the clock moves).
    private let clockListener: UInt64?
    /// Time-observer tokens handed out and not removed. Any caller thread adding or removing an observer. Not an engine
    /// command: the token is returned at once to the caller, before the engine runs the command.
    private let observerTokens = Locked<(next: UInt64, live: Set<UInt64>)>((0, []))

    package init(configuration: EngineConfiguration) {
        self.configuration = configuration
        let audio = AudioOutputDriver(makeSink: configuration.audioSink)
        audioFormat = audio.format
        renderer = audio.renderer
        let core = EngineCore(configuration: configuration, audio: audio, mailbox: mailbox, snapshots: snapshots)
        if let clock = configuration.virtualClock, clock.mode == .manual {
            clockListener = clock.addListener { [mailbox] in mailbox.wake() }
        } else {
            clockListener = nil
        }
        // The core moves to the engine thread here and is used there only.
        let handoff = ThreadHandoff(core)
        thread = WorkerThread(name: "oavf.playback") { handoff.value.run() }
    }

    deinit {
        shutdown()
    }

    /// Set once, right after making the engine; called on the engine thread. Events wait for it: none is dropped.
    package var onEvent: EngineEventHandler? {
        get { mailbox.eventHandler }
        set { mailbox.eventHandler = newValue }
    }

    /// Host "now" for commands: real monotonic nanoseconds, or the virtual clock's time.
    private func hostNow() -> UInt64 { Transport.hostNow(configuration.virtualClock) }

    /// Posts `action` as of now.
    private func post(_ action: EngineCommand.Action) {
        mailbox.post(action, host: hostNow())
    }

    // MARK: Commands (any thread)

    /// The play queue: the first session is current; the next is prepared ahead for a gapless change. Sessions
    /// that leave are stopped.
    package func setQueue(_ sessions: [ItemSession]) { post(.setQueue(sessions)) }

    /// Plays at `rate` (0 pauses, negative plays backwards). Returns the command's sequence number: events as of an
    /// earlier command do not reflect it yet (``EngineEventHandler``).
    @discardableResult
    package func setRate(_ rate: Float) -> UInt64 {
        let host = hostNow()
        var sequence: UInt64 = 0
        snapshots.postRate(rate, host: host) { freeze in
            sequence = mailbox.post(.setRate(rate, freeze: freeze), host: host)
            return sequence
        }
        return sequence
    }

    /// Plays at `rate` with item time `itemTime` (nil: the current time) at host time `host` (nil: now) —
    /// `AVPlayer.setRate(_:time:atHostTime:)`. An item time seeks exactly first; a host time still to come holds
    /// playback (waiting) until then, and the clock is anchored on it, so several players started with the same
    /// host time stay together.
    @discardableResult
    package func setRate(_ rate: Float, time itemTime: CMTime?, atHost host: UInt64?) -> UInt64 {
        let now = hostNow()
        var sequence: UInt64 = 0
        snapshots.postRate(rate, host: now, startsAtOnce: false) { freeze in
            sequence = mailbox.post(
                .setScheduledRate(rate, itemTime: itemTime, startHost: host, freeze: freeze), host: now)
            return sequence
        }
        return sequence
    }

    /// The rate playback was asked to run at (a rate just set reads back at once).
    package var currentRate: Float { snapshots.current.rate }

    /// Sets the time-pitch algorithm for audio at rates other than 1.
    package func setTimePitchAlgorithm(_ algorithm: TimePitchAlgorithm) { post(.setTimePitchAlgorithm(algorithm)) }

    package func setAutomaticallyWaitsToMinimizeStalling(_ waits: Bool) {
        post(.setAutomaticallyWaitsToMinimizeStalling(waits))
    }

    package func setEndAction(_ action: EndAction) { post(.setEndAction(action)) }

    package func setVolume(_ volume: Float, muted: Bool) { post(.setVolume(volume, muted: muted)) }

    /// Sets the gain (with its fade), pan and metering of the renderer's output stage (``AudioOutputStage``), applied
    /// on the engine thread; ``AudioRenderer/outputStage`` reads the meter from any thread.
    package func setOutputMix(_ mix: AudioOutputStage.Mix) { post(.setOutputMix(mix)) }

    /// Changes what the app set on `session` (queued or not): the engine thread applies it between two steps, from
    /// which on playback reads it (an end time, a volume curve, a composer, …).
    package func configure(_ session: ItemSession, _ setting: ItemSession.Setting) {
        if case .start(let start, _) = setting {
            // Where it starts reads back at once (a ready current item seeks there as usual).
            snapshots.postStart(of: session.id, at: start.time) {
                mailbox.post(.configure(session, setting), host: hostNow())
            }
            return
        }
        post(.configure(session, setting))
    }

    /// Sets where forward playback of `session` ends (invalid: at its end): ``configure(_:_:)`` with
    /// `.forwardEndTime`.
    package func setForwardPlaybackEndTime(_ time: CMTime, for session: ItemSession) {
        configure(session, .forwardEndTime(time.isNumeric ? time : nil))
    }

    /// Sets where playback of `session` at a negative rate ends (invalid: at the start): ``configure(_:_:)`` with
    /// `.reverseEndTime`.
    package func setReversePlaybackEndTime(_ time: CMTime, for session: ItemSession) {
        configure(session, .reverseEndTime(time.isNumeric ? time : nil))
    }

    /// Adds a sink for the presented pictures (pictures already on their way may still reach a removed sink).
    package func addVideoSink(_ sink: any VideoFrameSink) { post(.addVideoSink(sink)) }

    package func removeVideoSink(_ sink: any VideoFrameSink) { post(.removeVideoSink(ObjectIdentifier(sink))) }

    /// Adds a sink that follows the current item's playhead (timed text and metadata outputs).
    package func addPlayheadSink(_ sink: any PlayheadSink) { post(.addPlayheadSink(sink)) }

    package func removePlayheadSink(_ sink: any PlayheadSink) { post(.removePlayheadSink(ObjectIdentifier(sink))) }

    /// Adds a periodic time observer (see ``TimeObservers``); returns its token.
    package func addPeriodicObserver(interval: CMTime, handler: @escaping @Sendable (CMTime) -> Void) -> UInt64 {
        let token = issueObserverToken()
        post(.addPeriodicObserver(token: token, interval: interval, handler: handler))
        return token
    }

    /// Adds a boundary time observer; returns its token.
    package func addBoundaryObserver(times: [CMTime], handler: @escaping @Sendable () -> Void) -> UInt64 {
        let token = issueObserverToken()
        post(.addBoundaryObserver(token: token, times: times, handler: handler))
        return token
    }

    /// Removes a time observer; false when `token` is not a live observer.
    @discardableResult
    package func removeObserver(_ token: UInt64) -> Bool {
        let live = observerTokens.withLock { $0.live.remove(token) != nil }
        if live { post(.removeObserver(token: token)) }
        return live
    }

    private func issueObserverToken() -> UInt64 {
        observerTokens.withLock { tokens in
            tokens.next += 1
            tokens.live.insert(tokens.next)
            return tokens.next
        }
    }

    /// Seeks `session` exactly (`exact`) or to a keyframe; see ``seek(_:to:mode:completion:)``.
    package func seek(
        _ session: ItemSession, to target: CMTime, exact: Bool, completion: (@Sendable (Bool) -> Void)?
    ) {
        seek(session, to: target, mode: exact ? .exact : .fast, completion: completion)
    }

    /// Seeks the current session landing as `mode` says. `completion(false)` when superseded by a later seek, an
    /// item change, cancellation, or when `session` is not current; `true` once the new position is presented.
    package func seek(
        _ session: ItemSession, to target: CMTime, mode: SeekMode, completion: (@Sendable (Bool) -> Void)?
    ) {
        post(.seek(session, to: target, mode: mode, completion: completion))
    }

    /// Changes the streams `session` plays (audio language, tracks enabled or disabled) during playback: the
    /// engine switches between two steps and continues from the playhead of the call with the new streams (an
    /// exact seek that reports no time jump).
    package func setStreams(_ session: ItemSession, video: Int?, audio: Int?) {
        post(.setStreams(session, video: video, audio: audio))
    }

    /// Moves the current item `count` pictures forward (or back, when negative) while paused: forward presents the
    /// next decoded pictures; backward seeks exactly to the picture `count` pictures earlier. Clamped at the ends.
    /// Pauses first if playing.
    package func step(_ session: ItemSession, by count: Int) {
        guard count != 0 else { return }
        post(.step(session, count: count))
    }

    /// `AVPlayer.preroll(atRate:)`: `completion(true)` once the current item is primed at its time (ready, no seek
    /// pending, the picture there shown), `false` when cancelled (``cancelPrerolls()``), interrupted by a rate change,
    /// a seek or a change of item, with no current item, or when the engine stops. Called on the engine thread,
    /// exactly once, never before the engine has run an iteration after the one that took the request.
    package func preroll(completion: @escaping @Sendable (Bool) -> Void) { post(.preroll(completion)) }

    /// Completes the pending prerolls with `false`.
    package func cancelPrerolls() { post(.cancelPrerolls) }

    /// Completes pending seeks of `session` with `false`.
    package func cancelPendingSeeks(_ session: ItemSession) { post(.cancelPendingSeeks(session)) }

    /// Calls `completion` on the engine thread once every command posted before this one is applied and the events
    /// and calls of the iteration that applied it are delivered: `true`, or `false` when the engine stops first.
    /// What a caller waits on instead of a fixed time to know the engine has seen what it asked (tests: "nothing
    /// else happened" is then a fact about the engine, not about how long a loaded machine took).
    package func barrier(_ completion: @escaping @Sendable (Bool) -> Void) { post(.barrier(completion)) }

    /// Wakes the engine thread (a virtual clock moved).
    package func wake() { mailbox.wake() }

    /// Stops the engine thread and every session and joins them. Idempotent; any thread (from the engine thread
    /// itself — an event handler — it returns at once and the thread ends after the handler).
    package func shutdown() {
        if let token = clockListener { configuration.virtualClock?.removeListener(token) }
        mailbox.requestStop()
        thread.join()
    }

    // MARK: Reads (any thread, never blocking on the engine)

    /// The current item time of `session` (its last time when it is queued but not current; zero otherwise).
    package func currentTime(of session: ItemSession) -> CMTime {
        // The host time first, then the snapshot: the store's re-basing relies on it (``SnapshotStore/publish``).
        let host = hostNow()
        return snapshots.current.time(of: session, at: host)
    }

    /// The item time of `session` now and the rate it moves at, read from one snapshot (what `AVPlayerItem.timebase`
    /// reads): the effective rate — the one time really moves at, `.lowQualityZeroLatency`'s snapped rate — while
    /// `session` is current and its clock runs, else 0 (paused, waiting, not current).
    package func timeline(of session: ItemSession) -> (time: CMTime, rate: Double) {
        let host = hostNow()
        let s = snapshots.current
        let time = s.time(of: session, at: host)
        guard s.current == session.id, s.clock.isRunning else { return (time, 0) }
        return (time, Transport.effectiveRate(s.rate, s.algorithm))
    }

    /// The item time of `session` at host time `host` (monotonic nanoseconds, or the virtual clock's time); nil when
    /// `session` is not the current item.
    package func itemTime(forHost host: UInt64, session: ItemSession) -> CMTime? {
        let s = snapshots.current
        guard s.current == session.id else { return nil }
        return s.clock.time(at: host)
    }

    /// Counters: pictures presented and dropped, stalls (as published), audio rendered and underruns, pictures the
    /// current item decoded (live).
    package var statistics: PlaybackStatistics {
        let s = snapshots.current
        var stats = s.statistics
        let r = renderer.statistics
        stats.audioFramesRendered = r.frames
        stats.audioUnderruns = r.underruns
        stats.videoFramesDecoded = s.currentSession?.videoFramesDecoded ?? 0
        return stats
    }

    /// The running (or last) reverse video source's counters (engine tests).
    package var reverseSourceStatistics: (framesDecoded: Int, passes: Int, maximumHeld: Int)? {
        snapshots.current.reverse.map { ($0.framesDecoded, $0.passes, $0.maximumHeld) }
    }

    /// The snapshot readers see now (engine tests).
    package var snapshot: EngineSnapshot { snapshots.current }

    /// Whether the engine has applied every rate change posted (engine tests).
    package var hasAppliedRateChanges: Bool { snapshots.isSettled }
}

/// The input ended before the duration its index states (a truncated file or an interrupted download).
package struct MediaEndedEarly: Error, Sendable {
    package var endedAt: CMTime
    package var duration: CMTime
}
