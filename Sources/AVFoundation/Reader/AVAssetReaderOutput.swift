import CoreMedia
import Foundation
import OAVFLocking
import PlaybackEngine

/// What an output's engine reader is, for the output: a ``TrackReader`` or an ``AudioMixReader``.
protocol ReaderSampleSource: AnyObject {
    /// Opens the input and decoders.
    func open() throws
    /// The next sample, nil at the end.
    func next() throws -> TrackSample?
}

extension TrackReader: ReaderSampleSource {}
extension AudioMixReader: ReaderSampleSource {}

/// Reads one stream of samples of an ``AVAssetReader``'s asset (abstract: use ``AVAssetReaderTrackOutput`` or
/// ``AVAssetReaderAudioMixOutput``).
///
/// ``copyNextSampleBuffer()`` decodes on the calling thread; calls on one output are serialised (each output has its
/// own lock), calls on different outputs run in parallel.
open class AVAssetReaderOutput: NSObject, @unchecked Sendable {
    /// The engine side of an output, guarded by `engine`.
    struct Engine {
        /// The reader of the current time range; nil before start and between ranges.
        var source: (any ReaderSampleSource)?
        /// Time ranges still to read (after ``reset(forReadingTimeRanges:)``), in order.
        var pendingRanges: [CMTimeRange] = []
        /// Whether the output handed out its last sample.
        var exhausted = false
        /// Whether ``markConfigurationAsFinal()`` was called.
        var isFinal = false
        /// The format description of the latest decoded samples, reused while their format holds.
        var formatDescription: CMFormatDescription?
    }

    /// The session of the reader the output was added to; guarded, as `add(_:)` may run on another thread than a
    /// `copyNextSampleBuffer()`. Not an engine command: a reader has no player engine.
    private let sessionReference = Locked<AssetReaderSession?>(nil)
    /// The session of the reader the output was added to (nil before).
    var session: AssetReaderSession? {
        get { sessionReference.withLock { $0 } }
        set { sessionReference.withLock { $0 = newValue } }
    }
    /// The engine side; the lock is held while decoding, so calls on one output queue up.
    let engine = Locked(Engine())
    /// Stored settings (any thread). Not an engine command: a reader has no player engine.
    private let settings = Locked((alwaysCopies: true, randomAccess: false))

    /// The output's media type.
    public let mediaType: AVMediaType

    init(mediaType: AVMediaType) {
        self.mediaType = mediaType
        super.init()
    }

    /// Whether each sample buffer's data is a copy the caller may modify (the default, true), or may be shared with
    /// the decoder (false: pictures in the decoder's own format are handed out without a copy).
    open var alwaysCopiesSampleData: Bool {
        get { settings.withLock { $0.alwaysCopies } }
        set {
            if session?.status ?? .unknown != .unknown { apiViolation("cannot change after reading started") }
            settings.withLock { $0.alwaysCopies = newValue }
        }
    }

    /// Whether ``reset(forReadingTimeRanges:)`` may be used (default false). With it, the reader does not complete
    /// until ``markConfigurationAsFinal()`` is called.
    open var supportsRandomAccess: Bool {
        get { settings.withLock { $0.randomAccess } }
        set {
            if session?.status ?? .unknown != .unknown { apiViolation("cannot change after reading started") }
            settings.withLock { $0.randomAccess = newValue }
        }
    }

