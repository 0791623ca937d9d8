import CoreMedia
import Foundation
import Synchronization

/// The engine thread's side of a ``PlayerEngine`` (Media3's `ExoPlayerImplInternal`, mpv's `run_playloop`): it owns
/// every piece of playback state, applies the commands the handle posts, moves playback one step at a time, and
/// publishes a snapshot and the events after each iteration.
///
/// One iteration: take the commands → apply them in order → one step (prepare, seek, present, render, detect the
/// end) → publish the snapshot → deliver events and completions (no lock held) → sleep until the next picture is
/// due, a command arrives or the clock moves.
///
/// Engine thread only: every member belongs to it, except ``mailbox`` and ``snapshots`` (thread-safe, shared with
/// the handle). The core holds no reference to the handle, so a handle nobody uses is freed and joins the thread.
final class EngineCore {
    /// Longest sleep of the real-time loop (ffplay's REFRESH_RATE, 10 ms).
    static let refreshInterval = 0.01
    /// Sleep while nothing can move (no item, preparing, paused): commands and clock moves wake the loop earlier.
    static let idleInterval = 1.0

    let configuration: EngineConfiguration
    let mailbox: EngineMailbox
    let snapshots: SnapshotStore
    let outbox = EventOutbox()
    let items = ItemQueue()
    let audio: AudioOutputDriver
    let observers: TimeObserverRegistry
    let transport: Transport
    let presenter: VideoPresenter
    let seeks: SeekCoordinator
    let loadControl = LoadControl()
    let endDetector = EndDetector()
    let preparer: ItemPreparer
    /// The steppers, one per way of keeping time.
    private(set) var realTime: RealTimeStepper!
    private(set) var virtual: VirtualStepper!
    private(set) var reverse: ReverseStepper!

    /// `actionAtItemEnd`.
    var endAction: EndAction = .pause
    /// `automaticallyWaitsToMinimizeStalling`: a stall waits (true) or pauses with rate 0 (false).
    var automaticallyWaits = true
    /// The rate the current item's video decoder was last adapted to (``ItemSession/adaptVideoDecoding(toRate:)``).
    private var decodingRate: (session: UUID, rate: Float)?
    /// The last command applied.
    private var processed: UInt64 = 0
    /// Commands taken from the mailbox (storage reused); emptied as soon as they are applied, so that what they carry
    /// (sessions, completions, sinks) is not kept alive while the engine sleeps: a session released by a queue change
    /// lived on in the last batch, with its packet queues, until the next iteration (up to ``idleInterval`` later).
    private var batch: [EngineCommand] = []
    /// The queue emptied this iteration (its last items left and were stopped): once the iteration has delivered its
    /// events and calls, nothing of theirs is held and the allocator's free memory goes back (``FreeMemory``).
    var becameEmpty = false
    /// The audio device failed to open or was lost for good: the player can no longer play (rates other than 0 are
    /// refused from then on).
    private(set) var audioFailed = false
    /// Loop iterations run (the preroll rule counts them).
    private(set) var iteration: UInt64 = 0
    /// `preroll(atRate:)` completions not made yet; `armed` once an iteration has passed since the request, so a
    /// cancel posted right after the request still finds it pending (see ``settlePrerolls()``).
    var prerolls: [(completion: @Sendable (Bool) -> Void, armed: Bool)] = []

    init(configuration: EngineConfiguration, audio: AudioOutputDriver, mailbox: EngineMailbox, snapshots: SnapshotStore)
    {
        self.configuration = configuration
        self.mailbox = mailbox
        self.snapshots = snapshots
        self.audio = audio
        let stopped: () -> Bool = { [mailbox] in mailbox.isStopRequested }
        observers = TimeObserverRegistry(outbox: outbox)
        transport = Transport(
            virtualClock: configuration.virtualClock, audio: audio, observers: observers, outbox: outbox)
        presenter = VideoPresenter(stopped: stopped)
        seeks = SeekCoordinator(
            items: items, transport: transport, presenter: presenter, audio: audio, observers: observers,
            outbox: outbox, stopped: stopped, wakeEngine: { [mailbox] in mailbox.wake() })
        let clock = configuration.virtualClock
        preparer = ItemPreparer(
            mailbox: mailbox, hostNow: { Transport.hostNow(clock) }, sourceClock: .forSources(of: clock))
        realTime = RealTimeStepper(core: self)
        virtual = VirtualStepper(core: self)
        reverse = ReverseStepper(core: self)
        if let reason = audio.unavailableReason { outbox.emit(.audioDeviceUnavailable(reason)) }
        if let reason = audio.openFailure {
            audioFailed = true
            outbox.emit(.audioDeviceFailed(reason, lost: false))
        }
        transport.onClockChange = { [unowned self] in publishSnapshot() }
    }

