import Foundation
import OAVFLocking
import PlaybackEngine

/// A test ``AudioRenderSource``: one continuous sine per channel (the fixtures' 440 Hz left / 660 Hz right by
/// default), its phase carried across callbacks, so the device output is one unbroken tone per channel.
///
/// Thread safety: `render` runs on SDL's audio thread, the accessors on the test's thread; all state is guarded
/// by `lock` (a `ConditionLock`, i.e. a pthread mutex ThreadSanitizer follows).
final class SineRenderSource: AudioRenderSource, @unchecked Sendable {
    /// One frequency per channel, in Hz.
    let frequencies: [Double]

    /// Peak amplitude of every channel (0.5: -9.03 dBFS RMS).
    let amplitude: Double

    /// Frames per second the sine is computed at (the device's obtained rate).
    let sampleRate: Double

    /// How long each render call sleeps, to widen the window in which a callback is running.
    let renderDelay: TimeInterval

    /// Guards every `var` below.
    private let lock = ConditionLock()

    /// Frames rendered so far, i.e. the index of the next frame (guarded by `lock`).
    private var nextFrame = 0

    /// Render calls so far (guarded by `lock`).
    private var calls = 0

    /// Host time of the last call (guarded by `lock`).
    private var lastHostTime: UInt64 = 0

    /// False once a call's host time went backwards (guarded by `lock`).
    private var hostTimeMonotonic = true

    /// A source of `frequencies.count` channels.
    init(
        frequencies: [Double] = [440, 660], amplitude: Double = 0.5, sampleRate: Double = 48_000,
        renderDelay: TimeInterval = 0
    ) {
        self.frequencies = frequencies
        self.amplitude = amplitude
        self.sampleRate = sampleRate
        self.renderDelay = renderDelay
    }

    /// The sample of `channel` at frame `index`.
    func expectedSample(frame index: Int, channel: Int) -> Float {
        let cycles = (frequencies[channel] * Double(index) / sampleRate).truncatingRemainder(dividingBy: 1)
        return Float(amplitude * sin(2 * Double.pi * cycles))
    }

    /// Writes the next `frameCount` frames.
    func render(into buffer: UnsafeMutablePointer<Float>, frameCount: Int, hostTime: UInt64) {
        let start = lock.withLock {
            let start = nextFrame
            nextFrame += frameCount
            calls += 1
            if hostTime < lastHostTime { hostTimeMonotonic = false }
            lastHostTime = hostTime
            return start
        }
        let channels = frequencies.count
        for frame in 0..<frameCount {
            for channel in 0..<channels {
                buffer[frame * channels + channel] = expectedSample(frame: start + frame, channel: channel)
            }
        }
        // Real time by design: a render callback that takes this long (slow work on the device thread) is the test.
        if renderDelay > 0 { Thread.sleep(forTimeInterval: renderDelay) }
    }

    /// Frames rendered so far.
    var renderedFrameCount: Int { lock.withLock { nextFrame } }

    /// Render calls so far.
    var callCount: Int { lock.withLock { calls } }

    /// Whether every call's host time was at or after the previous one.
    var hostTimesWereMonotonic: Bool { lock.withLock { hostTimeMonotonic } }
}
