import CoreMedia
import CoreVideo
import FFmpegBridge
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

/// One stream's queues and decoder.
struct VideoPipe {
    let packets: PacketQueue
    let frames: FrameQueue<VideoFrame>
    let decoder: VideoDecoder
}

/// One stream's queues and decoder.
struct AudioPipe {
    let packets: PacketQueue
    let frames: FrameQueue<AudioFrame>
    let decoder: AudioDecoder
}

/// How a ``PipelineHarness/pump(timeout:video:audio:until:)`` ended.
enum PumpOutcome: Equatable {
    /// Every stream's decoder finished its current serial and its frames were taken.
    case finished
    /// The `until` condition became true.
    case condition
    /// Neither happened in time.
    case timedOut
}

/// Demuxer → packet queues → decoders → frame queues over one fixture, with the test thread acting as the
/// renderers: it pops frames, drops stale ones (serial ≠ packet queue's), and hands the rest to the test.
final class PipelineHarness: @unchecked Sendable {
    let format: FFmpegSource
    let demuxer: Demuxer
    let video: VideoPipe?
    let audio: AudioPipe?
    /// Every event the demuxer reported, in order.
    let events = Locked<[DemuxEvent]>([])
    /// Fatal decoder errors.
    let fatalErrors = Locked<[FFmpegError]>([])

    convenience init(
        _ fixture: Fixture, video wantsVideo: Bool = true, audio wantsAudio: Bool = true,
        limits: BufferLimits = BufferLimits(), outputPixelFormatType: OSType? = nil,
        audioFormat: AudioFormat = .standard, videoThreads: Int = 0,
        videoCapacity: Int = FrameQueue<VideoFrame>.videoCapacity
    ) throws {
        try self.init(
            url: try Fixtures.url(fixture), video: wantsVideo, audio: wantsAudio, limits: limits,
            outputPixelFormatType: outputPixelFormatType, audioFormat: audioFormat, videoThreads: videoThreads,
            videoCapacity: videoCapacity)
    }

    init(
        url: URL, video wantsVideo: Bool = true, audio wantsAudio: Bool = true,
        limits: BufferLimits = BufferLimits(), outputPixelFormatType: OSType? = nil,
        audioFormat: AudioFormat = .standard, videoThreads: Int = 0,
        videoCapacity: Int = FrameQueue<VideoFrame>.videoCapacity
    ) throws {
        let format = FFmpegSource(url: url)
        try format.open()
        self.format = format
        let info = format.info
        var routes: [Int: PacketQueue] = [:]
        let fatal = fatalErrors
        if wantsVideo, let stream = info.streams.first(where: { $0.kind == .video }) {
            let packets = PacketQueue(streamIndex: stream.index, timeBase: stream.timeBase)
            let frames = FrameQueue<VideoFrame>(capacity: videoCapacity)
            let decoder = try VideoDecoder(
                parameters: format.codecParameters(stream: stream.index), timeBase: stream.timeBase,
                packets: packets, frames: frames, threads: videoThreads, outputPixelFormatType: outputPixelFormatType,
                onFatalError: { error in fatal.withLock { $0.append(error) } })
            routes[stream.index] = packets
            video = VideoPipe(packets: packets, frames: frames, decoder: decoder)
        } else {
            video = nil
        }
        if wantsAudio, let stream = info.streams.first(where: { $0.kind == .audio }) {
            let packets = PacketQueue(streamIndex: stream.index, timeBase: stream.timeBase)
            let frames = FrameQueue<AudioFrame>(capacity: FrameQueue<AudioFrame>.audioCapacity)
            let decoder = try AudioDecoder(
                parameters: format.codecParameters(stream: stream.index), timeBase: stream.timeBase,
                packets: packets, frames: frames, outputFormat: audioFormat,
                onFatalError: { error in fatal.withLock { $0.append(error) } })
            routes[stream.index] = packets
            audio = AudioPipe(packets: packets, frames: frames, decoder: decoder)
        } else {
            audio = nil
        }
        demuxer = Demuxer(source: format, streams: routes, limits: limits)
        let events = events
        demuxer.onEvent = { event in events.withLock { $0.append(event) } }
    }