    /// The next sample buffer, or nil when the output has handed out every sample of its time ranges, or reading
    /// failed or was cancelled (check the reader's `status`).
    ///
    /// Decoded samples come in presentation order; a track output without settings hands out the stored samples in
    /// decode order.
    open func copyNextSampleBuffer() -> CMSampleBuffer? {
        guard let session else { apiViolation("add the output to a reader before copying samples") }
        switch session.status {
        case .unknown: apiViolation("call startReading() before copying samples")
        case .reading: break
        case .completed, .failed, .cancelled: return nil
        }
        let (result, finishedNow) = engine.withLock { e -> (Result<CMSampleBuffer?, any Error>, Bool) in
            while true {
                if e.source == nil {
                    guard !e.pendingRanges.isEmpty else {
                        let finishes = !e.exhausted && (!supportsRandomAccess || e.isFinal)
                        if finishes { e.exhausted = true }
                        return (.success(nil), finishes)
                    }
                    let range = e.pendingRanges.removeFirst()
                    do {
                        e.source = try makeOpenedSource(range)
                    } catch {
                        return (.failure(error), false)
                    }
                }
                do {
                    if let sample = try e.source!.next() {
                        return (.success(makeSampleBuffer(sample, formatDescription: &e.formatDescription)), false)
                    }
                    e.source = nil
                } catch {
                    return (.failure(error), false)
                }
            }
        }
        switch result {
        case .success(let buffer):
            if finishedNow { session.outputFinished(ObjectIdentifier(self)) }
            return buffer
        case .failure(let error):
            if session.status == .reading { session.fail(readingError(error)) }
            return nil
        }
    }

    /// Starts reading `ranges` afresh, after the current ones were read to the end (``copyNextSampleBuffer()``
    /// returned nil). Requires ``supportsRandomAccess``; traps otherwise, or when ``markConfigurationAsFinal()`` was
    /// called (Apple raises).
    open func reset(forReadingTimeRanges timeRanges: [NSValue]) {
        guard supportsRandomAccess else { apiViolation("set supportsRandomAccess before resetting") }
        guard session?.status == .reading else { apiViolation("reset only while reading") }
        let ranges = timeRanges.map(\.timeRangeValue)
        guard !ranges.isEmpty, ranges.allSatisfy({ $0.isValid && $0.start.isNumeric }) else {
            apiViolation("time ranges must be valid")
        }
        engine.withLock { e in
            if e.isFinal { apiViolation("the configuration was marked final") }
            e.source = nil
            e.pendingRanges = ranges
        }
    }

    /// Says no more ``reset(forReadingTimeRanges:)`` calls will come, so the reader can complete.
    open func markConfigurationAsFinal() {
        engine.withLock { $0.isFinal = true }
    }

    // MARK: For the reader and subclasses

    /// The tracks the output reads (for `AVAssetReader.canAdd(_:)`).
    var tracks: [AVAssetTrack] { [] }

    /// An opened engine reader of the output's samples over `range` (subclasses).
    func makeSource(_ range: CMTimeRange, cancellation: Cancellation) throws -> any ReaderSampleSource {
        apiViolation("AVAssetReaderOutput is abstract")
    }

    /// The format description of stored samples (subclasses reading compressed samples).
    var storedFormatDescription: CMFormatDescription? { nil }

    /// Prepares to read `timeRange`; returns the error that stops reading, if any.
    func start(timeRange: CMTimeRange) -> (any Error)? {
        do {
            let source = try makeOpenedSource(timeRange)
            engine.withLock { $0.source = source }
            return nil
        } catch {
            return readingError(error)
        }
    }

    // MARK: Private

    private func makeOpenedSource(_ range: CMTimeRange) throws -> any ReaderSampleSource {
        guard let session else { throw AVError(.unknown) }
        let source = try makeSource(range, cancellation: session.cancellation)
        try source.open()
        return source
    }

