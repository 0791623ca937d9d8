import FFmpegBridge
import Foundation
import NativeBridge

/// One algorithm's DSP behind ``TimePitchProcessor``: takes interleaved input at media time and appends
/// time-scaled interleaved output to one of the processor's FIFOs.
///
/// Not thread-safe: the owning processor calls it under its lock.
protocol TimePitchEngine: AnyObject {
    /// Retunes to `rate` (an effective, supported rate) without a break; false when this engine cannot (the
    /// processor then builds a new one and crossfades to it).
    func retune(to rate: Double) -> Bool
    /// Consumes `frameCount` interleaved input frames.
    func push(_ samples: UnsafePointer<Float>, frameCount: Int)
    /// Appends all output ready now to `output`.
    func drain(into output: TimePitchFIFO)
    /// Input frames the engine wants before it can produce more output (at least 1).
    var minimumInput: Int { get }
    /// Output frames at the start of a fresh engine that may carry start-up artefacts; the processor drops them
    /// before crossfading to a rebuilt engine.
    var startupFrames: Int { get }
    /// Drops all state (after a seek).
    func reset()
}

/// A growable FIFO of interleaved float frames; the processor's output queue.
///
/// Storage grows only when a push produces more than it holds; reads never allocate. Not thread-safe.
final class TimePitchFIFO {
    /// Samples per frame.
    let channelCount: Int
    /// Storage capacity in frames.
    private(set) var capacity: Int
    private var storage: UnsafeMutablePointer<Float>
    /// Readable frames are `start..<end`.
    private var start = 0
    private var end = 0

    init(channelCount: Int, capacity: Int) {
        self.channelCount = channelCount
        self.capacity = max(capacity, 1)
        storage = .allocate(capacity: self.capacity * channelCount)
    }

    deinit { storage.deallocate() }

    /// Frames ready to read.
    var count: Int { end - start }

    /// The `index`th readable frame's first sample (valid until the next append or read).
    func frame(_ index: Int) -> UnsafeMutablePointer<Float> { storage + (start + index) * channelCount }

    /// Copies `frameCount` frames in at the end.
    func append(_ samples: UnsafePointer<Float>, frameCount: Int) {
        reserve(frameCount)
        (storage + end * channelCount).update(from: samples, count: frameCount * channelCount)
        end += frameCount
    }

    /// Copies up to `frameCount` frames out from the front; returns how many.
    func read(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) -> Int {
        let n = min(frameCount, count)
        buffer.update(from: storage + start * channelCount, count: n * channelCount)
        start += n
        if start == end {
            start = 0
            end = 0
        }
        return n
    }

    /// Drops up to `frameCount` frames from the front.
    func discard(_ frameCount: Int) {
        start += min(frameCount, count)
        if start == end {
            start = 0
            end = 0
        }
    }

    /// Empties the FIFO.
    func clear() {
        start = 0
        end = 0
    }

    /// Makes room for `frameCount` more frames at the end: compacts, then grows if needed.
    private func reserve(_ frameCount: Int) {
        guard end + frameCount > capacity else { return }
        let live = count
        if start > 0 {
            storage.update(from: storage + start * channelCount, count: live * channelCount)
            start = 0
            end = live
        }
        guard live + frameCount > capacity else { return }
        var newCapacity = capacity * 2
        while newCapacity < live + frameCount { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<Float>.allocate(capacity: newCapacity * channelCount)
        grown.update(from: storage, count: live * channelCount)
        storage.deallocate()
        storage = grown
        capacity = newCapacity
    }
}

// MARK: - Varispeed

/// `.varispeed`: band-limited resampling by the rate, so pitch follows rate (a tape played faster).
///
/// A Kaiser-windowed sinc interpolator (12 zero crossings, β = 8, 512-phase table with linear interpolation)
/// evaluated at fractional input positions stepping by `rate`. Above rate 1 the kernel is widened by the rate
/// so its cutoff falls below the output Nyquist (anti-aliasing); the cutoff sits at 95 % of the lower Nyquist.
/// Rate changes ramp the step linearly over 10 ms, so the waveform stays continuous.
final class VarispeedResampler: TimePitchEngine {
    private static let zeroCrossings = 12
    private static let tableResolution = 512
    /// Half the kernel, sampled at `tableResolution` points per zero crossing (plus guard zeros).
    private static let kernel: [Float] = {
        let count = zeroCrossings * tableResolution
        let beta = 8.0
        func besselI0(_ x: Double) -> Double {
            var sum = 1.0
            var term = 1.0
            for k in 1..<40 {
                term *= (x / (2 * Double(k))) * (x / (2 * Double(k)))
                sum += term
                if term < 1e-12 * sum { break }
            }
            return sum
        }
        let norm = besselI0(beta)
        var table = [Float](repeating: 0, count: count + 2)
        for index in 0..<count {
            let x = Double(index) / Double(tableResolution)
            let sinc = x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x)
            let ratio = x / Double(zeroCrossings)
            table[index] = Float(sinc * besselI0(beta * (1 - ratio * ratio).squareRoot()) / norm)
        }
        return table
    }()

