import CoreMedia
import Foundation
import OAVFLocking

/// Turns the current item's decoded audio frames into the continuous PCM a sink consumes, and
/// keeps the audio clock (ffplay's `sdl_audio_callback` + `audio_clock`).
///
/// Pulled by a real-time sink's device thread through ``render(into:frameCount:hostTime:)``, or
/// by the engine thread in virtual-clock mode. All state is guarded by `lock`; the device thread
/// never waits on the engine.
package final class AudioRenderer: AudioRenderSource, @unchecked Sendable {
    package let format: AudioFormat
    /// Gain with fades, pan and the level meter over what leaves the renderer (an `AVAudioPlayer`'s); identity by
    /// default. Thread-safe.
    package let outputStage: AudioOutputStage
    /// Guards the session, the current frame and the clock below: the audio device thread renders, the engine thread
    /// installs sessions and reads the clock. Not an engine command: the device callback thread reads it and cannot
    /// wait for the engine's mailbox.
    private let lock = ConditionLock()

    // Guarded by `lock`.
    private var session: ItemSession?
    private var current: AudioFrame?
    /// Frames of `current` already rendered.
    private var offset = 0
    private var active = false
    /// Item time of the first real sample of the last render, and the host time it is heard at.
    private var anchor: (item: CMTime, host: UInt64)?
    /// Item time of the first sample rendered since the last flush or activation: the clock never reads earlier
    /// (before it is heard, nothing of this run has been).
    private var floor: CMTime?
    /// Item time just after the last real sample rendered.
    private var end: CMTime?
    private var latencyNanos: UInt64 = 0
    private var stats = (frames: 0, underruns: 0)
    /// Playback rate and its time-pitch stage (nil at rate 1: samples are copied as they are).
    private var rate: Double = 1
    private var algorithm = TimePitchAlgorithm.timeDomain
    private var processor: TimePitchProcessor?
    /// Item time just after the last media sample consumed (into the output or the processor).
    private var mediaEnd: CMTime?
    /// Silent frames pushed into the processor after the item's last sample, so it lets go of the media it holds.
    private var paddedFrames = 0
    /// The processor's output reached the item's last sample: nothing more to render until a flush.
    private var tailDone = false
    /// Reverse play: reversed audio to render instead of the session's (``ReverseAudioSource``); its times are not
    /// used (the audio clock is off while it is set).
    private var reverseQueue: FrameQueue<AudioFrame>?
    /// Media frames read ahead for the processor.
    private static let mediaScratchFrames = 8192
    /// Where media is read ahead for the processor (`mediaScratchFrames` × channels; device thread, under `lock`);
    /// freed in `deinit`.
    private let mediaScratch: UnsafeMutablePointer<Float>

    package init(format: AudioFormat) {
        self.format = format
        outputStage = AudioOutputStage(sampleRate: format.sampleRate)
        mediaScratch = .allocate(capacity: Self.mediaScratchFrames * max(1, format.channelCount))
    }

    deinit {
        mediaScratch.deallocate()
    }

    /// Switches to `session` (nil: silence). Drops any partly rendered frame.
    package func setSession(_ session: ItemSession?) {
        lock.lock()
        self.session = session
        dropRenderingState()
        lock.unlock()
    }

    /// Forgets the partly rendered frame, the clock anchor and the time-pitch stage's state (lock held).
    private func dropRenderingState() {
        current = nil
        offset = 0
        anchor = nil
        floor = nil
        end = nil
        mediaEnd = nil
        paddedFrames = 0
        tailDone = false
        processor?.flush()
    }

    /// Renders `queue` (reversed audio) instead of the session's audio, or the session's again with nil. Either
    /// way the partly rendered frame and the time-pitch stage's state are dropped.
    package func setReverseQueue(_ queue: FrameQueue<AudioFrame>?) {
        lock.lock()
        reverseQueue = queue
        dropRenderingState()
        lock.unlock()
    }

    /// Whether rendering consumes frames (playing at rate 1) or outputs silence (paused, waiting).
    package func setActive(_ active: Bool) {
        lock.lock()
        self.active = active
        if !active {
            anchor = nil
            floor = nil
        }
        lock.unlock()
    }

    /// Sets the playback rate and time-pitch algorithm. Rates other than 1 go through a
    /// ``TimePitchProcessor`` (its rate changes are click-free); unsupported rates render silence.
    ///
    /// A new stage (another algorithm; Rubber Band allocates a lot) is built before the lock is taken, and the old
    /// one is released after it is let go, so the device thread never waits for either.
    package func setRate(_ newRate: Double, algorithm newAlgorithm: TimePitchAlgorithm) {
        let needsStage = lock.withLock { newRate != 1 && (processor == nil || newAlgorithm != algorithm) }
        let made = needsStage ? TimePitchProcessor(format: format, algorithm: newAlgorithm) : nil
        made?.rate = newRate
        var released: TimePitchProcessor?
        lock.lock()
        if newRate == 1 {
            released = processor
            processor = nil
        } else if let made, processor == nil || newAlgorithm != algorithm {
            released = processor
            processor = made
        } else {
            processor?.rate = newRate
        }
        rate = newRate
        algorithm = newAlgorithm
        lock.unlock()
        withExtendedLifetime(released) {}
    }

    /// Whether audio is heard at `rate` with `algorithm` (outside an algorithm's range it is muted).
    package static func plays(rate: Double, algorithm: TimePitchAlgorithm) -> Bool {
        rate == 1 || TimePitchProcessor.supports(rate, algorithm: algorithm)
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
        dropRenderingState()
        lock.unlock()
    }

    /// The audio clock: item time heard at `host`, if audio has been rendered since the last flush.
    ///
    /// Interpolated between device callbacks (ffplay's `audio_clock` less what is still buffered, stamped at the
    /// callback): before the host time the last render is heard at, what plays is the render before it, so the
    /// reading is the anchor's line extended backwards — continuous across callbacks that come at the device's pace,
    /// where a reading held at each render's first sample would step by whole device buffers. Kept between the first
    /// sample rendered since the last flush or activation and the end of what was rendered.
    package func clockTime(host: UInt64) -> CMTime? {
        lock.lock()
        defer { lock.unlock() }
        guard let anchor, let end else { return nil }
        let elapsed = Double(Int64(bitPattern: host &- anchor.host)) * rate
        var t = anchor.item + CMTime(value: Int64(elapsed.rounded()), timescale: 1_000_000_000)
        if let floor, t < floor { t = floor }
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
        // A time-pitch stage still holding the item's last media is not drained until that has been rendered.
        let tailPending = processor.map { !tailDone && ($0.latency > 0 || paddedFrames > 0) } ?? false
        return current == nil && session.isAudioDecoderFinished && (session.audioFrames?.count ?? 0) == 0
            && !tailPending
    }

    package func render(into buffer: UnsafeMutablePointer<Float>, frameCount: Int, hostTime: UInt64) {
        let written = renderFrames(into: buffer, frameCount: frameCount, hostTime: hostTime, countUnderrun: true)
        if written < frameCount {
            let channels = format.channelCount
            (buffer + written * channels).update(repeating: 0, count: (frameCount - written) * channels)
        }
        // What the device plays, silence of an underrun included.
        outputStage.process(buffer, frameCount: frameCount, channelCount: format.channelCount)
    }

    /// Renders up to `frameCount` real frames (no silence padding); returns how many. Engine thread,
    /// virtual-clock mode.
    package func renderAvailable(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) -> Int {
        let written = renderFrames(into: buffer, frameCount: frameCount, hostTime: 0, countUnderrun: false)
        outputStage.process(buffer, frameCount: written, channelCount: format.channelCount)
        return written
    }

    private func renderFrames(
        into buffer: UnsafeMutablePointer<Float>, frameCount: Int, hostTime: UInt64, countUnderrun: Bool
    ) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let reverse = reverseQueue {
            guard active else { return 0 }
            let written = renderReversed(into: buffer, frameCount: frameCount, queue: reverse)
            stats.frames += written
            return written
        }
        guard active, let session, let queue = session.audioFrames else { return 0 }
        let written: Int
        if let processor {
            // Rate ≠ 1: media goes through the time-pitch stage; output is pulled from it.
            if tailDone { return 0 }
            var produced = 0
            while produced < frameCount {
                produced += processor.pull(
                    into: buffer + produced * format.channelCount, frameCount: frameCount - produced)
                if produced >= frameCount { break }
                let need = min(
                    Self.mediaScratchFrames, max(256, processor.inputFramesNeeded(forOutput: frameCount - produced)))
                let (n, _) = copyMedia(into: mediaScratch, frameCount: need, session: session, queue: queue)
                if n == 0 {
                    // The item's audio is over: push silence so the stage releases the media it still holds
                    // (at most one second of it; the output is cut at the last real sample below).
                    let atEnd = current == nil && session.isAudioDecoderFinished && queue.count == 0
                    guard atEnd, mediaEnd != nil else { break }
                    if paddedFrames >= format.sampleRate {
                        tailDone = true
                        break
                    }
                    let pad = min(
                        Self.mediaScratchFrames,
                        max(processor.inputFramesNeeded(forOutput: frameCount - produced), 1024))
                    mediaScratch.update(repeating: 0, count: pad * format.channelCount)
                    processor.push(mediaScratch, frameCount: pad)
                    paddedFrames += pad
                    continue
                }
                processor.push(mediaScratch, frameCount: n)
            }
            if produced > 0, let mediaEnd {
                // The output ends where the processor's input ends (silence padding included), less what is still
                // inside it; output past the item's last real sample is padding and is dropped.
                let padding = CMTime(value: CMTimeValue(paddedFrames), timescale: Int32(format.sampleRate))
                var outEnd = mediaEnd + padding - CMTime(seconds: processor.latency, preferredTimescale: 1_000_000_000)
                if paddedFrames > 0, outEnd >= mediaEnd {
                    let excess = Int(((outEnd - mediaEnd).seconds / rate * Double(format.sampleRate)).rounded())
                    produced = max(0, produced - excess)
                    outEnd = mediaEnd
                    tailDone = true
                }
                let span = Double(produced) * rate / Double(format.sampleRate)
                let outStart = outEnd - CMTime(seconds: span, preferredTimescale: 1_000_000_000)
                anchor = (outStart, hostTime &+ latencyNanos)
                if floor == nil { floor = outStart }
                end = outEnd
            }
            written = produced
        } else {
            let (n, first) = copyMedia(into: buffer, frameCount: frameCount, session: session, queue: queue)
            if let first {
                anchor = (first, hostTime &+ latencyNanos)
                if floor == nil { floor = first }
            }
            if n > 0 { end = mediaEnd }
            written = n
        }
        stats.frames += written
        if countUnderrun && written < frameCount && !(session.isAudioDecoderFinished && queue.count == 0) {
            stats.underruns += 1
        }
        return written
    }

    /// Reverse play (lock held): reversed samples straight from `queue`, through the time-pitch stage at rates other
    /// than 1; no clock, no audio mix.
    private func renderReversed(
        into buffer: UnsafeMutablePointer<Float>, frameCount: Int, queue: FrameQueue<AudioFrame>
    ) -> Int {
        func copy(into out: UnsafeMutablePointer<Float>, _ wanted: Int) -> Int {
            let channels = format.channelCount
            var written = 0
            while written < wanted {
                if current == nil {
                    guard let (frame, _) = queue.pop() else { break }
                    current = frame
                    offset = 0
                }
                guard let frame = current else { break }
                let n = min(frame.frameCount - offset, wanted - written)
                frame.samples.withUnsafeBufferPointer { src in
                    (out + written * channels).update(from: src.baseAddress! + offset * channels, count: n * channels)
                }
                offset += n
                written += n
                if offset >= frame.frameCount { current = nil }
            }
            return written
        }
        guard let processor else { return copy(into: buffer, frameCount) }
        var produced = 0
        while produced < frameCount {
            produced += processor.pull(into: buffer + produced * format.channelCount, frameCount: frameCount - produced)
            if produced >= frameCount { break }
            let need = min(
                Self.mediaScratchFrames, max(256, processor.inputFramesNeeded(forOutput: frameCount - produced)))
            let n = copy(into: mediaScratch, need)
            if n == 0 { break }
            processor.push(mediaScratch, frameCount: n)
        }
        return produced
    }

    /// Copies up to `frameCount` decoded media frames (lock held); returns how many and the item time
    /// of the first. Advances `mediaEnd`.
    private func copyMedia(
        into buffer: UnsafeMutablePointer<Float>, frameCount: Int, session: ItemSession, queue: FrameQueue<AudioFrame>
    ) -> (Int, CMTime?) {
        let channels = format.channelCount
        let sampleRate = Int32(format.sampleRate)
        let curve = session.volumeCurve
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
            let start = session.itemTime(frame.pts) + CMTime(value: CMTimeValue(offset), timescale: sampleRate)
            if first == nil { first = start }
            frame.samples.withUnsafeBufferPointer { src in
                (buffer + written * channels).update(from: src.baseAddress! + offset * channels, count: n * channels)
            }
            if let curve {
                // The audio mix's volume at each sample's item time.
                let t0 = start.seconds
                let dt = 1 / Double(sampleRate)
                let out = buffer + written * channels
                for i in 0..<n {
                    let g = curve.value(at: t0 + Double(i) * dt)
                    if g == 1 { continue }
                    for c in 0..<channels { out[i * channels + c] *= g }
                }
            }
            offset += n
            written += n
            mediaEnd = start + CMTime(value: CMTimeValue(n), timescale: sampleRate)
            if offset >= frame.frameCount { current = nil }
        }
        return (written, first)
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
        floor = nil
        end = nil
        paddedFrames = 0
        tailDone = false
    }
}