    /// Whether the engine is stopping (loops waiting for decoders end early).
    var isStopping: Bool { mailbox.isStopRequested }

    // MARK: Loop

    /// The engine thread's body; returns after ``EngineMailbox/requestStop()``, with everything stopped and joined.
    func run() {
        EngineThread.markCurrent()
        while true {
            mailbox.take(into: &batch)
            for command in batch {
                outbox.asOf = command.sequence
                apply(command)
                processed = command.sequence
            }
            let applied = !batch.isEmpty
            batch.removeAll(keepingCapacity: true)
            if mailbox.isStopRequested { break }
            iteration &+= 1
            settlePrerolls()
            if applied { publishSnapshot() }
            var sleep = step()
            checkAudioDevice()
            // A rate command that left the time control as it was is confirmed, so an owner that set it provisionally
            // hears what the engine reached as of that command.
            if !outbox.timeControlReported {
                outbox.timeControlReported = true
                outbox.emit(.timeControlChanged(transport.timeControl))
            }
            reportPlayhead()
            publishSnapshot()
            outbox.deliver(to: mailbox.eventHandler)
            if becameEmpty {
                becameEmpty = false
                if items.items.isEmpty { FreeMemory.release() }
            }
            // A preroll waiting to be settled is looked at again soon.
            if !prerolls.isEmpty { sleep = min(sleep, Self.refreshInterval) }
            mailbox.sleep(upTo: sleep)
        }
        tearDown()
    }

    /// Stops everything the engine started: the reverse sources, every item's pipeline, preparation threads, the
    /// audio device; seeks still waiting complete `false`.
    private func tearDown() {
        reverse.tearDown()
        seeks.cancelAll()
        cancelPrerolls()
        // Seeks posted after the last batch was taken but before the stop (their callers saw a running engine).
        mailbox.takeAfterStop(into: &batch)
        for command in batch { outbox.complete(command.action.completion, false) }
        for item in items.items {
            for c in item.session.startCompletions { outbox.complete(c, false) }
            item.session.startCompletions = []
            item.session.stop()
        }
        preparer.joinAll()
        audio.close()
        publishSnapshot()
        outbox.deliver(to: mailbox.eventHandler)
    }

    // MARK: Prerolls

    /// Completes the prerolls whose current item is primed: ready (or ended) for at least one iteration before this
    /// one (an owner hearing that it became ready may still move it, e.g. to the time it resumes at), no seek pending
    /// or in flight, and the picture at its time shown. Only a preroll requested before the previous iteration is
    /// completed `true`; with no current item, or a failed one, all complete `false`. Called after the iteration's
    /// commands were applied, so a cancel posted right after a request always finds it pending.
    func settlePrerolls() {
        EngineThread.assertCurrent()
        guard !prerolls.isEmpty else { return }
        guard let item = items.current, item.phase != .failed else {
            cancelPrerolls()
            return
        }
        let primed =
            item.isPlayable && item.readyIteration < iteration && !seeks.isBusy && item.hasShownFirstFrame
        if primed {
            for p in prerolls where p.armed { outbox.complete(p.completion, true) }
            prerolls.removeAll { $0.armed }
        }
        for i in prerolls.indices { prerolls[i].armed = true }
    }

    /// Completes every pending preroll `false` (cancelled, or interrupted by a rate change, a seek, an item change).
    func cancelPrerolls() {
        for p in prerolls { outbox.complete(p.completion, false) }
        prerolls.removeAll()
    }