    private let channelCount: Int
    private let rampFrames: Int
    /// Interleaved input; frames `0..<inputCount` are valid; index 0 is media frame `inputOrigin`.
    private var input: UnsafeMutablePointer<Float>
    private var inputCapacity: Int
    private var inputCount = 0
    /// Fractional input index of the next output frame.
    private var position = 0.0
    private var step: Double
    private var targetStep: Double
    private var stepDelta = 0.0
    /// Per-channel accumulators and an output block.
    private let accumulator: UnsafeMutablePointer<Double>
    private let block: UnsafeMutablePointer<Float>
    private static let blockFrames = 256

    init(format: AudioFormat, rate: Double) {
        channelCount = format.channelCount
        rampFrames = max(1, format.sampleRate / 100)
        inputCapacity = 16_384
        input = .allocate(capacity: inputCapacity * channelCount)
        step = rate
        targetStep = rate
        accumulator = .allocate(capacity: channelCount)
        block = .allocate(capacity: Self.blockFrames * channelCount)
    }

    deinit {
        input.deallocate()
        accumulator.deallocate()
        block.deallocate()
    }

    func retune(to rate: Double) -> Bool {
        targetStep = rate
        stepDelta = (targetStep - step) / Double(rampFrames)
        return true
    }

    var minimumInput: Int { 1 }
    var startupFrames: Int { 0 }

    func reset() {
        inputCount = 0
        position = 0
        step = targetStep
        stepDelta = 0
    }

    func push(_ samples: UnsafePointer<Float>, frameCount: Int) {
        // Keep the history the widest kernel needs behind `position`; drop the rest.
        let history = Self.zeroCrossings * 40 + 2
        let drop = min(inputCount, max(0, Int(position) - history))
        if drop > 0, inputCount + frameCount > inputCapacity {
            input.update(from: input + drop * channelCount, count: (inputCount - drop) * channelCount)
            inputCount -= drop
            position -= Double(drop)
        }
        if inputCount + frameCount > inputCapacity {
            var newCapacity = inputCapacity * 2
            while newCapacity < inputCount + frameCount { newCapacity *= 2 }
            let grown = UnsafeMutablePointer<Float>.allocate(capacity: newCapacity * channelCount)
            grown.update(from: input, count: inputCount * channelCount)
            input.deallocate()
            input = grown
            inputCapacity = newCapacity
        }
        (input + inputCount * channelCount).update(from: samples, count: frameCount * channelCount)
        inputCount += frameCount
    }

