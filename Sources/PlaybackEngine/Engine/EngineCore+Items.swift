import CoreMedia
import Foundation

// The item lifecycle: preparing, ready or failed, the current item changing, the end of an item and its end action.
extension EngineCore {
    /// Replaces the play queue; items that left stop.
    func setQueue(_ sessions: [ItemSession]) {
        let oldCurrent = items.currentSession
        let gone = items.replace(with: sessions)
        if oldCurrent !== items.currentSession { currentChanged(from: oldCurrent) }
        for session in gone {
            // Seeks waiting for it to start never will.
            for c in session.startCompletions { outbox.complete(c, false) }
            session.startCompletions = []
            session.stop()
        }
        if !gone.isEmpty && items.items.isEmpty { becameEmpty = true }
    }

    /// The current item changed (from `old`): playback stops at zero of the new one; seeks of other items are
    /// cancelled; sinks drop what they hold.
    func currentChanged(from old: ItemSession?) {
        let current = items.currentSession
        // A change of item interrupts a preroll.
        cancelPrerolls()
        if let old, items.state(of: old) != nil { items.setTime(transport.playhead, of: old) }
        loadControl.clearStall()
        // A new item reads its start at once (a ready one seeks there at once, a preparing one once ready); a ready
        // live item without one starts where its first frames are.
        transport.halt(at: current.map(startTime) ?? .zero)
        seeks.currentChanged(to: current)
        audio.renderer.setSession(items.current?.isPlayable == true ? current : nil)
        audio.renderer.setActive(false)
        presenter.resetPlayhead()
        presenter.flushSinks(session: current)
        if let current, items.current?.isPlayable == true { beginStart(current) }
    }

    /// Where `session` starts when it becomes current: the start asked for; else, once a live item is ready, its
    /// first frames (``ItemSession/liveStartTime``); else zero.
    func startTime(of session: ItemSession) -> CMTime {
        if let start = session.settings.start { return start.time }
        guard items.state(of: session)?.isPlayable == true else { return .zero }
        return session.liveStartTime ?? .zero
    }

    /// A seek asked for before `session` was ready (``ItemSession/Setting/start(_:completion:)``): an ordinary seek
    /// when it is the ready current item; otherwise kept as where it starts (a start kept earlier completes `false`),
    /// and read as its time from now on.
    func setStart(_ session: ItemSession, _ start: ItemSession.Start, completion: (@Sendable (Bool) -> Void)?) {
        // Not queued (it left before this was applied), or failed: it will never start.
        guard let state = items.state(of: session), state.phase != .failed else {
            outbox.complete(completion, false)
            return
        }
        if items.isCurrent(session), state.isPlayable {
            seeks.request(session, to: start.time, mode: start.mode, completion: completion)
            return
        }
        for superseded in session.startCompletions { outbox.complete(superseded, false) }
        session.startCompletions = completion.map { [$0] } ?? []
        session.apply(.start(start, completion: nil))
        if items.isCurrent(session) {
            transport.halt(at: start.time)
        } else {
            items.setTime(start.time, of: session)
        }
    }

    /// The current `session` became ready (or current while ready): it seeks to its start, if it has one, before
    /// anything is presented; the seeks that asked for it complete with that seek.
    func beginStart(_ session: ItemSession) {
        guard let (start, completions) = session.takeStart() else { return }
        var completion: (@Sendable (Bool) -> Void)?
        if !completions.isEmpty {
            completion = { finished in
                for c in completions { c(finished) }
            }
        }
        seeks.request(session, to: start.time, mode: start.mode, completion: completion)
    }

    /// Starts preparing `session` on a preparation thread.
    func startPreparing(_ session: ItemSession) {
        items.update(session) { $0.phase = .preparing }
        let mailbox = self.mailbox
        let clock = configuration.virtualClock
        session.onReadError = { [weak mailbox, weak session] error in
            guard let mailbox, let session else { return }
            mailbox.post(.readFailed(session, error), host: Transport.hostNow(clock))
        }
        preparer.start(session)
    }

