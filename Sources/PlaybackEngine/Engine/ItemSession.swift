import CoreMedia
import CoreVideo
import FFmpegBridge
import Foundation
import OAVFLocking

/// One item's media pipeline: its ``MediaSource``, the demux thread reading it, a decode thread per played
/// stream, their serial-tagged queues (ffplay's `VideoState`, one per item).
///
/// Ownership: created by the facade (with what the app set, ``Settings``) and from then on owned by the engine. The
/// engine thread changes it — settings through ``PlayerEngine/configure(_:_:)`` commands, seeks, stream switches, and
/// ``stop()`` when the item leaves its queue or the engine shuts down — and reads frames from it;
/// ``prepare(sourceClock:bandwidthHistory:)`` runs on one of the engine's preparation threads (it opens the source and chooses the
/// streams); the audio device thread reads audio frames; demux and decode threads are internal. Caller threads only
/// read (times, ranges, counters for the facade's properties). What remains guarded by `lock` is what those other
/// threads share: the pipeline objects preparation installs and a stream switch replaces, the read error the demux
/// thread reports, the subtitle and metadata readers, the volume curve the device thread reads — state a command
/// cannot carry, because its readers are not the engine thread and must never wait for it. Queue objects have their
/// own locks.
/// The subtitle selection and the HLS variant caps and policy are commands too (``Setting``): the engine thread
/// starts the subtitle reader (whose own thread opens the stream) and hands the variant settings to the source's
/// ``VariantControl``, whose one `Locked` value the source's reading thread reads.
/// `stop()` is idempotent; the last release also stops the session (one never handed to an engine).
package final class ItemSession: @unchecked Sendable, Identifiable {
    package let id = UUID()
    /// What to play; a placeholder until ``prepare(sourceClock:bandwidthHistory:)`` obtained it from the provider.
    package var descriptor: ItemDescriptor { lock.withLock { _descriptor } }
    private var _descriptor = ItemDescriptor(location: "", videoStream: nil, audioStream: nil, duration: .indefinite)
    /// Produces the descriptor (loads the asset); runs inside ``prepare(sourceClock:bandwidthHistory:)``, off the engine thread.
    private let descriptorProvider: @Sendable () throws -> ItemDescriptor
    /// Cancelled by ``stop()``: a descriptor provider that waits (for an asset's loading) gives up when it is.
    package let stopping: Cancellation
    /// Format the audio decoder converts to (the audio sink's).
    package let audioFormat: AudioFormat

    /// Guards what the preparation, demux, decode and device threads share with the engine thread (see the type's
    /// doc): installed by preparation, swapped by a stream switch, read by the facade's property reads. Not a
    /// command: its readers run on threads that must not wait for the engine's loop.
    let lock = ConditionLock()
    // Guarded by `lock`.
    /// The input (set when preparation starts, so ``stop()`` can interrupt its opening).
    private var source: (any MediaSource)?
    private var demuxer: Demuxer?
    private(set) var videoDecoder: VideoDecoder?
    private var audioDecoder: AudioDecoder?
    var stopped = false
    private var readError: (any Error)?
    /// The container target of the seek the demuxer has not performed yet (latest wins).
    private var seekInFlight: CMTime?
    private var seekFailed = false
    /// Reads the selected subtitle stream's cues (see `ItemSession+Subtitles.swift`).
    var subtitleReader: SubtitleTrackReader?
    /// Reads the timed ID3 streams of a local input into ``timedMetadata`` (nil when there are none).
    var metadataReader: TimedMetadataReader?
    /// The item's timed metadata (ID3 tags, ICY titles), filled as it is found.
    package let timedMetadata = TimedMetadataStore()
    /// Told of the source's date-range changes (``addDateRangesObserver(_:)``); guarded by `lock`.
    var dateRangesObservers: [@Sendable () -> Void] = []

    // Guarded by `lock` (swapped when the played streams change during playback).
    private var _videoPackets: PacketQueue?
    private var _audioPackets: PacketQueue?
    private var _videoFrames: FrameQueue<VideoFrame>?
    private var _audioFrames: FrameQueue<AudioFrame>?
    /// Stream parameters, kept to build decoders for streams selected later.
    var streamInfo: [StreamInfo] = []
    /// Decoder parameters read while preparing, by stream (decoders for streams selected later are made from them:
    /// the demux thread owns the source by then).
    private var codecParameters: [Int: CodecParameters] = [:]
    /// The source's seekable range (container time), read while preparing.
    private var seekableContainerRange: CMTimeRange?
    /// The container's start and duration (microseconds; the duration unless estimated from the bit rate), for a
    /// video stream that states neither (Matroska, WebM).
    private var containerSpan: (start: Int64?, duration: Int64?) = (nil, nil)

    package var videoPackets: PacketQueue? { lock.withLock { _videoPackets } }
    package var audioPackets: PacketQueue? { lock.withLock { _audioPackets } }
    package var videoFrames: FrameQueue<VideoFrame>? { lock.withLock { _videoFrames } }
    package var audioFrames: FrameQueue<AudioFrame>? { lock.withLock { _audioFrames } }

    /// Decoded pictures around the playhead, kept while paused (seeks, steps, scrubs) so backward steps and
    /// backward scrubs show a cached picture; emptied when playback runs. Its byte limit may be changed at any time.
    package let pictureCache = PictureCache()

    /// Tuning: decoded-frame ring sizes (ffplay: VIDEO_PICTURE_QUEUE_SIZE 3, SAMPLE_QUEUE_SIZE 9).
    static let videoFrameCapacity = 3
    static let audioFrameCapacity = 9
    /// Preparation gives up after this long without a first frame (seconds): a stuck network read.
    static let prepareTimeout = 20.0

    /// Called on a pipeline thread when demuxing hits an unrecoverable error after preparation.
    package var onReadError: (@Sendable (any Error) -> Void)? {
        get { lock.withLock { _onReadError } }
        set { lock.withLock { _onReadError = newValue } }
    }
    /// Guarded by `lock`.
    private var _onReadError: (@Sendable (any Error) -> Void)?

    package init(
        audioFormat: AudioFormat, settings: Settings = Settings(), stopping: Cancellation = Cancellation(),
        descriptor provider: @escaping @Sendable () throws -> ItemDescriptor
    ) {
        self.descriptorProvider = provider
        self.stopping = stopping
        self.audioFormat = audioFormat
        self.settings = settings
        initialTime = settings.start?.time ?? .zero
    }

    package convenience init(descriptor: ItemDescriptor, audioFormat: AudioFormat) {
        self.init(audioFormat: audioFormat) { descriptor }
    }

    package var hasVideo: Bool { descriptor.videoStream != nil }
    package var hasAudio: Bool { descriptor.audioStream != nil }

    /// The source that reads `descriptor`'s media, made by its factory (libavformat's, or the HLS module's).
    package static func makeSource(for descriptor: ItemDescriptor) -> any MediaSource {
        descriptor.sourceFactory.make(
            descriptor.location, descriptor.sourceOptions, descriptor.options, Cancellation())
    }

    /// Opens the source, chooses the streams, starts the pipeline and waits for the first decoded frames (or the
    /// end of a short input). `sourceClock`: the clock the source's schedules run on (the engine's,
    /// ``MediaClock/forSources(of:)``); it replaces the descriptor's. `bandwidthHistory`: the engine's memory of the
    /// servers played from, which gives a streamed source its starting estimate and remembers the new one's.
    /// Blocking; call off the engine thread.
    package func prepare(sourceClock: MediaClock = .host, bandwidthHistory: BandwidthHistory? = nil) throws {
        if isStopped { throw FFmpegError.exit }
        var descriptor = try descriptorProvider()
        descriptor.sourceOptions.clock = sourceClock
        if let known = bandwidthHistory?.estimate(for: descriptor.location) {
            descriptor.sourceOptions.initialBitRateEstimate = known
        }
        let source = Self.makeSource(for: descriptor)
        if let control = source.variantControl { bandwidthHistory?.remember(control, for: descriptor.location) }
        let started: Bool = lock.withLock {
            if stopped { return false }
            self.source = source
            return true
        }
        guard started else { throw FFmpegError.exit }
        // Before the source reads a segment (one the asset's loading opened has read only its first).
        if let policy = descriptor.variantPolicy { source.variantControl?.policy = policy }
        try source.open()
        forwardDateRangeChanges(of: source)
        let info = source.info
        if let preferences = descriptor.streamPreferences {
            (descriptor.videoStream, descriptor.audioStream) = StreamChooser.choose(
                from: info, preferences: preferences)
        }
        lock.withLock { _descriptor = descriptor }
        var queues: [Int: PacketQueue] = [:]
        var video: (PacketQueue, FrameQueue<VideoFrame>, VideoDecoder)?
        var audio: (PacketQueue, FrameQueue<AudioFrame>, AudioDecoder)?
        if let v = descriptor.videoStream, v < info.streams.count {
            let parts = try makeVideoPipeline(stream: v, source: source, streams: info.streams)
            queues[v] = parts.0
            video = parts
        }
        if let a = descriptor.audioStream, a < info.streams.count {
            let parts = try makeAudioPipeline(stream: a, source: source, streams: info.streams)
            queues[a] = parts.0
            audio = parts
        }
        var limits = BufferLimits()
        if let forward = descriptor.forwardBufferDuration, forward > 0 { limits.forwardDuration = forward }
        // A network input's ID3 streams come with the played packets (a second pass would download it again).
        let metadataStreams =
            source.isLocal ? [] : Set(info.streams.filter { TimedMetadataReader.reads($0) }.map(\.index))
        let demuxer = Demuxer(source: source, streams: queues, limits: limits, metadataStreams: metadataStreams)
        demuxer.onEvent = { [weak self] event in self?.demuxEvent(event) }
        demuxer.onSeek = { [weak self] target, _ in self?.seekPerformed(target: target, failed: false) }

        // Every playable stream's parameters now, while this thread owns the source (a stream switch needs them).
        for stream in info.streams where stream.hasDecoder && (stream.kind == .audio || stream.kind == .video) {
            _ = try? parameters(stream: stream.index, source: source)
        }
        let seekable = source.seekableRange
        let proceed: Bool = lock.withLock {
            if stopped { return false }
            self.demuxer = demuxer
            self.streamInfo = info.streams
            self.seekableContainerRange = seekable
            containerSpan = (info.startTimeMicroseconds, info.durationFromBitrate ? nil : info.durationMicroseconds)
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
        startTimedMetadataReader(streams: info.streams, local: source.isLocal)
        addChapterTags(info)
        try waitForFirstFrames()
    }

    private func waitForFirstFrames() throws {
        // On the monotonic clock: a wall-clock jump neither ends nor extends it.
        let deadline = MonotonicTime.now + Self.prepareTimeout
        while true {
            let (isStopped, error) = lock.withLock { (stopped, readError) }
            if isStopped { throw FFmpegError.exit }
            if let error { throw error }
            let videoReady = videoFrames.map { $0.count > 0 || isVideoDecoderFinished } ?? true
            let audioReady = audioFrames.map { $0.count > 0 || isAudioDecoderFinished } ?? true
            if videoReady && audioReady { return }
            if MonotonicTime.now > deadline {
                throw FFmpegError(code: FFmpegError.exit.code, function: "prepare (timed out)")
            }
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
            // The stored callback: the property's getter takes the lock again (that trapped on every read error).
            let callback: (@Sendable (any Error) -> Void)? = lock.withLock {
                readError = e
                return _onReadError
            }
            callback?(e)
        case .icyMetadata(let text, let time):
            addICYMetadata(text, at: time.map(itemTime) ?? .zero)
        case .timedMetadata(let bytes, let stream, let time):
            addID3Tag(bytes, stream: stream, at: time.map(itemTime))
        default:
            break
        }
    }

    /// What the app set that playback reads (``Settings``; `ItemSession+Settings.swift`). Engine thread only after
    /// creation.
    package internal(set) var settings: Settings

    /// Completions of the seeks that asked for ``Settings/start`` (engine thread only).
    var startCompletions: [@Sendable (Bool) -> Void] = []

    /// Where the item started as created (``Settings/start``'s time, else zero): what readers see before the engine
    /// has taken the item. Immutable.
    package let initialTime: CMTime

    /// Guarded by `lock` (see ``volumeCurve``).
    var _volumeCurve: VolumeCurve?
    /// Guarded by `lock` (see ``videoCompositor``).
    var _videoCompositor: (@Sendable (VideoFrame, CMTime) -> VideoFrame?)?

    /// Item time where the last video packet given to the decoder ends (nil before any, or without video):
    /// how far video got, even when pictures skipped at high rates never came out.
    package var videoInputEnd: CMTime? {
        guard let decoder = lock.withLock({ videoDecoder }), let end = decoder.status.lastInputEnd else { return nil }
        return itemTime(CMTime(ffmpeg: end, timeBase: decoder.timeBase))
    }

    /// Pictures the video decoder delivered (skipped pictures are never decoded, so never counted).
    package var videoFramesDecoded: Int { lock.withLock { videoDecoder }?.status.framesDecoded ?? 0 }

    /// The item time range the video stream's header states (start and duration; the container's duration when the
    /// stream states none), nil without video or when neither says.
    package var statedVideoRange: CMTimeRange? {
        guard let index = descriptor.videoStream else { return nil }
        let (info, container) = lock.withLock { (streamInfo, containerSpan) }
        guard index < info.count else { return nil }
        let base = info[index].timeBase
        if let start = info[index].startTime, let duration = info[index].duration {
            return CMTimeRange(
                start: itemTime(CMTime(ffmpeg: start, timeBase: base)),
                duration: CMTime(ffmpeg: duration, timeBase: base))
        }
        // The stream states no span (Matroska): from the stream's start when it has one (a file cut before its first
        // cluster states none: zero), for the track's `DURATION` tag (what ffmpeg and mkvmerge write per track), else
        // for the container's duration (which also covers longer tracks).
        let start =
            info[index].startTime.map { CMTime(ffmpeg: $0, timeBase: base) }
            ?? CMTime(value: container.start ?? 0, timescale: 1_000_000)
        if let tag = info[index].metadata["DURATION"], let seconds = Self.seconds(ofDurationTag: tag), seconds > 0,
            seconds < 1e9
        {
            return CMTimeRange(
                start: itemTime(start), duration: CMTime(seconds: seconds, preferredTimescale: 1_000_000))
        }
        guard let duration = container.duration,
            case let (sum, overflow) = (container.start ?? 0).addingReportingOverflow(duration), !overflow
        else { return nil }
        let end = CMTime(value: sum, timescale: 1_000_000)
        guard end > start else { return nil }
        return CMTimeRange(start: itemTime(start), end: itemTime(end))
    }

    /// Damage seen so far: reads the demuxer skipped and errors the video decoder counted (rejected packets, failed
    /// receives, corrupt pictures). A seek that sees this grow landed in damaged data.
    package var damageCount: Int {
        let demuxer: Demuxer? = lock.withLock { self.demuxer }
        let decoder: VideoDecoder? = lock.withLock { videoDecoder }
        return (demuxer?.readErrors ?? 0) + (decoder?.status.decodeErrorCount ?? 0)
    }

    /// Pictures the video decoder decoded and dropped (before an exact-seek target, or of a stale serial).
    package var videoFramesDropped: Int { lock.withLock { videoDecoder }?.status.framesDropped ?? 0 }

    /// Whether ``stop()`` was called.
    package var isStopped: Bool { lock.withLock { stopped } }

    /// Whether the video decoder drained everything of the current serial.
    package var isVideoDecoderFinished: Bool {
        guard let d = lock.withLock({ videoDecoder }) else { return true }
        return d.finishedSerial == d.packets.serial
    }

    /// Whether the audio decoder drained everything of the current serial.
    package var isAudioDecoderFinished: Bool {
        guard let d = lock.withLock({ audioDecoder }) else { return true }
        return d.finishedSerial == d.packets.serial
    }

    /// Whether the media is on this machine (its source says so); false before preparation.
    package var isLocal: Bool { lock.withLock { source }?.isLocal ?? false }

    /// The item-time range that can be seeked to (nil before preparation, or when nothing can be).
    package var seekableRange: CMTimeRange? {
        let fixed: CMTimeRange? = lock.withLock { seekableContainerRange }
        guard let range = openedSource?.liveWindow ?? fixed else { return nil }
        return CMTimeRange(start: itemTime(range.start), duration: range.duration)
    }

    /// The opened source (nil before preparation), for readers on any thread of what it publishes.
    var openedSource: (any MediaSource)? { lock.withLock { source } }

    /// The coded size of the video stream played (nil before preparation or without video): for a stream, the
    /// variant's, which may differ from what the asset's probe saw.
    package var playedVideoSize: (width: Int, height: Int)? {
        lock.withLock {
            guard let index = _descriptor.videoStream, index < streamInfo.count else { return nil }
            let stream = streamInfo[index]
            return stream.width > 0 && stream.height > 0 ? (stream.width, stream.height) : nil
        }
    }

    /// Another, unopened source for the item's media (reverse play reads its own).
    package func makeIndependentSource() -> any MediaSource {
        lock.withLock { source }?.makeIndependentSource() ?? Self.makeSource(for: descriptor)
    }

    /// Video is over: the decoder drained and every frame was taken.
    package var isVideoFinished: Bool { isVideoDecoderFinished && (videoFrames?.count ?? 0) == 0 }

    /// The source and the demuxer reading it now (nil before preparation), for the reading state
    /// (`ItemSession+Reading.swift`). Any thread.
    var reading: (source: (any MediaSource)?, demuxer: Demuxer?) { lock.withLock { (source, demuxer) } }

    /// Serial of the video packets now (frames of other serials are stale).
    package var videoSerial: Serial? { videoPackets?.serial }
    package var audioSerial: Serial? { audioPackets?.serial }

    /// Caps read-ahead near `seconds` of media (nil: the engine's default limits). Engine thread (``apply(_:)``).
    func setForwardBufferDuration(_ seconds: Double?) {
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
            let (demuxer, streams) = lock.withLock({ () -> (Demuxer, [StreamInfo])? in
                guard let d = self.demuxer, !stopped else { return nil }
                return (d, streamInfo)
            })
        else { return }
        var newVideo: (PacketQueue, FrameQueue<VideoFrame>, VideoDecoder)?
        var newAudio: (PacketQueue, FrameQueue<AudioFrame>, AudioDecoder)?
        if video != current.videoStream, let v = video, v < streams.count {
            newVideo = try makeVideoPipeline(stream: v, source: nil, streams: streams)
        }
        if audio != current.audioStream, let a = audio, a < streams.count {
            newAudio = try makeAudioPipeline(stream: a, source: nil, streams: streams)
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
        if oldVideo != nil { pictureCache.removeAll() }
        newVideo?.2.start()
        newAudio?.2.start()
        // The engine seeks to the playhead right after (`SeekCoordinator.performStreamSwitch`).
        demuxer.setStreams(routing, seekFollows: true)
    }

    /// The decoder parameters of stream `index`: what was kept, else read from `source` while it is being prepared
    /// (and kept; afterwards the demux thread owns the source).
    private func parameters(stream index: Int, source: (any MediaSource)?) throws -> CodecParameters {
        if let kept = lock.withLock({ codecParameters[index] }) { return kept }
        if let source {
            let parameters = try source.codecParameters(stream: index)
            lock.withLock { codecParameters[index] = parameters }
            return parameters
        }
        throw FFmpegError.streamNotFound
    }

    /// A video packet queue, frame queue and decoder for stream `index`.
    private func makeVideoPipeline(
        stream v: Int, source: (any MediaSource)?, streams: [StreamInfo]
    ) throws -> (PacketQueue, FrameQueue<VideoFrame>, VideoDecoder) {
        let tb = streams[v].timeBase
        let packets = PacketQueue(streamIndex: v, timeBase: tb)
        let frames = FrameQueue<VideoFrame>(capacity: Self.videoFrameCapacity)
        let decoder = try VideoDecoder(
            parameters: parameters(stream: v, source: source), timeBase: tb, packets: packets, frames: frames,
            pictureCache: pictureCache)
        return (packets, frames, decoder)
    }

    /// An audio packet queue, frame queue and decoder for stream `index`.
    private func makeAudioPipeline(
        stream a: Int, source: (any MediaSource)?, streams: [StreamInfo]
    ) throws -> (PacketQueue, FrameQueue<AudioFrame>, AudioDecoder) {
        let tb = streams[a].timeBase
        let packets = PacketQueue(streamIndex: a, timeBase: tb)
        let frames = FrameQueue<AudioFrame>(capacity: Self.audioFrameCapacity)
        let decoder = try AudioDecoder(
            parameters: parameters(stream: a, source: source), timeBase: tb, packets: packets, frames: frames,
            outputFormat: audioFormat)
        return (packets, frames, decoder)
    }

    /// Seeks to `itemTime`: the demuxer repositions at a keyframe at or before it (within
    /// `range` when given) and bumps every serial. With `exact`, decoders drop frames before the target.
    package func seek(to itemTime: CMTime, exact: Bool) {
        seek(to: itemTime, mode: exact ? .exact : .fast)
    }

    /// The earliest container time the video decoder can still deliver without a seek: the first picture of the
    /// current serial waiting in the frame queue, else the later of the end of the last one pushed (all taken) and
    /// the current serial's exact-seek target (the decoder drops what ends before it); nil without video or when
    /// neither is known. Call on the thread
    /// that takes video frames (the engine's): nothing before the answer is still available.
    func videoContinuationPoint() -> (time: CMTime, serial: Serial)? {
        guard let decoder = lock.withLock({ videoDecoder }), let frames = videoFrames else { return nil }
        let serial = decoder.packets.serial
        while let (frame, frameSerial) = frames.peek() {
            if frameSerial == serial { return (frame.pts, serial) }
            frames.pop()
        }
        // Everything pushed was taken; the decoder drops what ends before the serial's target.
        let pushed = decoder.status.pushedEnd(serial: serial).map { CMTime(ffmpeg: $0, timeBase: decoder.timeBase) }
        let target = decoder.status.dropTarget(for: serial, packets: decoder.packets)
        switch (pushed, target) {
        case (let p?, let t?): return (max(p, t), serial)
        case (let p?, nil): return (p, serial)
        case (nil, let t?): return (t, serial)
        case (nil, nil): return nil
        }
    }

    /// Seeks to `itemTime` landing as `mode` says (see ``SeekMode``). With `continuing`, an exact seek whose target
    /// lies ahead of the video decoder, before its next keyframe, continues forward from where the decoder is (no
    /// demuxer seek, no flush, serials unchanged; see ``Demuxer``); call it on the engine thread then.
    ///
    /// With `fillingCache`, every picture before an exact target is decoded (none skipped) and cached: for seeks a
    /// little way back, which backward steps and scrubs follow.
    package func seek(to itemTime: CMTime, mode: SeekMode, continuing: Bool = false, fillingCache: Bool = false) {
        let target = containerTime(itemTime)
        pictureCache.setAnchor(target)
        lock.withLock { videoDecoder }?.status.decodesEverythingBeforeTarget = fillingCache
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
            d.seek(to: target, range: nil, accurate: true, continuingFrom: continuing ? videoContinuationPoint() : nil)
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

    /// Exact seeks that continued forward without a demuxer seek.
    package var seeksContinued: Int { lock.withLock { demuxer }?.seeksContinued ?? 0 }

    /// Frames the video codec produced (delivered, dropped before a target, or stale): the decoding work done.
    package var videoFramesProduced: Int { lock.withLock { videoDecoder }?.status.framesProduced ?? 0 }

    package var decodeErrorCount: Int {
        let (video, audio) = lock.withLock { (videoDecoder, audioDecoder) }
        return (video?.decodeErrorCount ?? 0) + (audio?.decodeErrorCount ?? 0)
    }

    /// Stops every thread (joined before it returns) and releases FFmpeg objects. Idempotent; safe from any thread.
    package func stop() {
        let parts: (any MediaSource, Demuxer?, VideoDecoder?, AudioDecoder?)?? = lock.withLock {
            if stopped { return nil }
            stopped = true
            return source.map { ($0, demuxer, videoDecoder, audioDecoder) }
        }
        // A preparation still waiting for its descriptor (an asset's loading) gives up.
        stopping.cancel()
        // Interrupts an open or read in progress (for good).
        let subtitles: SubtitleTrackReader? = lock.withLock {
            defer { subtitleReader = nil }
            return subtitleReader
        }
        subtitles?.stop()
        lock.withLock {
            defer { metadataReader = nil }
            return metadataReader
        }?.stop()
        guard let parts, let (source, d, v, a) = parts else { return }
        source.interrupt()
        for q in [videoPackets, audioPackets] { q?.abort() }
        videoFrames?.abort()
        audioFrames?.abort()
        d?.stop()
        v?.stop()
        a?.stop()
        // Release the codecs (and their frame threads, which libavcodec joins as it frees them) and the input: a
        // stopped session never plays again.
        pictureCache.removeAll()
        lock.withLock {
            demuxer = nil
            videoDecoder = nil
            audioDecoder = nil
            self.source = nil
            codecParameters = [:]
        }
    }

    deinit {
        stop()
    }
}
