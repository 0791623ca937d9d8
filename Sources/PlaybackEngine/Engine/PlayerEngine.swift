import CoreMedia
import CoreVideo
import Foundation

/// Receives presented video frames (outputs, layers, tests).
package protocol VideoFrameSink: AnyObject, Sendable {
    /// `frame` is shown from item time `itemTime` on. Engine thread.
    func present(_ frame: VideoFrame, itemTime: CMTime, session: ItemSession)
    /// The sequence was interrupted (seek, item change): drop anything queued.
    func flush(session: ItemSession?)
    /// Seconds (of real time) before a picture is due that this sink may already receive it, in real-time playback
    /// forwards; 0: only when due. A video output that a display link asks about the next refresh wants a lead.
    var presentationLeadTime: Double { get }
}

extension VideoFrameSink {
    /// Only when due.
    package var presentationLeadTime: Double { 0 }
}

/// How the engine keeps time and where audio goes.
package struct EngineConfiguration: Sendable {
    /// A virtual clock (untimed or manual); nil plays in real time on the host clock.
    package var virtualClock: VirtualClock?
    /// Makes the audio sink. Real time: normally an SDL device (nil or a failing open means no
    /// device: the engine runs on the system clock). Virtual clocks need a non-real-time sink.
    package var audioSink: @Sendable () -> (any AudioSink)?

    package init(virtualClock: VirtualClock? = nil, audioSink: @escaping @Sendable () -> (any AudioSink)?) {
        self.virtualClock = virtualClock
        self.audioSink = audioSink
    }
}

