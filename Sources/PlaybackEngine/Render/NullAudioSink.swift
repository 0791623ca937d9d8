import Foundation
import OAVFLocking

/// A non-real-time sink that discards what it is given (mpv's `ao_null`): for headless runs, benchmarks and
/// tests that need an audio path but no output.
///
/// It keeps the same gain state as a device (``AudioGainRamp`` advanced by the frames written, without touching
/// samples that nobody hears), so ``appliedGain`` reads as the SDL sink's gain would at the same point.
///
/// Thread safety: every member may be used from any thread; mutable state is guarded by one lock (a
/// `ConditionLock`).
package final class NullAudioSink: AudioSink, @unchecked Sendable {
    /// Guards every `var` below. The engine thread writes, any thread reads. Not an engine command: a sink sits below
    /// the engine.
    private let lock = ConditionLock()

    /// The volume and mute last set.
    private let volumeSetting = AudioVolume()

    /// The format of the last `open` (guarded by `lock`).
    private var openedFormat: AudioFormat?

    /// Whether open and not yet closed (guarded by `lock`).
    private var opened = false

    /// Whether paused (guarded by `lock`).
    private var paused = false

    /// Frames written while open (guarded by `lock`).
    private var written = 0

    /// The gain stage, made by `open` (guarded by `lock`).
    private var ramp: AudioGainRamp?

    /// A closed sink.
    package init() {}

    /// Always false: the engine feeds this sink with `write`.
    package var isRealTime: Bool { false }

    /// Accepts any positive rate and channel count as they are.
    package func open(preferred: AudioFormat) throws(AudioSinkError) -> AudioFormat {
        guard preferred.sampleRate > 0, preferred.channelCount > 0 else {
            throw AudioSinkError(
                "Cannot open a null audio output at \(preferred.sampleRate) Hz with \(preferred.channelCount) channels."
            )
        }
        lock.withLock {
            openedFormat = preferred
            opened = true
            paused = false
            ramp = AudioGainRamp(sampleRate: preferred.sampleRate)
        }
        return preferred
    }

    /// Ignored: this sink is written, not pulled.
    package func start(source: any AudioRenderSource) {}

    /// Records the pause (see ``isPaused``).
    package func pause() {
        lock.withLock { paused = true }
    }

    /// Records the resume.
    package func resume() {
        lock.withLock { paused = false }
    }

    /// Counts and discards `frameCount` frames (ignored while closed).
    package func write(_ samples: UnsafePointer<Float>, frameCount: Int) {
        precondition(frameCount >= 0, "NullAudioSink.write(_:frameCount:): frameCount must not be negative")
        lock.withLock {
            guard opened, var gain = ramp else { return }
            gain.setTarget(volumeSetting.gain)
            gain.advance(frameCount: frameCount)
            ramp = gain
            written += frameCount
        }
    }

    /// Always 0.
    package var latency: Double { 0 }

    /// Sets the gain (tracked, see ``appliedGain``).
    package func setVolume(_ volume: Float, muted: Bool) {
        volumeSetting.set(volume: volume, muted: muted)
    }

    /// Stops accepting writes.
    package func close() {
        lock.withLock { opened = false }
    }

    /// Frames written while open since the sink was made.
    package var frameCount: Int { lock.withLock { written } }

    /// The format of the last open, `nil` before the first.
    package var format: AudioFormat? { lock.withLock { openedFormat } }

    /// Whether the sink is open.
    package var isOpen: Bool { lock.withLock { opened } }

    /// Whether the sink was paused and not resumed since.
    package var isPaused: Bool { lock.withLock { paused } }

    /// The volume last set (0…1).
    package var volume: Float { volumeSetting.volume }

    /// Whether muted.
    package var isMuted: Bool { volumeSetting.isMuted }

    /// The gain a device would have applied to the last frame written (`nil` before any).
    package var appliedGain: Float? { lock.withLock { ramp?.current } }
}
