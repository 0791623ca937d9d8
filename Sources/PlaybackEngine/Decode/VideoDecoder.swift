import CoreMedia
import CoreVideo
import FFmpegBridge
import OAVFLocking

/// The video decode thread (ffplay's `video_thread`): packets from a ``PacketQueue`` in, ``VideoFrame``s
/// with wrapped or converted pixel buffers out to a ``FrameQueue``.
///
/// The codec runs libavcodec's frame threading (`threads` 0 = one per CPU). Pictures in 8-bit 4:2:0,
/// NV12, P010 or grey are wrapped without copying (`Frame.makePixelBuffer`); anything else, or everything when
/// an output format is requested, is converted by a ``Scaler`` into pooled buffers: 10-bit 4:2:0 to bi-planar
/// 10-bit (`x420`, P010), the rest to `y420` (`Frame.convertedPixelFormatType`).
///
/// Lifecycle: `init` (opens the codec; throws when it cannot) → ``start()`` → ``stop()``; not
/// restartable; a started decoder must be stopped (its thread keeps it alive). ``stop()`` aborts both
/// queues (ffplay's `decoder_abort`), so it returns promptly even when the thread is blocked on either;
/// the owner ``PacketQueue/start()``s them again if it reuses them.
///
/// Threads: the decode thread ("oavf.video-decode") owns the codec, the scaler and the loop; ``status``
/// and the switches are thread-safe; `start`/`stop` are called by the owner.
package final class VideoDecoder: StreamDecoder, @unchecked Sendable {
    /// The stream's packets (shared with the demuxer).
    package let packets: PacketQueue
    /// Decoded pictures (shared with the renderer).
    package let frames: FrameQueue<VideoFrame>
    /// Counters and switches visible to other threads.
    package let status = DecoderStatus()
    /// The stream's time base: `pts` and `duration` of frames are exact in it.
    package let timeBase: Rational
    /// The pixel format every frame is converted to, or nil to wrap whatever can be wrapped and convert
    /// the rest to `x420` (10-bit 4:2:0) or `y420`.
    package let outputPixelFormatType: OSType?

    /// The ffplay decoder loop; decode thread only (handed over by `start`).
    private let loop: DecodeLoop
    /// One frame at the stream's guessed rate in `timeBase` ticks: the duration of frames whose packet
    /// gives none. Zero when unknown.
    private let nominalFrameTicks: Int64
    /// Called (on the decode thread) with a fatal error before the thread ends.
    private let onFatalError: (@Sendable (FFmpegError) -> Void)?
    /// The converter for pictures that cannot be wrapped; created on first use, decode thread only.
    private var scaler: Scaler?
    /// The timestamp expected for the next frame, in `timeBase` ticks (ffplay's `next_pts`); decode thread only.
    private var nextTicks: Int64?
    /// Attachments for the last colour description seen, reused while it does not change; decode thread only.
    private var cachedAttachments: (key: UInt64, store: CVBufferAttachmentStore)?
    /// Where the pictures made go besides the frame queue (while ``DecoderStatus/cachesPictures``), nil for none.
    package let pictureCache: PictureCache?
    /// The last frame out of the codec: its serial, timestamp and the error count then (a picture the cache may
    /// link the next one to); decode thread only.
    private var lastOut: (serial: Serial, ticks: Int64, errors: Int)?
    /// The running thread; guarded by `threadLock`.
    private var thread: WorkerThread?
    /// Guards `thread`. The engine thread starts and joins the decoder; the decoder's deinit may run elsewhere. Not an
    /// engine command: the decode thread's lifecycle, below the engine's loop.
    private let threadLock = ConditionLock()

    /// Opens a decoder for the stream described by `parameters`.
    ///
    /// - Parameters:
    ///   - timeBase: the stream's time base (usually `parameters.timeBase`).
    ///   - threads: libavcodec threads; 0 = one per CPU.
    ///   - outputPixelFormatType: convert every picture to this format (see
    ///     `Scaler.supportedOutputPixelFormatTypes`); nil wraps what it can.
    ///   - onFatalError: called on the decode thread when decoding cannot go on (out of memory).
    /// - Throws: `FFmpegError.decoderNotFound` when no decoder exists, or the codec's open error;
    ///   `patchWelcome` for an unsupported output format.
    package init(
        parameters: CodecParameters, timeBase: Rational, packets: PacketQueue, frames: FrameQueue<VideoFrame>,
        threads: Int = 0, outputPixelFormatType: OSType? = nil, pictureCache: PictureCache? = nil,
        onFatalError: (@Sendable (FFmpegError) -> Void)? = nil
    ) throws(FFmpegError) {
        if let outputPixelFormatType {
            guard Scaler.supportedOutputPixelFormatTypes.contains(outputPixelFormatType) else {
                throw FFmpegError.patchWelcome
            }
        }
        let codec = try CodecContext(parameters: parameters, timeBase: timeBase, threads: threads)
        self.packets = packets
        self.frames = frames
        self.timeBase = timeBase
        self.outputPixelFormatType = outputPixelFormatType
        self.onFatalError = onFatalError
        self.pictureCache = pictureCache
        if let rate = parameters.frameRate, rate.num > 0, rate.den > 0 {
            nominalFrameTicks = max(0, Rational.rescale(1, from: Rational(rate.den, rate.num), to: timeBase))
        } else {
            nominalFrameTicks = 0
        }
        loop = DecodeLoop(codec: codec, packets: packets, status: status)
        loop.skipsNonReferenceBeforeTarget = true
        loop.previewsKeyframeAfterSerialChange = true
    }

    /// Starts the decode thread. Call once.
    package func start() {
        threadLock.withLock {
            precondition(thread == nil, "VideoDecoder.start() called twice")
            thread = WorkerThread(name: "oavf.video-decode") { [self] in run() }
        }
    }

    /// Aborts the packet and frame queues and waits for the decode thread to end. Idempotent; safe from
    /// any thread (from the decode thread itself, e.g. inside a callback, it does not wait).
    package func stop() {
        packets.abort()
        frames.abort()
        let running = threadLock.withLock { thread }
        running?.join()
    }

    /// Skip non-reference frames (B-frames) when decoding (`AVDISCARD_NONREF`), for fast rates.
    package var skipNonReferenceFrames: Bool {
        get { status.skipNonReferenceFrames }
        set { status.skipNonReferenceFrames = newValue }
    }

    /// Decode keyframes only (`AVDISCARD_NONKEY`), for scrubbing and very fast rates. Wins over
    /// ``skipNonReferenceFrames``.
    package var skipNonKeyFrames: Bool {
        get { status.skipNonKeyFrames }
        set { status.skipNonKeyFrames = newValue }
    }

    // MARK: Decode thread

    /// The thread body.
    private func run() {
        loop.onSerialChange = { [unowned self] _ in
            nextTicks = nil
            lastOut = nil
            held = nil
            heldFrame.unref()
        }
        loop.onEndOfStream = { [unowned self] serial in releaseHeld(serial: serial) }
        while true {
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

    /// What is known of a picture out of the codec.
    private struct Picture {
        var serial: Serial
        var ticks: Int64
        var durationTicks: Int64
        var pts: CMTime
        var duration: CMTime
        /// The picture the cache may link this one to (see ``PictureCache/insert(_:previous:)``).
        var previous: CMTime?
    }

    /// A picture that ends at or before an exact-seek target, held until the next picture says whether it is the
    /// one shown at the target (the next starts after the target: timestamps in milliseconds leave gaps between a
    /// picture's end and the next one's start) or not (dropped). Decode thread only.
    private var held: Picture?
    /// The held picture's frame (blank when none is held); decode thread only.
    private let heldFrame = Frame()

    /// Turns `frame` into a ``VideoFrame`` and pushes it, unless it is before the exact-seek target: the picture
    /// shown at the target is the last that starts at or before it. Returns false when the frame queue was aborted.
    private func deliver(_ frame: Frame, serial: Serial) -> Bool {
        let ticks = frame.bestEffortTimestamp ?? nextTicks ?? 0
        let durationTicks = frame.packetDuration > 0 ? frame.packetDuration : nominalFrameTicks
        nextTicks = ticks + durationTicks
        // The picture the cache may link this one to: the previous frame out, when nothing was skipped between.
        let errors = status.decodeErrorCount
        var previous: CMTime?
        if let last = lastOut, last.serial == serial, last.ticks < ticks, last.errors == errors,
            !loop.hasSkipped(after: last.ticks, before: ticks)
        {
            previous = CMTime(ffmpeg: last.ticks, timeBase: timeBase)
        }
        lastOut = (serial, ticks, errors)
        let picture = Picture(
            serial: serial, ticks: ticks, durationTicks: durationTicks, pts: CMTime(ffmpeg: ticks, timeBase: timeBase),
            duration: CMTime(ffmpeg: durationTicks, timeBase: timeBase), previous: previous)
        let dropTarget = status.dropTarget(for: serial, packets: packets)
        if let earlier = held {
            held = nil
            if earlier.serial == serial, let dropTarget, picture.pts <= dropTarget {
                drop(heldFrame, earlier)
            } else if earlier.serial == serial {
                // This one starts after the target: the held one is the picture shown there.
                let pushed = push(heldFrame, earlier)
                heldFrame.unref()
                if !pushed { return false }
            } else {
                heldFrame.unref()
            }
        }
        if let dropTarget {
            let end = picture.pts + picture.duration
            if durationTicks > 0 ? end <= dropTarget : picture.pts < dropTarget {
                held = picture
                heldFrame.move(from: frame)
                return true
            }
        }
        return push(frame, picture)
    }

    /// Pushes the held picture (the end of its serial's stream came: it is the last picture before the target).
    private func releaseHeld(serial: Serial) {
        guard let earlier = held else { return }
        held = nil
        if earlier.serial == serial { _ = push(heldFrame, earlier) }
        heldFrame.unref()
    }

    /// Drops `frame`, a picture before the exact-seek target, keeping it in the cache when that costs nothing.
    private func drop(_ frame: Frame, _ picture: Picture) {
        defer { frame.unref() }
        // Decoded anyway: kept for the backward steps and scrubs that follow a seek a little way back, when it costs
        // no conversion (other seeks keep only what they push: holding every dropped picture makes the codec allocate
        // new buffers instead of reusing its own).
        if pictureCache != nil, status.cachesPictures, status.decodesEverythingBeforeTarget,
            outputPixelFormatType == nil || frame.wrappablePixelFormatType == outputPixelFormatType,
            let wrapped = frame.makePixelBuffer(attachments: attachments(for: frame))
        {
            pictureCache?.insert(
                VideoFrame(
                    pixelBuffer: wrapped, pts: picture.pts, duration: picture.duration, serial: picture.serial,
                    isKeyframe: frame.isKeyframe), previous: picture.previous)
        }
        status.countDropped()
    }

    /// Pushes `frame` to the frame queue (and the cache). Returns false when the frame queue was aborted.
    private func push(_ frame: Frame, _ picture: Picture) -> Bool {
        let serial = picture.serial
        if packets.serial != serial {
            status.countDropped()
            return true
        }
        guard let pixelBuffer = makePixelBuffer(frame) else {
            status.countDecodeError()
            return true
        }
        let video = VideoFrame(
            pixelBuffer: pixelBuffer, pts: picture.pts, duration: picture.duration, serial: serial,
            isKeyframe: frame.isKeyframe)
        if pictureCache != nil && status.cachesPictures { pictureCache?.insert(video, previous: picture.previous) }
        let pushed = frames.push(video, serial: serial, cancelIf: { [packets] in packets.serial != serial })
        if pushed {
            status.notePushed(end: picture.ticks + picture.durationTicks, serial: serial)
            status.countDecoded()
            return true
        }
        if frames.isAborted { return false }
        status.countDropped()
        return true
    }

    /// The colour attachments of `frame`, reused while its colour description does not change.
    private func attachments(for frame: Frame) -> CVBufferAttachmentStore {
        // HDR metadata is side data the key does not cover: such frames get their own.
        if frame.hasHDRMetadata { return frame.colorAttachments }
        let key = frame.colorDescriptionKey
        if let cachedAttachments, cachedAttachments.key == key { return cachedAttachments.store }
        let attachments = frame.colorAttachments
        cachedAttachments = (key, attachments)
        return attachments
    }

    /// Wraps or converts `frame`; nil when conversion failed.
    private func makePixelBuffer(_ frame: Frame) -> CVPixelBuffer? {
        let attachments = attachments(for: frame)
        if outputPixelFormatType == nil || frame.wrappablePixelFormatType == outputPixelFormatType,
            let wrapped = frame.makePixelBuffer(attachments: attachments)
        {
            return wrapped
        }
        do {
            let format = outputPixelFormatType ?? frame.convertedPixelFormatType
            if scaler?.outputPixelFormatType != format { scaler = try Scaler(outputPixelFormatType: format) }
            return try scaler?.convert(frame)
        } catch {
            return nil
        }
    }
}
