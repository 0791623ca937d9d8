import CSDL2
import Foundation
import OAVFLocking
import PlaybackEngine
import Synchronization

/// What SDL's audio thread works on: the source to pull, the gain stage, and counters. One per ``SDLAudioSink``,
/// passed to SDL as the callback's `userdata` (an unretained `Unmanaged` pointer: the sink owns it and closes the
/// device, which joins SDL's thread, before letting it go).
///
/// Thread ownership:
/// - `source` is guarded by `sourceLock` (set by the sink's threads, read once per callback).
/// - `volume` and `renderedFrames` are atomics (any thread).
/// - `ramp` and `channelCount` belong to the device thread while a device is open and unpaused; the sink sets them
///   in ``prepare(format:)`` only while the device is paused. SDL's pause takes the device's mixer lock, which the
///   audio thread holds around each callback, so the write happens before the next callback reads.
final class SDLAudioRenderer: @unchecked Sendable {
    /// The volume and mute last set; read at each callback.
    let volume = AudioVolume()

    /// Guards `source`. Held only to copy the reference, never while rendering. SDL's audio thread and the sink's
    /// lifecycle calls. Not an engine command: the device callback thread reads it and cannot wait for the engine's
    /// mailbox.
    private let sourceLock = ConditionLock()

    /// Where audio comes from; `nil` plays silence (guarded by `sourceLock`).
    private var source: (any AudioRenderSource)?

    /// Frames delivered to SDL since the last ``prepare(format:)``. One counter, so an `Atomic`, not a lock: SDL's
    /// audio thread adds, any thread reads.
    private let renderedFrames = Atomic<Int>(0)

    /// The gain stage (device thread; see the type's doc).
    private var ramp = AudioGainRamp(sampleRate: AudioFormat.standard.sampleRate)

    /// Interleaved channels per frame in the callback's buffer (device thread; see the type's doc).
    private var channelCount = AudioFormat.standard.channelCount

    /// A renderer with no source, at full volume.
    init() {}

    /// Readies the device-thread state for a device just opened (still paused) in `format`.
    func prepare(format: AudioFormat) {
        ramp = AudioGainRamp(sampleRate: format.sampleRate)
        channelCount = format.channelCount
        renderedFrames.store(0, ordering: .relaxed)
    }

    /// Sets (or with `nil`, clears) the source pulled from the next callback on.
    func setSource(_ newSource: (any AudioRenderSource)?) {
        sourceLock.withLock { source = newSource }
    }

    /// The source pulled now (kept when the sink moves to another device).
    var currentSource: (any AudioRenderSource)? { sourceLock.withLock { source } }

    /// Frames delivered to SDL since the device was opened.
    var renderedFrameCount: Int { renderedFrames.load(ordering: .relaxed) }

    /// SDL's callback body (device thread): fills `byteCount` bytes of 32-bit float frames from the source, then
    /// applies the gain. Takes one uncontended lock and allocates nothing.
    func render(into stream: UnsafeMutablePointer<UInt8>, byteCount: Int) {
        let channels = channelCount
        let frameCount = byteCount / (MemoryLayout<Float>.size * channels)
        let samples = UnsafeMutableRawPointer(stream).bindMemory(to: Float.self, capacity: frameCount * channels)
        let current = sourceLock.withLock { source }
        if let current, frameCount > 0 {
            current.render(into: samples, frameCount: frameCount, hostTime: Self.hostTime())
        } else {
            samples.update(repeating: 0, count: frameCount * channels)
        }
        ramp.setTarget(volume.gain)
        ramp.apply(to: samples, frameCount: frameCount, channelCount: channels)
        renderedFrames.add(frameCount, ordering: .relaxed)
    }

    /// Now on `CLOCK_MONOTONIC` in nanoseconds: the clock `CMClockGetHostTimeClock()` reads.
    private static func hostTime() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}

/// The C function SDL calls on its audio thread; `userdata` is the sink's ``SDLAudioRenderer``.
let sdlAudioCallback: SDL_AudioCallback = { userdata, stream, length in
    guard let userdata, let stream, length > 0 else { return }
    Unmanaged<SDLAudioRenderer>.fromOpaque(userdata).takeUnretainedValue()
        .render(into: stream, byteCount: Int(length))
}
