import CRubberBand

/// Owns one Rubber Band time stretcher (`RubberBandState`, freed with `rubberband_delete` in `deinit`; DESIGN.md: one
/// owner per C object), through Rubber Band's C API (`rubberband-c.h`).
///
/// Audio goes in and comes out planar: one plane of `Float` samples per channel, the planes `planeStride` samples
/// apart in one buffer. The stretcher keeps the per-channel pointer arrays the C API takes, so no call allocates.
///
/// Not thread-safe: one owner serialises every call (the engine's spectral time-pitch stage calls it under its
/// processor's lock). Not `Sendable`.
package final class RubberBandStretcher {
    /// Rubber Band's construction options (`RubberBandOption…`), as far as the engine uses them.
    package struct Options: OptionSet, Sendable {
        /// The C `RubberBandOptions` bits.
        package let rawValue: Int32

        /// Wraps C option bits.
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// `RubberBandOptionProcessRealTime`: streaming use, time ratio changeable while running.
        package static let processRealTime = Options(rawValue: Int32(RubberBandOptionProcessRealTime.rawValue))
        /// `RubberBandOptionEngineFiner`: the R3 engine.
        package static let engineFiner = Options(rawValue: Int32(RubberBandOptionEngineFiner.rawValue))
        /// `RubberBandOptionChannelsTogether`: channels analysed together (a stable stereo image).
        package static let channelsTogether = Options(rawValue: Int32(RubberBandOptionChannelsTogether.rawValue))
        /// `RubberBandOptionPitchHighQuality`: the higher-quality pitch path.
        package static let pitchHighQuality = Options(rawValue: Int32(RubberBandOptionPitchHighQuality.rawValue))
        /// `RubberBandOptionThreadingNever`: all work on the calling thread.
        package static let threadingNever = Options(rawValue: Int32(RubberBandOptionThreadingNever.rawValue))
    }

    /// Channels in and out.
    package let channelCount: Int
    /// The owned state.
    private let state: RubberBandState
    /// Per-channel input pointers handed to `rubberband_process` (`channelCount` of them; owned).
    private let inputPlanes: UnsafeMutablePointer<UnsafePointer<Float>?>
    /// Per-channel output pointers handed to `rubberband_retrieve` (`channelCount` of them; owned).
    private let outputPlanes: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>

    /// A stretcher for `channelCount` channels at `sampleRate` (`rubberband_new`); nil when Rubber Band does not make
    /// one.
    package init?(sampleRate: Int, channelCount: Int, options: Options, timeRatio: Double, pitchScale: Double) {
        precondition(sampleRate > 0 && channelCount > 0, "RubberBandStretcher: invalid format")
        guard
            let state = rubberband_new(
                UInt32(sampleRate), UInt32(channelCount), RubberBandOptions(options.rawValue), timeRatio, pitchScale)
        else { return nil }
        self.state = state
        self.channelCount = channelCount
        inputPlanes = .allocate(capacity: channelCount)
        inputPlanes.initialize(repeating: nil, count: channelCount)
        outputPlanes = .allocate(capacity: channelCount)
        outputPlanes.initialize(repeating: nil, count: channelCount)
    }

    deinit {
        rubberband_delete(state)
        inputPlanes.deallocate()
        outputPlanes.deallocate()
    }

    /// Sets the output-to-input duration ratio (`rubberband_set_time_ratio`); in real-time mode Rubber Band smooths
    /// the change itself.
    package func setTimeRatio(_ ratio: Double) {
        rubberband_set_time_ratio(state, ratio)
    }

    /// Sets the largest `frameCount` ``process(planes:planeStride:frameCount:isFinal:)`` will be given
    /// (`rubberband_set_max_process_size`).
    package func setMaxProcessSize(_ frameCount: Int) {
        rubberband_set_max_process_size(state, UInt32(frameCount))
    }

    /// Frames of silence to feed at the start so the first input frame is processed fully
    /// (`rubberband_get_preferred_start_pad`).
    package var preferredStartPad: Int { Int(rubberband_get_preferred_start_pad(state)) }

    /// Output frames to drop at the start, after the start pad, for output to line up with input
    /// (`rubberband_get_start_delay`).
    package var startDelay: Int { Int(rubberband_get_start_delay(state)) }

    /// Input frames Rubber Band wants before it can produce more output (`rubberband_get_samples_required`).
    package var samplesRequired: Int { Int(rubberband_get_samples_required(state)) }

    /// Output frames ready to retrieve; -1 once the final block has been processed and retrieved
    /// (`rubberband_available`).
    package var available: Int { Int(rubberband_available(state)) }

    /// Drops all buffered audio and state, keeping the ratio (`rubberband_reset`).
    package func reset() {
        rubberband_reset(state)
    }

    /// Processes `frameCount` frames (`rubberband_process`): channel `c`'s samples are
    /// `planes[c * planeStride ..< c * planeStride + frameCount]`. `isFinal` marks the last block of the stream.
    package func process(planes: UnsafeBufferPointer<Float>, planeStride: Int, frameCount: Int, isFinal: Bool = false) {
        checkFit(bufferCount: planes.count, planeStride: planeStride, frameCount: frameCount)
        guard let base = planes.baseAddress else { return }
        for channel in 0..<channelCount { inputPlanes[channel] = base + channel * planeStride }
        rubberband_process(state, inputPlanes, UInt32(frameCount), isFinal ? 1 : 0)
    }

    /// Copies up to `maxFrames` output frames into `planes`, channel `c`'s at `c * planeStride`
    /// (`rubberband_retrieve`); returns how many it copied.
    package func retrieve(into planes: UnsafeMutableBufferPointer<Float>, planeStride: Int, maxFrames: Int) -> Int {
        checkFit(bufferCount: planes.count, planeStride: planeStride, frameCount: maxFrames)
        guard let base = planes.baseAddress else { return 0 }
        for channel in 0..<channelCount { outputPlanes[channel] = base + channel * planeStride }
        return Int(rubberband_retrieve(state, outputPlanes, UInt32(maxFrames)))
    }

    /// Traps (a programmer error) unless `channelCount` planes of `frameCount` samples, `planeStride` apart, fit in a
    /// buffer of `bufferCount` samples without overlapping. (An empty buffer fits only `frameCount` 0.)
    private func checkFit(bufferCount: Int, planeStride: Int, frameCount: Int) {
        precondition(frameCount >= 0 && planeStride >= 0, "RubberBandStretcher: negative frame count or stride")
        precondition(channelCount == 1 || frameCount <= planeStride, "RubberBandStretcher: planes overlap")
        precondition(
            frameCount == 0 || (channelCount - 1) * planeStride + frameCount <= bufferCount,
            "RubberBandStretcher: buffer too small")
    }
}
