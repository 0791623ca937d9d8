import Foundation
import PlaybackEngine

// Level metering: what the player's renderer sent to the device since the last update.
extension AVAudioPlayer {
    /// The level reported for silence and for no signal at all, as Apple's (dBFS).
    static let silenceDecibels: Float = -160

    /// Whether the player measures its output levels (default false); ``updateMeters()`` reads them.
    public var isMeteringEnabled: Bool {
        get { state.withLock { $0.mix.isMeteringEnabled } }
        set {
            changeMix { $0.isMeteringEnabled = newValue }
            if !newValue { state.withLock { $0.meters = ([], []) } }
        }
    }

    /// Refreshes ``averagePower(forChannel:)`` and ``peakPower(forChannel:)`` with the levels of what the player
    /// rendered since the last call (all -160 when nothing was: paused, stopped, or metering off).
    public func updateMeters() {
        let (engine, enabled) = state.withLock { ($0.engine, $0.mix.isMeteringEnabled) }
        let levels = enabled ? engine?.renderer.outputStage.takeLevels() : nil
        let average = levels?.meanSquare.map { Self.decibels(power: $0) } ?? []
        let peak = levels?.peak.map { Self.decibels(amplitude: $0) } ?? []
        state.withLock { $0.meters = (average, peak) }
    }

    /// The RMS level of channel `channelNumber` (0-based) over the last ``updateMeters()`` interval, in dBFS: 0 is
    /// full scale, -160 silence; -160 for a channel the output does not have.
    public func averagePower(forChannel channelNumber: Int) -> Float {
        state.withLock { s in
            s.meters.average.indices.contains(channelNumber) ? s.meters.average[channelNumber] : Self.silenceDecibels
        }
    }

    /// The largest sample of channel `channelNumber` (0-based) over the last ``updateMeters()`` interval, in dBFS: 0
    /// is full scale, -160 silence.
    public func peakPower(forChannel channelNumber: Int) -> Float {
        state.withLock { s in
            s.meters.peak.indices.contains(channelNumber) ? s.meters.peak[channelNumber] : Self.silenceDecibels
        }
    }

    /// 10·log10 of a mean square, clamped to -160…0.
    static func decibels(power: Float) -> Float {
        guard power > 0 else { return silenceDecibels }
        return min(0, max(silenceDecibels, 10 * log10(power)))
    }

    /// 20·log10 of an amplitude, clamped to -160…0.
    static func decibels(amplitude: Float) -> Float {
        guard amplitude > 0 else { return silenceDecibels }
        return min(0, max(silenceDecibels, 20 * log10(amplitude)))
    }
}
