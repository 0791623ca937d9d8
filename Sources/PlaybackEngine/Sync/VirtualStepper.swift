import CoreMedia

/// Plays forwards on a ``VirtualClock``. Untimed: as fast as decoding allows, every picture presented and every
/// audio sample written, the clock moved to each chunk's end. Manual: to wherever the test moved the clock, audio
/// rendered exactly up to it — for a network source, no further than its media has been read: a clock moved past the
/// end of what has arrived plays up to it and stalls there, as real time would (the playhead stops, the item waits
/// to play, ``LoadControl`` says when it resumes), instead of running on while pictures stop. A local source's data
/// is always there: its clock runs on (its decoders catch up).
///
/// Engine thread only.
final class VirtualStepper {
    private unowned let core: EngineCore

    init(core: EngineCore) {
        self.core = core
    }

    /// Real seconds a manual-clock step waits for a network source's reader to hand on what has arrived.
    static let inputWait = 0.002
    /// At most this many such waits in a row (seconds: × ``inputWait`` and more), a bound against a reader that never
    /// reports a wait (one blocked elsewhere).
    static let maximumInputWaits = 2500
    /// Waits in a row so far.
    private var inputWaits = 0

    /// One step at `rate` (> 0); returns how long the loop may sleep.
    func step(_ session: ItemSession, rate: Float) -> Double {
        let transport = core.transport
        let audio = core.audio
        let presenter = core.presenter
        let stopped: () -> Bool = { [core] in core.isStopping }
        let waitsForData = transport.isManual && !session.isLocal
        if waitsForData && core.loadControl.isStalled {
            core.publishBuffer(session)
            guard
                core.loadControl.shouldResume(session, playhead: transport.playhead, waits: core.automaticallyWaits)
            else { return EngineCore.idleInterval }
            core.endStall(session)
        }
        core.startIfNeeded(session, host: transport.hostNow())
        let from = transport.playhead
        let end = core.endTime(session)
        let plays = audio.plays(rate: rate, algorithm: transport.algorithm)
        var t: CMTime
        var runsDry = false
        if transport.isManual {
            t = transport.now()
            if let end, t > end { t = end }
            // A network source's media ends where its reading stands (nothing read yet: at the playhead) — once its
            // reader waits for input: bytes that arrived by this time of the clock may still be on their way through
            // the demuxer, whose thread runs beside this one (a loaded machine stalled here with media read but not
            // yet demuxed). A bounded number of short waits for it; then the stall goes ahead.
            if waitsForData, !session.isAtEndOfFile, case let read = session.bufferedEnd ?? from, t > read {
                if !session.isWaitingForInput, inputWaits < Self.maximumInputWaits {
                    inputWaits += 1
                    return Self.inputWait
                }
                t = max(from, read)
                runsDry = true
            }
            inputWaits = 0
            if session.hasAudio && plays {
                audio.render(session, upTo: t, rate: rate, stopped: stopped)
            } else {
                audio.renderer.discard(before: t)
            }
        } else if session.hasAudio && plays && !audio.renderer.isDrained {
            audio.waitForAudio(session, rate: rate, stopped: stopped)
            t = audio.renderChunk() ?? from
            if t <= from && audio.renderer.isDrained {
                t = session.isVideoFinished ? from : presenter.nextFrameTime(session) ?? from
            }
        } else if session.hasVideo && !session.isVideoFinished {
            // Once video is over, time runs to where its last packet ends (pictures skipped at high rates never
            // came out of the decoder).
            t = presenter.nextFrameTime(session) ?? max(from, session.videoInputEnd ?? from)
            if !plays { audio.renderer.discard(before: t) }
        } else {
            t = end ?? from
            // Every track played is over. Media that stopped well before an exact duration (a truncated file) ends
            // where it stopped, so its end is found there — also when the audio decoder reported its end only after
            // the last chunk was rendered (a loaded machine), not only when both came in one step.
            let played = session.hasVideo || session.hasAudio && plays
            let mediaEnd = max(from, session.videoInputEnd ?? from)
            if played, session.descriptor.durationIsExact, let end,
                (end - mediaEnd).seconds > EndDetector.truncationTolerance
            {
                t = mediaEnd
            }
            if !plays { audio.renderer.discard(before: t) }
        }
        if let end, t > end { t = end }
        if transport.isUntimed {
            transport.advanceVirtualHost(by: t - from, rate: rate)
            transport.freezeClock(at: t)
        }
        presenter.presentDue(session, upTo: t, untimed: true)
        core.advanceObservers(to: t)
        if core.checkEnd(session, at: t, end: end) { return 0 }
        if runsDry {
            core.enterStall(session, at: t)
            return EngineCore.idleInterval
        }
        core.publishBuffer(session)
        return transport.isManual ? EngineCore.idleInterval : 0
    }
}