    /// Publishes what readers on other threads see (after each iteration, and whenever the clock is re-anchored).
    func publishSnapshot() {
        var s = EngineSnapshot()
        s.processed = processed
        s.currentSession = items.currentSession
        s.clock = transport.isRunning ? transport.clock : .frozen(at: transport.playhead)
        s.epoch = transport.epoch
        s.continuesEpoch = transport.continuesEpoch
        s.itemTimes = items.times
        s.rate = transport.rate
        s.algorithm = transport.algorithm
        // A rate set now starts the clock from the playhead as of the call exactly when nothing shifts its anchor.
        s.startsOnRate =
            canStartOnRate && transport.startGate == nil && transport.deferredStartHost == nil && !transport.isUntimed
        s.statistics.framesPresented = presenter.framesPresented
        s.statistics.framesDropped = presenter.framesDropped
        s.statistics.stalls = loadControl.stalls
        s.reverse = reverse.statistics
        if let rebased = snapshots.publish(s, now: transport.hostNow) { transport.adopt(rebased) }
    }

    /// A lost audio device is reopened; when it cannot be, playback stops there and the player fails.
    private func checkAudioDevice() {
        guard let reason = audio.checkConnection() else { return }
        audioFailed = true
        if transport.rate != 0 {
            if transport.isRunning { observers.event(at: transport.stop(asOf: transport.hostNow())) }
            transport.pauseOnItsOwn()
        }
        audio.renderer.setActive(false)
        audio.pauseDevice()
        outbox.emit(.audioDeviceFailed(reason, lost: true))
    }

    // MARK: Step

    /// One step of playback; returns how long the loop may sleep (0: go on at once).
    private func step() -> Double {
        guard let item = items.current else {
            transport.setTimeControl(transport.rate != 0 ? .waiting(.noItemToPlay) : .paused)
            return Self.idleInterval
        }
        let session = item.session
        switch item.phase {
        case .failed:
            // A failed item plays no more: waiting if asked to play (as Apple's player stays), paused at rate 0. A
            // wait already announced keeps its reason, and play asked of a failed item waits as a player that was
            // just asked to play does (the reason its owner announced at once), so the failure stays the last change
            // observers hear.
            switch (transport.rate, transport.timeControl) {
            case (0, _): transport.setTimeControl(.paused)
            case (_, .waiting): break
            case (_, .playing): transport.setTimeControl(.waiting(.toMinimizeStalls))
            case (_, .paused): transport.setTimeControl(.waiting(.evaluatingBufferingRate))
            }
            return Self.idleInterval
        case .idle, .preparing:
            if item.phase == .idle { startPreparing(session) }
            transport.setTimeControl(transport.rate != 0 ? .waiting(.evaluatingBufferingRate) : .paused)
            return Self.idleInterval
        case .ready, .ended:
            break
        }
        prepareNextIfNeeded(current: session)
        seeks.beginRequested(session)
        let hasStep = seeks.hasStep(for: session)
        let isEnded = items.current?.hasEnded ?? false
        let rate = transport.rate
        adaptDecoding(session, rate: rate > 0 && !isEnded && !hasStep && !seeks.isAwaiting(session) ? rate : 0)
        if reverse.isStale(for: session, rate: rate, generation: seeks.generation, hasStep: hasStep, ended: isEnded) {
            reverse.stop(realign: !isEnded)
            return 0
        }
        if hasStep {
            seeks.performStep(session)
            return 0
        }
        if seeks.isAwaiting(session) { return seeks.completeIfLanded(session) }
        if items.current?.hasShownFirstFrame == false {
            presenter.showFirstFrame(session)
            items.updateCurrent { $0.hasShownFirstFrame = true }
        }
        if isEnded {
            transport.setTimeControl(rate != 0 && endAction == .none ? .playing : .paused)
            return Self.idleInterval
        }
        if rate == 0 {
            // Still catching up with a pause (the picture at the playhead not decoded yet): look again soon.
            return pausePlayback(session) ? Self.refreshInterval : Self.idleInterval
        }
        if !transport.isRunning, let gate = transport.startGate, !transport.isUntimed {
            let now = transport.hostNow()
            if now < gate {
                audio.pauseDevice()
                transport.setTimeControl(.waiting(.evaluatingBufferingRate))
                guard configuration.virtualClock == nil else { return Self.idleInterval }
                return max(0.001, min(Self.refreshInterval, Double(gate - now) / 1e9))
            }
        }
        if rate < 0 { return reverse.step(session, rate: rate) }
        if catchUpWithLiveWindow(session) { return 0 }
        if configuration.virtualClock != nil { return virtual.step(session, rate: rate) }
        return realTime.step(session, rate: rate)
    }

