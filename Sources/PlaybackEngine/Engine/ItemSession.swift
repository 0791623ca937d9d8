import CoreMedia
import CoreVideo
import FFmpegBridge
import Foundation

/// One item's media pipeline: the demux thread, a decode thread per played stream, their
/// serial-tagged queues (ffplay's `VideoState`, one per item).
///
/// Thread ownership: created by the facade; ``prepare()`` runs on a background queue; afterwards
/// the engine thread reads frames; demux/decode threads are internal. Queue objects are
/// thread-safe. `stop()` may be called from any thread, once.
package final class ItemSession: @unchecked Sendable, Identifiable {
    package let id = UUID()
    /// What to play; a placeholder until ``prepare()`` obtained it from the provider.
    package var descriptor: ItemDescriptor { lock.withLock { _descriptor } }
    private var _descriptor = ItemDescriptor(location: "", videoStream: nil, audioStream: nil, duration: .indefinite)
    /// Produces the descriptor (loads the asset); runs inside ``prepare()``, off the engine thread.
    private let descriptorProvider: @Sendable () throws -> ItemDescriptor
    /// Format the audio decoder converts to (the audio sink's).
    package let audioFormat: AudioFormat

    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var format: FormatContext?
    private var demuxer: Demuxer?
    private var videoDecoder: VideoDecoder?
    private var audioDecoder: AudioDecoder?
    private var stopped = false
    private var readError: (any Error)?
    /// The container target of the seek the demuxer has not performed yet (latest wins).
    private var seekInFlight: CMTime?
    private var seekFailed = false
    private let interrupt = InterruptFlag()

    // Guarded by `lock` (swapped when the played streams change during playback).
    private var _videoPackets: PacketQueue?
    private var _audioPackets: PacketQueue?
    private var _videoFrames: FrameQueue<VideoFrame>?
    private var _audioFrames: FrameQueue<AudioFrame>?
    /// Stream parameters, kept to build decoders for streams selected later.
    private var streamInfo: [StreamInfo] = []

    package var videoPackets: PacketQueue? { lock.withLock { _videoPackets } }
    package var audioPackets: PacketQueue? { lock.withLock { _audioPackets } }
    package var videoFrames: FrameQueue<VideoFrame>? { lock.withLock { _videoFrames } }
    package var audioFrames: FrameQueue<AudioFrame>? { lock.withLock { _audioFrames } }

    /// Tuning: decoded-frame ring sizes (ffplay: VIDEO_PICTURE_QUEUE_SIZE 3, SAMPLE_QUEUE_SIZE 9).
    static let videoFrameCapacity = 3
    static let audioFrameCapacity = 9
    /// Preparation gives up after this long without a first frame (seconds): a stuck network read.
    static let prepareTimeout = 20.0

    /// Called on a pipeline thread when demuxing hits an unrecoverable error after preparation.
    package var onReadError: (@Sendable (any Error) -> Void)?

    package init(audioFormat: AudioFormat, descriptor provider: @escaping @Sendable () throws -> ItemDescriptor) {
        self.descriptorProvider = provider
        self.audioFormat = audioFormat
    }

    package convenience init(descriptor: ItemDescriptor, audioFormat: AudioFormat) {
        self.init(audioFormat: audioFormat) { descriptor }
    }

    package var hasVideo: Bool { descriptor.videoStream != nil }
    package var hasAudio: Bool { descriptor.audioStream != nil }

    /// Opens the input, starts the pipeline and waits for the first decoded frames (or the end of
    /// a short input). Blocking; call off the engine thread.
    package func prepare() throws {
        if isStopped { throw FFmpegError.exit }
        let descriptor = try descriptorProvider()
        lock.withLock { _descriptor = descriptor }
        if isStopped { throw FFmpegError.exit }
        let format = try FormatContext(url: descriptor.location, options: descriptor.options, interrupt: interrupt)
        var queues: [Int: PacketQueue] = [:]
        var video: (PacketQueue, FrameQueue<VideoFrame>, VideoDecoder)?
        var audio: (PacketQueue, FrameQueue<AudioFrame>, AudioDecoder)?
        let info = format.info
        if let v = descriptor.videoStream, v < info.streams.count {
            let tb = info.streams[v].timeBase
            let packets = PacketQueue(streamIndex: v, timeBase: tb)
            let frames = FrameQueue<VideoFrame>(capacity: Self.videoFrameCapacity)
            let decoder = try VideoDecoder(
                parameters: format.codecParameters(stream: v), timeBase: tb, packets: packets, frames: frames)
            queues[v] = packets
            video = (packets, frames, decoder)
        }
        if let a = descriptor.audioStream, a < info.streams.count {
            let tb = info.streams[a].timeBase
            let packets = PacketQueue(streamIndex: a, timeBase: tb)
            let frames = FrameQueue<AudioFrame>(capacity: Self.audioFrameCapacity)
            let decoder = try AudioDecoder(
                parameters: format.codecParameters(stream: a), timeBase: tb, packets: packets, frames: frames,
                outputFormat: audioFormat)
            queues[a] = packets
            audio = (packets, frames, decoder)
        }
        var limits = BufferLimits()
        if let forward = descriptor.forwardBufferDuration, forward > 0 { limits.forwardDuration = forward }
        let demuxer = Demuxer(format: format, streams: queues, limits: limits)
        demuxer.onEvent = { [weak self] event in self?.demuxEvent(event) }
        demuxer.onSeek = { [weak self] target, _ in self?.seekPerformed(target: target, failed: false) }

        let proceed: Bool = lock.withLock {
            if stopped { return false }
            self.format = format
            self.demuxer = demuxer
            self.streamInfo = info.streams
            if let video {
                (_videoPackets, _videoFrames, videoDecoder) = video
            }
            if let audio {
                (_audioPackets, _audioFrames, audioDecoder) = audio
            }
            return true
        }
        guard proceed else { throw FFmpegError.exit }
        video?.2.start()
        audio?.2.start()
        demuxer.start()
        try waitForFirstFrames()
    }

    private func waitForFirstFrames() throws {
        let deadline = Date().addingTimeInterval(Self.prepareTimeout)
        while true {
            let (isStopped, error) = lock.withLock { (stopped, readError) }
            if isStopped { throw FFmpegError.exit }
            if let error { throw error }
            let videoReady = videoFrames.map { $0.count > 0 || isVideoDecoderFinished } ?? true
            let audioReady = audioFrames.map { $0.count > 0 || isAudioDecoderFinished } ?? true
            if videoReady && audioReady { return }
            if Date() > deadline { throw FFmpegError(code: FFmpegError.exit.code, function: "prepare (timed out)") }
            if let frames = videoFrames, !videoReady {
                _ = frames.waitUntilReadable(timeout: 0.01)
            } else if let frames = audioFrames {
                _ = frames.waitUntilReadable(timeout: 0.01)
            }
        }
    }

    /// The demuxer performed (or failed) the seek to `target`: queues are flushed, serials bumped.
    private func seekPerformed(target: CMTime, failed: Bool) {
        lock.withLock {
            guard seekInFlight == target else { return }
            seekInFlight = nil
            if failed { seekFailed = true }
        }
    }

    /// Whether a requested seek has not been performed yet (frames still carry old serials).
    package var isSeekInFlight: Bool { lock.withLock { seekInFlight != nil } }

    /// Whether the last seek failed (the position did not change); clears the flag.
    package func takeSeekFailure() -> Bool {
        lock.withLock {
            defer { seekFailed = false }
            return seekFailed
        }
    }

    private func demuxEvent(_ event: DemuxEvent) {
        switch event {
        case .seekFailed(let target, _):
            seekPerformed(target: target, failed: true)
        case .readError(let e):
            let callback: (@Sendable (any Error) -> Void)? = lock.withLock {
                readError = e
                return onReadError
            }
            callback?(e)
        default:
            break
        }
    }

    /// The played audio track's volume over time (AVAudioMix); nil for unity. Read by the audio
    /// renderer on the device thread, set by the facade from any thread.
    package var volumeCurve: VolumeCurve? {
        get { lock.withLock { _volumeCurve } }
        set { lock.withLock { _volumeCurve = newValue.flatMap { $0.isUnity ? nil : $0 } } }
    }
    private var _volumeCurve: VolumeCurve?

    /// Composes each presented picture (AVVideoComposition) before the video sinks get it, given the
    /// frame and its item time; a nil result drops the picture. Called on the engine thread, set by
    /// the facade from any thread; nil presents pictures as decoded.
    package var videoCompositor: (@Sendable (VideoFrame, CMTime) -> VideoFrame?)? {
        get { lock.withLock { _videoCompositor } }
        set { lock.withLock { _videoCompositor = newValue } }
    }
    private var _videoCompositor: (@Sendable (VideoFrame, CMTime) -> VideoFrame?)?

    /// At this rate and above (either direction), the video decoder skips non-reference pictures (B-frames):
    /// a 60 Hz display cannot show every picture of 30 fps media played at 4× anyway.
    package static let skipNonReferenceRate: Float = 4
    /// At this rate and above, the video decoder decodes keyframes only.
    package static let keyframesOnlyRate: Float = 16

    /// Lets the video decoder skip pictures that playback at `rate` could not show (see
    /// ``skipNonReferenceRate`` and ``keyframesOnlyRate``); rate 0 (paused, stepping, seeking) decodes everything.
    package func adaptVideoDecoding(toRate rate: Float) {
        guard let decoder = lock.withLock({ videoDecoder }) else { return }
        let r = abs(rate)
        decoder.skipNonKeyFrames = r >= Self.keyframesOnlyRate
        decoder.skipNonReferenceFrames = r >= Self.skipNonReferenceRate
    }

    /// Item time where the last video packet given to the decoder ends (nil before any, or without video):
    /// how far video got, even when pictures skipped at high rates never came out.
    package var videoInputEnd: CMTime? {
        guard let decoder = lock.withLock({ videoDecoder }), let end = decoder.status.lastInputEnd else { return nil }
        return itemTime(CMTime(ffmpeg: end, timeBase: decoder.timeBase))
    }

    /// Pictures the video decoder delivered (skipped pictures are never decoded, so never counted).
    package var videoFramesDecoded: Int { lock.withLock { videoDecoder }?.status.framesDecoded ?? 0 }

    /// Pictures the video decoder decoded and dropped (before an exact-seek target, or of a stale serial).
    package var videoFramesDropped: Int { lock.withLock { videoDecoder }?.status.framesDropped ?? 0 }

    /// Whether ``stop()`` was called.
    package var isStopped: Bool { lock.withLock { stopped } }

    /// Whether the video decoder drained everything of the current serial.
    package var isVideoDecoderFinished: Bool {
        guard let d = videoDecoder, let p = videoPackets else { return true }
        return d.finishedSerial == p.serial
    }

    package var isAudioDecoderFinished: Bool {
        guard let d = audioDecoder, let p = audioPackets else { return true }
        return d.finishedSerial == p.serial
    }

    /// Video is over: the decoder drained and every frame was taken.
    package var isVideoFinished: Bool { isVideoDecoderFinished && (videoFrames?.count ?? 0) == 0 }

    /// The demuxer reached the end of the input (for buffering state).
    package var isAtEndOfFile: Bool { lock.withLock { demuxer }?.isAtEndOfFile ?? false }

    /// Item time of a stream timestamp.
    package func itemTime(_ streamTime: CMTime) -> CMTime {
        descriptor.timeOrigin == .zero ? streamTime : streamTime - descriptor.timeOrigin
    }

    /// Container time of an item time.
    package func containerTime(_ itemTime: CMTime) -> CMTime {
        descriptor.timeOrigin == .zero ? itemTime : itemTime + descriptor.timeOrigin
    }

    /// Serial of the video packets now (frames of other serials are stale).
    package var videoSerial: Serial? { videoPackets?.serial }
    package var audioSerial: Serial? { audioPackets?.serial }

    /// End of demuxed media in item time (the whole item at end of file).
    package var bufferedEnd: CMTime? {
        guard let d = lock.withLock({ demuxer }) else { return nil }
        if d.isAtEndOfFile { return descriptor.duration.isNumeric ? descriptor.duration : nil }
        return d.bufferedEnd.map(itemTime)
    }

    /// Caps read-ahead near `seconds` of media (nil: the engine's default limits).
    package func setForwardBufferDuration(_ seconds: Double?) {
        lock.withLock { _descriptor.forwardBufferDuration = seconds }
        guard let d = lock.withLock({ demuxer }) else { return }
        var limits = d.limits
        limits.forwardDuration = seconds.flatMap { $0 > 0 ? $0 : nil }
        d.limits = limits
    }

    /// Changes the played streams during playback (another audio language; a track disabled or
    /// enabled): decoders of streams that leave are stopped, new ones start, and the demuxer's
    /// routing changes. The caller then seeks to the playhead so every stream continues from there.
    package func setStreams(video: Int?, audio: Int?) throws {
        let current = descriptor
        guard video != current.videoStream || audio != current.audioStream else { return }
        guard
            let (format, demuxer) = lock.withLock({ () -> (FormatContext, Demuxer)? in
                guard let f = self.format, let d = self.demuxer, !stopped else { return nil }
                return (f, d)
            })
        else { return }
        var newVideo: (PacketQueue, FrameQueue<VideoFrame>, VideoDecoder)?
        var newAudio: (PacketQueue, FrameQueue<AudioFrame>, AudioDecoder)?
        let streams = lock.withLock { streamInfo }
        if video != current.videoStream, let v = video, v < streams.count {
            let tb = streams[v].timeBase
            let packets = PacketQueue(streamIndex: v, timeBase: tb)
            let frames = FrameQueue<VideoFrame>(capacity: Self.videoFrameCapacity)
            newVideo = (
                packets, frames,
                try VideoDecoder(
                    parameters: format.codecParameters(stream: v), timeBase: tb, packets: packets, frames: frames)
            )
        }
        if audio != current.audioStream, let a = audio, a < streams.count {
            let tb = streams[a].timeBase
            let packets = PacketQueue(streamIndex: a, timeBase: tb)
            let frames = FrameQueue<AudioFrame>(capacity: Self.audioFrameCapacity)
            newAudio = (
                packets, frames,
                try AudioDecoder(
                    parameters: format.codecParameters(stream: a), timeBase: tb, packets: packets, frames: frames,
                    outputFormat: audioFormat)
            )
        }
        let (oldVideo, oldAudio, routing): (VideoDecoder?, AudioDecoder?, [Int: PacketQueue]) = lock.withLock {
            var oldV: VideoDecoder?
            var oldA: AudioDecoder?
            if video != current.videoStream {
                oldV = videoDecoder
                (_videoPackets, _videoFrames, videoDecoder) = (newVideo?.0, newVideo?.1, newVideo?.2)
            }
            if audio != current.audioStream {
                oldA = audioDecoder
                (_audioPackets, _audioFrames, audioDecoder) = (newAudio?.0, newAudio?.1, newAudio?.2)
            }
            _descriptor.videoStream = video
            _descriptor.audioStream = audio
            var routing: [Int: PacketQueue] = [:]
            if let v = video, let q = _videoPackets { routing[v] = q }
            if let a = audio, let q = _audioPackets { routing[a] = q }
            return (oldV, oldA, routing)
        }
        oldVideo?.stop()
        oldAudio?.stop()
        newVideo?.2.start()
        newAudio?.2.start()
        demuxer.setStreams(routing)
    }

    /// Seeks to `itemTime`: the demuxer repositions at a keyframe at or before it (within
    /// `range` when given) and bumps every serial. With `exact`, decoders drop frames before the target.
    package func seek(to itemTime: CMTime, exact: Bool) {
        seek(to: itemTime, mode: exact ? .exact : .fast)
    }

    /// Seeks to `itemTime` landing as `mode` says (see ``SeekMode``).
    package func seek(to itemTime: CMTime, mode: SeekMode) {
        let target = containerTime(itemTime)
        guard
            let d = lock.withLock({ () -> Demuxer? in
                seekInFlight = target
                seekFailed = false
                return demuxer
            })
        else { return }
        // `accurate` records the target with the queue flush itself, so decoders drop frames before
        // it for exactly the new serial (no race with frames already in flight).
        switch mode {
        case .exact:
            d.seek(to: target, range: nil, accurate: true)
        case .fast:
            d.seek(to: target, range: nil, accurate: false)
        case .window(let before, let after):
            let low = before.isPositiveInfinity ? CMTime.negativeInfinity : target - before
            let high = after.isPositiveInfinity ? CMTime.positiveInfinity : target + after
            d.seek(to: target, range: nil, accurate: false, window: low...high)
        }
    }

    /// Seeks the demuxer performed (requests replaced before it got to them count once).
    package var seeksPerformed: Int { lock.withLock { demuxer }?.seeksPerformed ?? 0 }

    package var decodeErrorCount: Int {
        (videoDecoder?.decodeErrorCount ?? 0) + (audioDecoder?.decodeErrorCount ?? 0)
    }

    /// Stops every thread and releases FFmpeg objects. Idempotent; safe from any thread.
    package func stop() {
        let parts: (Demuxer?, VideoDecoder?, AudioDecoder?)? = lock.withLock {
            if stopped { return nil }
            stopped = true
            return (demuxer, videoDecoder, audioDecoder)
        }
        interrupt.abort()
        guard let (d, v, a) = parts else { return }
        for q in [videoPackets, audioPackets] { q?.abort() }
        videoFrames?.abort()
        audioFrames?.abort()
        d?.stop()
        v?.stop()
        a?.stop()
        lock.withLock {
            demuxer = nil
            format = nil
        }
    }

    deinit {
        stop()
    }
}
