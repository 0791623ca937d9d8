import CoreMedia
import FFmpegBridge
import Foundation

/// Audio played backwards, for playback at negative rates: the companion of ``ReverseVideoSource``.
///
/// Works in stretches of ``chunkSeconds`` going back from the start time: each stretch is decoded forwards (from a
/// short pre-roll before it, so the codec has settled), converted to the output format, reversed sample by sample
/// and queued. What comes out is the media's sound in reverse order, continuous across stretches. Timestamps are
/// not used by the renderer in this mode (the video clock leads); `pts` is the media time of each frame's first
/// sample, decreasing.
///
/// Threads: one worker ("oavf.reverse-audio") owns the input, codec and resampler; ``frames`` is read by the audio
/// renderer; ``stop()`` may be called from any thread.
package final class ReverseAudioSource: @unchecked Sendable {
    /// Reversed audio, in output-format frames of ``frameLength`` samples.
    package let frames = FrameQueue<AudioFrame>(capacity: 32)
    /// The serial every frame carries.
    package let serial = Serial(rawValue: 1)
    /// Seconds of media decoded per stretch.
    package static let chunkSeconds = 0.5
    /// Sample frames per queued frame.
    static let frameLength = 1024
    /// Decoded before each stretch and thrown away, so the codec's start-up does not show.
    static let prerollSeconds = 0.2

    /// The input this source reads by itself (opened on the worker thread).
    private let source: any MediaSource
    private let streamIndex: Int
    private let start: CMTime
    private let lowerBound: CMTime
    private let format: AudioFormat
    private let worker = SourceWorker()
    /// Queued frames' storage, recycled as the renderer lets go of it (as the forward audio decoder's is).
    private let bufferPool = AudioBufferPool()

    /// Starts producing the audio of `streamIndex` backwards from `start` down to `lowerBound` (container time).
    package init(
        source: any MediaSource, streamIndex: Int, start: CMTime, lowerBound: CMTime,
        format: AudioFormat
    ) {
        self.source = source
        self.streamIndex = streamIndex
        self.start = start
        self.lowerBound = lowerBound
        self.format = format
        worker.start(name: "oavf.reverse-audio") { [self] in try? produce() }
    }

    /// Everything down to the lower bound was queued (or the input failed).
    package var isFinished: Bool { worker.isFinished }

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

    private func produce() throws(FFmpegError) {
        try source.open()
        let input = source
        guard streamIndex < input.info.streams.count else { throw FFmpegError.streamNotFound }
        input.setDiscard(keepingStreams: [streamIndex])
        let timeBase = input.info.streams[streamIndex].timeBase
        let codec = try CodecContext(parameters: try input.codecParameters(stream: streamIndex), timeBase: timeBase)
        let resampler = Resampler(outputSampleRate: format.sampleRate, outputChannelCount: format.channelCount)
        let rate = Int64(format.sampleRate)
        let channels = format.channelCount
        let outputTimeBase = Rational(1, Int32(format.sampleRate))
        let packet = Packet()
        let frame = Frame()
        var converted = [Float](repeating: 0, count: 8192 * channels)
        var stretch: [Float] = []

        func sample(_ t: CMTime) -> Int64 { CMTimeConvertScale(t, timescale: Int32(rate), method: .default).value }
        let lowest = sample(lowerBound)
        var upper = sample(start)
        while upper > lowest && !isStopped {
            let first = max(lowest, upper - Int64(Self.chunkSeconds * Double(rate)))
            // One stretch of samples, reused: silence where nothing decodes.
            stretch.removeAll(keepingCapacity: true)
            stretch.append(contentsOf: repeatElement(0, count: Int(upper - first) * channels))
            // Seek a little before the stretch (pre-roll), to a point at or before it.
            let seekSample = first - Int64(Self.prerollSeconds * Double(rate))
            let micros = seekSample * 1_000_000 / rate
            do {
                try input.seek(toMicroseconds: micros, maximum: micros)
            } catch {
                if error == .exit { throw error }
                try input.seek(toMicroseconds: Int64.min / 2)
            }
            codec.flush()
            resampler.flush()
            var nextStart: Int64?
            var past = false
            /// Converts the decoded `frame` and copies the samples inside the stretch.
            func take() throws(FFmpegError) {
                defer { frame.unref() }
                let inputRate = Int64(max(1, frame.sampleRate))
                let startSample =
                    frame.pts.map { Rational.rescale($0, from: timeBase, to: outputTimeBase) } ?? nextStart ?? first
                nextStart = startSample + Int64(frame.sampleCount) * rate / inputRate
                let delay = Int64(resampler.delay)
                let capacity = try resampler.prepare(for: frame)
                if converted.count < capacity * channels {
                    converted = [Float](repeating: 0, count: capacity * channels)
                }
                let written = try converted.withUnsafeMutableBufferPointer { buffer throws(FFmpegError) in
                    try resampler.convert(frame, into: buffer.baseAddress!, capacity: capacity)
                }
                let firstSample = startSample - delay
                for i in 0..<written {
                    let s = firstSample + Int64(i)
                    guard s >= first else { continue }
                    guard s < upper else {
                        past = true
                        break
                    }
                    let at = Int(s - first) * channels
                    for c in 0..<channels { stretch[at + c] = converted[i * channels + c] }
                }
            }
            reading: while !past && !isStopped {
                switch try input.read(into: packet) {
                case .endOfFile:
                    _ = try? codec.send(nil)
                    while (try? codec.receive(into: frame)) == .frame { try? take() }
                    break reading
                case .packet:
                    guard packet.streamIndex == streamIndex else { continue }
                    _ = try? codec.send(packet)
                    while !past, (try? codec.receive(into: frame)) == .frame { try? take() }
                }
            }
            packet.unref()
            if isStopped { return }
            // Backwards, sample frame by sample frame, in queue frames of `frameLength`.
            let count = Int(upper - first)
            var index = 0
            while index < count {
                let n = min(Self.frameLength, count - index)
                let buffer = bufferPool.makeBuffer(minimumCapacity: n * channels)
                stretch.withUnsafeBufferPointer { src in
                    for k in 0..<n {
                        let from = (count - 1 - (index + k)) * channels
                        for c in 0..<channels { buffer.baseAddress[k * channels + c] = src[from + c] }
                    }
                }
                let pts = CMTime(value: upper - Int64(index), timescale: Int32(rate))
                let queued = AudioFrame(samples: buffer, frameCount: n, format: format, pts: pts, serial: serial)
                guard frames.push(queued, serial: serial) else { return }
                index += n
            }
            upper = first
        }
    }
}