    /// Tells the playhead sinks where the current item plays (while it is ready and no seek is in flight).
    private func reportPlayhead() {
        guard let item = items.current, !seeks.isBusy else { return }
        switch item.phase {
        case .ready, .ended: presenter.reportPlayhead(transport.playhead, rate: transport.rate, session: item.session)
        case .idle, .preparing, .failed: return
        }
    }

    /// Lets the video decoder skip what playback at `rate` cannot show, when that changed.
    private func adaptDecoding(_ session: ItemSession, rate: Float) {
        if let d = decodingRate, d.session == session.id, d.rate == rate { return }
        decodingRate = (session.id, rate)
        session.adaptVideoDecoding(toRate: rate)
    }

    /// Paused: stops the clock (a start that raced this step already stopped it) and the device.
    /// Returns whether the picture at the playhead is still to come from the decoder.
    private func pausePlayback(_ session: ItemSession) -> Bool {
        if transport.isRunning {
            let now = transport.stop(asOf: transport.hostNow())
            observers.event(at: now)
        }
        audio.renderer.setActive(false)
        transport.setTimeControl(.paused)
        audio.pauseDevice()
        // A pause that found the engine behind its clock (a loaded machine, a manual clock moved far at once) froze
        // the playhead past the picture on screen: show the one at the playhead once it is decoded. Nothing waits:
        // the decoder may still be on its way there.
        let awaits = presenter.catchUp(session, to: transport.playhead)
        publishBuffer(session)
        return awaits
    }

    // MARK: Shared by the steppers

    /// Whether a non-zero rate starts the current item's clock when it is set (not at a later step): the item is
    /// ready (not ended or failed) and no seek is pending or in flight.
    var canStartOnRate: Bool { items.current?.phase == .ready && !seeks.isBusy }

    /// Starts the clock at the playhead as of `host` if it is not running (a stall ends with it).
    func startIfNeeded(_ session: ItemSession, host: UInt64) {
        if transport.start(asOf: host, hasAudio: session.hasAudio) { loadControl.clearStall() }
    }

    /// Item time where the current item ends: its forward end time, else its duration.
    func endTime(_ session: ItemSession) -> CMTime? {
        if let e = session.forwardEndTime { return e }
        let duration = session.descriptor.duration
        return duration.isNumeric ? duration : nil
    }

    /// Item time where reverse play ends: the reverse end time, else the start.
    func reverseEndTime(_ session: ItemSession) -> CMTime {
        max(session.reverseEndTime ?? .zero, .zero)
    }

    /// Playback moved forwards to `t`: boundary and periodic observers between fire; `t` becomes the playhead.
    func advanceObservers(to t: CMTime) {
        let from = transport.playhead
        if t > from { observers.crossing(from: from, to: t) }
        transport.playhead = t
    }

    /// Publishes the buffering state of `session` when it changed enough.
    func publishBuffer(_ session: ItemSession) {
        let state = loadControl.bufferState(session, playhead: transport.playhead)
        // A streamed source chooses its next variant on what it has read ahead of the playhead; the owner hears
        // when the playhead enters another variant's period.
        if let control = session.variantControl {
            let playhead = session.containerTime(transport.playhead).convertScale(1_000_000, method: .default).value
            control.playheadMicroseconds = playhead
            let period = control.period(atMicroseconds: playhead)
            if let state = items.state(of: session), state.publishedVariantPeriod != period {
                items.update(session) { $0.publishedVariantPeriod = period }
                outbox.emit(.variantChanged(session))
            }
        }
        guard LoadControl.isWorthPublishing(state, over: items.state(of: session)?.publishedBuffer) else { return }
        items.update(session) { $0.publishedBuffer = state }
        outbox.emit(.bufferChanged(session, state))
    }

