import CoreMedia

/// Plays forwards in real time (ffplay's `video_refresh` with the audio clock as master): the clock follows the
/// audio heard, pictures due are presented (late ones dropped), the run sleeps until the next picture is due.
/// Handles stalls: a starving pipeline waits until enough is buffered.
///
/// Engine thread only.
final class RealTimeStepper {
    /// Sleep between checks while stalled (seconds).
    static let stalledInterval = 0.05

    private unowned let core: EngineCore

    init(core: EngineCore) {
        self.core = core
    }

    /// One step at `rate` (> 0); returns how long the loop may sleep.
    func step(_ session: ItemSession, rate: Float) -> Double {
        let transport = core.transport
        let audio = core.audio
        if core.loadControl.isStalled { return stalledStep(session) }
        if !transport.isRunning, !session.isLocal,
            core.loadControl.shouldWaitToStart(session, playhead: transport.playhead, waits: core.automaticallyWaits)
        {
            // A network source starts once a little is buffered, so that a link barely faster than the media does
            // not stall right after the start.
            core.loadControl.waitToStart()
            transport.setTimeControl(.waiting(.toMinimizeStalls))
            core.publishBuffer(session)
            return Self.stalledInterval
        }
        core.startIfNeeded(session, host: transport.hostNow())
        audio.resumeDevice()
        // A network source's clock stops at the end of what has been read (``ClockAnchor/limit``): when the data runs
        // out the playhead waits there for this step to notice the stall, however late the step comes.
        if !session.isLocal { transport.limitClock(to: session.readEnd) }
        let host = transport.hostNow()
        var t = transport.time(at: host)
        var heard: CMTime?
        // Audio is the master clock when it plays: the playback clock follows it (pulled towards it, never moved
        // back). Once audio has drained (a time-pitch stage keeps its last latency of media) the clock runs on by
        // itself to the end.
        let audioPlayed = session.hasAudio && audio.plays(rate: rate, algorithm: transport.algorithm)
        if audioPlayed, !audio.renderer.isDrained, let audioTime = audio.renderer.clockTime(host: host) {
            transport.follow(audioTime, at: host, rate: rate)
            t = transport.time(at: host)
            heard = audioTime
        }
        if !audioPlayed { audio.renderer.discard(before: t) }
        let end = core.endTime(session)
        if let end, t > end { t = end }
        if core.loadControl.isStarving(session, audioPlayed: audioPlayed, renderer: audio.renderer) {
            core.enterStall(session, at: t)
            return EngineCore.refreshInterval
        }
        core.presenter.presentDue(session, upTo: t, untimed: false)
        core.presenter.presentEarly(session, upTo: t, rate: rate)
        core.advanceObservers(to: t)
        if core.checkEnd(session, at: t, end: end, heard: heard) { return 0 }
        core.publishBuffer(session)
        // Sleep until the next picture is due, at most the refresh interval.
        if let (next, _) = session.videoFrames?.peek() {
            let due = (session.itemTime(next.pts) - t).seconds / Double(abs(rate))
            return max(0.001, min(EngineCore.refreshInterval, due))
        }
        return EngineCore.refreshInterval
    }

    /// While stalled: resumes once enough is buffered (or the input ended, or waiting was turned off).
    private func stalledStep(_ session: ItemSession) -> Double {
        core.publishBuffer(session)
        let resume = core.loadControl.shouldResume(
            session, playhead: core.transport.playhead, waits: core.automaticallyWaits)
        if resume {
            core.endStall(session)
            return 0
        }
        return Self.stalledInterval
    }
}
