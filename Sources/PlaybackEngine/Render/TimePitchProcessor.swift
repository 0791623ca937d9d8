import FFmpegBridge
import Foundation
import OAVFLocking

/// How audio is time-scaled at rates other than 1 (`AVAudioTimePitchAlgorithm`).
package enum TimePitchAlgorithm: Sendable, Hashable {
    /// No pitch correction: pitch follows rate (band-limited resampling). Rates 1/32…32.
    case varispeed
    /// WSOLA (libavfilter `atempo`): modest quality, suited to voice. Rates 1/32…32.
    case timeDomain
    /// Phase vocoder (Rubber Band): highest quality, most CPU. Rates 1/32…32.
    case spectral
    /// Time domain at a rate snapped to {0.5, 2/3, 0.8, 1, 1.25, 1.5, 2}. Rates 0.5…2.
    case lowQualityZeroLatency
}

/// The renderer's time-pitch stage: turns media-time PCM into output-time PCM at `rate` with the chosen
/// algorithm.
///
/// The renderer pushes decoded input (interleaved float at `format`) and pulls output;
/// ``inputFramesNeeded(forOutput:)`` says how much more input a pull of a given size wants (ask again after a short
/// pull: the algorithms hold some input back before they emit). ``latency`` is the media time pushed but not yet
/// pulled, for the audio clock. At an item's end the renderer pushes silence to flush what it holds.
///
/// Rate changes are click-free: varispeed ramps its step over 10 ms, the time-domain and spectral engines retune in
/// place, and when a new engine must be built (the atempo stage count changes) the old one keeps playing, fed the
/// same input, until the new one is past its start-up, then the two are crossfaded over 20 ms (raised cosine).
/// Coming back from an unsupported rate the new engine's output fades in over 20 ms.
///
/// While the rate is unsupported (``supports(_:algorithm:)`` is false, including 0 and negative rates) the
/// processor is muted: pushed input is dropped and pulls return silence of the full requested length. Entering
/// the muted state cuts the sound without a fade.
///
/// Thread ownership: any thread; every call is serialised by an internal `ConditionLock`. The renderer typically pushes
/// and pulls on the device thread and sets `rate` from the engine thread. Pulls copy from preallocated buffers and
/// run the DSP in place (libavfilter and Rubber Band reuse their own pools); only engine rebuilds (rate changes
/// across an atempo stage count, `flush()` for time domain) and buffer growth on an unusually large push allocate.
package final class TimePitchProcessor: @unchecked Sendable {
    /// The PCM format in and out.
    package let format: AudioFormat
    /// The algorithm, fixed for the processor's life (build a new processor to change it).
    package let algorithm: TimePitchAlgorithm

    /// Guards the rate, the engine and the buffers below: the audio device thread pushes and pulls, the engine thread
    /// sets the rate. Not an engine command: the device callback thread reads it and cannot wait for the engine's
    /// mailbox.
    private let lock = ConditionLock()
    private var requestedRate = 1.0
    /// The running engine; nil while muted (unsupported rate, or an engine that failed to build).
    private var engine: (any TimePitchEngine)?
    /// Output produced but not pulled yet.
    private let output: TimePitchFIFO
    /// Input frames pushed and media frames represented by pulled output, since the last flush.
    private var pushedFrames = 0.0
    private var consumedFrames = 0.0
    /// The engine being crossfaded out after a rebuild (fed the same input), its output, and the new engine's
    /// output waiting to be mixed with it.
    private var fadingEngine: (any TimePitchEngine)?
    private let fadingOutput: TimePitchFIFO
    private let incomingOutput: TimePitchFIFO
    /// New-engine output frames still to drop before the crossfade (its start-up, see `startupFrames`).
    private var incomingSkip = 0
    /// Frames into the current crossfade or fade-in; `fadeFrames` when none is running.
    private var fadePosition: Int
    private let fadeFrames: Int

    /// A processor at rate 1.
    package init(format: AudioFormat, algorithm: TimePitchAlgorithm) {
        precondition(format.sampleRate > 0 && format.channelCount > 0, "TimePitchProcessor: invalid format")
        self.format = format
        self.algorithm = algorithm
        output = TimePitchFIFO(channelCount: format.channelCount, capacity: 16_384)
        fadingOutput = TimePitchFIFO(channelCount: format.channelCount, capacity: 16_384)
        incomingOutput = TimePitchFIFO(channelCount: format.channelCount, capacity: 16_384)
        fadeFrames = max(1, format.sampleRate / 50)
        fadePosition = fadeFrames
        engine = makeEngine(rate: 1)
    }

    /// The snapping table of `.lowQualityZeroLatency`.
    private static let lowQualityRates: [Double] = [0.5, 2.0 / 3.0, 0.8, 1.0, 1.25, 1.5, 2.0]

    /// Whether `algorithm` can play at `rate`: 1/32…32 for all but `.lowQualityZeroLatency` (0.5…2). Outside it
    /// audio is muted.
    package static func supports(_ rate: Double, algorithm: TimePitchAlgorithm) -> Bool {
        guard rate.isFinite else { return false }
        let tolerance = 1e-9
        switch algorithm {
        case .lowQualityZeroLatency: return rate >= 0.5 - tolerance && rate <= 2 + tolerance
        case .varispeed, .timeDomain, .spectral: return rate >= 1.0 / 32 - tolerance && rate <= 32 + tolerance
        }
    }

    /// The rate actually played: `.lowQualityZeroLatency` snaps to the nearest of {0.5, 0.666667, 0.8, 1.0,
    /// 1.25, 1.5, 2.0}; the others return `rate`.
    package static func effectiveRate(_ rate: Double, algorithm: TimePitchAlgorithm) -> Double {
        guard algorithm == .lowQualityZeroLatency, rate.isFinite else { return rate }
        return lowQualityRates.min { abs($0 - rate) < abs($1 - rate) } ?? rate
    }

    /// The playback rate (media seconds per output second). Changes take effect without clicks; an unsupported
    /// rate mutes.
    package var rate: Double {
        get { lock.withLock { requestedRate } }
        set { lock.withLock { apply(rate: newValue) } }
    }

    /// The rate the engine runs at, or nil while muted. Call under `lock`.
    private var playingRate: Double? {
        guard Self.supports(requestedRate, algorithm: algorithm) else { return nil }
        return Self.effectiveRate(requestedRate, algorithm: algorithm)
    }

    /// Call under `lock`.
    private func apply(rate newRate: Double) {
        let wasPlaying = playingRate
        requestedRate = newRate
        guard let target = playingRate else {
            // Muted: output is silence from here; what the engines held is dropped (counted as played).
            engine = nil
            dropFade()
            output.clear()
            consumedFrames = pushedFrames
            return
        }
        guard let old = engine, wasPlaying != nil else {
            // From silence: fade the new engine in.
            engine = makeEngine(rate: target)
            fadePosition = 0
            return
        }
        guard pushedFrames > 0 else {
            // Nothing played yet: no fade needed.
            engine = makeEngine(rate: target)
            return
        }
        if target == wasPlaying || old.retune(to: target) { return }
        if fadingEngine != nil, fadePosition == 0 {
            // The incoming engine has not been heard yet: replace it, still fading from the same old one.
            incomingOutput.clear()
        } else {
            // Crossfade from the old engine (its queued output stays) to a new one. A rebuild in the middle of a
            // crossfade finishes that one at once.
            finishFade()
            fadingEngine = old
        }
        engine = makeEngine(rate: target)
        incomingSkip = engine?.startupFrames ?? 0
        fadePosition = 0
        if engine == nil {
            // No engine could be built: muted.
            dropFade()
            output.clear()
            consumedFrames = pushedFrames
        }
    }

    /// Ends a crossfade now: the new engine's waiting output is queued as it is. Call under `lock`.
    private func finishFade() {
        guard fadingEngine != nil else { return }
        moveAll(from: incomingOutput)
        dropFade()
    }

    /// Forgets the crossfade state. Call under `lock`.
    private func dropFade() {
        fadingEngine = nil
        fadingOutput.clear()
        incomingOutput.clear()
        incomingSkip = 0
        fadePosition = fadeFrames
    }

    /// Appends everything in `fifo` to `output` and empties it. Call under `lock`.
    private func moveAll(from fifo: TimePitchFIFO) {
        if fifo.count > 0 { output.append(fifo.frame(0), frameCount: fifo.count) }
        fifo.clear()
    }

    /// The crossfade gain of the new signal at `position` (raised cosine, 0…1).
    private func fadeGain(_ position: Int) -> Float {
        Float(0.5 - 0.5 * cos(Double.pi * Double(position) / Double(fadeFrames)))
    }

    /// A new engine for `rate`; nil (muted) if libavfilter or Rubber Band cannot build one. Call under `lock`.
    private func makeEngine(rate: Double) -> (any TimePitchEngine)? {
        switch algorithm {
        case .varispeed: return VarispeedResampler(format: format, rate: rate)
        case .timeDomain, .lowQualityZeroLatency: return try? WSOLAStretcher(format: format, rate: rate)
        case .spectral: return SpectralStretcher(format: format, rate: rate)
        }
    }

    /// Feeds `frameCount` interleaved input frames (media time). Output is pulled with ``pull(into:frameCount:)``.
    package func push(_ samples: UnsafePointer<Float>, frameCount: Int) {
        guard frameCount > 0 else { return }
        lock.withLock {
            pushedFrames += Double(frameCount)
            guard let engine else {
                consumedFrames = pushedFrames
                return
            }
            engine.push(samples, frameCount: frameCount)
            fadingEngine?.push(samples, frameCount: frameCount)
        }
    }

    /// Pulls up to `frameCount` processed output frames into `buffer`; returns how many were written. While muted,
    /// writes `frameCount` frames of silence.
    package func pull(into buffer: UnsafeMutablePointer<Float>, frameCount: Int) -> Int {
        guard frameCount > 0 else { return 0 }
        return lock.withLock {
            guard let engine, let rate = playingRate else {
                buffer.update(repeating: 0, count: frameCount * format.channelCount)
                return frameCount
            }
            drainEngine(engine, wanted: frameCount)
            let n = output.read(into: buffer, frameCount: frameCount)
            consumedFrames = min(pushedFrames, consumedFrames + Double(n) * rate)
            return n
        }
    }

    /// Input frames to push before `outputFrames` more output can be pulled at the current rate (0 when enough is
    /// queued). Ask again after pushing them: the engines hold some input back before they emit.
    package func inputFramesNeeded(forOutput outputFrames: Int) -> Int {
        lock.withLock {
            guard let engine, let rate = playingRate else {
                let rate = requestedRate.isFinite ? abs(requestedRate) : 0
                return Int((Double(max(0, outputFrames)) * rate).rounded(.up))
            }
            drainEngine(engine, wanted: outputFrames)
            let deficit = outputFrames - output.count
            guard deficit > 0 else { return 0 }
            return max(engine.minimumInput, Int((Double(deficit) * rate).rounded(.up)))
        }
    }

    /// Seconds of media pushed but not yet represented by pulled output (inside the engine or queued).
    package var latency: Double {
        lock.withLock { max(0, pushedFrames - consumedFrames) / Double(format.sampleRate) }
    }

    /// Drops all state (after a seek): queued output, the engine's history, the latency count.
    package func flush() {
        lock.withLock {
            engine?.reset()
            dropFade()
            output.clear()
            pushedFrames = 0
            consumedFrames = 0
        }
    }

    /// Moves the engines' ready output into `output`, applying a running fade-in or crossfade. While a new engine
    /// has not emitted yet, the old one's output is queued only up to `wanted` frames (it runs at the old rate, so
    /// the input pushed for the new rate would make it produce far more or less); its surplus is dropped when the
    /// crossfade ends. Call under `lock`.
    private func drainEngine(_ engine: any TimePitchEngine, wanted: Int) {
        let channels = format.channelCount
        guard let fading = fadingEngine else {
            let before = output.count
            engine.drain(into: output)
            var index = before
            while fadePosition < fadeFrames, index < output.count {
                let gain = fadeGain(fadePosition)
                let frame = output.frame(index)
                for channel in 0..<channels { frame[channel] *= gain }
                fadePosition += 1
                index += 1
            }
            return
        }
        fading.drain(into: fadingOutput)
        engine.drain(into: incomingOutput)
        if incomingSkip > 0 {
            let skipped = min(incomingSkip, incomingOutput.count)
            incomingOutput.discard(skipped)
            incomingSkip -= skipped
        }
        guard incomingOutput.count > 0 else {
            // Mid-fade, wait for more of the new engine's output.
            guard fadePosition == 0 else { return }
            // The new engine is still filling its window: the old one keeps playing.
            let n = min(fadingOutput.count, max(0, wanted - output.count))
            if n > 0 { output.append(fadingOutput.frame(0), frameCount: n) }
            fadingOutput.discard(n)
            return
        }
        // Mix frame by frame while both have output; the rest waits for the next drain.
        let mixed = min(fadingOutput.count, incomingOutput.count, fadeFrames - fadePosition)
        for index in 0..<mixed {
            let gain = fadeGain(fadePosition)
            let old = fadingOutput.frame(index)
            let new = incomingOutput.frame(index)
            for channel in 0..<channels { new[channel] = old[channel] * (1 - gain) + new[channel] * gain }
            fadePosition += 1
        }
        output.append(incomingOutput.frame(0), frameCount: mixed)
        fadingOutput.discard(mixed)
        incomingOutput.discard(mixed)
        if fadePosition >= fadeFrames { finishFade() }
    }
}
