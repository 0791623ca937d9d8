import Foundation
import PlaybackEngine

// The player's engine: made on first need, fed a queue of audio-only items (one per play of the sound, the next
// loop queued behind the current one), and heard through its events on the engine thread.
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
        // Each play of the sound is an item; the next loop follows without a gap.
        engine.setEndAction(.advance)
        // Media in a file or in memory never stalls for data: playing starts at once (and at a host time).
        engine.setAutomaticallyWaitsToMinimizeStalling(false)
        // Rate changes keep the pitch, as Apple's player does.
        engine.setTimePitchAlgorithm(.spectral)
        engine.setOutputMix(mix)
        return engine
    }

    /// Makes an item playing the sound from `start` seconds.
    private func makeItem(engine: PlayerEngine, start: TimeInterval) -> ItemSession {
        let media = self.media
        var settings = ItemSession.Settings()
        if start > 0 {
            settings.start = ItemSession.Start(
                time: CMTime(seconds: start, preferredTimescale: 1_000_000), mode: .exact)
        }
        return ItemSession(audioFormat: engine.audioFormat, settings: settings) {
            var descriptor = ItemDescriptor(
                location: media.location, videoStream: nil, audioStream: media.audioStream,
                timeOrigin: media.timeOrigin,
                duration: media.duration > 0
                    ? CMTime(seconds: media.duration, preferredTimescale: 1_000_000) : .indefinite)
            descriptor.sourceFactory = media.sourceFactory
            descriptor.durationIsExact = media.durationIsExact
            return descriptor
        }
    }

    /// Brings the engine's queue in line with the state (under `state`'s lock, so queues reach the engine in the
    /// order decided): an item from ``State/pendingTime`` when none is queued, and the next loop behind it while
    /// loops remain.
    func queueItems(_ s: inout State, engine: PlayerEngine) {
        var changed = false
        if s.current == nil {
            s.current = makeItem(engine: engine, start: s.pendingTime)
            s.playsStarted = 1
            changed = true
        }
        let loopsLeft = s.numberOfLoops < 0 || s.playsStarted <= s.numberOfLoops
        if loopsLeft && s.next == nil {
            s.next = makeItem(engine: engine, start: 0)
            changed = true
        } else if !loopsLeft && s.next != nil {
            s.next = nil
            changed = true
        }
        guard changed, let current = s.current else { return }
        engine.setQueue([current] + (s.next.map { [$0] } ?? []))
    }

    /// An engine event (engine thread).
    func handle(_ event: EngineEvent) {
        switch event {
        case .currentItemChanged(let old, let new):
            let finished: Bool = state.withLock { s in
                guard let engine = s.engine, let old, old === s.current else { return false }
                if let new, new === s.next {
                    s.current = new
                    s.next = nil
                    s.playsStarted += 1
                    queueItems(&s, engine: engine)
                    return false
                }
                // The last play ended: the player stops at the start, as Apple's.
                s.current = nil
                s.next = nil
                s.playsStarted = 0
                s.pendingTime = 0
                s.isPlaying = false
                engine.setRate(0)
                return true
            }
            if finished { tellDelegate { $1.audioPlayerDidFinishPlaying($0, successfully: true) } }
        case .itemFailed(let session, let error), .itemFailedToPlayToEnd(let session, let error):
            let failed: Bool = state.withLock { s in
                guard let engine = s.engine, session === s.current || session === s.next else { return false }
                s.pendingTime = session === s.current ? clamp(engine.currentTime(of: session).seconds) : 0
                s.current = nil
                s.next = nil
                s.playsStarted = 0
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
