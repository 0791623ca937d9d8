import CoreMedia

/// Plays backwards at any negative rate: pictures come from a ``ReverseVideoSource`` in decreasing time and are shown
/// as the clock runs backwards; audio, reversed by a ``ReverseAudioSource``, plays alongside (following the clock,
/// through the rate's time-pitch stage). Ends at the reverse end time with the end action; the forward pipeline is
/// then realigned to the playhead.
///
/// Engine thread only.
final class ReverseStepper {
    /// The running reverse sources and the seek generation they started in.
    private struct Run {
        var session: ItemSession
        var video: ReverseVideoSource?
        /// Reversed audio (nil without audio, or at a rate the time-pitch algorithm cannot play).
        var audio: ReverseAudioSource?
        var generation: Int
        /// Virtual clocks: the item time and rate audio accounting started from, and the frames written since.
        var audioFrom: CMTime
        var audioRate: Float
        var audioWritten = 0
    }

    private unowned let core: EngineCore
    /// The reverse run, while playing backwards.
    private var run: Run?
    /// The last reverse video source (its counters stay readable after it stopped).
    private var lastVideoSource: ReverseVideoSource?

    init(core: EngineCore) {
        self.core = core
    }

    /// The last reverse video source's counters.
    var statistics: ReverseStatistics? {
        lastVideoSource.map {
            ReverseStatistics(framesDecoded: $0.framesDecoded, passes: $0.passes, maximumHeld: $0.maximumHeld)
        }
    }

    /// Whether a reverse run exists that no longer fits: another item, a rate that is not negative, a seek since it
    /// started, a step, or an ended item.
    func isStale(for session: ItemSession, rate: Float, generation: Int, hasStep: Bool, ended: Bool) -> Bool {
        guard let run else { return false }
        return run.session !== session || rate >= 0 || run.generation != generation || hasStep || ended
    }

    /// Stops the run. With `realign`, the forward pipeline (left where reverse play began) seeks silently and
    /// exactly to the playhead, so stepping, pausing or playing forwards continue from there.
    func stop(realign: Bool) {
        guard let run else { return }
        tearDown()
        if realign && core.items.isCurrent(run.session) {
            core.seeks.realign(run.session, to: core.transport.playhead)
        }
    }

    /// Stops the reverse sources and gives the renderer the item's own audio back.
    func tearDown() {
        guard let run else { return }
        self.run = nil
        run.video?.stop()
        if let audio = run.audio {
            audio.stop()
            core.audio.renderer.setReverseQueue(nil)
            core.audio.renderer.setActive(false)
            core.audio.pauseDevice()
        }
    }

    /// One step at `rate` (< 0); returns how long the loop may sleep.
    func step(_ session: ItemSession, rate: Float) -> Double {
        let transport = core.transport
        let audioDriver = core.audio
        let lower = core.reverseEndTime(session)
        if run == nil { begin(session, rate: rate, lower: lower) }
        guard let current = run else { return 0 }
        core.startIfNeeded(session, host: transport.hostNow())
        audioDriver.renderer.setActive(current.audio != nil)
        if current.audio != nil, core.configuration.virtualClock == nil {
            audioDriver.resumeDevice()
        } else {
            audioDriver.pauseDevice()
        }
        let from = transport.playhead
        if current.audioRate != rate {
            // A new negative rate: audio accounting (virtual clocks) starts again from here.
            run?.audioFrom = from
            run?.audioRate = rate
            run?.audioWritten = 0
            audioDriver.renderer.setRate(Double(-rate), algorithm: transport.algorithm)
        }
        let source = current.video
        var t: CMTime
        if transport.isUntimed {
            // Untimed: the playhead moves to each picture's start in turn.
            var shown: VideoFrame?
            if let source, let frame = nextFrame(source) {
                t = max(session.itemTime(frame.pts), lower)
                shown = frame
            } else if source == nil, current.audio != nil {
                // Audio only: the playhead moves back a chunk of audio at a time.
                let chunk =
                    Double(AudioOutputDriver.virtualChunkFrames) / Double(audioDriver.format.sampleRate) * Double(-rate)
                t = max(lower, from - CMTime(seconds: chunk, preferredTimescale: 1_000_000_000))
            } else {
                t = lower
            }
            if from > t { transport.advanceVirtualHost(by: from - t, rate: rate) }
            transport.freezeClock(at: t)
            if let shown { core.presenter.present(shown, session: session, backwards: true) }
        } else {
            t = transport.now()
            if t < lower { t = lower }
            if let source { present(session, source, downTo: t, waitForDecoder: transport.virtualClock != nil) }
        }
        if transport.virtualClock != nil, let audio = current.audio { renderAudio(audio, downTo: t) }
        if t < from { core.observers.crossingBackward(from: from, to: t) }
        transport.playhead = t
        let drained = source.map { $0.isFinished && $0.frames.count == 0 } ?? true
        if t <= lower && drained {
            tearDown()
            core.endItem(session, at: lower, from: t, reverse: true)
            // The forward pipeline goes to the reverse end too, unless the item left.
            core.seeks.realign(session, to: lower)
            return 0
        }
        if let clock = transport.virtualClock { return clock.mode == .manual ? EngineCore.idleInterval : 0 }
        // Sleep until the next picture is due, at most the refresh interval.
        if let (next, _) = source?.frames.peek() {
            let due = (t - session.itemTime(next.pts + next.duration)).seconds / Double(abs(rate))
            return max(0.001, min(EngineCore.refreshInterval, due))
        }
        return EngineCore.refreshInterval
    }

