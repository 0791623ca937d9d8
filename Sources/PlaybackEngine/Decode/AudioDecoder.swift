import CoreMedia
import FFmpegBridge
import OAVFLocking

/// The audio decode thread (ffplay's `audio_thread`): packets from a ``PacketQueue`` in, ``AudioFrame``s
/// of interleaved float at one output format out to a ``FrameQueue``.
///
/// Every decoded frame goes through a ``Resampler`` (format, rate and channel conversion, following
/// layout changes mid-stream) into pooled ``AudioSampleBuffer``s. Timestamps: the frame's pts rescaled
/// to the output rate, minus what the resampler still buffers; a frame without pts continues from the
/// previous one (ffplay's `next_pts`). For exact seeks, samples before the target are cut off so the
/// first frame starts at the target.
///
/// Lifecycle: `init` (opens the codec; throws when it cannot) → ``start()`` → ``stop()``; not
/// restartable; a started decoder must be stopped (its thread keeps it alive). ``stop()`` aborts both
/// queues, so it returns promptly even when the thread is blocked.
///
/// Threads: the decode thread ("oavf.audio-decode") owns the codec, the resampler and the loop;
/// ``status``, ``bufferPool`` and the switches are thread-safe.
package final class AudioDecoder: StreamDecoder, @unchecked Sendable {
    /// The stream's packets (shared with the demuxer).
    package let packets: PacketQueue
    /// Decoded audio (shared with the audio renderer).
    package let frames: FrameQueue<AudioFrame>
    /// Counters and switches visible to other threads.
    package let status = DecoderStatus()
    /// The stream's time base (the unit of packet timestamps).
    package let timeBase: Rational
    /// What every frame is converted to.
    package let outputFormat: AudioFormat
    /// Where sample storage comes from and returns to.
    package let bufferPool = AudioBufferPool()

    /// The ffplay decoder loop; decode thread only.
    private let loop: DecodeLoop
    /// Converts decoded frames to `outputFormat`; decode thread only.
    private let resampler: Resampler
    /// Called (on the decode thread) with a fatal error before the thread ends.
    private let onFatalError: (@Sendable (FFmpegError) -> Void)?
    /// Where the next frame starts when it has no pts, in output samples (ffplay's `next_pts`); decode thread only.
    private var nextSample: Int64?
    /// Where the next output frame starts if the output is contiguous (previous pts + frame count), in
    /// output samples; decode thread only. Timestamps within ``timestampSlack`` of it snap to it.
    private var expectedSample: Int64?
    /// Output samples by which a frame's computed start may differ from the previous frame's end and still
    /// count as contiguous: rescaling input timestamps and the resampler's delay each round by up to one.
    static let timestampSlack: Int64 = 2
    /// Output sample positions a timestamp may state (±2⁵² samples: about 3,000 years at 48 kHz). One beyond is
    /// damage (a fuzzed MP4's audio started at 2⁶¹ ms, which rescaled to the saturated `INT64_MIN`, and the sample
    /// arithmetic after it overflowed): the frame is placed as if it had no timestamp, after the previous one.
    static let plausibleSamples: ClosedRange<Int64> = -(1 << 52)...(1 << 52)
    /// The running thread; guarded by `threadLock`.
    private var thread: WorkerThread?
    /// Guards `thread`. The engine thread starts and joins the decoder; the decoder's deinit may run elsewhere. Not an
    /// engine command: the decode thread's lifecycle, below the engine's loop.
    private let threadLock = ConditionLock()

    /// Opens a decoder for the stream described by `parameters`, converting to `outputFormat`.
    ///
    /// - Parameters:
    ///   - timeBase: the stream's time base (usually `parameters.timeBase`).
    ///   - onFatalError: called on the decode thread when decoding cannot go on (out of memory).
    /// - Throws: `FFmpegError.decoderNotFound` when no decoder exists, or the codec's open error.
    package init(
        parameters: CodecParameters, timeBase: Rational, packets: PacketQueue, frames: FrameQueue<AudioFrame>,
        outputFormat: AudioFormat, onFatalError: (@Sendable (FFmpegError) -> Void)? = nil
    ) throws(FFmpegError) {
        let codec = try CodecContext(parameters: parameters, timeBase: timeBase, threads: 1)
        self.packets = packets
        self.frames = frames
        self.timeBase = timeBase
        self.outputFormat = outputFormat
        self.onFatalError = onFatalError
        resampler = Resampler(outputSampleRate: outputFormat.sampleRate, outputChannelCount: outputFormat.channelCount)
        loop = DecodeLoop(codec: codec, packets: packets, status: status)
    }

    /// Starts the decode thread. Call once.
    package func start() {
        threadLock.withLock {
            precondition(thread == nil, "AudioDecoder.start() called twice")
            thread = WorkerThread(name: "oavf.audio-decode") { [self] in run() }
        }
    }

    /// Aborts the packet and frame queues and waits for the decode thread to end. Idempotent; safe from
    /// any thread (from the decode thread itself it does not wait).
    package func stop() {
        packets.abort()
        frames.abort()
        let running = threadLock.withLock { thread }
        running?.join()
    }

    // MARK: Decode thread

    /// The thread body.
    private func run() {
        var aborted = false
        loop.onSerialChange = { [unowned self] _ in
            nextSample = nil
            expectedSample = nil
            resampler.flush()
        }
        loop.onEndOfStream = { [unowned self] serial in
            if !drainResampler(serial: serial) { aborted = true }
        }
        while !aborted {
            switch loop.next() {
            case .aborted:
                return
            case .fatal(let error):
                onFatalError?(error)
                return
            case .frame(let serial):
                let frame = loop.frame
                defer { frame.unref() }
                if !deliver(frame, serial: serial) { return }
            }
        }
    }

    /// Converts `frame` and pushes it. Returns false when the frame queue was aborted.
    private func deliver(_ frame: Frame, serial: Serial) -> Bool {
        let rate = Int64(outputFormat.sampleRate)
        let outputTimeBase = Rational(1, Int32(outputFormat.sampleRate))
        let inputFrames = Int64(frame.sampleCount)
        let inputRate = Int64(max(1, frame.sampleRate))
        let stated = frame.pts.map { Rational.rescale($0, from: timeBase, to: outputTimeBase) }
        let start = stated.flatMap { Self.plausibleSamples.contains($0) ? $0 : nil } ?? nextSample ?? 0
        nextSample = start + inputFrames * rate / inputRate
        if packets.serial != serial {
            status.countDropped()
            return true
        }
        let delay = Int64(resampler.delay)
        let capacity: Int
        do {
            capacity = try resampler.prepare(for: frame)
        } catch {
            status.countDecodeError()
            return true
        }
        let buffer = bufferPool.makeBuffer(minimumCapacity: max(1, capacity) * outputFormat.channelCount)
        let written: Int
        do {
            written = try resampler.convert(frame, into: buffer.baseAddress, capacity: capacity)
        } catch {
            status.countDecodeError()
            return true
        }
        return push(buffer, frameCount: written, firstSample: start - delay, serial: serial)
    }

    /// At the end of `serial`'s stream, pushes what the resampler still holds. False when aborted.
    private func drainResampler(serial: Serial) -> Bool {
        let pending = resampler.delay
        guard pending > 0, let next = nextSample else { return true }
        let capacity = pending + 32
        let buffer = bufferPool.makeBuffer(minimumCapacity: capacity * outputFormat.channelCount)
        let written = resampler.drain(into: buffer.baseAddress, capacity: capacity)
        return push(buffer, frameCount: written, firstSample: next - Int64(pending), serial: serial)
    }

    /// Trims samples before the exact-seek target, then pushes. False when the frame queue was aborted.
    private func push(_ buffer: AudioSampleBuffer, frameCount: Int, firstSample: Int64, serial: Serial) -> Bool {
        var frameCount = frameCount
        var firstSample = firstSample
        if let expected = expectedSample, abs(firstSample - expected) <= Self.timestampSlack {
            firstSample = expected
        }
        expectedSample = firstSample + Int64(frameCount)
        let channels = outputFormat.channelCount
        if let target = status.dropTarget(for: serial, packets: packets) {
            let targetSample = CMTimeConvertScale(
                target, timescale: Int32(outputFormat.sampleRate), method: .roundHalfAwayFromZero
            ).value
            let cut = min(Int64(frameCount), max(0, targetSample - firstSample))
            if cut > 0 {
                let remaining = frameCount - Int(cut)
                if remaining > 0 {
                    buffer.baseAddress.update(
                        from: buffer.baseAddress + Int(cut) * channels, count: remaining * channels)
                }
                frameCount = remaining
                firstSample += cut
            }
        }
        guard frameCount > 0 else {
            status.countDropped()
            return true
        }
        let audio = AudioFrame(
            samples: buffer, frameCount: frameCount, format: outputFormat,
            pts: CMTime(value: firstSample, timescale: Int32(outputFormat.sampleRate)), serial: serial)
        if frames.push(audio, serial: serial, cancelIf: { [packets] in packets.serial != serial }) {
            status.countDecoded()
            return true
        }
        if frames.isAborted { return false }
        status.countDropped()
        return true
    }
}