    func drain(into output: TimePitchFIFO) {
        let channels = channelCount
        let resolution = Double(Self.tableResolution)
        let zeroCrossings = Double(Self.zeroCrossings)
        var produced = 0
        Self.kernel.withUnsafeBufferPointer { kernel in
            while true {
                let cutoff = 0.95 * min(1, 1 / step)
                let halfWidth = Int((zeroCrossings / cutoff).rounded(.up))
                let center = Int(position.rounded(.down))
                guard center + halfWidth < inputCount else { break }
                for channel in 0..<channels { accumulator[channel] = 0 }
                var weightSum = 0.0
                for index in (center - halfWidth + 1)...(center + halfWidth) {
                    let x = abs(Double(index) - position) * cutoff
                    guard x < zeroCrossings else { continue }
                    let t = x * resolution
                    let i = Int(t)
                    let f = Float(t - Double(i))
                    let weight = Double(kernel[i] + f * (kernel[i + 1] - kernel[i]))
                    weightSum += weight
                    // Missing history before the first input frame reads as silence.
                    guard index >= 0 else { continue }
                    let frame = input + index * channels
                    for channel in 0..<channels { accumulator[channel] += weight * Double(frame[channel]) }
                }
                let scale = weightSum != 0 ? 1 / weightSum : 0
                let out = block + produced * channels
                for channel in 0..<channels { out[channel] = Float(accumulator[channel] * scale) }
                produced += 1
                if produced == Self.blockFrames {
                    output.append(block, frameCount: produced)
                    produced = 0
                }
                position += step
                if step != targetStep {
                    step += stepDelta
                    if (stepDelta > 0 && step >= targetStep) || (stepDelta < 0 && step <= targetStep) {
                        step = targetStep
                    }
                }
            }
        }
        if produced > 0 { output.append(block, frameCount: produced) }
    }
}

// MARK: - Time domain (WSOLA)

/// `.timeDomain` and `.lowQualityZeroLatency`: WSOLA time stretching with libavfilter's `atempo`.
///
/// FFmpeg 5.1 documents one `atempo` for 0.5…100, but above 2 it skips input between fragments and at high
/// tempos with small pushes trips `av_assert0(zeros != nsamples)` (af_atempo.c:539, an abort). So each stage
/// stays within 0.5…2 and the rate is split into equal stages (five for 1/32 or 32). Rate changes within the
/// same stage count go to the running filters as `tempo` commands (continuous); a change of stage count needs
/// a new graph (``retune(to:)`` returns false).
final class WSOLAStretcher: TimePitchEngine {
    private let format: AudioFormat
    private var graph: AudioFilterGraph?
    private let stageCount: Int
    private var rate: Double

    /// Stages needed for `rate`: each runs at `rate^(1/n)`, within 0.5…2.
    static func stageCount(for rate: Double) -> Int {
        max(1, Int((abs(log2(rate)) - 1e-9).rounded(.up)))
    }

    /// Builds the chain for `rate`; throws the libavfilter failure.
    init(format: AudioFormat, rate: Double) throws(FFmpegError) {
        self.format = format
        self.rate = rate
        stageCount = Self.stageCount(for: rate)
        graph = try Self.makeGraph(format: format, rate: rate, stages: stageCount)
    }

    private static func makeGraph(
        format: AudioFormat, rate: Double, stages: Int
    ) throws(FFmpegError)
        -> AudioFilterGraph
    {
        let tempo = pow(rate, 1 / Double(stages))
        let filters = (0..<stages).map {
            AudioFilterGraph.Filter(name: "atempo", instanceName: "atempo\($0)", arguments: "tempo=\(tempo)")
        }
        return try AudioFilterGraph(sampleRate: format.sampleRate, channelCount: format.channelCount, filters: filters)
    }

    func retune(to rate: Double) -> Bool {
        guard Self.stageCount(for: rate) == stageCount, let graph else { return false }
        let tempo = String(pow(rate, 1 / Double(stageCount)))
        do {
            for stage in 0..<stageCount {
                try graph.sendCommand(to: "atempo\(stage)", command: "tempo", argument: tempo)
            }
        } catch {
            return false
        }
        self.rate = rate
        return true
    }

    /// atempo holds about one window (1/24 s rounded up to a power of two) before it emits.
    var minimumInput: Int { 256 }
    /// Chained stages below tempo 1 show a small kink in their first window (about 330 frames in at 0.25), which
    /// later stages stretch further: about one 2048-frame window of the first stage, scaled by 1/rate.
    var startupFrames: Int { Int(2048 / min(rate, 1)) }

    func reset() {
        graph = try? Self.makeGraph(format: format, rate: rate, stages: stageCount)
    }

    func push(_ samples: UnsafePointer<Float>, frameCount: Int) {
        // A failing send (out of memory) drops the block; the stream continues.
        try? graph?.send(samples, frameCount: frameCount)
    }