    deinit {
        stop()
    }

    func start() {
        video?.decoder.start()
        audio?.decoder.start()
        demuxer.start()
    }

    func stop() {
        demuxer.stop()
        video?.decoder.stop()
        audio?.decoder.stop()
    }

    /// Whether the video decoder drained its current serial (frames may remain queued).
    var isVideoDecoderDone: Bool {
        guard let video else { return true }
        return video.decoder.finishedSerial == video.packets.serial
    }

    /// Whether the audio decoder drained its current serial (frames may remain queued).
    var isAudioDecoderDone: Bool {
        guard let audio else { return true }
        return audio.decoder.finishedSerial == audio.packets.serial
    }

    /// Whether the video stream is over (decoder drained the current serial, frames taken); true without video.
    var isVideoFinished: Bool {
        guard let video else { return true }
        return video.decoder.finishedSerial == video.packets.serial && video.frames.count == 0
    }

    /// Whether the audio stream is over; true without audio.
    var isAudioFinished: Bool {
        guard let audio else { return true }
        return audio.decoder.finishedSerial == audio.packets.serial && audio.frames.count == 0
    }

    /// Takes frames from both queues, as renderers do, until both streams finished, `until` holds, or
    /// `timeout` seconds passed (by default the hang guard, ``Awaitable/hangGuard``; longer only for a benchmark's
    /// whole run). Stale frames are dropped; current ones go to the handlers.
    ///
    /// - Parameter inTimeOrder: take from one queue only while its head is not later than the other's (as
    ///   clock-driven renderers do), so neither stream runs ahead and the reader's limits hold; otherwise take
    ///   from both as fast as they come.
    @discardableResult
    func pump(
        timeout: Double = Awaitable<Void>.hangGuard, inTimeOrder: Bool = false,
        video onVideo: (VideoFrame) -> Void = { _ in },
        audio onAudio: (AudioFrame) -> Void = { _ in }, until done: () -> Bool = { false }
    ) -> PumpOutcome {
        let start = DispatchTime.now().uptimeNanoseconds
        while Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 < timeout {
            var progressed = false
            var takeVideo = true
            var takeAudio = true
            if inTimeOrder, let video, let audio {
                video.frames.dropStale(current: video.packets.serial)
                audio.frames.dropStale(current: audio.packets.serial)
                let videoHead = video.frames.peek()?.element.pts
                let audioHead = audio.frames.peek()?.element.pts
                switch (videoHead, audioHead) {
                case (let v?, let a?): takeVideo = v <= a; takeAudio = a <= v
                case (nil, _?): takeAudio = isVideoDecoderDone
                case (_?, nil): takeVideo = isAudioDecoderDone
                case (nil, nil): break
                }
                if !takeVideo && !takeAudio {
                    _ = (videoHead == nil ? video.frames : nil)?.waitUntilReadable(timeout: 0.005)
                    _ = (audioHead == nil ? audio.frames : nil)?.waitUntilReadable(timeout: 0.005)
                    if done() { return .condition }
                    continue
                }
            }
            if let video, takeVideo {
                video.frames.dropStale(current: video.packets.serial)
                if let (frame, serial) = video.frames.pop() {
                    progressed = true
                    if serial == video.packets.serial { onVideo(frame) }
                }
            }
            if let audio, takeAudio {
                audio.frames.dropStale(current: audio.packets.serial)
                if let (frame, serial) = audio.frames.pop() {
                    progressed = true
                    if serial == audio.packets.serial { onAudio(frame) }
                }
            }
            if done() { return .condition }
            if isVideoFinished && isAudioFinished { return .finished }
            if !progressed {
                if let video, video.frames.count == 0, !(video.decoder.finishedSerial == video.packets.serial) {
                    _ = video.frames.waitUntilReadable(timeout: 0.005)
                } else if let audio {
                    _ = audio.frames.waitUntilReadable(timeout: 0.005)
                } else {
                    usleep(1000)  // no progress and no empty queue to wait on: look again in a millisecond
                }
            }
        }
        return .timedOut
    }