    /// Playback ran dry at `time`: wait (or pause, without automatic waiting) and report the stall.
    func enterStall(_ session: ItemSession, at time: CMTime) {
        transport.halt(at: time, continuing: true)
        // Where the published clock stopped: no earlier than readers saw it (a reader may have read it after this
        // step's host time).
        let t = transport.playhead
        audio.renderer.setActive(false)
        loadControl.enterStall()
        observers.event(at: t)
        outbox.emit(.stalled(session))
        if automaticallyWaits {
            if session.isLive, session.preservesLiveOffset,
                let window = session.seekableRange
            {
                let stall = (max(.zero, window.end - t), seeks.generation)
                items.update(session) { $0.liveStall = stall }
            }
            transport.setTimeControl(.waiting(.toMinimizeStalls))
        } else {
            loadControl.clearStall()
            transport.pauseOnItsOwn()
        }
        audio.pauseDevice()
    }

    /// How far before the window's start a playhead still counts as inside its first segment: the streams of a
    /// segment start a few frames apart (audio before video, or another rendition's), and the window's start is
    /// placed from the earliest timestamp of the segment its source started reading (HLS), so an item playing from
    /// its window's first segment may sit a little before the window (one that started with it; one whose player's
    /// source started at another segment than the asset's loading did). (Seeking there re-fetched the first segments
    /// and showed the first picture twice.)
    static let liveWindowStartSlack = CMTime(value: 1, timescale: 4)

    /// A live item playing forwards whose playhead the window left behind (while paused, or stalled) goes to the
    /// window's start, before anything more is presented; true when that seek was requested.
    func catchUpWithLiveWindow(_ session: ItemSession) -> Bool {
        guard !seeks.isBusy, session.isLive, let window = session.seekableRange, window.start > .zero,
            transport.playhead < window.start - Self.liveWindowStartSlack
        else { return false }
        let mode = SeekMode.window(before: .zero, after: .positiveInfinity)
        seeks.request(session, to: window.start, mode: mode, completion: nil)
        return true
    }

    /// A stall is over: playback goes on at the next step. A live item that preserves its offset from the live edge
    /// first seeks forward to the offset it had when the stall began (at least one target duration, so that the seek
    /// lands where something is listed; a stall at the edge), unless it is nearer than that already or a seek was
    /// made meanwhile. The seek is requested before anything else is presented: no picture of the old position shows.
    func endStall(_ session: ItemSession) {
        loadControl.clearStall()
        guard let stall = items.state(of: session)?.liveStall else { return }
        items.update(session) { $0.liveStall = nil }
        guard session.preservesLiveOffset, stall.seekGeneration == seeks.generation,
            !seeks.isBusy, let window = session.seekableRange
        else { return }
        let margin = CMTime(seconds: session.liveTargetDuration ?? 0, preferredTimescale: 1000)
        let target = max(window.start, window.end - max(stall.offset, margin))
        guard target > transport.playhead else { return }
        seeks.request(session, to: target, mode: .window(before: .zero, after: .positiveInfinity), completion: nil)
    }

    /// Detects the end of forward playback at `t` and applies the end action; true when the item ended. `heard`: the
    /// audio clock's time, when audio is heard (the playback clock only follows it, and may be ahead of it).
    func checkEnd(_ session: ItemSession, at t: CMTime, end: CMTime?, heard: CMTime? = nil) -> Bool {
        let outcome = endDetector.evaluate(
            session, at: t, end: end, forwardEnd: session.forwardEndTime,
            audioPlayed: audio.plays(rate: transport.rate, algorithm: transport.algorithm),
            renderer: audio.renderer, realTime: configuration.virtualClock == nil, heard: heard)
        if outcome != .playing, let failure = items.state(of: session)?.deferredReadFailure,
            !(session.forwardEndTime.map { t >= $0 } ?? false)
        {
            // What was read before reading failed has played: the item fails there (not at a forward end time
            // reached before it).
            failRead(session, error: failure, asOf: transport.hostNow())
            return true
        }
        switch outcome {
        case .playing:
            return false
        case .truncated(let endedAt, let duration):
            items.updateCurrent { $0.phase = .ended(reverse: false) }
            transport.halt(at: endedAt)
            outbox.emit(.itemFailedToPlayToEnd(session, MediaEndedEarly(endedAt: endedAt, duration: duration)))
            audio.renderer.setActive(false)
            observers.event(at: endedAt)
            transport.pauseOnItsOwn()
            audio.pauseDevice()
            return true
        case .ended(let at):
            endItem(session, at: at, from: t, reverse: false)
            return true
        }
    }
}
