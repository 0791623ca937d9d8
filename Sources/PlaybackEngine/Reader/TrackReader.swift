import CoreMedia
import CoreVideo
import FFmpegBridge
import Foundation

/// What a ``TrackReader`` hands out for its stream.
package enum TrackReaderOutput: Sendable {
    /// The stored samples, undecoded, in decode order.
    case compressed
    /// Decoded pictures in presentation order, in `pixelFormatType` (nil: the decoder's own format when it can be
    /// wrapped, else `420v`); `copies` forces a copy even when the decoder's picture could be wrapped.
    case video(pixelFormatType: OSType?, copies: Bool)
    /// Decoded audio as linear PCM in presentation order; nil rate or channel count keep the stream's.
    case audio(PCMRequest)
}

/// A linear PCM layout (the bridge's), for the public layer, which does not see FFmpegBridge.
package typealias ReaderPCMLayout = PCMLayout

/// The linear PCM an audio output asks for; nil fields take the stream's value.
package struct PCMRequest: Sendable, Hashable {
    /// Frames per second; nil: the stream's.
    package var sampleRate: Int?
    /// Channels; nil: the stream's.
    package var channelCount: Int?
    /// Bits per channel sample.
    package var bitsPerChannel: Int
    /// Floating point samples.
    package var isFloat: Bool
    /// Big-endian samples.
    package var isBigEndian: Bool
    /// Channels in separate planes.
    package var isNonInterleaved: Bool

    /// A request of every field given.
    package init(
        sampleRate: Int?, channelCount: Int?, bitsPerChannel: Int, isFloat: Bool, isBigEndian: Bool,
        isNonInterleaved: Bool
    ) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitsPerChannel = bitsPerChannel
        self.isFloat = isFloat
        self.isBigEndian = isBigEndian
        self.isNonInterleaved = isNonInterleaved
    }
}

/// One unit a ``TrackReader`` hands out.
package enum TrackSample {
    /// A decoded picture.
    case picture(CVPixelBuffer, presentationTime: CMTime, duration: CMTime)
    /// Decoded audio: `frameCount` frames of `layout`, the first presented at `presentationTime`.
    case audio(CMBlockBuffer, frameCount: Int, layout: PCMLayout, presentationTime: CMTime)
    /// One stored (compressed) sample.
    case packet(
        CMBlockBuffer, presentationTime: CMTime, decodeTime: CMTime, duration: CMTime, isKeyframe: Bool)
}

/// Why a ``TrackReader`` stopped short.
package enum TrackReaderFailure: Error, Sendable {
    /// The input ended (or its data broke off) at `at`, well before the stream's stated end `expected`.
    case endsEarly(at: CMTime, expected: CMTime)
}

