import CoreMedia
import FFmpegBridge
import Foundation
import OAVFLocking

/// Decodes the pictures at a list of times in one pass over a video stream: what an image generator
/// (`AVAssetImageGenerator`) runs on.
///
/// Times are answered in increasing order. For each one the extractor either
/// - answers with a **keyframe alone** when the keyframe at or before the time lies within the tolerance before it
///   (the default, infinite tolerance): it reads and decodes that one packet and nothing after it (Jellyfin's
///   `-skip_frame nokey` strip, without reading the rest of the GOP);
/// - or **decodes forward** from that keyframe to the picture showing at the time (the last one presenting at or
///   before it), stopping early at the first picture inside the tolerance window. The next time continues the same
///   decode when it lies in the same GOP, so each GOP is decoded at most once per pass; a time in a later GOP seeks.
///
/// A picture the decoder flagged as damaged is not returned: its time fails with `invalidData`, and later times are
/// still answered (a damaged stretch never ends the pass). The last picture answers times after it.
///
/// Threads: not thread-safe; one owner at a time (an image generator's serial queue). The counters are read under a
/// lock and may be read from any thread; ``interrupt()`` may be called from any thread.
package final class StillFrameExtractor: @unchecked Sendable {
    /// The input, opened by ``prepare()``.
    private let source: any MediaSource
    /// The video stream's container index.
    package let streamIndex: Int

    // Owned by the thread running `extract` (see the type's documentation).
    private var codec: CodecContext?
    private var timeBase = Rational(1, 1)
    private var streamStart: CMTime = .zero
    private let packet = Packet()
    private let converter = FramePictureConverter()
    /// Made on the first HDR picture.
    private var toneMapper: VideoToneMapper?
    /// The decode run: the decoder has been fed packets from a keyframe on, in order, and not drained.
    private var runActive = false
    /// The index timestamp of the keyframe the run started from (nil when the index has none).
    private var runKeyIndex: Int64?
    /// The last picture received at or before the last answered time.
    private var candidate: Decoded?
    /// A picture received past the last answered time, not yet considered.
    private var pending: Decoded?
    /// The last keyframe decoded alone, with its index timestamp.
    private var lonelyKeyframe: (picture: Decoded, indexTimestamp: Int64?)?
    /// The last answer, by requested time.
    private var lastAnswer: (requested: CMTime, picture: Decoded)?
    /// Whether the decoder rejected data since the last clean keyframe: pictures decoded meanwhile may show
    /// concealment or missing references, so they are reported as damaged (decoders do not always flag them).
    private var damaged = false

    /// A decoded picture, its time, and whether it may be damaged.
    private struct Decoded {
        var frame: Frame
        var time: CMTime
        var damaged: Bool
    }
    /// Presentation time (ticks) guessed for the next picture when the decoder gives none.
    private var nextTicks: Int64?

    /// What the extractor counted (decoded pictures, seeks): its decoding thread writes, tests and callers read. Not an
    /// engine command: an extractor runs without an engine.
    private let counted = Locked(Counters())

    /// What the extractor did, for tests and benchmarks.
    package struct Counters: Sendable, Equatable {
        /// Pictures the decoder produced.
        package var picturesDecoded = 0
        /// Packets sent to the decoder.
        package var packetsDecoded = 0
        /// Demuxer seeks.
        package var seeks = 0
        /// Packets the decoder rejected as damaged.
        package var damagedPackets = 0
    }

    /// An extractor for video stream `streamIndex` of `source` (unopened; ``prepare()`` opens it).
    package init(source: any MediaSource, streamIndex: Int) {
        self.source = source
        self.streamIndex = streamIndex
    }

    /// What the extractor did so far. Any thread.
    package var counters: Counters { counted.current }

    /// Makes a running or later ``prepare()`` or ``extract(_:options:isCancelled:deliver:)`` stop with
    /// `FFmpegError.exit`. Any thread.
    package func interrupt() { source.interrupt() }

    /// Opens the input and the decoder (once). Blocking.
    package func prepare() throws(FFmpegError) {
        guard codec == nil else { return }
        try source.open()
        guard source.kind(ofStream: streamIndex) == .video, let base = source.timeBase(ofStream: streamIndex) else {
            throw FFmpegError.streamNotFound
        }
        source.setDiscard(keepingStreams: [streamIndex])
        timeBase = base
        let info = source.info
        if streamIndex < info.streams.count, let start = info.streams[streamIndex].startTime {
            streamStart = CMTime(ffmpeg: start, timeBase: base)
        }
        // One thread, as media servers run their thumbnail decoders (`-threads 1`): a keyframe decoded alone gains
        // nothing from frame threads (each is drained and flushed), servers run several generators side by side,
        // and a frame-threaded decoder would hold pictures back.
        codec = try CodecContext(
            parameters: try source.codecParameters(stream: streamIndex), timeBase: base, threads: 1)
    }

    /// Answers each of `times` (container time, increasing) in order, calling `deliver` with the time's position in
    /// `times` and the picture or the reason there is none. Stops (without delivering the rest) once `isCancelled`
    /// returns true; returns how many times were answered.
    @discardableResult
    package func extract(
        _ times: [CMTime], options: StillPictureOptions, isCancelled: () -> Bool,
        deliver: (Int, Result<StillPicture, FFmpegError>) -> Void
    ) -> Int {
        for (position, time) in times.enumerated() {
            if isCancelled() { return position }
            do throws(FFmpegError) {
                try prepare()
                let picture = try answer(time, options: options)
                guard !picture.damaged, !picture.frame.isCorrupt else { throw FFmpegError.invalidData }
                deliver(position, .success(try render(picture.frame, time: picture.time, options: options)))
            } catch {
                deliver(position, .failure(error))
            }
        }
        return times.count
    }

    // MARK: Choosing the picture

    /// The decoded picture that answers `t` within the options' tolerances, and its time.
    private func answer(_ t: CMTime, options: StillPictureOptions) throws(FFmpegError) -> Decoded {
        if let last = lastAnswer, last.requested == t { return last.picture }
        let low = options.toleranceBefore.isPositiveInfinity ? CMTime.negativeInfinity : t - options.toleranceBefore
        let keyIndex = t.ffmpegValue(in: timeBase).flatMap {
            source.keyframeTimestamps(stream: streamIndex, around: $0).atOrBefore
        }
        let result: Decoded
        if let key = lonelyKeyframe, keyIndex != nil, key.indexTimestamp == keyIndex, key.picture.time <= t,
            key.picture.time >= low
        {
            // The keyframe answering the last time answers this one too.
            result = key.picture
        } else if runActive, let c = candidate, c.time <= t,
            keyIndex != nil
                ? keyIndex == runKeyIndex
                : t - c.time
                    <= CMTime(value: 1, timescale: 1)
        {
            // Same GOP as the decode in progress: go on from where it stopped.
            result = try decodeForward(to: t, low: low)
        } else {
            let (time, keyIndexTimestamp) = try seekToKeyframe(before: t)
            if time >= low || time > t {
                result = try decodeAlone(time: time, indexTimestamp: keyIndexTimestamp)
            } else {
                runActive = true
                runKeyIndex = keyIndexTimestamp
                try send(packet)
                result = try decodeForward(to: t, low: low)
            }
        }
        lastAnswer = (t, result)
        return result
    }

    /// Seeks to the keyframe presenting at or before `t` (or the first one), leaving its packet in ``packet``, and
    /// resets the decoder; returns its time and index timestamp.
    private func seekToKeyframe(before t: CMTime) throws(FFmpegError) -> (CMTime, Int64?) {
        guard let codec else { throw FFmpegError.posix(EINVAL) }
        var margin = CMTime.zero
        for attempt in 0..<8 {
            let target = t - margin
            let fromStart = target <= streamStart || attempt == 7
            if fromStart {
                try source.seek(toMicroseconds: Int64.min / 2, minimum: Int64.min, maximum: Int64.max)
            } else {
                let micros = CMTimeConvertScale(target, timescale: 1_000_000, method: .roundTowardNegativeInfinity)
                    .value
                do {
                    try source.seek(toMicroseconds: micros, minimum: Int64.min, maximum: micros)
                } catch {
                    if error == .exit { throw error }
                    try source.seek(toMicroseconds: micros, minimum: Int64.min, maximum: Int64.max)
                }
            }
            counted.withLock { $0.seeks += 1 }
            codec.flush()
            runActive = false
            candidate = nil
            pending = nil
            nextTicks = nil
            damaged = false
            // The first keyframe of the stream from there; none before the end (the seek landed after the last
            // keyframe, as a timestamp search without an index can): further back.
            var found = false
            while try source.read(into: packet) == .packet {
                if packet.streamIndex == streamIndex && packet.isKeyframe {
                    found = true
                    break
                }
            }
            guard found else {
                if fromStart { throw FFmpegError.endOfFile }
                margin = max(CMTimeMultiply(margin, multiplier: 2), CMTime(value: 1, timescale: 1))
                continue
            }
            let ticks = packet.pts ?? packet.dts ?? 0
            let time = CMTime(ffmpeg: ticks, timeBase: timeBase)
            // A keyframe presenting after `t` (its decode time came first in the index, or the seek landed late):
            // seek further back, unless this is the first keyframe.
            if time <= t || fromStart {
                let index = source.keyframeTimestamps(stream: streamIndex, around: ticks).atOrBefore
                return (time, index)
            }
            margin = max(CMTimeMultiply(margin, multiplier: 2), time - t + CMTime(value: 1, timescale: 2))
        }
        throw FFmpegError.endOfFile
    }

    /// Decodes the keyframe in ``packet`` by itself (nothing after it is read or decoded).
    private func decodeAlone(time: CMTime, indexTimestamp: Int64?) throws(FFmpegError) -> Decoded {
        guard let codec else { throw FFmpegError.posix(EINVAL) }
        try send(packet)
        _ = try codec.send(nil)
        let frame = Frame()
        var got: Frame?
        while true {
            let result: DecodeResult
            do {
                result = try codec.receive(into: frame)
            } catch {
                counted.withLock { $0.damagedPackets += 1 }
                damaged = true
                break
            }
            guard result == .frame else { break }
            counted.withLock { $0.picturesDecoded += 1 }
            if got == nil {
                let kept = Frame()
                kept.move(from: frame)
                got = kept
            } else {
                frame.unref()
            }
        }
        codec.flush()
        runActive = false
        guard let got else { throw FFmpegError.invalidData }
        let actual = got.bestEffortTimestamp.map { CMTime(ffmpeg: $0, timeBase: timeBase) } ?? time
        let picture = Decoded(frame: got, time: actual, damaged: damaged)
        damaged = false
        lonelyKeyframe = (picture, indexTimestamp)
        return picture
    }

    /// Decodes forward in the current run to the picture answering `t`: the first at or after `low` and at or before
    /// `t`, else the last before `t` (the picture showing at `t`), else the first after it.
    private func decodeForward(to t: CMTime, low: CMTime) throws(FFmpegError) -> Decoded {
        guard let codec else { throw FFmpegError.posix(EINVAL) }
        if pending == nil, let c = candidate, c.time <= t, c.time >= low {
            // Already decoded and inside the window.
            return c
        }
        while true {
            if let p = pending {
                if p.time <= t {
                    pending = nil
                    candidate = p
                    if p.time >= low { return p }
                    continue
                }
                // Past `t`: the picture showing at `t` is the candidate (the first picture when there is none).
                if let c = candidate { return c }
                pending = nil
                candidate = p
                return p
            }
            let frame = Frame()
            let result: DecodeResult
            do {
                result = try codec.receive(into: frame)
            } catch {
                if error == .exit { throw error }
                counted.withLock { $0.damagedPackets += 1 }
                damaged = true
                continue
            }
            switch result {
            case .frame:
                counted.withLock { $0.picturesDecoded += 1 }
                let ticks = frame.bestEffortTimestamp ?? nextTicks ?? 0
                nextTicks = ticks + max(1, frame.packetDuration)
                // A clean keyframe ends the damage: later pictures reference it, not what came before.
                if frame.isKeyframe && !frame.isCorrupt { damaged = false }
                pending = Decoded(frame: frame, time: CMTime(ffmpeg: ticks, timeBase: timeBase), damaged: damaged)
            case .needsInput:
                if try source.read(into: packet) == .packet {
                    if packet.streamIndex == streamIndex { try send(packet) }
                } else {
                    _ = try codec.send(nil)
                }
            case .endOfStream:
                runActive = false
                codec.flush()
                guard let c = candidate else { throw FFmpegError.endOfFile }
                return c
            }
        }
    }

    /// Sends `packet` to the decoder, counting it; a packet the decoder rejects as invalid is counted as damaged and
    /// skipped.
    private func send(_ packet: Packet) throws(FFmpegError) {
        guard let codec else { throw FFmpegError.posix(EINVAL) }
        counted.withLock { $0.packetsDecoded += 1 }
        do {
            _ = try codec.send(packet)
        } catch {
            if error == .exit { throw error }
            counted.withLock { $0.damagedPackets += 1 }
            damaged = true
        }
    }

    // MARK: Shaping the picture

    /// `frame` scaled, tone-mapped and turned as `options` say.
    private func render(_ frame: Frame, time: CMTime, options: StillPictureOptions) throws(FFmpegError) -> StillPicture
    {
        var source = frame
        if options.toneMapsHighDynamicRange && frame.hasHighDynamicRangeTransfer && VideoToneMapper.isAvailable {
            if toneMapper == nil { toneMapper = VideoToneMapper() }
            if let mapped = try toneMapper?.map(frame) { source = mapped }
        }
        // The picture's size before turning: decoded, with square pixels, or the render size.
        var width = Double(source.width)
        var height = Double(source.height)
        if options.appliesPixelAspectRatio, let sar = frame.sampleAspectRatio, sar.num > 0, sar.den > 0,
            sar.num != sar.den
        {
            width *= Double(sar.num) / Double(sar.den)
        }
        let sideways = options.quarterTurns % 2 != 0
        if let render = options.renderSize, render.width > 0, render.height > 0 {
            (width, height) =
                sideways ? (Double(render.height), Double(render.width)) : (Double(render.width), Double(render.height))
        }
        // Fit the turned picture into the maximum size, never enlarging.
        let (turnedWidth, turnedHeight) = sideways ? (height, width) : (width, height)
        var scale = 1.0
        if options.maximumWidth > 0 { scale = min(scale, Double(options.maximumWidth) / turnedWidth) }
        if options.maximumHeight > 0 { scale = min(scale, Double(options.maximumHeight) / turnedHeight) }
        let outWidth = max(1, Int((width * scale).rounded()))
        let outHeight = max(1, Int((height * scale).rounded()))
        let bytes = try converter.bgrx(from: source, width: outWidth, height: outHeight)
        let turned = StillPicture.turned(
            bytes, width: outWidth, height: outHeight, bytesPerRow: FramePictureConverter.bytesPerRow(width: outWidth),
            mirrored: options.mirrored, quarterTurns: options.quarterTurns)
        return StillPicture(
            bytes: turned.bytes, width: turned.width, height: turned.height, bytesPerRow: turned.bytesPerRow,
            time: time)
    }
}