    func drain(into output: TimePitchFIFO) {
        _ = try? graph?.receive { samples, count in output.append(samples, frameCount: count) }
    }
}

// MARK: - Spectral (Rubber Band)

/// `.spectral`: Rubber Band's phase-vocoder time stretcher in real-time mode (R3 "finer" engine, channels
/// processed together for a stable stereo image), through NativeBridge's ``RubberBandStretcher``. The time ratio is
/// 1/rate; Rubber Band smooths ratio changes itself. The stretcher's start pad is fed as silence and its start delay
/// dropped from the output, so output lines up with input.
final class SpectralStretcher: TimePitchEngine {
    /// Samples per frame.
    private let channelCount: Int
    /// The owned Rubber Band stretcher.
    private let stretcher: RubberBandStretcher
    /// Frames per call into the stretcher (its max process size), and per plane of the scratch.
    private static let blockFrames = 1024
    /// Planar scratch: `channelCount` planes of `blockFrames`, in and out of the stretcher.
    private let planar: UnsafeMutableBufferPointer<Float>
    /// Interleaved scratch of `blockFrames` frames, appended to the output FIFO.
    private let interleaved: UnsafeMutablePointer<Float>
    /// Output frames still to drop (the start delay).
    private var skip = 0

    init?(format: AudioFormat, rate: Double) {
        channelCount = format.channelCount
        guard
            let stretcher = RubberBandStretcher(
                sampleRate: format.sampleRate, channelCount: format.channelCount,
                options: [.processRealTime, .engineFiner, .channelsTogether, .pitchHighQuality, .threadingNever],
                timeRatio: 1 / rate, pitchScale: 1)
        else { return nil }
        self.stretcher = stretcher
        planar = .allocate(capacity: Self.blockFrames * channelCount)
        planar.initialize(repeating: 0)
        interleaved = .allocate(capacity: Self.blockFrames * channelCount)
        stretcher.setMaxProcessSize(Self.blockFrames)
        prime()
    }

    deinit {
        planar.deallocate()
        interleaved.deallocate()
    }

    /// Feeds the preferred start pad as silence and arms dropping of the start delay.
    private func prime() {
        var pad = stretcher.preferredStartPad
        planar.update(repeating: 0)
        while pad > 0 {
            let n = min(pad, Self.blockFrames)
            processPlanar(frameCount: n)
            pad -= n
        }
        skip = stretcher.startDelay
    }

    /// Gives the stretcher the first `frameCount` frames of each plane of `planar`.
    private func processPlanar(frameCount: Int) {
        stretcher.process(planes: UnsafeBufferPointer(planar), planeStride: Self.blockFrames, frameCount: frameCount)
    }

    func retune(to rate: Double) -> Bool {
        stretcher.setTimeRatio(1 / rate)
        return true
    }

    var minimumInput: Int { max(1, stretcher.samplesRequired) }
    var startupFrames: Int { 0 }

    func reset() {
        stretcher.reset()
        prime()
    }

    func push(_ samples: UnsafePointer<Float>, frameCount: Int) {
        var offset = 0
        while offset < frameCount {
            let n = min(frameCount - offset, Self.blockFrames)
            let source = samples + offset * channelCount
            for channel in 0..<channelCount {
                let plane = channel * Self.blockFrames
                for frame in 0..<n { planar[plane + frame] = source[frame * channelCount + channel] }
            }
            processPlanar(frameCount: n)
            offset += n
        }
    }

    func drain(into output: TimePitchFIFO) {
        while true {
            let available = stretcher.available
            guard available > 0 else { return }
            let n = stretcher.retrieve(
                into: planar, planeStride: Self.blockFrames, maxFrames: min(available, Self.blockFrames))
            guard n > 0 else { return }
            let dropped = min(skip, n)
            skip -= dropped
            guard n > dropped else { continue }
            for channel in 0..<channelCount {
                let plane = channel * Self.blockFrames
                for frame in dropped..<n {
                    interleaved[(frame - dropped) * channelCount + channel] = planar[plane + frame]
                }
            }
            output.append(interleaved, frameCount: n - dropped)
        }
    }
}