/// The playback engine of one player (Media3's `ExoPlayerImplInternal`; ffplay's refresh loop).
///
/// A dedicated thread ("oavf.playback") owns presentation: it prepares items, moves the clock,
/// presents video frames against it (audio is the master clock when it plays), fires time
/// observers, detects the end and applies the end action. Commands arrive from any thread through
/// the methods below; events leave through ``onEvent`` on the engine thread, never under a lock.
///
/// State machine of the current item: `preparing → ready → (playing ⇄ paused/waiting) → ended`;
/// `failed` from preparing or playing. Seeks and item changes bump serials in the pipeline.
package final class PlayerEngine: @unchecked Sendable {
    package let configuration: EngineConfiguration
    /// The format audio is decoded to (the sink's, or the standard format without a sink).
    package let audioFormat: AudioFormat
    package let renderer: AudioRenderer
    private let sink: (any AudioSink)?
    private let clock = PlaybackClock()

    /// Guards every `var` below. The engine thread holds it only for short sections.
    private let lock = ConditionLock()

    /// Set once before the first command; called on the engine thread.
    package var onEvent: (@Sendable (EngineEvent) -> Void)? {
        get { lock.withLock { _onEvent } }
        set {
            lock.withLock { _onEvent = newValue }
            wake()  // events queued before the handler was set go out now
        }
    }
    private var _onEvent: (@Sendable (EngineEvent) -> Void)?

    // MARK: State (guarded by `lock`)

    private var queue: [ItemSession] = []
    private var ready: Set<UUID> = []
    private var preparing: Set<UUID> = []
    private var failed: Set<UUID> = []
    private var ended: Set<UUID> = []
    private var rate: Float = 0
    private var endAction: EndAction = .pause
    /// `automaticallyWaitsToMinimizeStalling`: a stall waits (true) or pauses with rate 0 (false).
    private var automaticallyWaits = true
    /// The current item's `audioTimePitchAlgorithm`.
    private var pitchAlgorithm = TimePitchAlgorithm.timeDomain
    private var forwardEnd: [UUID: CMTime] = [:]
    /// Where reverse play ends, per session (item time; `reversePlaybackEndTime`).
    private var reverseEnd: [UUID: CMTime] = [:]
    /// Sessions in `ended` that ended playing backwards (at their reverse end).
    private var endedReverse: Set<UUID> = []
    /// Bumped by every seek: a reverse source started before one is stale.
    private var jumpGeneration = 0
    /// The rate the current session's video decoder was last adapted to (``ItemSession/adaptVideoDecoding(toRate:)``).
    private var decodingRate: (id: UUID, rate: Float)?
    /// The running reverse source (engine thread only).
    private var reverseState: ReverseState?

    /// Frames for playback at a negative rate, and the seek generation they started in.
    private struct ReverseState {
        var session: ItemSession
        var source: ReverseVideoSource?
        /// Reversed audio (nil without audio, or at a rate the time-pitch algorithm cannot play).
        var audio: ReverseAudioSource?
        var generation: Int
        /// Virtual clocks: the item time and rate audio accounting started from, and the sample frames written
        /// to the sink since.
        var audioFrom: CMTime
        var audioRate: Float
        var audioWritten = 0
    }
    private var timeControl: TimeControl = .paused
    private var observers = TimeObservers()
    private var videoSinks: [ObjectIdentifier: any VideoFrameSink] = [:]
    /// Item time reported to observers last, per current session.
    private var lastTime: CMTime = .zero
    private var playing = false
    private var stalled = false
    private var shuttingDown = false
    private var wakeups = 0
    private var pendingSeek: PendingSeek?
    /// A frame step to perform between two steps of the loop.
    private var pendingStep: (session: ItemSession, count: Int)?
    /// After stepping, audio is re-aligned (a silent exact seek) when playback resumes.
    private var resyncOnPlay = false
    /// Item time of the frame presented last and its duration (stepping).
    private var lastFrameDuration: CMTime = .invalid
    /// A stream switch to perform between two steps.
    private var pendingSwitch: (session: ItemSession, video: Int?, audio: Int?, time: CMTime, host: UInt64?)?
    /// After a seek, the serial whose first video frame re-bases the clock.
    private var awaitingSeekFrame: PendingSeek?
    private var shownFirstFrame: Set<UUID> = []
    /// Item time of the last frame presented for the current item; frames at or before it are not
    /// shown again (after a silent repositioning). Reset by seeks and item changes.
    private var lastPresented: CMTime?
    private var stats = PlaybackStatistics()
    private var lastBuffer: [UUID: BufferState] = [:]
    private var virtualHost: CMTime = .zero

    private struct PendingSeek {
        var session: ItemSession
        var target: CMTime
        var mode: SeekMode
        var exact: Bool { mode == .exact }
        var completion: (@Sendable (Bool) -> Void)?
        /// A repositioning the app did not ask for (a stream switch): no time jump is reported.
        var silent = false
        /// The playhead goes to the start of the picture landed on, not to the target (backward steps).
        var landsOnPictureStart = false
        /// For a silent repositioning while playing: the host time of `target`; the clock resumes on
        /// that anchor, so time that passed meanwhile still counts.
        var resumeHost: UInt64?
    }

    private var thread: Thread?
    private var clockListener: UInt64?
    /// Whether the real-time sink is pulling (engine thread only).
    private var sinkRunning = false

    /// Audio frames rendered per step in virtual-clock mode (a device's typical buffer).
    static let virtualChunkFrames = 1024
    /// Longest sleep of the real-time loop (ffplay's REFRESH_RATE, 10 ms).
    static let refreshInterval = 0.01
    /// Media buffered ahead of the playhead that ends a stall (seconds; Media3 waits 2 s after a
    /// rebuffer). A preferred forward buffer duration shorter than this lowers it.
    static let resumeAfterStall = 2.0
    /// Media ending more than this before an exact duration was truncated (seconds; covers the last
    /// frame's duration and encoder padding).
    static let truncationTolerance = 0.5

    package init(configuration: EngineConfiguration) {
        self.configuration = configuration
        var format = AudioFormat.standard
        var sink = configuration.audioSink()
        var unavailable: String?
        if let s = sink {
            do {
                format = try s.open(preferred: .standard)
            } catch {
                unavailable = error.message
                sink = nil
            }
        }
        self.sink = sink
        self.audioFormat = format
        self.renderer = AudioRenderer(format: format)
        if let sink {
            renderer.setLatency(seconds: sink.latency)
            if sink.isRealTime { sink.start(source: renderer) }
        }
        if let unavailable {
            lock.withLock { pendingEvents.append(.audioDeviceUnavailable(unavailable)) }
        }
        let t = Thread { [weak self] in self?.run() }
        t.name = "oavf.playback"
        t.qualityOfService = .userInteractive
        thread = t
        if let clock = configuration.virtualClock, clock.mode == .manual {
            clockListener = clock.addListener { [weak self] in self?.wake() }
        }
        t.start()
    }

    private var pendingEvents: [EngineEvent] = []

    deinit {
        shutdown()
    }

    // MARK: Commands (any thread)

    /// The play queue: the first session is current; the next is prepared ahead for a gapless change.
    package func setQueue(_ sessions: [ItemSession]) {
        let removed: [ItemSession] = lock.withLock {
            let old = queue
            let oldCurrent = queue.first
            queue = sessions
            if oldCurrent?.id != sessions.first?.id {
                currentChanged(from: oldCurrent)
            }
            let keep = Set(sessions.map(\.id))
            let gone = old.filter { !keep.contains($0.id) }
            for s in gone { forget(s.id) }
            return gone
        }
        for s in removed { s.stop() }
        wake()
    }

    /// Drops the bookkeeping of a session that left the queue (lock held).
    private func forget(_ id: UUID) {
        ready.remove(id)
        preparing.remove(id)
        failed.remove(id)
        ended.remove(id)
        shownFirstFrame.remove(id)
        forwardEnd[id] = nil
        reverseEnd[id] = nil
        endedReverse.remove(id)
        lastBuffer[id] = nil
        lastTimeBySession[id] = nil
    }

    /// Called with the lock held when the current session changed.
    private func currentChanged(from old: ItemSession?) {
        let current = queue.first
        playing = false
        stalled = false
        lastTime = .zero
        if let pending = pendingSeek, pending.session.id != current?.id {
            pendingEvents.append(contentsOf: [])
            let c = pending.completion
            pendingSeek = nil
            if let c { deferred.append { c(false) } }
        }
        if let awaiting = awaitingSeekFrame, awaiting.session.id != current?.id {
            let c = awaiting.completion
            awaitingSeekFrame = nil
            if let c { deferred.append { c(false) } }
        }
        renderer.setSession(current.flatMap { ready.contains($0.id) ? $0 : nil })
        renderer.setActive(false)
        lastPresented = nil
        clock.freeze(at: .zero)
        for sink in videoSinks.values { sink.flush(session: current) }
    }

    /// Completion calls to run outside the lock (guarded by `lock`).
    private var deferred: [@Sendable () -> Void] = []

    package func setRate(_ newRate: Float) {
        lock.withLock {
            // Under the lock, so an algorithm change on another thread cannot be overtaken by this rate's (stale)
            // algorithm. Backwards, reversed audio goes through the time-pitch stage at the rate's magnitude.
            if newRate != 0 { renderer.setRate(Double(abs(newRate)), algorithm: pitchAlgorithm) }
            guard newRate != rate else { return }
            rate = newRate
            // An item that ended in one direction plays again in the other.
            if let s = queue.first, ended.contains(s.id), newRate != 0,
                endedReverse.contains(s.id) == (newRate > 0)
            {
                ended.remove(s.id)
                endedReverse.remove(s.id)
            }
            if playing {
                // Freeze the playhead where it is now: a pause (or a new rate) takes effect at once,
                // not at the engine thread's next step.
                let now = clockNow()
                lastTime = now
                if let id = queue.first?.id { lastTimeBySession[id] = now }
                clock.freeze(at: now)
                playing = false
                if newRate == 0 { deferred += observers.event(at: now) }
            }
            // A ready item starts now, not at the engine thread's next step, so the time between
            // `play()` and that step counts (a manual virtual clock may advance in between).
            if newRate != 0, let s = queue.first, ready.contains(s.id), !ended.contains(s.id),
                !failed.contains(s.id), awaitingSeekFrame == nil, pendingSeek == nil
            {
                _ = startIfNeeded(s, rate: newRate)
            } else if newRate != 0, !playing, configuration.virtualClock?.mode == .manual {
                // A manual clock: the start waits for a seek or stream switch, but counts from now, so time the test
                // moves the clock by in between is played.
                deferredStartHost = deferredStartHost ?? hostNow()
            }
            if newRate == 0 {
                deferredStartHost = nil
                // Paused now, not at the engine thread's next step: a start that follows before that step must
                // still be reported as one.
                setTimeControl(.paused)
            }
        }
        wake()
    }

    package var currentRate: Float { lock.withLock { rate } }

    /// Host time a scheduled start waits for (``setRate(_:time:atHost:)``); guarded by `lock`.
    private var startGate: UInt64?
    /// Manual clock: when a start that had to wait (for a seek or a stream switch) was asked for; guarded by `lock`.
    private var deferredStartHost: UInt64?

    /// Plays at `newRate` with item time `itemTime` (nil: the current time) at host time `host` (nil: now) —
    /// `AVPlayer.setRate(_:time:atHostTime:)`. An item time seeks exactly first; a host time still to come holds
    /// playback (waiting) until then, and the clock is anchored on it, so several players started with the same host
    /// time stay together.
    package func setRate(_ newRate: Float, time itemTime: CMTime?, atHost host: UInt64?) {
        lock.withLock {
            startGate = newRate != 0 ? host : nil
            if let itemTime, let s = queue.first, ready.contains(s.id) {
                if let c = pendingSeek?.completion { deferred.append { c(false) } }
                pendingSeek = PendingSeek(session: s, target: itemTime, mode: .exact, completion: nil)
            }
        }
        setRate(newRate)
    }

    /// Sets the time-pitch algorithm for audio at rates other than 1.
    package func setTimePitchAlgorithm(_ algorithm: TimePitchAlgorithm) {
        lock.withLock {
            pitchAlgorithm = algorithm
            if rate != 0 { renderer.setRate(Double(abs(rate)), algorithm: algorithm) }
        }
        wake()
    }

    /// Whether audio is heard at `rate` with `algorithm` (a device, and a rate the algorithm supports).
    private func audioPlays(_ rate: Float, _ algorithm: TimePitchAlgorithm) -> Bool {
        sink != nil && AudioRenderer.plays(rate: Double(rate), algorithm: algorithm)
    }

    /// The rate time actually moves at: `.lowQualityZeroLatency` snaps to its table.
    private func effectiveRate(_ rate: Float, _ algorithm: TimePitchAlgorithm) -> Double {
        rate == 1 || rate < 0 ? Double(rate) : TimePitchProcessor.effectiveRate(Double(rate), algorithm: algorithm)
    }

    package func setAutomaticallyWaitsToMinimizeStalling(_ waits: Bool) {
        lock.withLock { automaticallyWaits = waits }
        wake()
    }

    package func setEndAction(_ action: EndAction) {
        lock.withLock { endAction = action }
        wake()
    }

    package func setVolume(_ volume: Float, muted: Bool) {
        sink?.setVolume(volume, muted: muted)
    }

    package func setForwardPlaybackEndTime(_ time: CMTime, for session: ItemSession) {
        lock.withLock { forwardEnd[session.id] = time.isNumeric ? time : nil }
        wake()
    }

    /// Sets where playback at a negative rate ends (invalid: at the start).
    package func setReversePlaybackEndTime(_ time: CMTime, for session: ItemSession) {
        lock.withLock { reverseEnd[session.id] = time.isNumeric ? time : nil }
        wake()
    }

    package func addVideoSink(_ sink: any VideoFrameSink) {
        lock.withLock {
            videoSinks[ObjectIdentifier(sink)] = sink
            leadSinks = videoSinks.values.filter { $0.presentationLeadTime > 0 }
        }
    }

    package func removeVideoSink(_ sink: any VideoFrameSink) {
        lock.withLock {
            videoSinks.removeValue(forKey: ObjectIdentifier(sink))
            leadSinks = videoSinks.values.filter { $0.presentationLeadTime > 0 }
        }
    }

    /// The video sinks that take pictures before they are due (kept with `videoSinks`, so the real-time step does
    /// not filter them each time); guarded by `lock`.
    private var leadSinks: [any VideoFrameSink] = []

    package func addPeriodicObserver(interval: CMTime, handler: @escaping @Sendable (CMTime) -> Void) -> UInt64 {
        lock.withLock { observers.addPeriodic(interval: interval, handler: handler) }
    }

    package func addBoundaryObserver(times: [CMTime], handler: @escaping @Sendable () -> Void) -> UInt64 {
        lock.withLock { observers.addBoundary(times: times, handler: handler) }
    }

    @discardableResult
    package func removeObserver(_ token: UInt64) -> Bool {
        lock.withLock { observers.remove(token) }
    }

    /// Seeks the current session. `completion(false)` when superseded by a later seek, an item change,
    /// or cancellation; `true` once the new position is presented.
    package func seek(
        _ session: ItemSession, to target: CMTime, exact: Bool, completion: (@Sendable (Bool) -> Void)?
    ) {
        seek(session, to: target, mode: exact ? .exact : .fast, completion: completion)
    }

    /// Seeks the current session landing as `mode` says; see ``seek(_:to:exact:completion:)``.
    package func seek(
        _ session: ItemSession, to target: CMTime, mode: SeekMode, completion: (@Sendable (Bool) -> Void)?
    ) {
        var superseded: [@Sendable (Bool) -> Void] = []
        let accepted: Bool = lock.withLock {
            if let p = pendingSeek?.completion { superseded.append(p) }
            if let a = awaitingSeekFrame?.completion { superseded.append(a) }
            awaitingSeekFrame = nil
            guard queue.first?.id == session.id, !failed.contains(session.id) else {
                pendingSeek = nil
                return false
            }
            pendingSeek = PendingSeek(session: session, target: target, mode: mode, completion: completion)
            return true
        }
        for c in superseded { c(false) }
        if !accepted { completion?(false) }
        wake()
    }

    /// Changes the streams `session` plays (audio language, tracks enabled or disabled) during
    /// playback: the engine thread switches between two steps and continues from the playhead with
    /// the new streams (an exact seek that reports no time jump).
    package func setStreams(_ session: ItemSession, video: Int?, audio: Int?) {
        lock.withLock {
            guard queue.first?.id == session.id, ready.contains(session.id) else { return }
            // The switch happens at this moment of playback, whenever the engine thread performs it.
            let host = hostNow()
            let time = playing ? clock.time(host: host) : lastTime
            pendingSwitch = (session, video, audio, time, playing ? host : nil)
        }
        wake()
    }

    /// Performs a pending stream switch (engine thread, lock not held).
    private func performStreamSwitch(_ session: ItemSession) {
        guard
            var (s, video, audio, t, host) = lock.withLock({ () -> (ItemSession, Int?, Int?, CMTime, UInt64?)? in
                guard let p = pendingSwitch, p.session.id == session.id else { return nil }
                pendingSwitch = nil
                return p
            })
        else { return }
        lock.withLock {
            // Playback started after the switch was asked for (a `play()` right after a selection): keep the pace of
            // that start, so time that passed since (a manual clock advanced) is played, not skipped.
            if playing, host == nil {
                let anchor = clock.anchor
                (t, host) = (anchor.item, anchor.host)
            }
            lastTime = t
            clock.freeze(at: t)
            playing = false
        }
        do {
            try s.setStreams(video: video, audio: audio)
        } catch {
            lock.withLock { emit(.itemFailedToPlayToEnd(s, error)) }
            return
        }
        renderer.flush()
        var superseded: [@Sendable (Bool) -> Void] = []
        lock.withLock {
            if let p = pendingSeek?.completion { superseded.append(p) }
            if let a = awaitingSeekFrame?.completion { superseded.append(a) }
            awaitingSeekFrame = nil
            var seek = PendingSeek(session: s, target: t, mode: .exact, completion: nil)
            seek.silent = true
            seek.resumeHost = host
            if playing, host == nil {
                // Playback started while the streams were being switched: resume on that start's anchor.
                let anchor = clock.anchor
                (seek.target, seek.resumeHost) = (anchor.item, anchor.host)
                playing = false
            }
            pendingSeek = seek
        }
        for c in superseded { c(false) }
    }

    /// Moves the current item `count` video frames forward (or back, when negative) while paused:
    /// forward presents the next decoded frames; backward seeks exactly to the frame `count` frames
    /// earlier (decoding from the previous keyframe). Clamped at the ends. Pauses first if playing.
    package func step(_ session: ItemSession, by count: Int) {
        guard count != 0 else { return }
        lock.withLock {
            guard queue.first?.id == session.id, ready.contains(session.id) else { return }
            if rate != 0 {
                if playing {
                    let now = clockNow()
                    lastTime = now
                    clock.freeze(at: now)
                    playing = false
                }
                rate = 0
                emit(.rateChanged(0))
                setTimeControl(.paused)
            }
            pendingStep = (session, (pendingStep?.session.id == session.id ? pendingStep!.count : 0) + count)
        }
        wake()
    }

    /// Performs a pending step (engine thread, lock not held).
    private func performStep(_ session: ItemSession) {
        guard
            let count = lock.withLock({ () -> Int? in
                guard let p = pendingStep, p.session.id == session.id else { return nil }
                pendingStep = nil
                return p.count
            })
        else { return }
        if count < 0 {
            let (current, duration) = lock.withLock { (lastPresented ?? lastTime, lastFrameDuration) }
            let step = duration.isNumeric && duration > .zero ? duration : CMTime(value: 1, timescale: 30)
            // Just before the picture on screen (exact whatever the previous picture's duration), and one frame
            // duration further per extra step; the playhead then goes to the start of the picture landed on.
            var target =
                current - CMTime(value: 1, timescale: 1_000_000)
                - CMTimeMultiply(step, multiplier: Int32(clamping: -count - 1))
            if target < .zero { target = .zero }
            lock.withLock {
                var seek = PendingSeek(session: session, target: target, mode: .exact, completion: nil)
                seek.landsOnPictureStart = true
                pendingSeek = seek
                resyncOnPlay = false
                ended.remove(session.id)
            }
            return
        }
        guard let frames = session.videoFrames else { return }
        var last: VideoFrame?
        var taken = 0
        while taken < count && !isShuttingDown {
            if let (frame, serial) = frames.peek() {
                frames.pop()
                if serial != session.videoSerial { continue }
                if let lp = lock.withLock({ lastPresented }), session.itemTime(frame.pts) <= lp { continue }
                last = frame
                taken += 1
                continue
            }
            if session.isVideoDecoderFinished { break }  // clamped at the end
            _ = frames.waitUntilReadable(timeout: Self.refreshInterval)
        }
        guard let last else { return }
        let t = session.itemTime(last.pts)
        present(last, session: session)
        lock.withLock {
            lastTime = t
            if let id = queue.first?.id { lastTimeBySession[id] = t }
            clock.freeze(at: t)
            resyncOnPlay = session.hasAudio
            emit(.timeJumped(session))
            deferred += observers.event(at: t)
        }
    }

    /// Completes pending seeks with `false`.
    package func cancelPendingSeeks(_ session: ItemSession) {
        var cancelled: [@Sendable (Bool) -> Void] = []
        lock.withLock {
            if let p = pendingSeek, p.session.id == session.id {
                if let c = p.completion { cancelled.append(c) }
                pendingSeek = nil
            }
            if let a = awaitingSeekFrame, a.session.id == session.id {
                if let c = a.completion { cancelled.append(c) }
                awaitingSeekFrame = nil
            }
        }
        for c in cancelled { c(false) }
    }

    /// The current item time of `session` (its last time when not current).
    package func currentTime(of session: ItemSession) -> CMTime {
        lock.withLock {
            guard queue.first?.id == session.id else { return lastTimeBySession[session.id] ?? .zero }
            return playing ? clockNow() : lastTime
        }
    }
    private var lastTimeBySession: [UUID: CMTime] = [:]

    package var statistics: PlaybackStatistics {
        var s = lock.withLock { stats }
        let r = renderer.statistics
        s.audioFramesRendered = r.frames
        s.audioUnderruns = r.underruns
        s.videoFramesDecoded = lock.withLock { queue.first }?.videoFramesDecoded ?? 0
        return s
    }

    /// Stops the thread and every session. Idempotent.
    package func shutdown() {
        let (sessions, t): ([ItemSession], Thread?) = lock.withLock {
            if shuttingDown { return ([], nil) }
            shuttingDown = true
            lock.broadcast()
            return (queue, thread)
        }
        _ = t
        if let token = clockListener { configuration.virtualClock?.removeListener(token) }
        for s in sessions { s.stop() }
        sink?.close()
    }

    package func wake() {
        lock.withLock {
            wakeups += 1
            lock.broadcast()
        }
    }

    // MARK: Engine thread

    /// Host "now": real monotonic nanoseconds, or the virtual clock's time.
    private func hostNow() -> UInt64 {
        if let v = configuration.virtualClock {
            let t = v.time
            return t.isNumeric && t.value > 0 ? UInt64(t.convertScale(1_000_000_000, method: .default).value) : 0
        }
        return PlaybackClock.hostNow()
    }

    /// The item time now (lock held).
    private func clockNow() -> CMTime {
        clock.time(host: hostNow())
    }

    private func run() {
        while true {
            let (stop, events, calls) = lock.withLock { () -> (Bool, [EngineEvent], [@Sendable () -> Void]) in
                // Events wait for the owner's handler (set just after the engine starts): none is dropped.
                let e = _onEvent == nil ? [] : pendingEvents
                if _onEvent != nil { pendingEvents = [] }
                let d = deferred
                deferred = []
                return (shuttingDown, e, d)
            }
            deliver(events, calls)
            if stop {
                tearDownReverse()
                return
            }
            let sleep = step()
            lock.withLock {
                let undelivered = !pendingEvents.isEmpty && _onEvent != nil
                if wakeups == 0 && !shuttingDown && !undelivered && deferred.isEmpty && sleep > 0 {
                    _ = lock.wait(timeout: sleep)
                }
                wakeups = 0
            }
        }
    }

    private func deliver(_ events: [EngineEvent], _ calls: [@Sendable () -> Void]) {
        guard !events.isEmpty || !calls.isEmpty else { return }
        let handler = lock.withLock { _onEvent }
        for e in events { handler?(e) }
        for c in calls { c() }
    }

    /// Queues an event (lock held).
    private func emit(_ e: EngineEvent) { pendingEvents.append(e) }

    /// Publishes a time-control change (lock held).
    private func setTimeControl(_ t: TimeControl) {
        guard t != timeControl else { return }
        timeControl = t
        emit(.timeControlChanged(t))
    }

    /// One iteration. Returns how long the loop may sleep (0 = go on at once).
    private func step() -> Double {
        lock.lock()
        guard let session = queue.first else {
            setTimeControl(rate != 0 ? .waiting(.noItemToPlay) : .paused)
            lock.unlock()
            return 1
        }
        if failed.contains(session.id) {
            setTimeControl(rate != 0 ? .waiting(.toMinimizeStalls) : .paused)
            lock.unlock()
            return 1
        }
        if !ready.contains(session.id) {
            if !preparing.contains(session.id) { startPreparing(session) }
            setTimeControl(rate != 0 ? .waiting(.evaluatingBufferingRate) : .paused)
            lock.unlock()
            return 1
        }
        prepareNextIfNeeded(current: session)
        if pendingSwitch?.session.id == session.id {
            lock.unlock()
            performStreamSwitch(session)
            lock.lock()
        }
        if let seek = pendingSeek, seek.session.id == session.id {
            pendingSeek = nil
            beginSeek(seek)
        }
        let hasStep = pendingStep?.session.id == session.id && awaitingSeekFrame == nil
        if rate > 0 && resyncOnPlay && awaitingSeekFrame == nil {
            // Resuming after frame steps: re-align audio with an exact silent seek to the playhead.
            resyncOnPlay = false
            var seek = PendingSeek(session: session, target: lastTime, mode: .exact, completion: nil)
            seek.silent = true
            beginSeek(seek)
        }
        let isEnded = ended.contains(session.id)
        let currentRate = rate
        let generation = jumpGeneration
        let decodeRate = currentRate > 0 && !isEnded && !hasStep && awaitingSeekFrame == nil ? currentRate : 0
        let adaptDecoding = decodingRate.map { $0.id != session.id || $0.rate != decodeRate } ?? true
        if adaptDecoding { decodingRate = (session.id, decodeRate) }
        lock.unlock()
        if adaptDecoding { session.adaptVideoDecoding(toRate: decodeRate) }
        if let r = reverseState,
            r.session !== session || currentRate >= 0 || r.generation != generation || hasStep || isEnded
        {
            stopReverse(realign: r.session === session && !isEnded)
            return 0
        }
        if hasStep {
            performStep(session)
            return 0
        }

        if awaitingSeekFrameFor(session) {
            return completeSeekIfFrameArrived(session)
        }
        if !shownFirstFrame(session) { showFirstFrame(session) }
        if isEnded {
            lock.withLock {
                setTimeControl(currentRate != 0 && endAction == .none ? .playing : .paused)
            }
            return 1
        }
        if currentRate == 0 {
            pausePlayback(session)
            return 1
        }
        if let gate = lock.withLock({ playing ? nil : startGate }), configuration.virtualClock?.mode != .untimed {
            let now = hostNow()
            if now < gate {
                if sinkRunning {
                    sink?.pause()
                    sinkRunning = false
                }
                lock.withLock { setTimeControl(.waiting(.evaluatingBufferingRate)) }
                guard configuration.virtualClock == nil else { return 1 }
                return max(0.001, min(Self.refreshInterval, Double(gate - now) / 1e9))
            }
        }
        if currentRate < 0 {
            return reverseStep(session, rate: currentRate)
        }
        if configuration.virtualClock != nil {
            return virtualStep(session, rate: currentRate)
        }
        return realTimeStep(session, rate: currentRate)
    }

    // MARK: Preparing

    /// Starts preparing `session` on a background queue (lock held).
    private func startPreparing(_ session: ItemSession) {
        preparing.insert(session.id)
        session.onReadError = { [weak self, weak session] error in
            guard let self, let session else { return }
            self.lock.withLock {
                self.failed.insert(session.id)
                self.emit(.itemFailedToPlayToEnd(session, error))
                self.lock.broadcast()
            }
        }
        DispatchQueue.global(qos: .userInitiated).async { [weak self, weak session] in
            guard let session, !session.isStopped else { return }
            do {
                try session.prepare()
                self?.prepared(session, error: nil)
            } catch {
                self?.prepared(session, error: error)
            }
        }
    }

    private func prepared(_ session: ItemSession, error: (any Error)?) {
        lock.withLock {
            preparing.remove(session.id)
            guard queue.contains(where: { $0.id == session.id }) else { return }
            if let error {
                failed.insert(session.id)
                emit(.itemFailed(session, error))
            } else {
                ready.insert(session.id)
                if queue.first?.id == session.id { renderer.setSession(session) }
                emit(.itemReady(session))
            }
            lock.broadcast()
        }
    }

    /// Prepares the next queued session once the current one has been read to its end, so the
    /// change of item is gapless (lock held).
    private func prepareNextIfNeeded(current: ItemSession) {
        guard queue.count > 1, endAction == .advance else { return }
        let next = queue[1]
        guard !ready.contains(next.id), !preparing.contains(next.id), !failed.contains(next.id) else { return }
        if current.isAtEndOfFile { startPreparing(next) }
    }

    // MARK: Seeking

    private func beginSeek(_ seek: PendingSeek) {
        // Lock held.
        seek.session.seek(to: seek.target, mode: seek.mode)
        renderer.flush()
        ended.remove(seek.session.id)
        endedReverse.remove(seek.session.id)
        jumpGeneration += 1
        awaitingSeekFrame = seek
        playing = false
        for sink in videoSinks.values { sink.flush(session: seek.session) }
    }

    private func awaitingSeekFrameFor(_ session: ItemSession) -> Bool {
        lock.withLock { awaitingSeekFrame?.session.id == session.id }
    }

    /// After a seek: waits for the first frame of the new serial, re-bases the clock on it (or on the
    /// target for exact seeks), shows it, and completes the seek.
    private func completeSeekIfFrameArrived(_ session: ItemSession) -> Double {
        if session.isSeekInFlight {
            // The demuxer has not flushed yet: every frame queued still belongs to the old position.
            _ = session.videoFrames?.waitUntilReadable(timeout: 0.002)
            if session.videoFrames == nil { usleep(1000) }
            return 0
        }
        if session.takeSeekFailure() {
            let completion: (@Sendable (Bool) -> Void)? = lock.withLock {
                defer { awaitingSeekFrame = nil }
                return awaitingSeekFrame?.completion
            }
            completion?(false)
            return 0
        }
        var landed: CMTime?
        var landedOnKeyframe = true
        if let frames = session.videoFrames {
            while let (frame, serial) = frames.peek() {
                if serial != session.videoSerial {
                    frames.pop()
                    continue
                }
                landed = session.itemTime(frame.pts)
                landedOnKeyframe = frame.isKeyframe
                break
            }
            if landed == nil && session.isVideoDecoderFinished { landed = lock.withLock { awaitingSeekFrame?.target } }
        } else if let frames = session.audioFrames {
            while let (frame, serial) = frames.peek() {
                if serial != session.audioSerial {
                    frames.pop()
                    continue
                }
                landed = session.itemTime(frame.pts)
                break
            }
            if landed == nil && session.isAudioDecoderFinished { landed = lock.withLock { awaitingSeekFrame?.target } }
        } else {
            // Nothing decodes (every track disabled): the playhead simply moves.
            landed = lock.withLock { awaitingSeekFrame?.target }
        }
        guard let landed else {
            _ = (session.videoFrames ?? nil)?.waitUntilReadable(timeout: Self.refreshInterval)
            return 0
        }
        // A window seek that could not land on a keyframe inside the window decodes to the target:
        // frames that end before it are skipped (waiting for the decoder as needed).
        if let seek = lock.withLock({ awaitingSeekFrame }), case .window(let before, let after) = seek.mode {
            let low = before.isPositiveInfinity ? CMTime.negativeInfinity : seek.target - before
            let high = after.isPositiveInfinity ? CMTime.positiveInfinity : seek.target + after
            // Only a sync sample inside the window is a landing; anything else decodes to the target.
            if landed < low || landed > high || !landedOnKeyframe {
                if !skipVideo(session, endingBefore: seek.target) { return 0 }
                lock.withLock { awaitingSeekFrame?.mode = .exact }
            }
        }
        var calls: [@Sendable () -> Void] = []
        lock.withLock {
            guard let seek = awaitingSeekFrame, seek.session.id == session.id else { return }
            awaitingSeekFrame = nil
            let time = seek.exact && !seek.landsOnPictureStart ? seek.target : max(landed, .zero)
            renderer.discard(before: time)
            lastTime = time
            clock.freeze(at: time)
            if let host = seek.resumeHost, rate != 0 {
                // Resume on the anchor of the switch point: the playhead keeps its pace.
                deferredStartHost = nil
                playing = true
                clock.set(itemTime: time, host: host, rate: effectiveRate(rate, pitchAlgorithm))
                renderer.setActive(session.hasAudio && audioPlays(rate, pitchAlgorithm))
            }
            if !seek.silent {
                lastPresented = nil
                emit(.timeJumped(session))
                calls += observers.event(at: time)
            }
            if let c = seek.completion { calls.append { c(true) } }
            shownFirstFrame.remove(session.id)
        }
        showFirstFrame(session)
        lock.withLock { deferred += calls }
        return 0
    }

    /// Pops video frames of the current serial that end at or before `target`. Returns false while
    /// the frame containing `target` has not been decoded yet (call again).
    private func skipVideo(_ session: ItemSession, endingBefore target: CMTime) -> Bool {
        guard let frames = session.videoFrames else { return true }
        while let (frame, serial) = frames.peek() {
            if serial != session.videoSerial {
                frames.pop()
                continue
            }
            let end = session.itemTime(frame.pts + frame.duration)
            if end <= target && frame.duration > .zero {
                frames.pop()
                continue
            }
            return true
        }
        if session.isVideoDecoderFinished { return true }
        _ = frames.waitUntilReadable(timeout: 0.002)
        return false
    }

    // MARK: Presentation

    private func shownFirstFrame(_ session: ItemSession) -> Bool {
        lock.withLock { shownFirstFrame.contains(session.id) }
    }

    /// Shows the frame at the playhead while paused (first frame after ready or a seek).
    private func showFirstFrame(_ session: ItemSession) {
        guard let frames = session.videoFrames else {
            _ = lock.withLock { shownFirstFrame.insert(session.id) }
            return
        }
        while let (frame, serial) = frames.peek() {
            if serial != session.videoSerial {
                frames.pop()
                continue
            }
            frames.pop()
            present(frame, session: session)
            break
        }
        _ = lock.withLock { shownFirstFrame.insert(session.id) }
    }

    /// Hands `frame` to the video sinks (composed first when the item has a video composition), unless it is not
    /// after the picture on screen — before it, when playing `backwards`.
    private func present(_ frame: VideoFrame, session: ItemSession, backwards: Bool = false) {
        let t = session.itemTime(frame.pts)
        let pass: (sinks: [any VideoFrameSink], early: Bool, composed: VideoFrame?)? = lock.withLock {
            if let last = lastPresented, backwards ? t >= last : t <= last { return nil }
            lastPresented = t
            lastFrameDuration = frame.duration
            stats.framesPresented += 1
            // Sinks with a lead may have had this picture already (``presentEarly(_:upTo:rate:)``).
            var early = false
            var composed: VideoFrame?
            if let e = earlyPresented, e.session == session.id, e.serial == frame.serial, t <= e.time {
                early = true
                if e.time == t { composed = e.composed }
            }
            return (Array(videoSinks.values), early, composed)
        }
        guard let pass else { return }
        var shown = frame
        if let composed = pass.composed {
            shown = composed
        } else if let compose = session.videoCompositor {
            guard let composed = compose(frame, t) else { return }  // the compositor dropped it
            shown = composed
        }
        for s in pass.sinks where !(pass.early && s.presentationLeadTime > 0) {
            s.present(shown, itemTime: t, session: session)
        }
    }

    /// The last picture handed to lead sinks before it was due: its session, serial, item time and composed form.
    private var earlyPresented: (session: UUID, serial: Serial, time: CMTime, composed: VideoFrame?)?

    /// Real time, forwards: hands the next pictures to sinks with a ``VideoFrameSink/presentationLeadTime`` once they
    /// are due within that lead (the queue's next two at most), so an output asked about the next display refresh
    /// already has the picture for it.
    private func presentEarly(_ session: ItemSession, upTo t: CMTime, rate: Float) {
        guard let frames = session.videoFrames else { return }
        let (sinks, mark, last) = lock.withLock {
            (leadSinks, earlyPresented.flatMap { $0.session == session.id ? ($0.time, $0.serial) : nil }, lastPresented)
        }
        guard let lead = sinks.map(\.presentationLeadTime).max() else { return }
        let horizon = t + CMTime(seconds: lead * Double(abs(rate)), preferredTimescale: 1_000_000_000)
        for next in 0..<2 {
            guard let (frame, serial) = next == 0 ? frames.peek() : frames.peekNext(), serial == session.videoSerial
            else { return }
            let ft = session.itemTime(frame.pts)
            guard ft <= horizon else { return }
            if let mark, mark.1 == serial, ft <= mark.0 { continue }  // handed out early already
            if let last, ft <= last { continue }
            var shown = frame
            if let compose = session.videoCompositor {
                guard let composed = compose(frame, ft) else { continue }
                shown = composed
            }
            lock.withLock {
                earlyPresented = (session.id, serial, ft, session.videoCompositor == nil ? nil : shown)
            }
            for s in sinks { s.present(shown, itemTime: ft, session: session) }
        }
    }

    /// Presents the video frames due at `t`. Real time drops frames that are already late (a later
    /// frame is also due); untimed presents every frame and waits for the decoder.
    private func presentVideo(_ session: ItemSession, upTo t: CMTime, untimed: Bool) {
        guard let frames = session.videoFrames else { return }
        while true {
            guard let (frame, serial) = frames.peek() else {
                if untimed && !session.isVideoDecoderFinished && !isShuttingDown {
                    _ = frames.waitUntilReadable(timeout: Self.refreshInterval)
                    continue
                }
                return
            }
            if serial != session.videoSerial {
                frames.pop()
                continue
            }
            let ft = session.itemTime(frame.pts)
            if ft > t { return }
            if !untimed, let (next, nextSerial) = frames.peekNext(), nextSerial == serial,
                session.itemTime(next.pts) <= t
            {
                frames.pop()
                lock.withLock { stats.framesDropped += 1 }
                continue
            }
            frames.pop()
            present(frame, session: session)
        }
    }

    private var isShuttingDown: Bool { lock.withLock { shuttingDown } }

    /// Item time where the current item ends (forward end time, else its duration).
    private func endTime(_ session: ItemSession) -> CMTime? {
        if let e = lock.withLock({ forwardEnd[session.id] }) { return e }
        return session.descriptor.duration.isNumeric ? session.descriptor.duration : nil
    }

    private func pausePlayback(_ session: ItemSession) {
        let stillPaused: Bool = lock.withLock {
            // The step read the rate earlier: a `play()` since then (which may already have started the clock)
            // wins over this pause.
            guard rate == 0 else { return false }
            if playing {
                let now = clockNow()
                playing = false
                lastTime = now
                clock.freeze(at: now)
                deferred += observers.event(at: now)
            }
            renderer.setActive(false)
            setTimeControl(.paused)
            return true
        }
        guard stillPaused else { return }
        if sinkRunning {
            sink?.pause()
            sinkRunning = false
        }
        publishBuffer(session)
    }

    /// Starts the clock at the playhead if it is not running (lock held).
    private func startIfNeeded(_ session: ItemSession, rate: Float) -> Bool {
        guard !playing else { return false }
        let now = hostNow()
        // A start scheduled for a host time (``setRate(_:time:atHost:)``) waits for it, and is anchored on it.
        if let gate = startGate, now < gate, configuration.virtualClock?.mode != .untimed { return false }
        let anchor = startGate.map { min($0, now) } ?? deferredStartHost.map { min($0, now) } ?? now
        startGate = nil
        deferredStartHost = nil
        playing = true
        stalled = false
        clock.set(itemTime: lastTime, host: anchor, rate: effectiveRate(rate, pitchAlgorithm))
        renderer.setActive(session.hasAudio && audioPlays(rate, pitchAlgorithm))
        // Periodic observers hear of a start, not of resuming after a seek or a stream switch.
        if timeControl != .playing { deferred += observers.event(at: lastTime) }
        setTimeControl(.playing)
        return true
    }

    /// Whether playback of `session` ran out of data: nothing decoded, nothing demuxed, input not at
    /// its end (local files never get here: their demuxer is far ahead).
    private func isStarving(_ session: ItemSession, audioPlayed: Bool) -> Bool {
        if session.isAtEndOfFile { return false }
        if session.hasAudio && audioPlayed {
            return renderer.availableFrames == 0 && !session.isAudioDecoderFinished
                && (session.audioPackets?.count ?? 0) == 0
        }
        if session.hasVideo {
            return (session.videoFrames?.count ?? 0) == 0 && !session.isVideoDecoderFinished
                && (session.videoPackets?.count ?? 0) == 0
        }
        return false
    }

    /// Playback ran dry at `t`: wait (or pause, without automatic waiting) and report the stall.
    private func enterStall(_ session: ItemSession, at t: CMTime) {
        lock.withLock {
            playing = false
            stalled = true
            lastTime = t
            clock.freeze(at: t)
            renderer.setActive(false)
            stats.stalls += 1
            deferred += observers.event(at: t)
            emit(.stalled(session))
            if automaticallyWaits {
                setTimeControl(.waiting(.toMinimizeStalls))
            } else {
                rate = 0
                stalled = false
                emit(.rateChanged(0))
                setTimeControl(.paused)
            }
        }
        if sinkRunning {
            sink?.pause()
            sinkRunning = false
        }
    }

    /// While stalled: resumes once enough is buffered (or the input ended, or waiting was turned off).
    private func stalledStep(_ session: ItemSession) -> Double {
        let (t, waits, preferred) = lock.withLock {
            (lastTime, automaticallyWaits, session.descriptor.forwardBufferDuration)
        }
        let ahead = (session.bufferedEnd.map { ($0 - t).seconds }) ?? 0
        let needed = min(Self.resumeAfterStall, preferred.flatMap { $0 > 0 ? $0 : nil } ?? Self.resumeAfterStall)
        publishBuffer(session)
        if session.isAtEndOfFile || ahead >= needed || !waits {
            lock.withLock { stalled = false }
            return 0
        }
        return 0.05
    }

    private func realTimeStep(_ session: ItemSession, rate: Float) -> Double {
        if lock.withLock({ stalled }) { return stalledStep(session) }
        lock.withLock { _ = startIfNeeded(session, rate: rate) }
        if !sinkRunning {
            sink?.resume()
            sinkRunning = true
        }
        let host = hostNow()
        var t = lock.withLock { clock.time(host: host) }
        // Audio is the master clock when it plays: re-base the playback clock on it.
        let algorithm = lock.withLock { pitchAlgorithm }
        let audioPlayed = session.hasAudio && audioPlays(rate, algorithm)
        // Once audio has drained (a time-pitch stage keeps its last latency of media) the clock
        // runs on by itself to the end.
        if audioPlayed, !renderer.isDrained, let audio = renderer.clockTime(host: host) {
            t = audio
            clock.set(itemTime: audio, host: host, rate: effectiveRate(rate, algorithm))
        }
        if !audioPlayed { renderer.discard(before: t) }
        let end = endTime(session)
        if let end, t > end { t = end }
        if isStarving(session, audioPlayed: audioPlayed) {
            enterStall(session, at: t)
            return Self.refreshInterval
        }
        presentVideo(session, upTo: t, untimed: false)
        presentEarly(session, upTo: t, rate: rate)
        advanceObservers(to: t)
        if checkEnd(session, at: t, end: end) { return 0 }
        publishBuffer(session)
        // Sleep until the next frame is due, at most the refresh interval.
        if let (next, _) = session.videoFrames?.peek() {
            let due = (session.itemTime(next.pts) - t).seconds / Double(abs(rate))
            return max(0.001, min(Self.refreshInterval, due))
        }
        return Self.refreshInterval
    }

    private func virtualStep(_ session: ItemSession, rate: Float) -> Double {
        guard let vclock = configuration.virtualClock else { return 1 }
        lock.withLock { _ = startIfNeeded(session, rate: rate) }
        let from = lock.withLock { lastTime }
        var t: CMTime
        let end = endTime(session)
        if vclock.mode == .manual {
            t = lock.withLock { clock.time(host: hostNow()) }
            if let end, t > end { t = end }
            renderAudio(session, upTo: t, rate: rate)
        } else if session.hasAudio && audioPlays(rate, lock.withLock { pitchAlgorithm }) && !renderer.isDrained {
            waitForAudio(session, rate: rate)
            t = renderChunk(session) ?? from
            if t <= from && renderer.isDrained { t = session.isVideoFinished ? from : nextVideoTime(session) ?? from }
        } else if session.hasVideo && !session.isVideoFinished {
            // Once video is over, time runs to where its last packet ends (pictures skipped at high rates
            // never came out of the decoder).
            t = nextVideoTime(session) ?? max(from, session.videoInputEnd ?? from)
            if !audioPlays(rate, lock.withLock { pitchAlgorithm }) { renderer.discard(before: t) }
        } else {
            t = end ?? from
            if !audioPlays(rate, lock.withLock { pitchAlgorithm }) { renderer.discard(before: t) }
        }
        if let end, t > end { t = end }
        presentVideo(session, upTo: t, untimed: true)
        if vclock.mode == .untimed {
            let delta = t - from
            if delta > .zero {
                lock.withLock {
                    let r = effectiveRate(rate, pitchAlgorithm)
                    virtualHost = virtualHost + CMTimeMultiplyByFloat64(delta, multiplier: 1 / r)
                }
                vclock.set(lock.withLock { virtualHost })
            }
            lock.withLock { clock.freeze(at: t) }
        }
        advanceObservers(to: t)
        if checkEnd(session, at: t, end: end) { return 0 }
        publishBuffer(session)
        return vclock.mode == .manual ? 1 : 0
    }

    /// Untimed mode: blocks until a chunk of audio is decoded or the decoder finished.
    private func waitForAudio(_ session: ItemSession, rate: Float = 1) {
        guard let frames = session.audioFrames else { return }
        // A chunk of output at `rate` consumes chunk × rate media frames.
        let needed = Int(Double(Self.virtualChunkFrames) * max(1, Double(abs(rate))))
        while renderer.availableFrames < needed && !session.isAudioDecoderFinished && !isShuttingDown {
            _ = frames.waitUntilReadable(timeout: Self.refreshInterval)
            if frames.count >= 2 { break }
        }
    }

    private lazy var scratch: UnsafeMutablePointer<Float> = .allocate(
        capacity: Self.virtualChunkFrames * max(1, audioFormat.channelCount))

    /// Renders one chunk to the non-real-time sink; returns the item time after it.
    private func renderChunk(_ session: ItemSession) -> CMTime? {
        let n = renderer.renderAvailable(into: scratch, frameCount: Self.virtualChunkFrames)
        if n > 0 { sink?.write(scratch, frameCount: n) }
        return renderer.renderedEnd
    }

    /// Manual virtual mode: renders audio until `t`.
    private func renderAudio(_ session: ItemSession, upTo t: CMTime, rate: Float) {
        guard session.hasAudio, audioPlays(rate, lock.withLock { pitchAlgorithm }) else {
            renderer.discard(before: t)
            return
        }
        while !renderer.isDrained && !isShuttingDown {
            // Render exactly up to `t`: a manual clock's time is where audio stops.
            var frames = Self.virtualChunkFrames
            if let end = renderer.renderedEnd {
                guard end < t else { break }
                let remaining = Int(((t - end).seconds * Double(audioFormat.sampleRate) / Double(rate)).rounded())
                guard remaining > 0 else { break }
                frames = min(frames, remaining)
            }
            waitForAudio(session, rate: rate)
            let before = renderer.renderedEnd
            let n = renderer.renderAvailable(into: scratch, frameCount: frames)
            if n > 0 { sink?.write(scratch, frameCount: n) }
            if renderer.renderedEnd == before { break }
        }
    }

    /// The item time of the next video frame of the current serial, waiting for the decoder.
    private func nextVideoTime(_ session: ItemSession) -> CMTime? {
        guard let frames = session.videoFrames else { return nil }
        while !isShuttingDown {
            if let (frame, serial) = frames.peek() {
                if serial != session.videoSerial {
                    frames.pop()
                    continue
                }
                return session.itemTime(frame.pts)
            }
            if session.isVideoDecoderFinished { return nil }
            _ = frames.waitUntilReadable(timeout: Self.refreshInterval)
        }
        return nil
    }

    private func advanceObservers(to t: CMTime) {
        lock.withLock {
            let from = lastTime
            if t > from { deferred += observers.crossing(from: from, to: t) }
            lastTime = t
            if let id = queue.first?.id { lastTimeBySession[id] = t }
        }
    }

    /// Detects the end of the current item and applies the end action. Returns true when it ended.
    private func checkEnd(_ session: ItemSession, at t: CMTime, end: CMTime?) -> Bool {
        let reachedEndTime = lock.withLock { forwardEnd[session.id] }.map { t >= $0 } ?? false
        // Audio is done when everything was rendered; when it is not played (no device, rate ≠ 1)
        // its frames are discarded and the decoder finishing is enough.
        let audioPlayed = lock.withLock { audioPlays(rate, pitchAlgorithm) }
        // At the end of the item's timeline a last partial audio frame past the (rounded) duration
        // does not hold playback up.
        let atEnd = end.map { t >= $0 } ?? false
        let audioDone =
            !session.hasAudio
            || (audioPlayed
                ? renderer.isDrained || (atEnd && session.isAudioDecoderFinished)
                : session.isAudioDecoderFinished)
        // With every track disabled the timeline still runs to its end.
        let mediaDone =
            session.hasVideo || session.hasAudio ? session.isVideoFinished && audioDone : atEnd
        guard reachedEndTime || mediaDone else { return false }
        // How far the media got: the playhead, or further where skipped pictures (high rates) never came out.
        let mediaEnd = max(t, session.videoInputEnd ?? t)
        // Real time: let the last frame's time (and the audio device buffer) run out first.
        if !reachedEndTime, configuration.virtualClock == nil, let end, t < end {
            let remaining = (end - t).seconds
            let mediaReachedEnd = (end - mediaEnd).seconds <= Self.truncationTolerance
            if remaining > 0.002 && (remaining < 1 || mediaReachedEnd) { return false }
        }
        // The input ended well before the duration its index promised: it was cut short.
        let shortBy = end.map { ($0 - mediaEnd).seconds } ?? 0
        if !reachedEndTime, session.descriptor.durationIsExact, shortBy > Self.truncationTolerance {
            lock.withLock {
                ended.insert(session.id)
                lastTime = t
                lastTimeBySession[session.id] = t
                clock.freeze(at: t)
                let error = MediaEndedEarly(endedAt: t, duration: end ?? t)
                emit(.itemFailedToPlayToEnd(session, error))
                rate = 0
                playing = false
                renderer.setActive(false)
                deferred += observers.event(at: t)
                emit(.rateChanged(0))
                setTimeControl(.paused)
            }
            if sinkRunning {
                sink?.pause()
                sinkRunning = false
            }
            return true
        }
        endItem(session, at: end ?? t, from: t, reverse: false)
        return true
    }

    /// Ends `session` at `finalTime` (its end, or its reverse end when `reverse`) and applies the end action;
    /// `t` is the playhead before (observers between the two fire).
    private func endItem(_ session: ItemSession, at finalTime: CMTime, from t: CMTime, reverse: Bool) {
        var next: ItemSession?
        lock.withLock {
            ended.insert(session.id)
            if reverse { endedReverse.insert(session.id) } else { endedReverse.remove(session.id) }
            lastTime = finalTime
            lastTimeBySession[session.id] = finalTime
            clock.freeze(at: finalTime)
            deferred +=
                reverse
                ? observers.crossingBackward(from: t, to: finalTime) : observers.crossing(from: t, to: finalTime)
            emit(.itemPlayedToEnd(session))
            switch endAction {
            case .pause:
                rate = 0
                playing = false
                renderer.setActive(false)
                deferred += observers.event(at: finalTime)
                emit(.rateChanged(0))
                setTimeControl(.paused)
            case .none:
                playing = false
                renderer.setActive(false)
            case .advance:
                let old = queue.removeFirst()
                forget(old.id)
                next = queue.first
                playing = false
                currentChanged(from: old)
                emit(.currentItemChanged(from: old, to: next))
                if next == nil {
                    setTimeControl(rate != 0 ? .waiting(.noItemToPlay) : .paused)
                }
                deferred.append { old.stop() }
            }
            lock.broadcast()
        }
        if endActionIsPause() && sinkRunning {
            sink?.pause()
            sinkRunning = false
        }
    }

    private func endActionIsPause() -> Bool { lock.withLock { endAction == .pause } }

    // MARK: Reverse play

    /// Item time where reverse play ends (the reverse end time, else the start).
    private func reverseLowerBound(_ session: ItemSession) -> CMTime {
        max(lock.withLock { reverseEnd[session.id] } ?? .zero, .zero)
    }

    /// Stops the reverse source. With `realign`, the forward pipeline (left where reverse play began) seeks
    /// silently and exactly to the playhead, so stepping, pausing or playing forward continue from there.
    private func stopReverse(realign: Bool) {
        guard let r = reverseState else { return }
        tearDownReverse()
        guard realign else { return }
        lock.withLock {
            guard pendingSeek == nil, awaitingSeekFrame == nil, queue.first === r.session else { return }
            var seek = PendingSeek(session: r.session, target: lastTime, mode: .exact, completion: nil)
            seek.silent = true
            pendingSeek = seek
        }
    }

    /// Stops the reverse sources and gives the renderer the session's audio back.
    private func tearDownReverse() {
        guard let r = reverseState else { return }
        reverseState = nil
        r.source?.stop()
        if let audio = r.audio {
            audio.stop()
            renderer.setReverseQueue(nil)
            renderer.setActive(false)
            if sinkRunning {
                sink?.pause()
                sinkRunning = false
            }
        }
    }

    /// Playback at a negative rate: video frames come from a ``ReverseVideoSource`` in decreasing time and are
    /// shown as the clock runs backwards; audio, reversed by a ``ReverseAudioSource``, plays alongside (following the
    /// clock, at the rate's time-pitch). Ends at the reverse end time with the end action.
    private func reverseStep(_ session: ItemSession, rate: Float) -> Double {
        let lower = reverseLowerBound(session)
        if reverseState == nil {
            var source: ReverseVideoSource?
            let d = session.descriptor
            if let stream = d.videoStream {
                // Go back from the picture on screen (exclusive), or from the playhead when none is.
                let (start, shown) = lock.withLock { (lastPresented ?? lastTime, lastPresented != nil) }
                source = ReverseVideoSource(
                    location: d.location, options: d.options, streamIndex: stream,
                    start: session.containerTime(start), includeStart: !shown,
                    lowerBound: session.containerTime(lower))
            }
            var audio: ReverseAudioSource?
            let (algorithm, now) = lock.withLock { (pitchAlgorithm, lastTime) }
            if let stream = d.audioStream, sink != nil, audioPlays(-rate, algorithm) {
                audio = ReverseAudioSource(
                    location: d.location, options: d.options, streamIndex: stream, start: session.containerTime(now),
                    lowerBound: session.containerTime(lower), format: audioFormat)
                renderer.setRate(Double(-rate), algorithm: algorithm)
                renderer.setReverseQueue(audio?.frames)
            }
            lock.withLock { lastReverseSource = source }
            reverseState = ReverseState(
                session: session, source: source, audio: audio, generation: lock.withLock { jumpGeneration },
                audioFrom: now, audioRate: rate)
        }
        let source = reverseState?.source
        let audio = reverseState?.audio
        lock.withLock {
            _ = startIfNeeded(session, rate: rate)
            renderer.setActive(audio != nil)
        }
        if audio != nil, configuration.virtualClock == nil {
            if !sinkRunning {
                sink?.resume()
                sinkRunning = true
            }
        } else if sinkRunning {
            sink?.pause()
            sinkRunning = false
        }
        let from = lock.withLock { lastTime }
        if let r = reverseState, r.audioRate != rate {
            // A new negative rate: audio accounting (virtual clocks) starts again from here.
            reverseState?.audioFrom = from
            reverseState?.audioRate = rate
            reverseState?.audioWritten = 0
            renderer.setRate(Double(-rate), algorithm: lock.withLock { pitchAlgorithm })
        }
        var t: CMTime
        let vclock = configuration.virtualClock
        if let vclock, vclock.mode == .untimed {
            // Untimed: the playhead moves to each picture's start in turn.
            if let source, let frame = nextReverseFrame(source, session: session) {
                t = max(session.itemTime(frame.pts), lower)
                present(frame, session: session, backwards: true)
            } else if source == nil, audio != nil {
                // Audio only: the playhead moves back a chunk of audio at a time.
                let chunk = Double(Self.virtualChunkFrames) / Double(audioFormat.sampleRate) * Double(-rate)
                t = max(lower, from - CMTime(seconds: chunk, preferredTimescale: 1_000_000_000))
            } else {
                t = lower
            }
            if from > t {
                lock.withLock {
                    virtualHost = virtualHost + CMTimeMultiplyByFloat64(from - t, multiplier: 1 / Double(abs(rate)))
                }
                vclock.set(lock.withLock { virtualHost })
            }
            lock.withLock { clock.freeze(at: t) }
        } else {
            t = lock.withLock { clock.time(host: hostNow()) }
            if t < lower { t = lower }
            if let source { presentReverse(session, source, downTo: t, waitForDecoder: vclock != nil) }
        }
        if vclock != nil, let audio { renderReversedAudio(audio, downTo: t) }
        lock.withLock {
            if t < from { deferred += observers.crossingBackward(from: from, to: t) }
            lastTime = t
            lastTimeBySession[session.id] = t
        }
        let drained = source.map { $0.isFinished && $0.frames.count == 0 } ?? true
        if t <= lower && drained {
            tearDownReverse()
            endItem(session, at: lower, from: t, reverse: true)
            // The forward pipeline goes to the reverse end too, unless the item left.
            lock.withLock {
                if queue.first === session, pendingSeek == nil, awaitingSeekFrame == nil {
                    var seek = PendingSeek(session: session, target: lower, mode: .exact, completion: nil)
                    seek.silent = true
                    pendingSeek = seek
                }
            }
            return 0
        }
        guard vclock == nil else { return vclock?.mode == .manual ? 1 : 0 }
        // Sleep until the next picture is due, at most the refresh interval.
        if let (next, _) = source?.frames.peek() {
            let due = (t - session.itemTime(next.pts + next.duration)).seconds / Double(abs(rate))
            return max(0.001, min(Self.refreshInterval, due))
        }
        return Self.refreshInterval
    }

    /// Virtual clocks: writes the reversed audio that playback from the reverse start down to `t` covers (at the
    /// rate) to the sink, waiting for the source as needed.
    private func renderReversedAudio(_ audio: ReverseAudioSource, downTo t: CMTime) {
        guard let r = reverseState else { return }
        let seconds = (r.audioFrom - t).seconds / Double(-r.audioRate)
        var needed = Int((seconds * Double(audioFormat.sampleRate)).rounded()) - r.audioWritten
        while needed > 0 && !isShuttingDown {
            let n = renderer.renderAvailable(into: scratch, frameCount: min(needed, Self.virtualChunkFrames))
            if n > 0 {
                sink?.write(scratch, frameCount: n)
                reverseState?.audioWritten += n
                needed -= n
                continue
            }
            if audio.isFinished && audio.frames.count == 0 { break }
            _ = audio.frames.waitUntilReadable(timeout: Self.refreshInterval)
        }
    }

    /// The next reverse picture, waiting for the source; nil once it has none left.
    private func nextReverseFrame(_ source: ReverseVideoSource, session: ItemSession) -> VideoFrame? {
        while !isShuttingDown {
            if let (frame, _) = source.frames.pop() { return frame }
            if source.isFinished && source.frames.count == 0 { return nil }
            _ = source.frames.waitUntilReadable(timeout: Self.refreshInterval)
        }
        return nil
    }

    /// Presents the reverse pictures due at `t` (a picture is due once the clock is below its end). Real time
    /// drops a due picture when the one after it is due too; a virtual clock shows every picture, waiting for the
    /// decoder.
    private func presentReverse(
        _ session: ItemSession, _ source: ReverseVideoSource, downTo t: CMTime, waitForDecoder: Bool
    ) {
        func isDue(_ frame: VideoFrame) -> Bool {
            let start = session.itemTime(frame.pts)
            return frame.duration > .zero ? t < start + frame.duration : t <= start
        }
        while !isShuttingDown {
            guard let (frame, _) = source.frames.peek() else {
                if waitForDecoder && !source.isFinished {
                    _ = source.frames.waitUntilReadable(timeout: Self.refreshInterval)
                    continue
                }
                return
            }
            guard isDue(frame) else { return }
            source.frames.pop()
            if !waitForDecoder, let (next, _) = source.frames.peek(), isDue(next) {
                lock.withLock { stats.framesDropped += 1 }
                continue
            }
            present(frame, session: session, backwards: true)
        }
    }

    /// The running reverse source's counters (engine tests).
    package var reverseSourceStatistics: (framesDecoded: Int, passes: Int, maximumHeld: Int)? {
        lock.withLock { lastReverseSource }.map { ($0.framesDecoded, $0.passes, $0.maximumHeld) }
    }
    private var lastReverseSource: ReverseVideoSource?

    /// Publishes buffering state when it changed.
    private func publishBuffer(_ session: ItemSession) {
        let t = lock.withLock { lastTime }
        let end = session.bufferedEnd
        let eof = session.isAtEndOfFile
        var loaded: CMTimeRange?
        if let end, end > t { loaded = CMTimeRange(start: t, end: end) }
        let ahead = (end.map { ($0 - t).seconds } ?? 0)
        // While stalled everything buffered has been consumed (Apple: "playback will stall or end").
        let isStalled = lock.withLock { stalled }
        let state = BufferState(
            loaded: loaded, isEmpty: isStalled || (!eof && ahead <= 0), isFull: eof || ahead >= 10,
            isLikelyToKeepUp: !isStalled && (eof || ahead >= 2 || session.descriptor.location.hasPrefix("/")))
        lock.withLock {
            // Loaded ranges move with the playhead; publish on coarse changes only.
            let old = lastBuffer[session.id]
            if old?.isEmpty != state.isEmpty || old?.isFull != state.isFull
                || old?.isLikelyToKeepUp != state.isLikelyToKeepUp
                || abs((old?.loaded?.end.seconds ?? -1) - (state.loaded?.end.seconds ?? -1)) > 0.5
            {
                lastBuffer[session.id] = state
                emit(.bufferChanged(session, state))
            }
        }
    }

    /// The item time of `session` at host time `host` (monotonic nanoseconds, or the virtual clock's time), read
    /// from the playback clock's anchor; nil when `session` is not the current item. Any thread (video outputs).
    package func itemTime(forHost host: UInt64, session: ItemSession) -> CMTime? {
        lock.withLock {
            guard queue.first?.id == session.id else { return nil }
            return clock.time(host: host)
        }
    }
}

/// The input ended before the duration its index states (a truncated file or an interrupted download).
package struct MediaEndedEarly: Error, Sendable {
    package var endedAt: CMTime
    package var duration: CMTime
}
