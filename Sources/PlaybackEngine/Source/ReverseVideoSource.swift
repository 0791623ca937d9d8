import CoreMedia
import CoreVideo
import FFmpegBridge
import Foundation
import OAVFLocking

/// Video frames in decreasing presentation order, for playback at negative rates.
///
/// Decoders only run forwards, so reverse play decodes a stretch of a GOP and hands its frames out backwards
/// (mpv's `--play-direction=backward` does the same). Memory stays bounded: at most ``maximumHeldFrames`` decoded
/// pictures (and at most ``maximumHeldBytes`` of them) are held per pass; a GOP longer than that is decoded again
/// from its keyframe for each earlier stretch, trading decode time for memory (a 300-frame 1080p GOP is decoded in
/// about ten passes instead of holding 300 pictures).
///
/// The source owns its own input (a second ``MediaSource`` for the same media) and decoder, so the forward
/// pipeline is left untouched and resumes with a seek when playback turns forward again.
///
/// Threads: one worker thread ("oavf.reverse") owns the input, the codec and the pass; ``frames`` is read by the
/// engine thread; ``stop()`` may be called from any thread, and counters are thread-safe.
package final class ReverseVideoSource: @unchecked Sendable {
    /// Frames in decreasing `pts` (container time), tagged with ``serial``.
    package let frames = FrameQueue<VideoFrame>(capacity: 3)
    /// The serial every pushed frame carries.
    package let serial = Serial(rawValue: 1)

    /// Decoded pictures held in one pass at most.
    package static let maximumHeldFrames = 48
    /// Bytes of decoded pictures held in one pass at most (≈ 30 frames of 1080p 4:2:0).
    package static let maximumHeldBytes = 96 << 20

    /// The input this source reads by itself (opened on the worker thread).
    private let source: any MediaSource
    private let streamIndex: Int
    /// Container time to go back from.
    private let start: CMTime
    /// Whether the frame showing at ``start`` is produced too (false: only frames starting before it).
    private let includeStart: Bool
    /// Container time to go back to: the frame showing at it is the last one produced.
    private let lowerBound: CMTime
    private let worker = SourceWorker()

    /// Guards the counters and error below: the worker thread writes, the engine thread reads. Not an engine command:
    /// the worker thread is below the engine.
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var _error: FFmpegError?
    private var _framesDecoded = 0
    private var _passes = 0
    private var _maximumHeld = 0

    /// Starts producing frames backwards from `start` (container time) down to `lowerBound`.
    ///
    /// - Parameters:
    ///   - includeStart: produce the frame showing at `start` as well (the playhead's own frame when nothing is
    ///     on screen yet).
    package init(
        source: any MediaSource, streamIndex: Int, start: CMTime, includeStart: Bool,
        lowerBound: CMTime
    ) {
        self.source = source
        self.streamIndex = streamIndex
        self.start = start
        self.includeStart = includeStart
        self.lowerBound = lowerBound
        worker.start(name: "oavf.reverse") { [self] in run() }
    }

    /// Every frame down to the lower bound was pushed (or the input failed); ``frames`` may still hold some.
    package var isFinished: Bool { worker.isFinished }
    /// The error that ended production early, if any.
    package var error: FFmpegError? { lock.withLock { _error } }
    /// Pictures decoded so far (all passes; re-decoded pictures count again).
    package var framesDecoded: Int { lock.withLock { _framesDecoded } }
    /// Decode passes so far (one seek to a keyframe each).
    package var passes: Int { lock.withLock { _passes } }
    /// The most decoded pictures held at once by a pass.
    package var maximumHeld: Int { lock.withLock { _maximumHeld } }

    /// Stops the worker and waits for it. Idempotent; any thread.
    package func stop() {
        worker.stop {
            source.interrupt()
            frames.abort()
        }
    }

    deinit {
        stop()
    }

    private var isStopped: Bool { worker.isStopped }

    // MARK: Worker thread

    private func run() {
        do {
            try produce()
        } catch let error {
            if !isStopped { lock.withLock { _error = error } }
        }
    }

    /// One decoded picture of a pass.
    private struct Held {
        var frame: VideoFrame
        var bytes: Int
    }

    private func produce() throws(FFmpegError) {
        try source.open()
        let format = source
        let info = format.info
        guard streamIndex < info.streams.count else { throw FFmpegError.streamNotFound }
        format.setDiscard(keepingStreams: [streamIndex])
        let parameters = try format.codecParameters(stream: streamIndex)
        let timeBase = info.streams[streamIndex].timeBase
        let codec = try CodecContext(parameters: parameters, timeBase: timeBase)
        var nominalTicks: Int64 = 0
        if let rate = parameters.frameRate, rate.num > 0, rate.den > 0 {
            nominalTicks = max(0, Rational.rescale(1, from: Rational(rate.den, rate.num), to: timeBase))
        }
        let streamStart = info.streams[streamIndex].startTime.map { CMTime(ffmpeg: $0, timeBase: timeBase) } ?? .zero
        let floor = min(lowerBound, streamStart)
        let packet = Packet()
        let frame = Frame()
        var scaler: Scaler?

        var upper = start
        var inclusive = includeStart
        // How far before `upper` the next seek aims: a keyframe's decode time can precede its presentation time,
        // so a seek to just before a GOP may land on that GOP again; the margin doubles until a pass yields frames.
        var margin = CMTime(value: 1, timescale: 1_000_000)
        while !isStopped {
            if upper <= lowerBound && !inclusive { return }
            let target = max(upper - margin, floor)
            let micros = CMTimeConvertScale(target, timescale: 1_000_000, method: .roundTowardNegativeInfinity).value
            do {
                if target <= floor {
                    // From the very start (a timestamp search on an input without an index may not get there).
                    try format.seek(toMicroseconds: Int64.min / 2)
                } else {
                    try format.seek(toMicroseconds: micros, maximum: micros)
                }
            } catch {
                // Nothing at or before the target (it precedes the first keyframe's timestamp): take the first.
                if error == .exit { throw error }
                try format.seek(toMicroseconds: micros)
            }
            codec.flush()
            lock.withLock { _passes += 1 }

            var held: [Held] = []
            var heldBytes = 0
            var landing: CMTime?
            var done = false
            var nextTicks: Int64?
            var atEnd = false
            var sawKeyframe = false
            /// Takes the decoded `frame`; sets `done` once a frame at or past `upper` arrives.
            func take() {
                defer { frame.unref() }
                let ticks = frame.bestEffortTimestamp ?? nextTicks ?? 0
                let durationTicks = frame.packetDuration > 0 ? frame.packetDuration : nominalTicks
                nextTicks = ticks + durationTicks
                let pts = CMTime(ffmpeg: ticks, timeBase: timeBase)
                let duration = CMTime(ffmpeg: durationTicks, timeBase: timeBase)
                if landing == nil { landing = pts }
                if inclusive ? pts > upper : pts >= upper {
                    done = true
                    return
                }
                // Frames that end at or before the lower bound are never shown.
                if durationTicks > 0 ? pts + duration <= lowerBound : pts < lowerBound { return }
                let buffer: CVPixelBuffer?
                if let wrapped = frame.makePixelBuffer() {
                    buffer = wrapped
                } else {
                    if scaler?.outputPixelFormatType != frame.convertedPixelFormatType {
                        scaler = try? Scaler(outputPixelFormatType: frame.convertedPixelFormatType)
                    }
                    buffer = try? scaler?.convert(frame)
                }
                guard let buffer else { return }
                let bytes = CVPixelBufferGetDataSize(buffer)
                held.append(
                    Held(
                        frame: VideoFrame(
                            pixelBuffer: buffer, pts: pts, duration: duration, serial: serial,
                            isKeyframe: frame.isKeyframe),
                        bytes: bytes))
                heldBytes += bytes
                while held.count > Self.maximumHeldFrames || (heldBytes > Self.maximumHeldBytes && held.count > 1) {
                    heldBytes -= held.removeFirst().bytes
                }
                lock.withLock {
                    _framesDecoded += 1
                    _maximumHeld = max(_maximumHeld, held.count)
                }
            }
            /// Receives every frame the codec has ready.
            func drain() throws(FFmpegError) {
                while !done {
                    let result: DecodeResult
                    do {
                        result = try codec.receive(into: frame)
                    } catch {
                        if error == .exit { throw error }
                        continue  // a damaged picture: go on with the next
                    }
                    switch result {
                    case .frame: take()
                    case .needsInput: return
                    case .endOfStream:
                        atEnd = true
                        return
                    }
                }
            }
            while !done && !atEnd && !isStopped {
                switch try format.read(into: packet) {
                case .endOfFile:
                    _ = try? codec.send(nil)
                    try drain()
                    atEnd = true
                case .packet:
                    guard packet.streamIndex == streamIndex else { continue }
                    if !sawKeyframe {
                        // Inputs without an index (MPEG-TS) land anywhere: pictures before the first keyframe cannot
                        // be decoded, and a first keyframe at or after `upper` means the seek landed too late.
                        guard packet.isKeyframe, let ts = packet.pts ?? packet.dts else { continue }
                        let start = CMTime(ffmpeg: ts, timeBase: timeBase)
                        if inclusive ? start > upper : start >= upper {
                            done = true
                            continue
                        }
                        sawKeyframe = true
                    }
                    var sent = false
                    while !sent && !done {
                        do {
                            sent = try codec.send(packet)
                        } catch {
                            if error == .exit { throw error }
                            sent = true  // a damaged packet: skip it
                        }
                        try drain()
                    }
                }
            }
            packet.unref()
            if isStopped { return }

            guard let lowest = held.first else {
                // The seek landed on the GOP at or after `upper` (or past the last keyframe): aim earlier, unless the
                // seek already went to the start.
                if target <= floor { return }
                margin = CMTimeMultiply(margin, multiplier: 2) + CMTime(value: 1, timescale: 10)
                continue
            }
            for item in held.reversed() {
                guard frames.push(item.frame, serial: serial) else { return }
            }
            held.removeAll()
            upper = lowest.frame.pts
            inclusive = false
            // The next stretch ends where this one began; when that is the landing keyframe, aim before it.
            margin =
                lowest.frame.pts == landing ? CMTime(value: 1, timescale: 10) : CMTime(value: 1, timescale: 1_000_000)
            if upper <= lowerBound || lowest.frame.pts <= floor { return }
        }
    }
}
