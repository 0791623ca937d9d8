import Synchronization

/// The volume and mute a sink was last given, readable and writable from any thread without a lock.
///
/// Every sink (SDL, null, capture) keeps one, sets it from ``AudioSink/setVolume(_:muted:)`` and hands
/// ``gain`` to its ``AudioGainRamp`` on the thread that produces samples. Lock-free so the device callback
/// can read it without ever waiting on a thread that is closing the device.
package final class AudioVolume: Sendable {
    /// Volume bits (`Float.bitPattern`) in the low 32 bits, mute in bit 32: one atomic word (not a lock: the device
    /// thread never waits), so a reader never sees the volume of one call with the mute of another.
    private let word: Atomic<UInt64>

    /// Starts at `volume` (clamped like ``set(volume:muted:)``) and `muted`; by default full volume, not muted.
    package init(volume: Float = 1, muted: Bool = false) {
        word = Atomic(Self.pack(volume: Self.clamp(volume), muted: muted))
    }

    /// Stores a new setting. `volume` is clamped to 0…1 (NaN counts as 0), as `AVPlayer.volume` is.
    package func set(volume: Float, muted: Bool) {
        word.store(Self.pack(volume: Self.clamp(volume), muted: muted), ordering: .releasing)
    }

    /// The volume last set (0…1), whether or not muted.
    package var volume: Float { Self.unpack(word.load(ordering: .acquiring)).volume }

    /// Whether the output is muted.
    package var isMuted: Bool { Self.unpack(word.load(ordering: .acquiring)).muted }

    /// The linear gain to apply: 0 when muted, else the volume (so 0.5 is -6.02 dB, as `AVPlayer.volume` is a
    /// linear amplitude factor).
    package var gain: Float {
        let setting = Self.unpack(word.load(ordering: .acquiring))
        return setting.muted ? 0 : setting.volume
    }

    /// Clamps to 0…1; NaN becomes 0 (silence is the safe reading of a nonsense volume).
    private static func clamp(_ volume: Float) -> Float {
        volume.isNaN ? 0 : min(max(volume, 0), 1)
    }

    /// Packs a setting into one word (see ``word``).
    private static func pack(volume: Float, muted: Bool) -> UInt64 {
        UInt64(volume.bitPattern) | (muted ? 1 << 32 : 0)
    }

    /// Unpacks a word made by ``pack(volume:muted:)``.
    private static func unpack(_ word: UInt64) -> (volume: Float, muted: Bool) {
        (Float(bitPattern: UInt32(truncatingIfNeeded: word)), word & (1 << 32) != 0)
    }
}

/// Applies a gain to interleaved float frames, moving linearly to a new gain over ``duration`` instead of
/// jumping, so volume and mute changes make no click. The one gain stage shared by every sink, so capture and
/// null sinks behave exactly as the device does.
///
/// A value type owned by the one thread that produces samples (the device callback, or the writer holding the
/// sink's lock); it is not synchronised. The ramp runs in frames, not per buffer, so it sounds the same whatever
/// the buffer sizes (a capture sink may be written one frame at a time) and carries across buffers.
package struct AudioGainRamp: Sendable {
    /// 10 ms: long enough that even a full-scale step (mute) stays inaudible (a 48 kHz ramp of 480 frames changes
    /// the gain by at most 0.2 % per sample, far below what `ToneAnalyzer` calls a click) and short enough that a
    /// change feels immediate. The usual de-zippering time in mixers.
    package static let duration = 0.010

    /// Frames a ramp lasts at this ramp's sample rate (at least 1).
    package let rampFrameCount: Int

    /// The gain applied to the last frame processed; `nil` before the first frame, so the first target is taken
    /// at once (a volume set before playback must not fade in).
    package private(set) var current: Float?

    /// The gain the ramp moves to.
    package private(set) var target: Float = 1

    /// Gain added per frame while ramping.
    private var step: Float = 0

    /// Frames left in the running ramp; 0 when the gain is steady at ``target``.
    private var remaining = 0

    /// A ramp at `sampleRate` frames per second, not yet started.
    package init(sampleRate: Int) {
        rampFrameCount = max(1, Int((Double(sampleRate) * Self.duration).rounded()))
    }

    /// Whether a ramp is in progress.
    package var isRamping: Bool { remaining > 0 }

    /// Aims at `gain`. Before the first frame, the gain is simply set; afterwards a ramp of ``rampFrameCount``
    /// frames starts from the gain now applied (a change during a ramp starts a new ramp from where it is).
    package mutating func setTarget(_ gain: Float) {
        guard gain != target || current == nil else { return }
        target = gain
        guard let current else { return }
        if current == gain {
            remaining = 0
            step = 0
        } else {
            remaining = rampFrameCount
            step = (gain - current) / Float(rampFrameCount)
        }
    }

    /// Multiplies `frameCount` interleaved frames of `channelCount` samples in place by the gain, advancing any
    /// ramp by `frameCount` frames. A steady gain of 1 leaves the samples untouched; a steady gain of 0 writes
    /// exact zeros.
    package mutating func apply(to samples: UnsafeMutablePointer<Float>, frameCount: Int, channelCount: Int) {
        guard frameCount > 0 else { return }
        var frame = 0
        var gain = current ?? target
        while remaining > 0 && frame < frameCount {
            remaining -= 1
            gain = remaining == 0 ? target : gain + step
            let base = frame * channelCount
            for channel in 0..<channelCount {
                samples[base + channel] *= gain
            }
            frame += 1
        }
        current = remaining == 0 ? target : gain
        guard frame < frameCount else { return }
        let start = samples + frame * channelCount
        let count = (frameCount - frame) * channelCount
        if target == 0 {
            start.update(repeating: 0, count: count)
        } else if target != 1 {
            for index in 0..<count {
                start[index] *= target
            }
        }
    }

    /// Advances the ramp by `frameCount` frames without touching samples (for sinks that discard their audio but
    /// must report the same gain as a device would).
    package mutating func advance(frameCount: Int) {
        guard frameCount > 0 else { return }
        let steps = min(frameCount, remaining)
        remaining -= steps
        current = remaining == 0 ? target : (current ?? target) + step * Float(steps)
    }
}