    /// The sample buffer of an engine sample.
    private func makeSampleBuffer(
        _ sample: TrackSample, formatDescription cached: inout CMFormatDescription?
    ) -> CMSampleBuffer {
        switch sample {
        case .picture(let buffer, let pts, let duration):
            let dimensions = CMVideoDimensions(width: Int32(buffer.width), height: Int32(buffer.height))
            let subType = CMFormatDescription.MediaSubType(rawValue: buffer.pixelFormatType)
            if cached?.dimensions != dimensions || cached?.mediaSubType != subType {
                cached = CMFormatDescription(mediaType: .video, mediaSubType: subType, dimensions: dimensions)
            }
            return CMSampleBuffer(
                formatDescription: cached, dataBuffer: nil, imageBuffer: buffer, numSamples: 1,
                timings: [
                    CMSampleTimingInfo(duration: duration, presentationTimeStamp: pts, decodeTimeStamp: .invalid)
                ],
                sampleSizes: [])
        case .audio(let block, let frames, let layout, let pts):
            let asbd = Self.streamDescription(layout)
            if cached?.audioStreamBasicDescription != asbd {
                cached = CMFormatDescription(
                    mediaType: .audio, mediaSubType: .linearPCM, audioStreamBasicDescription: asbd)
            }
            let bytesPerFrame =
                layout.isNonInterleaved ? layout.bytesPerSample * layout.channelCount : layout.bytesPerFrame
            return CMSampleBuffer(
                formatDescription: cached, dataBuffer: block, imageBuffer: nil, numSamples: frames,
                timings: [
                    CMSampleTimingInfo(
                        duration: CMTime(value: 1, timescale: Int32(layout.sampleRate)), presentationTimeStamp: pts,
                        decodeTimeStamp: .invalid)
                ],
                sampleSizes: [bytesPerFrame])
        case .packet(let block, let pts, let dts, let duration, _):
            return CMSampleBuffer(
                formatDescription: storedFormatDescription, dataBuffer: block, imageBuffer: nil, numSamples: 1,
                timings: [CMSampleTimingInfo(duration: duration, presentationTimeStamp: pts, decodeTimeStamp: dts)],
                sampleSizes: [block.dataLength])
        }
    }

    /// Core Audio's description of a linear PCM layout.
    static func streamDescription(_ layout: ReaderPCMLayout) -> AudioStreamBasicDescription {
        var flags: AudioFormatFlags = kAudioFormatFlagIsPacked
        flags |= layout.isFloat ? kAudioFormatFlagIsFloat : kAudioFormatFlagIsSignedInteger
        if layout.isBigEndian { flags |= kAudioFormatFlagIsBigEndian }
        if layout.isNonInterleaved { flags |= kAudioFormatFlagIsNonInterleaved }
        return AudioStreamBasicDescription(
            mSampleRate: Float64(layout.sampleRate), mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags,
            mBytesPerPacket: UInt32(layout.bytesPerFrame), mFramesPerPacket: 1,
            mBytesPerFrame: UInt32(layout.bytesPerFrame), mChannelsPerFrame: UInt32(layout.channelCount),
            mBitsPerChannel: UInt32(layout.bitsPerChannel), mReserved: 0)
    }

    /// The `AVError` for an engine failure while reading `url`.
    private func readingError(_ error: any Error) -> any Error {
        if error is AVError { return error }
        let name = (session?.asset.loader.url).map(AVError.displayName) ?? "the asset"
        if case .endsEarly(let reached, let expected) = error as? TrackReaderFailure {
            let at = reached.isNumeric ? String(format: "%.2f s", reached.seconds) : "its start"
            return AVError.media(
                .fileFailedToParse, "“\(name)” ends early: its media data stops at \(at).",
                reason: String(
                    format: "The container says the track lasts until %.2f s; the file is truncated.",
                    expected.seconds))
        }
        if let failure = error as? any MediaFailure {
            switch failure.kind {
            case .decoderNotFound:
                return AVError.media(
                    .decoderNotFound, "“\(name)” can’t be read: no decoder for its media.", ffmpeg: failure)
            case .cancelled:
                return AVError.media(.operationInterrupted, "Reading “\(name)” was interrupted.", ffmpeg: failure)
            default:
                return AVError.media(
                    .decodeFailed, "“\(name)” can’t be read: \(failure.message).", ffmpeg: failure)
            }
        }
        return AVError.media(.unknown, "“\(name)” can’t be read: \(error).")
    }
}
