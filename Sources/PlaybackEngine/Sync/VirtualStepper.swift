import CoreMedia

/// Plays forwards on a ``VirtualClock``. Untimed: as fast as decoding allows, every picture presented and every
/// audio sample written, the clock moved to each chunk's end. Manual: to wherever the test moved the clock, audio
/// rendered exactly up to it.
///
/// Engine thread only.
final class VirtualStepper {
    private unowned let core: EngineCore

    init(core: EngineCore) {
        self.core = core
    }

    /// One step at `rate` (> 0); returns how long the loop may sleep.
    func step(_ session: ItemSession, rate: Float) -> Double {
        let transport = core.transport
        let audio = core.audio
        let presenter = core.presenter
        let stopped: () -> Bool = { [core] in core.isStopping }
        core.startIfNeeded(session, host: transport.hostNow())
        let from = transport.playhead
        let end = core.endTime(session)
        let plays = audio.plays(rate: rate, algorithm: transport.algorithm)
        var t: CMTime
        if transport.isManual {
            t = transport.now()
            if let end, t > end { t = end }
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
        core.publishBuffer(session)
        return transport.isManual ? EngineCore.idleInterval : 0
    }
}
