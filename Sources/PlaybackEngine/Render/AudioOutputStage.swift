import Foundation
import OAVFLocking

/// The last stage of the audio renderer's output, before the sink: a player's gain (with fades of any length), its
/// stereo pan, and a level meter over exactly what leaves (`AVAudioPlayer`'s `volume`, `setVolume(_:fadeDuration:)`,
/// `pan` and metering). At its defaults (gain 1, centred, meter off) it leaves samples untouched and costs a lock
/// and a comparison per render.
///
/// Threads: ``process(_:frameCount:channelCount:)`` runs on the thread that renders (the device thread, or the
/// engine thread on a virtual clock); ``apply(_:)`` on the engine thread (a ``PlayerEngine/setOutputMix(_:)``
/// command); ``takeLevels()`` on the caller's thread (`updateMeters()`). All state is in `state`,
/// guarded by its lock, held only for the arithmetic over one buffer.
package final class AudioOutputStage: Sendable {
    /// What the owner asks for.
    package struct Mix: Sendable, Equatable {
        /// Linear gain, 0…1.
        package var volume: Float
        /// -1 (left only) … 0 (centred) … 1 (right only): the other channel of a stereo pair is attenuated linearly.
        package var pan: Float
        /// Seconds over which a change of ``volume`` moves linearly from the gain playing now (0: a 10 ms de-click
        /// ramp, as the sinks' gain stage).
        package var fadeDuration: Double
        /// Whether the meter accumulates levels.
        package var isMeteringEnabled: Bool

        package init(volume: Float = 1, pan: Float = 0, fadeDuration: Double = 0, isMeteringEnabled: Bool = false) {
            self.volume = volume
            self.pan = pan
            self.fadeDuration = fadeDuration
            self.isMeteringEnabled = isMeteringEnabled
        }
    }

    /// Peak and mean power per channel since the last ``takeLevels()``, in linear units.
    package struct Levels: Sendable, Equatable {
        /// Largest absolute sample per channel.
        package var peak: [Float]
        /// Mean of the squared samples per channel (power); its square root is the RMS level.
        package var meanSquare: [Float]
        /// Frames measured.
        package var frameCount: Int
    }

    private struct State {
        var mix = Mix()
        var sampleRate: Int
        /// The gain applied to the last frame; moves to `mix.volume` by `step` per frame for `remaining` frames.
        var gain: Float = 1
        var step: Float = 0
        var remaining = 0
        /// Whether a frame was processed: until then a volume is taken at once (a volume set before playback does
        /// not fade in).
        var started = false
        /// Meter accumulators (per channel) since the last take.
        var peak: [Float] = []
        var sumSquares: [Double] = []
        var measured = 0
    }

    /// Guards the gain, pan and meter: the audio device thread applies them, the app's threads set them. Not an engine
    /// command: the device callback thread reads it and cannot wait for the engine's mailbox.
    private let state: Locked<State>

    /// A stage for output at `sampleRate` frames per second.
    package init(sampleRate: Int) {
        state = Locked(State(sampleRate: max(1, sampleRate)))
    }

    /// The mix asked for last.
    package var mix: Mix { state.withLock { $0.mix } }

    /// Sets the mix (engine thread): a volume change ramps from the gain playing now over `fadeDuration` (at least
    /// 10 ms, so no step clicks; before the first frame it is taken at once); pan and metering apply from the next buffer. Turning the meter on or off clears
    /// what it measured.
    package func apply(_ mix: Mix) {
        state.withLock { s in
            if mix.isMeteringEnabled != s.mix.isMeteringEnabled {
                s.peak = []
                s.sumSquares = []
                s.measured = 0
            }
            if !s.started {
                s.gain = mix.volume
                s.remaining = 0
            } else if mix.volume != s.mix.volume || (s.remaining > 0 && mix.fadeDuration != s.mix.fadeDuration) {
                let frames = max(1, Int((Double(s.sampleRate) * max(0.010, mix.fadeDuration)).rounded()))
                s.remaining = frames
                s.step = (mix.volume - s.gain) / Float(frames)
            }
            s.mix = mix
        }
    }

    /// Applies gain and pan to `frameCount` interleaved frames in place and meters the result.
    package func process(_ samples: UnsafeMutablePointer<Float>, frameCount: Int, channelCount: Int) {
        guard frameCount > 0, channelCount > 0 else { return }
        state.withLock { s in
            let mix = s.mix
            s.started = true
            if s.remaining == 0 && s.gain == 1 && mix.pan == 0 && !mix.isMeteringEnabled { return }
            let pan = min(max(mix.pan, -1), 1)
            // Balance of a stereo pair: the channel panned away from is attenuated linearly.
            let left: Float = pan > 0 ? 1 - pan : 1
            let right: Float = pan < 0 ? 1 + pan : 1
            let stereo = channelCount >= 2 && pan != 0
            if mix.isMeteringEnabled && s.peak.count != channelCount {
                s.peak = Array(repeating: 0, count: channelCount)
                s.sumSquares = Array(repeating: 0, count: channelCount)
                s.measured = 0
            }
            for frame in 0..<frameCount {
                if s.remaining > 0 {
                    s.remaining -= 1
                    s.gain = s.remaining == 0 ? mix.volume : s.gain + s.step
                }
                let base = frame * channelCount
                for channel in 0..<channelCount {
                    var gain = s.gain
                    if stereo && channel == 0 { gain *= left }
                    if stereo && channel == 1 { gain *= right }
                    var sample = samples[base + channel]
                    if gain != 1 {
                        sample *= gain
                        samples[base + channel] = sample
                    }
                    if mix.isMeteringEnabled {
                        let magnitude = abs(sample)
                        if magnitude > s.peak[channel] { s.peak[channel] = magnitude }
                        s.sumSquares[channel] += Double(sample) * Double(sample)
                    }
                }
            }
            if mix.isMeteringEnabled { s.measured += frameCount }
        }
    }

    /// The levels measured since the last call (nil when no frame was), and starts a new measurement. Any thread.
    package func takeLevels() -> Levels? {
        state.withLock { s in
            guard s.measured > 0 else { return nil }
            let levels = Levels(
                peak: s.peak, meanSquare: s.sumSquares.map { Float($0 / Double(s.measured)) }, frameCount: s.measured)
            s.peak = s.peak.map { _ in 0 }
            s.sumSquares = s.sumSquares.map { _ in 0 }
            s.measured = 0
            return levels
        }
    }

    /// The gain applied to the last frame processed (volume only, before pan).
    package var currentGain: Float { state.withLock { $0.gain } }
}