    /// A preparation thread finished with `session` (`error` nil: it is ready).
    func prepared(_ session: ItemSession, error: (any Error)?) {
        preparer.finished(session)
        guard let state = items.state(of: session), state.phase == .preparing else { return }
        if let error {
            items.update(session) { $0.phase = .failed }
            seeks.cancel(session)
            for c in session.startCompletions { outbox.complete(c, false) }
            session.startCompletions = []
            outbox.emit(.itemFailed(session, error))
        } else {
            let iteration = self.iteration
            items.update(session) { s in
                s.phase = .ready
                s.readyIteration = iteration
            }
            if items.isCurrent(session) {
                // A live item's playhead goes to its first frames (the window before them is its time too).
                if session.settings.start == nil, let start = session.liveStartTime { transport.halt(at: start) }
                audio.renderer.setSession(session)
                beginStart(session)
            } else if session.settings.start == nil, let start = session.liveStartTime {
                items.setTime(start, of: session)
            }
            outbox.emit(.itemReady(session))
        }
    }

    /// Reading `session` failed for good (as of `host`). The current, playable item with no seek under way plays out
    /// what was read before it fails, unless it is live (a live playlist that stopped changing fails the item at
    /// once, as Apple's player does, also while buffered media plays) (the demuxer queued the end of its streams: ``ItemState/deferredReadFailure``,
    /// failed by ``checkEnd(_:at:end:heard:)``). Otherwise it fails now: its seeks still pending or waiting for their
    /// first frame complete `false` (a failed item takes no more steps, so they would never land: a fuzzed MP4 whose
    /// read failed while an exact seek far past its data waited), and the current item's playback stops there: its
    /// clock and sound stop (its time no longer moves, as nothing more is played).
    func readFailed(_ session: ItemSession, error: any Error, asOf host: UInt64) {
        guard let state = items.state(of: session) else { return }
        if items.isCurrent(session), state.phase == .ready, !seeks.isBusy, transport.rate >= 0, !session.isLive {
            items.update(session) { $0.deferredReadFailure = error }
            return
        }
        failRead(session, error: error, asOf: host)
    }

    /// Fails the current item now if its reading failed while what was read played out: a command is about to make
    /// it read again (a seek, a change of streams, playing backwards), which a failed read cannot.
    func failDeferredRead(_ session: ItemSession? = nil, asOf host: UInt64) {
        guard let current = items.current, session.map({ $0 === current.session }) ?? true,
            let error = current.deferredReadFailure
        else { return }
        failRead(current.session, error: error, asOf: host)
    }

    /// The item fails to play to its end with `error` (see ``readFailed(_:error:asOf:)``).
    func failRead(_ session: ItemSession, error: any Error, asOf host: UInt64) {
        items.update(session) { $0.deferredReadFailure = nil }
        items.update(session) { $0.phase = .failed }
        seeks.cancel(session)
        if items.isCurrent(session) {
            if transport.isRunning { observers.event(at: transport.stop(asOf: host)) }
            loadControl.clearStall()
            audio.renderer.setActive(false)
            audio.pauseDevice()
        }
        outbox.emit(.itemFailedToPlayToEnd(session, error))
    }

    /// Prepares the next queued item once the current one has been read to its end, so the change of item is
    /// gapless.
    func prepareNextIfNeeded(current: ItemSession) {
        guard items.items.count > 1, endAction == .advance else { return }
        let next = items.items[1]
        guard next.phase == .idle, current.isAtEndOfFile else { return }
        startPreparing(next.session)
    }

    /// Ends `session` at `finalTime` (its end, or its reverse end when `reverse`) and applies the end action; `t`
    /// is the playhead before (observers between the two fire).
    func endItem(_ session: ItemSession, at finalTime: CMTime, from t: CMTime, reverse: Bool) {
        items.update(session) { $0.phase = .ended(reverse: reverse) }
        transport.halt(at: finalTime)
        if reverse {
            observers.crossingBackward(from: t, to: finalTime)
        } else {
            observers.crossing(from: t, to: finalTime)
        }
        outbox.emit(.itemPlayedToEnd(session))
        audio.renderer.setActive(false)
        switch endAction {
        case .pause:
            observers.event(at: finalTime)
            transport.pauseOnItsOwn()
            audio.pauseDevice()
        case .none:
            break
        case .advance:
            let old = items.removeCurrent()
            let next = items.currentSession
            currentChanged(from: old)
            outbox.emit(.currentItemChanged(from: old, to: next))
            if next == nil {
                transport.setTimeControl(transport.rate != 0 ? .waiting(.noItemToPlay) : .paused)
                becameEmpty = old != nil
            }
            if let old { outbox.call { old.stop() } }
        }
    }
}
