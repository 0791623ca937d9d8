import CoreMedia
import Foundation

// Applying commands (engine thread), in the order they were posted, each as of the host time it was posted at.
extension EngineCore {
    func apply(_ command: EngineCommand) {
        EngineThread.assertCurrent()
        let host = command.host
        switch command.action {
        case .setQueue(let sessions):
            setQueue(sessions)
        case .setRate(let rate, let freeze):
            if rate < 0 { failDeferredRead(asOf: host) }
            setRate(rate, asOf: host, freeze: freeze)
        case .setScheduledRate(let rate, let itemTime, let startHost, let freeze):
            if itemTime != nil || rate < 0 { failDeferredRead(asOf: host) }
            transport.startGate = rate != 0 ? startHost : nil
            if let itemTime, let current = items.current, current.isPlayable {
                seeks.requestExact(current.session, to: itemTime)
            }
            setRate(rate, asOf: host, freeze: freeze)
        case .setTimePitchAlgorithm(let algorithm):
            transport.algorithm = algorithm
            let rate = transport.rate
            if rate != 0 { audio.renderer.setRate(Double(abs(rate)), algorithm: algorithm) }
        case .setAutomaticallyWaitsToMinimizeStalling(let waits):
            automaticallyWaits = waits
        case .setEndAction(let action):
            endAction = action
        case .setVolume(let volume, let muted):
            audio.setVolume(volume, muted: muted)
        case .setOutputMix(let mix):
            audio.renderer.outputStage.apply(mix)
        case .addVideoSink(let sink):
            presenter.add(sink)
        case .removeVideoSink(let id):
            presenter.remove(id)
        case .addPlayheadSink(let sink):
            presenter.add(sink)
        case .removePlayheadSink(let id):
            presenter.removePlayheadSink(id)
        case .addPeriodicObserver(let token, let interval, let handler):
            observers.addPeriodic(token: token, interval: interval, handler: handler)
        case .addBoundaryObserver(let token, let times, let handler):
            observers.addBoundary(token: token, times: times, handler: handler)
        case .removeObserver(let token):
            observers.remove(token)
        case .seek(let session, let target, let mode, let completion):
            failDeferredRead(session, asOf: host)
            seeks.request(session, to: target, mode: mode, completion: completion)
        case .cancelPendingSeeks(let session):
            seeks.cancel(session)
        case .configure(let session, .start(let start, let completion)):
            setStart(session, start, completion: completion)
        case .configure(let session, let setting):
            session.apply(setting)
        case .setStreams(let session, let video, let audio):
            failDeferredRead(session, asOf: host)
            seeks.requestStreams(session, video: video, audio: audio, asOf: host)
        case .step(let session, let count):
            if count < 0 { failDeferredRead(session, asOf: host) }
            seeks.requestStep(session, by: count, asOf: host)
        case .prepared(let session, let error):
            prepared(session, error: error)
        case .readFailed(let session, let error):
            readFailed(session, error: error, asOf: host)
        case .preroll(let completion):
            prerolls.append((completion, armed: false))
        case .cancelPrerolls:
            cancelPrerolls()
        case .barrier(let completion):
            outbox.complete(completion, true)
        }
    }

    /// `AVPlayer.rate` as of `host`: a pause (or a new rate) takes effect at that moment — where `freeze` says the
    /// caller saw the playhead — and a ready item starts counting from it.
    private func setRate(_ newRate: Float, asOf host: UInt64, freeze: EngineCommand.FreezePoint?) {
        // A player whose audio device failed can no longer play (Apple: `AVPlayer.status` `.failed`).
        if audioFailed && newRate != 0 {
            outbox.emit(.rateChanged(0))
            return
        }
        // Backwards, reversed audio goes through the time-pitch stage at the rate's magnitude.
        if newRate != 0 { audio.renderer.setRate(Double(abs(newRate)), algorithm: transport.algorithm) }
        guard newRate != transport.rate else { return }
        // The time control reached is reported as of this command, changed or not (see ``EventOutbox``).
        outbox.timeControlReported = false
        // A rate change interrupts a preroll.
        cancelPrerolls()
        transport.rate = newRate
        // An item that ended in one direction plays again in the other.
        if newRate != 0, case .ended(let reverse) = items.current?.phase, reverse == (newRate > 0) {
            items.updateCurrent { $0.phase = .ready }
        }
        if transport.isRunning {
            let now = transport.stop(asOf: host, freeze: freeze)
            if newRate == 0 { observers.event(at: now) }
        }
        if newRate != 0, canStartOnRate, let current = items.current {
            // A ready item starts as of the request, so the time between `play()` and this step counts (a manual
            // virtual clock may have advanced in between).
            startIfNeeded(current.session, host: host)
        } else if newRate != 0, !transport.isRunning, transport.isManual {
            // A manual clock: the start waits for a seek or a stream switch, but counts from the request, so time
            // the test moves the clock by in between is played.
            transport.deferredStartHost = transport.deferredStartHost ?? host
        }
        if newRate == 0 {
            transport.deferredStartHost = nil
            transport.setTimeControl(.paused)
        }
    }
}
