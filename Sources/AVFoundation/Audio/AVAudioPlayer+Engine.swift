import Foundation
import PlaybackEngine

// The player's engine: made on first need, fed one audio-only item (every loop of the sound on one timeline), and
// heard through its events on the engine thread.
extension AVAudioPlayer {
    /// The engine, made on first need with the hook's clock and sink (else the platform's SDL device).
    func engineCreatingIfNeeded() -> PlayerEngine {
        if let engine = state.withLock({ $0.engine }) { return engine }
        let clock = oavfSourceClock as? VirtualClock
        let override = oavfAudioSinkOverride
        let sinkFactory: @Sendable () -> (any AudioSink)? = {
            if let override { return override() }
            if clock != nil { return NullAudioSink() }
            return PlatformAudioDevice().makeSink()
        }
        let engine = PlayerEngine(configuration: EngineConfiguration(virtualClock: clock, audioSink: sinkFactory))
        let (kept, mix) = state.withLock { s in
            if let e = s.engine { return (e, s.mix) }
            s.engine = engine
            return (engine, s.mix)
        }
        guard kept === engine else {
            engine.shutdown()
            return kept
        }
        engine.onEvent = { [weak self] event, _ in self?.handle(event) }
        // The item holds every loop; at its end the player stops.
        engine.setEndAction(.pause)
        // Media in a file or in memory never stalls for data: playing starts at once (and at a host time).
        engine.setAutomaticallyWaitsToMinimizeStalling(false)
        // Rate changes keep the pitch, as Apple's player does.
        engine.setTimePitchAlgorithm(.spectral)
        engine.setOutputMix(mix)
        return engine
    }

    /// Seconds of media read ahead of playback (the engine's default of 10 s serves network inputs).
    static let readAhead = 1.0

    /// Makes the item playing the sound from `start` seconds, its loops as `loops` says.
    private func makeItem(engine: PlayerEngine, start: TimeInterval, loops: LoopControl) -> ItemSession {
        let media = self.media
        var settings = ItemSession.Settings()
        if start > 0 {
            settings.start = ItemSession.Start(
                time: CMTime(seconds: start, preferredTimescale: 1_000_000), mode: .exact)
        }
        let inner = media.sourceFactory
        return ItemSession(audioFormat: engine.audioFormat, settings: settings) {
            // Every loop on one timeline: its length is not fixed (the count may change while it plays), so the
            // end is where the looped media ends.
            var descriptor = ItemDescriptor(
                location: media.location, videoStream: nil, audioStream: media.audioStream,
                timeOrigin: media.timeOrigin,
                duration: loops.numberOfLoops == 0 && media.duration > 0
                    ? CMTime(seconds: media.duration, preferredTimescale: 1_000_000) : .indefinite)
            descriptor.sourceFactory = MediaSourceFactory { location, sourceOptions, options, cancellation in
                LoopingSource(inner: inner.make(location, sourceOptions, options, cancellation), control: loops)
            }
            descriptor.durationIsExact = loops.numberOfLoops == 0 && media.durationIsExact
            // Media on this machine needs little read-ahead, and a change of the loop count applies at the end of
            // the play being read: a second keeps it close to the play being heard.
            descriptor.forwardBufferDuration = Self.readAhead
            return descriptor
        }
    }

    /// Queues the item when there is none (under `state`'s lock, so the engine takes queues in the order decided),
    /// from ``State/pendingTime``.
    func queueItem(_ s: inout State, engine: PlayerEngine) {
        guard s.current == nil else { return }
        let loops = LoopControl(numberOfLoops: s.numberOfLoops)
        let item = makeItem(engine: engine, start: s.pendingTime, loops: loops)
        s.current = item
        s.loops = loops
        engine.setQueue([item])
    }

    /// An engine event (engine thread).
    func handle(_ event: EngineEvent) {
        switch event {
        case .itemPlayedToEnd(let session):
            let finished: Bool = state.withLock { s in
                guard let engine = s.engine, session === s.current else { return false }
                // The last play ended: the player stops at the start, as Apple's.
                s.current = nil
                s.loops = nil
                s.pendingTime = 0
                s.isPlaying = false
                engine.setRate(0)
                engine.setQueue([])
                return true
            }
            if finished { tellDelegate { $1.audioPlayerDidFinishPlaying($0, successfully: true) } }
        case .itemFailed(let session, let error), .itemFailedToPlayToEnd(let session, let error):
            let failed: Bool = state.withLock { s in
                guard let engine = s.engine, session === s.current else { return false }
                s.pendingTime = playTime(s)
                s.current = nil
                s.loops = nil
                s.isPlaying = false
                engine.setRate(0)
                engine.setQueue([])
                return true
            }
            guard failed else { return }
            let nsError = decodeError(error)
            tellDelegate { player, delegate in
                delegate.audioPlayerDecodeErrorDidOccur(player, error: nsError)
                delegate.audioPlayerDidFinishPlaying(player, successfully: false)
            }
        default:
            break
        }
    }

    /// What a failure during playback says to the delegate: an `NSError` in `AVFoundationErrorDomain`.
    private func decodeError(_ error: any Error) -> NSError {
        if let error = error as? AVError { return error as NSError }
        if let url { return AVError.playbackFailure(error, url: url) as NSError }
        let what = url.map { "“\(AVError.displayName($0))”" } ?? "The data"
        if let failure = error as? any MediaFailure {
            return AVError.media(
                .decodeFailed, "\(what) could not be decoded: \(failure.message).", url: url, ffmpeg: failure)
                as NSError
        }
        return AVError.media(.decodeFailed, "\(what) could not be decoded: \(error).", url: url) as NSError
    }

    /// Calls the delegate on the main queue (it is `@MainActor`), if it is still there then.
    private func tellDelegate(_ body: @escaping @MainActor @Sendable (AVAudioPlayer, any AVAudioPlayerDelegate) -> Void)
    {
        DispatchQueue.main.async { [self] in
            MainActor.assumeIsolated {
                guard let delegate = self.delegate else { return }
                body(self, delegate)
            }
        }
    }

    /// Changes the output mix and tells the engine (under the lock, so mixes reach it in order).
    func changeMix(_ body: (inout AudioOutputStage.Mix) -> Void) {
        state.withLock { s in
            body(&s.mix)
            s.engine?.setOutputMix(s.mix)
        }
    }
}