/// Reads one stream of an input from a start time to an end time, synchronously on the caller's thread: demuxes
/// it (its own source, so readers of other streams never wait on it), decodes it and converts the result
/// (AVAssetReader's engine).
///
/// Pictures are converted with the ``Scaler`` (or wrapped without a copy when the decoder's format is the one asked
/// for); audio with a ``PCMConverter``, trimmed to the time range exactly; compressed samples are copied out of
/// their packets. Timestamps are the stream's own, as `CMTime`s in its time base.
///
/// Not thread-safe: one caller at a time (the public layer serialises). ``cancel()`` may be called from any thread:
/// a read blocked in I/O returns at once.
package final class TrackReader {
    /// The source; opened in `open()`.
    private let source: any MediaSource
    /// Cancels the source's I/O.
    private let cancellation: Cancellation
    /// The stream read.
    private let streamIndex: Int
    /// What is handed out.
    private let output: TrackReaderOutput
    /// The first time wanted.
    private let start: CMTime
    /// The time from which nothing is wanted; nil: to the end.
    private let end: CMTime?
    /// The stream's time base (after `open()`).
    private var timeBase = Rational(1, 1)
    /// The stream's stated end (start + duration), when the container says.
    private var expectedEnd: CMTime?
    /// The decoder; nil for compressed output.
    private var decoder: CodecContext?
    /// Converts pictures when they cannot be wrapped or a copy is wanted.
    private var scaler: Scaler?
    /// Converts audio.
    private var converter: PCMConverter?
    /// The next packet read.
    private let packet = Packet()
    /// The frame received.
    private let frame = Frame()
    /// Whether the demuxer reached the end of the input (the decoder is being drained).
    private var inputEnded = false
    /// Whether everything has been handed out.
    private var finished = false
    /// The latest end time of a packet read, for telling a cut-off input.
    private var lastPacketEnd: CMTime = .invalid
    /// The presentation time of the next audio frame, counted in output frames from the first one kept.
    private var nextAudioTime: CMTime = .invalid

    /// Tuning: how far short of the stream's stated end the input may stop before reading fails as truncated
    /// (containers round their durations; one second is far more than any rounding, far less than a cut file).
    static let truncationTolerance = 1.0

    /// Tuning: how far before the start audio is decoded (and thrown away): AAC needs one frame (21 ms at 48 kHz),
    /// Opus 80 ms of pre-roll; half a second covers every codec with margin and costs a few milliseconds.
    static let audioPreroll = 0.5

    /// A reader of stream `streamIndex` of `url`, from `start` to `end` (nil: to the end), interrupted by
    /// `cancellation` (which may be shared by several readers); nothing is read before ``open()``.
    package init(
        url: URL, sourceOptions: SourceOptions, factory: MediaSourceFactory, streamIndex: Int,
        output: TrackReaderOutput, start: CMTime, end: CMTime?, cancellation: Cancellation
    ) {
        self.cancellation = cancellation
        source = factory.make(url.mediaLocation, sourceOptions, [:], cancellation)
        self.streamIndex = streamIndex
        self.output = output
        self.start = start
        self.end = end
    }

    /// Interrupts reading from any thread: blocked I/O returns, later reads fail.
    package func cancel() { cancellation.cancel() }

    /// Opens the input, seeks to the start and opens the decoder and converters.
    ///
    /// - Throws: a ``MediaFailure`` when the input cannot be opened, has no such stream, or has no decoder for it.
    package func open() throws {
        try source.open()
        guard let base = source.timeBase(ofStream: streamIndex) else { throw FFmpegError.streamNotFound }
        timeBase = base
        // The stated end, unless libavformat guessed it from the bit rate (then a shortfall proves nothing).
        let media = source.info
        if !media.durationFromBitrate, let info = media.streams.first(where: { $0.index == streamIndex }),
            let duration = info.duration
        {
            expectedEnd = CMTime(ffmpeg: (info.startTime ?? 0) + duration, timeBase: base)
        }
        source.setDiscard(keepingStreams: [streamIndex])
        if start.isNumeric, start > .zero {
            // Audio decoders need the packets before the start to rebuild their state (AAC's overlapped
            // transform): decoding from a little earlier and trimming gives the samples a continuous decode gives.
            let preroll = if case .audio = output { Self.audioPreroll } else { 0.0 }
            let target = Int64(max(0, start.seconds - preroll) * 1_000_000)
            try? source.seek(toMicroseconds: target, minimum: Int64.min, maximum: target)
        }
        switch output {
        case .compressed:
            break
        case .video(let pixelFormatType, _):
            decoder = try CodecContext(parameters: source.codecParameters(stream: streamIndex), timeBase: base)
            if let pixelFormatType { scaler = try Scaler(outputPixelFormatType: pixelFormatType) }
        case .audio:
            decoder = try CodecContext(parameters: source.codecParameters(stream: streamIndex), timeBase: base)
        }
    }

    /// The next sample, nil at the end of the time range.
    ///
    /// - Throws: a ``MediaFailure`` when demuxing fails or the reader was cancelled; ``TrackReaderFailure`` when the
    ///   input stops well before the stream's stated end.
    package func next() throws -> TrackSample? {
        guard !finished else { return nil }
        switch output {
        case .compressed: return try nextPacket()
        case .video(let pixelFormatType, _): return try nextPicture(pixelFormatType)
        case .audio(let request): return try nextAudio(request)
        }
    }

    // MARK: Compressed

    private func nextPacket() throws -> TrackSample? {
        while try readPacket() {
            let pts = packet.pts.map { CMTime(ffmpeg: $0, timeBase: timeBase) } ?? .invalid
            let dts = packet.dts.map { CMTime(ffmpeg: $0, timeBase: timeBase) } ?? .invalid
            if let end, dts.isValid ? dts >= end : (pts.isValid && pts >= end) {
                finished = true
                return nil
            }
            if let end, pts.isValid, pts >= end { continue }
            let block = packet.withData { CMBlockBuffer(copying: $0) }
            return .packet(
                block, presentationTime: pts, decodeTime: dts,
                duration: CMTime(ffmpeg: packet.duration, timeBase: timeBase), isKeyframe: packet.isKeyframe)
        }
        finished = true
        return nil
    }

    // MARK: Video

    private func nextPicture(_ pixelFormatType: OSType?) throws -> TrackSample? {
        while try receiveFrame() {
            let pts = CMTime(ffmpeg: frame.bestEffortTimestamp ?? 0, timeBase: timeBase)
            let duration = CMTime(ffmpeg: frame.packetDuration, timeBase: timeBase)
            if let end, pts >= end {
                finished = true
                return nil
            }
            // A picture shown at the range's start (it began before and lasts into it) belongs to the range.
            if Self.endsBefore(start, presentationTime: pts, duration: duration) { continue }
            let buffer = try picture(pixelFormatType)
            frame.unref()
            return .picture(buffer, presentationTime: pts, duration: duration)
        }
        finished = true
        return nil
    }

    /// Whether a picture shown at `pts` for `duration` is over by `start` (a picture that began earlier and lasts
    /// into the range belongs to it; one of unknown duration belongs to it only from `start` on).
    private static func endsBefore(_ start: CMTime, presentationTime pts: CMTime, duration: CMTime) -> Bool {
        guard pts < start else { return false }
        guard duration.isNumeric, duration > CMTime.zero else { return true }
        return pts + duration <= start
    }

    /// The received frame as a pixel buffer of `pixelFormatType` (nil: the decoder's own when it can be wrapped):
    /// wrapped without a copy when it already is in that format and no copy is wanted, else converted.
    private func picture(_ pixelFormatType: OSType?) throws -> CVPixelBuffer {
        let native = frame.wrappablePixelFormatType
        if case .video(_, let copies) = output, !copies, let native,
            pixelFormatType == nil || pixelFormatType == native,
            let wrapped = frame.makePixelBuffer()
        {
            return wrapped
        }
        let wanted = pixelFormatType ?? native ?? kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
        if scaler?.outputPixelFormatType != wanted {
            scaler = try Scaler(outputPixelFormatType: wanted)
        }
        return try scaler!.convert(frame)
    }

    // MARK: Audio

    private func nextAudio(_ request: PCMRequest) throws -> TrackSample? {
        while true {
            let gotFrame = try receiveFrame()
            if gotFrame, converter == nil {
                let layout = PCMLayout(
                    sampleRate: request.sampleRate ?? frame.sampleRate,
                    channelCount: request.channelCount ?? frame.channelCount,
                    bitsPerChannel: request.bitsPerChannel, isFloat: request.isFloat,
                    isBigEndian: request.isBigEndian, isNonInterleaved: request.isNonInterleaved)
                converter = try PCMConverter(layout: layout)
            }
            guard let converter else {
                finished = true
                return nil
            }
            let rate = Int32(converter.layout.sampleRate)
            var chunkStart = nextAudioTime
            if gotFrame {
                let framePTS = frame.pts.map { CMTime(ffmpeg: $0, timeBase: timeBase) } ?? nextAudioTime
                if !nextAudioTime.isValid {
                    nextAudioTime =
                        framePTS.isValid
                        ? CMTimeConvertScale(framePTS, timescale: rate, method: .roundHalfAwayFromZero) : .zero
                }
                chunkStart = nextAudioTime
                try converter.append(frame)
                frame.unref()
            } else {
                try converter.drain()
                finished = true
            }
            let count = converter.bufferedFrames
            guard count > 0 else {
                if finished { return nil }
                continue
            }
            // Trim to [start, end) on the output's frame grid.
            let first = CMTimeConvertScale(chunkStart, timescale: rate, method: .roundHalfAwayFromZero).value
            let startFrame =
                start.isNumeric
                ? CMTimeConvertScale(start, timescale: rate, method: .roundHalfAwayFromZero).value : first
            let endFrame =
                end.map { CMTimeConvertScale($0, timescale: rate, method: .roundHalfAwayFromZero).value } ?? Int64.max
            let dropped = Int(max(0, min(Int64(count), startFrame - first)))
            let keepLimit = max(0, endFrame - (first + Int64(dropped)))
            nextAudioTime = CMTime(value: first + Int64(count), timescale: rate)
            let (block, kept) = converter.takeBlockBuffer(
                droppingFirst: dropped, keeping: Int(min(Int64(count), keepLimit)))
            if first + Int64(count) >= endFrame { finished = true }
            if kept > 0 {
                return .audio(
                    block, frameCount: kept, layout: converter.layout,
                    presentationTime: CMTime(value: first + Int64(dropped), timescale: rate))
            }
            if finished { return nil }
        }
    }

    // MARK: Demux and decode

    /// Reads the next packet of the stream into `packet`; false at the end of the input.
    private func readPacket() throws -> Bool {
        while true {
            switch try source.read(into: packet) {
            case .endOfFile:
                try checkNotTruncated()
                return false
            case .packet:
                guard packet.streamIndex == streamIndex else { continue }
                if packet.isCorrupt {
                    // Data cut off inside this packet: the input was truncated.
                    try checkNotTruncated(cutAt: packet.pts.map { CMTime(ffmpeg: $0, timeBase: timeBase) })
                }
                if let pts = packet.pts ?? packet.dts {
                    let packetEnd = CMTime(ffmpeg: pts + max(0, packet.duration), timeBase: timeBase)
                    if !lastPacketEnd.isValid || packetEnd > lastPacketEnd { lastPacketEnd = packetEnd }
                }
                return true
            }
        }
    }

    /// Throws ``TrackReaderFailure/endsEarly(at:expected:)`` when the input ended (at `cutAt`, else after the last
    /// packet read) well before the stream's stated end, and before the reader's own end.
    private func checkNotTruncated(cutAt: CMTime? = nil) throws {
        guard let expectedEnd, expectedEnd.isNumeric else { return }
        let reached = cutAt ?? lastPacketEnd
        let wanted = end.map { min($0, expectedEnd) } ?? expectedEnd
        let shortfall = reached.isNumeric ? (wanted - reached).seconds : wanted.seconds
        if shortfall > Self.truncationTolerance {
            throw TrackReaderFailure.endsEarly(at: reached, expected: expectedEnd)
        }
    }

    /// Sends `packet`; a damaged one (invalid data) is skipped, as the ffmpeg tool skips it: the decoder conceals
    /// the loss.
    private func send(_ packet: Packet, to decoder: CodecContext) throws {
        let result: Result<Bool, FFmpegError>
        do { result = .success(try decoder.send(packet)) } catch { result = .failure(error) }
        if case .failure(let error) = result, error != .invalidData { throw error }
    }

    /// Decodes until a frame is in `frame`; false when the decoder is drained.
    private func receiveFrame() throws -> Bool {
        guard let decoder else { return false }
        while true {
            switch try decoder.receive(into: frame) {
            case .frame: return true
            case .endOfStream: return false
            case .needsInput:
                if inputEnded {
                    // Drain requested and still "needs input": nothing more will come.
                    return false
                }
                if try readPacket() {
                    try send(packet, to: decoder)
                } else {
                    inputEnded = true
                    _ = try decoder.send(nil)
                }
            }
        }
    }
}
