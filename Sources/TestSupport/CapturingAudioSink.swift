import Foundation
import OAVFLocking
import PlaybackEngine

/// A non-real-time sink that keeps every frame written to it, after volume and mute, for tests to analyse (the
/// engine's counterpart of Media3's `CapturingAudioSink`).
///
/// It lives in TestSupport, not in the engine: production code never captures audio (virtual clocks there use the
/// engine's `NullAudioSink`). Its API is `package`, like the engine's ``AudioSink`` protocol and ``AudioFormat`` it
/// is written in terms of.
///
/// Gain goes through the same ``AudioGainRamp`` as the SDL device, so a test reads what a listener would hear:
/// muted is exact zeros, volume 0.5 is -6.02 dB, a change ramps over ``AudioGainRamp/duration``.
///
/// Thread safety: every member may be used from any thread; all mutable state is guarded by one lock (a
/// `ConditionLock`, which ThreadSanitizer understands), held only while copying samples.
package final class CapturingAudioSink: AudioSink, @unchecked Sendable {
    /// The most frames kept (`nil`: no limit); frames written past it are counted in ``droppedFrameCount`` and
    /// discarded, so a long run cannot exhaust memory.
    package let maximumFrameCount: Int?

    /// Guards every `var` below. The engine thread writes, the test reads. Test support: a sink is below the engine.
    private let lock = ConditionLock()

    /// The volume and mute last set; read at each write.
    private let volumeSetting = AudioVolume()

    /// Interleaved samples kept so far (guarded by `lock`).
    private var storage: [Float] = []

    /// The format of the last `open` (guarded by `lock`).
    private var openedFormat: AudioFormat?

    /// Whether open and not yet closed (guarded by `lock`).
    private var opened = false

    /// Whether paused (guarded by `lock`).
    private var paused = false

    /// Frames written past ``maximumFrameCount`` (guarded by `lock`).
    private var dropped = 0

    /// The gain stage; made by `open` for the opened rate (guarded by `lock`).
    private var ramp: AudioGainRamp?

    /// A sink that keeps at most `maximumFrameCount` frames (`nil`: all of them).
    package init(maximumFrameCount: Int? = nil) {
        precondition((maximumFrameCount ?? 0) >= 0, "CapturingAudioSink.init: maximumFrameCount must not be negative")
        self.maximumFrameCount = maximumFrameCount
    }

    /// Always false: the engine feeds this sink with `write`.
    package var isRealTime: Bool { false }

    /// Accepts any positive rate and channel count as they are. Opening with a format other than the last one
    /// discards what was captured (the samples would be uninterpretable); reopening with the same keeps it.
    package func open(preferred: AudioFormat) throws(AudioSinkError) -> AudioFormat {
        guard preferred.sampleRate > 0, preferred.channelCount > 0 else {
            throw AudioSinkError(
                "Cannot capture audio at \(preferred.sampleRate) Hz with \(preferred.channelCount) channels.")
        }
        lock.lock()
        defer { lock.unlock() }
        if openedFormat != preferred {
            storage.removeAll()
            dropped = 0
        }
        openedFormat = preferred
        opened = true
        paused = false
        ramp = AudioGainRamp(sampleRate: preferred.sampleRate)
        return preferred
    }

    /// Ignored: this sink is written, not pulled.
    package func start(source: any AudioRenderSource) {}

    /// Records the pause (see ``isPaused``); writes are still kept, as the engine should not write while paused.
    package func pause() {
        lock.withLock { paused = true }
    }

    /// Records the resume (see ``isPaused``).
    package func resume() {
        lock.withLock { paused = false }
    }

    /// Appends `frameCount` frames after applying the gain. Dropped while closed (a device that is gone plays
    /// nothing); counted in ``droppedFrameCount`` past ``maximumFrameCount``.
    package func write(_ samples: UnsafePointer<Float>, frameCount: Int) {
        precondition(frameCount >= 0, "CapturingAudioSink.write(_:frameCount:): frameCount must not be negative")
        lock.lock()
        defer { lock.unlock() }
        guard opened, let format = openedFormat, var gain = ramp else { return }
        let channels = format.channelCount
        let kept = storage.count / channels
        let accepted = min(frameCount, max(0, (maximumFrameCount ?? Int.max) - kept))
        gain.setTarget(volumeSetting.gain)
        if accepted > 0 {
            storage.append(contentsOf: UnsafeBufferPointer(start: samples, count: accepted * channels))
            storage.withUnsafeMutableBufferPointer { buffer in
                gain.apply(to: buffer.baseAddress! + kept * channels, frameCount: accepted, channelCount: channels)
            }
        }
        gain.advance(frameCount: frameCount - accepted)
        dropped += frameCount - accepted
        ramp = gain
    }

    /// Always 0: nothing is buffered beyond what was written.
    package var latency: Double { 0 }

    /// Sets the gain applied from the next write on (ramped, as the device does).
    package func setVolume(_ volume: Float, muted: Bool) {
        volumeSetting.set(volume: volume, muted: muted)
    }

    /// Stops accepting writes; what was captured stays readable until ``reset()`` or an open with another format.
    package func close() {
        lock.withLock { opened = false }
    }

    /// Every frame kept so far, interleaved, after gain (a copy).
    package var samples: [Float] { lock.withLock { storage } }

    /// Frames kept so far.
    package var frameCount: Int {
        lock.withLock { openedFormat.map { storage.count / $0.channelCount } ?? 0 }
    }

    /// Frames written past ``maximumFrameCount`` and discarded.
    package var droppedFrameCount: Int { lock.withLock { dropped } }

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

    /// The gain applied to the last frame written (`nil` before any): shows where a ramp is.
    package var appliedGain: Float? { lock.withLock { ramp?.current } }

    /// Discards what was captured and the dropped count; the sink stays open with its format and gain.
    package func reset() {
        lock.withLock {
            storage.removeAll()
            dropped = 0
        }
    }
}