    /// Decodes to the end, returning every current video and audio frame.
    func decodeAll(
        timeout: Double = Awaitable<Void>.hangGuard
    ) -> (video: [VideoFrame], audio: [AudioFrame], outcome: PumpOutcome) {
        var videoFrames: [VideoFrame] = []
        var audioFrames: [AudioFrame] = []
        let outcome = pump(timeout: timeout, video: { videoFrames.append($0) }, audio: { audioFrames.append($0) })
        return (videoFrames, audioFrames, outcome)
    }
}

/// The frame index drawn on `buffer` (TestSupport's band strip), or nil when unreadable.
func frameIndex(of buffer: CVPixelBuffer) -> Int? {
    CVPixelBufferLockBaseAddress(buffer, .readOnly)
    defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
    let type = CVPixelBufferGetPixelFormatType(buffer)
    let width = CVPixelBufferGetWidth(buffer)
    let height = CVPixelBufferGetHeight(buffer)
    let packed: [OSType: PackedPixelLayout] = [
        kCVPixelFormatType_32BGRA: .bgra, kCVPixelFormatType_32RGBA: .rgba, kCVPixelFormatType_32ARGB: .argb,
    ]
    if let layout = packed[type], let base = CVPixelBufferGetBaseAddress(buffer) {
        return FrameIndexReader.read(
            pixels: base, layout: layout, width: width, height: height,
            bytesPerRow: CVPixelBufferGetBytesPerRow(buffer))?.index
    }
    let planar = CVPixelBufferIsPlanar(buffer)
    guard let base = planar ? CVPixelBufferGetBaseAddressOfPlane(buffer, 0) : CVPixelBufferGetBaseAddress(buffer)
    else { return nil }
    if let index = frameIndex(ofTenBit: buffer, luma: base) { return index }
    let bytesPerRow = planar ? CVPixelBufferGetBytesPerRowOfPlane(buffer, 0) : CVPixelBufferGetBytesPerRow(buffer)
    return FrameIndexReader.read(luma: base, width: width, height: height, bytesPerRow: bytesPerRow)?.index
}

/// The frame index of a 10-bit bi-planar buffer (`x420`, `xf20`: P010, each sample a little-endian 16-bit word with
/// the 10 bits on top), read from its 16-bit luma plane at `luma` (locked); nil for other formats.
func frameIndex(ofTenBit buffer: CVPixelBuffer, luma: UnsafeMutableRawPointer) -> Int? {
    let type = CVPixelBufferGetPixelFormatType(buffer)
    guard
        type == kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange
            || type == kCVPixelFormatType_420YpCbCr10BiPlanarFullRange
    else { return nil }
    let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, 0)
    return FrameIndexReader.read(width: CVPixelBufferGetWidth(buffer), height: CVPixelBufferGetHeight(buffer)) { x, y in
        Double(UInt16(littleEndian: luma.loadUnaligned(fromByteOffset: y * stride + 2 * x, as: UInt16.self))) / 257
    }?.index
}

/// Interleaved samples of `frames`, concatenated.
func interleavedSamples(_ frames: [AudioFrame]) -> [Float] {
    var samples: [Float] = []
    samples.reserveCapacity(frames.reduce(0) { $0 + $1.frameCount * $1.format.channelCount })
    for frame in frames { samples.append(contentsOf: frame.interleavedSamples) }
    return samples
}

/// A temporary folder removed at the end of the test.
func temporaryFolder(_ test: XCTestCase) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-pipeline-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
    return folder
}

/// Re-encodes the first `frames` frames of `fixture`'s video losslessly (FFV1 in Matroska) with `arguments`
/// (e.g. `-pix_fmt yuv444p`), so tests can reach pixel formats the fixtures lack.
func transcode(_ fixture: Fixture, frames: Int, to file: URL, _ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
        ["ffmpeg", "-nostdin", "-loglevel", "error", "-i", try Fixtures.url(fixture).path, "-an"]
        + ["-frames:v", String(frames)] + arguments + ["-c:v", "ffv1", file.path]
    process.standardInput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw NSError(
            domain: "ffmpeg", code: Int(process.terminationStatus),
            userInfo: [NSLocalizedDescriptionKey: "ffmpeg \(arguments) failed"])
    }
}