    /// Starts the reverse sources from the picture on screen (or the playhead) down to `lower`.
    private func begin(_ session: ItemSession, rate: Float, lower: CMTime) {
        let transport = core.transport
        let d = session.descriptor
        var video: ReverseVideoSource?
        if let stream = d.videoStream {
            // Go back from the picture on screen (exclusive), or from the playhead when none is.
            let shown = core.presenter.lastPresented
            video = ReverseVideoSource(
                source: session.makeIndependentSource(), streamIndex: stream,
                start: session.containerTime(shown ?? transport.playhead), includeStart: shown == nil,
                lowerBound: session.containerTime(lower))
        }
        var audio: ReverseAudioSource?
        if let stream = d.audioStream, core.audio.hasSink, core.audio.plays(rate: -rate, algorithm: transport.algorithm)
        {
            audio = ReverseAudioSource(
                source: session.makeIndependentSource(), streamIndex: stream,
                start: session.containerTime(transport.playhead), lowerBound: session.containerTime(lower),
                format: core.audio.format)
            core.audio.renderer.setRate(Double(-rate), algorithm: transport.algorithm)
            core.audio.renderer.setReverseQueue(audio?.frames)
        }
        lastVideoSource = video
        run = Run(
            session: session, video: video, audio: audio, generation: core.seeks.generation,
            audioFrom: transport.playhead, audioRate: rate)
    }

    /// Virtual clocks: writes the reversed audio that playback from the run's start down to `t` covers (at the rate)
    /// to the sink, waiting for the source as needed.
    private func renderAudio(_ audio: ReverseAudioSource, downTo t: CMTime) {
        guard let current = run else { return }
        let seconds = (current.audioFrom - t).seconds / Double(-current.audioRate)
        let needed = Int((seconds * Double(core.audio.format.sampleRate)).rounded()) - current.audioWritten
        guard needed > 0 else { return }
        run?.audioWritten += core.audio.renderReversed(frames: needed, from: audio) { [core] in core.isStopping }
    }

    /// The next reverse picture, waiting for the source; nil once it has none left.
    private func nextFrame(_ source: ReverseVideoSource) -> VideoFrame? {
        while !core.isStopping {
            if let (frame, _) = source.frames.pop() { return frame }
            if source.isFinished && source.frames.count == 0 { return nil }
            _ = source.frames.waitUntilReadable(timeout: EngineCore.refreshInterval)
        }
        return nil
    }

    /// Presents the reverse pictures due at `t` (a picture is due once the clock is below its end). Real time drops
    /// a due picture when the one after it is due too; a virtual clock shows every picture, waiting for the decoder.
    private func present(_ session: ItemSession, _ source: ReverseVideoSource, downTo t: CMTime, waitForDecoder: Bool) {
        func isDue(_ frame: VideoFrame) -> Bool {
            let start = session.itemTime(frame.pts)
            return frame.duration > .zero ? t < start + frame.duration : t <= start
        }
        while !core.isStopping {
            guard let (frame, _) = source.frames.peek() else {
                if waitForDecoder && !source.isFinished {
                    _ = source.frames.waitUntilReadable(timeout: EngineCore.refreshInterval)
                    continue
                }
                return
            }
            guard isDue(frame) else { return }
            source.frames.pop()
            if !waitForDecoder, let (next, _) = source.frames.peek(), isDue(next) {
                core.presenter.countDropped()
                continue
            }
            core.presenter.present(frame, session: session, backwards: true)
        }
    }
}
