import CoreMedia
import Foundation

/// Turns the current item's decoded audio frames into the continuous PCM a sink consumes, and
/// keeps the audio clock (ffplay's `sdl_audio_callback` + `audio_clock`).
///
/// Pulled by a real-time sink's device thread through ``render(into:frameCount:hostTime:)``, or
/// by the engine thread in virtual-clock mode. All state is guarded by `lock`; the device thread
/// never waits on the engine.
package final class AudioRenderer: AudioRenderSource, @unchecked Sendable {
    package let format: AudioFormat
    private let lock = NSLock()

    // Guarded by `lock`.
    private var session: ItemSession?
    private var current: AudioFrame?
    /// Frames of `current` already rendered.
    private var offset = 0
    private var active = false
    /// Item time of the first real sample of the last render, and the host time it is heard at.
    private var anchor: (item: CMTime, host: UInt64)?
    /// Item time just after the last real sample rendered.
    private var end: CMTime?
    private var latencyNanos: UInt64 = 0
    private var stats = (frames: 0, underruns: 0)

    package init(format: AudioFormat) {
        self.format = format
    }

    /// Switches to `session` (nil: silence). Drops any partly rendered frame.
    package func setSession(_ session: ItemSession?) {
        lock.lock()
        self.session = session
        current = nil
        offset = 0
        anchor = nil
        end = nil
        lock.unlock()
    }

    /// Whether rendering consumes frames (playing at rate 1) or outputs silence (paused, waiting).
    package func setActive(_ active: Bool) {
        lock.lock()
        self.active = active
        if !active { anchor = nil }
        lock.unlock()
    }

    /// The sink's output latency, added to host times for the clock.
    package func setLatency(seconds: Double) {
        lock.lock()
        latencyNanos = UInt64(max(0, seconds) * 1e9)
        lock.unlock()
    }

    /// Drops the partly rendered frame (after a seek; the queue's stale frames are dropped by serial).
    package func flush() {
        lock.lock()
        current = nil
        offset = 0
        anchor = nil
        end = nil
        lock.unlock()
    }

    /// The audio clock: item time heard at `host`, if audio has been rendered since the last flush.
    package func clockTime(host: UInt64) -> CMTime? {
        lock.lock()
        defer { lock.unlock() }
        guard let anchor, let end else { return nil }
        let elapsed = Int64(bitPattern: host &- anchor.host)
        var t = anchor.item + CMTime(value: max(0, elapsed), timescale: 1_000_000_000)
        if t > end { t = end }
        return t
    }

    /// Item time just after the last rendered sample.
    package var renderedEnd: CMTime? {
        lock.lock()
        defer { lock.unlock() }
        return end
    }

    package var statistics: (frames: Int, underruns: Int) {
        lock.lock()
        defer { lock.unlock() }
        return stats
    }

    /// Frames ready to render without waiting: the partial frame plus the queue's frames (approximate).
    package var availableFrames: Int {
        lock.lock()
        defer { lock.unlock() }
        guard let session else { return 0 }
        var n = current.map { $0.frameCount - offset } ?? 0
        n += (session.audioFrames?.count ?? 0) * 1024
        return n
    }

    /// Whether everything of the session's audio has been rendered.
    package var isDrained: Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let session else { return true }
        return current == nil && session.isAudioDecoderFinished && (session.audioFrames?.count ?? 0) == 0
    }

    package func render(into buffer: UnsafeMutablePointer<Float>, frameCount: Int, hostTime: UInt64) {
        let written = renderFrames(into: buffer, frameCount: frameCount, hostTime: hostTime, countUnderrun: true)
        if written < frameCount {
            let channels = format.channelCount
            (buffer + written * channels).update(repeating: 0, count: (frameCount - written) * channels)
        }
    }

    /// Renders up to `frameCount` real frames (no silence padding); returns how many. Engine thread,
    /// virtual-clock mode.
    package func renderAvailable(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) -> Int {
        renderFrames(into: buffer, frameCount: frameCount, hostTime: 0, countUnderrun: false)
    }

    private func renderFrames(
        into buffer: UnsafeMutablePointer<Float>, frameCount: Int, hostTime: UInt64, countUnderrun: Bool
    ) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard active, let session, let queue = session.audioFrames else { return 0 }
        let channels = format.channelCount
        let rate = Int32(format.sampleRate)
        var written = 0
        var first: CMTime?
        while written < frameCount {
            if current == nil {
                guard let (frame, serial) = queue.peek() else { break }
                queue.pop()
                if serial != session.audioSerial { continue }  // stale: from before a seek
                current = frame
                offset = 0
            }
            guard let frame = current else { break }
            let n = min(frame.frameCount - offset, frameCount - written)
            let start = session.itemTime(frame.pts) + CMTime(value: CMTimeValue(offset), timescale: rate)
            if first == nil { first = start }
            frame.samples.withUnsafeBufferPointer { src in
                (buffer + written * channels).update(from: src.baseAddress! + offset * channels, count: n * channels)
            }
            offset += n
            written += n
            end = start + CMTime(value: CMTimeValue(n), timescale: rate)
            if offset >= frame.frameCount { current = nil }
        }
        if let first { anchor = (first, hostTime &+ latencyNanos) }
        stats.frames += written
        if countUnderrun && written < frameCount && !(session.isAudioDecoderFinished && queue.count == 0) {
            stats.underruns += 1
        }
        return written
    }

    /// Drops audio before `itemTime` without rendering it (when audio is not played, e.g. rate ≠ 1).
    package func discard(before itemTime: CMTime) {
        lock.lock()
        defer { lock.unlock() }
        guard let session, let queue = session.audioFrames else { return }
        current = nil
        offset = 0
        while let (frame, serial) = queue.peek() {
            let frameEnd =
                session.itemTime(frame.pts)
                + CMTime(value: CMTimeValue(frame.frameCount), timescale: Int32(format.sampleRate))
            guard serial != session.audioSerial || frameEnd <= itemTime else { break }
            queue.pop()
        }
        anchor = nil
        end = nil
    }
}
