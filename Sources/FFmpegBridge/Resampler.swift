import CFFmpeg

/// Converts decoded audio of any sample format, rate and channel layout into interleaved 32-bit float
/// at one output rate and channel count (the engine's `AudioFormat`), with libswresample.
///
/// The input description is read from each frame; when it changes mid-stream (an HE-AAC switch, a
/// mono ad in a stereo stream) the context is rebuilt, dropping the few samples the old one still
/// buffered. Channel counts are matched by libswresample's default up/down-mix matrix.
///
/// Not thread-safe: one decode thread owns it.
package final class Resampler {
    /// Output frames per second.
    package let outputSampleRate: Int
    /// Output channels, interleaved.
    package let outputChannelCount: Int
    /// The owned context, for `input`.
    private var context: OpaquePointer?
    /// The input the context was built for.
    private var input: InputDescription?
    /// The output layout (libavutil's default order for the channel count); owned, uninit in deinit.
    private var outputLayout = AVChannelLayout()

    /// What a context is built for.
    private struct InputDescription {
        /// `AVSampleFormat` raw value.
        var format: Int32
        /// Input rate in Hz.
        var sampleRate: Int32
        /// Owned copy; released with `av_channel_layout_uninit` when replaced.
        var layout: AVChannelLayout
    }

    /// A resampler producing interleaved float at `outputSampleRate` Hz and `outputChannelCount` channels.
    package init(outputSampleRate: Int, outputChannelCount: Int) {
        precondition(outputSampleRate > 0 && outputChannelCount > 0, "Resampler: invalid output format")
        self.outputSampleRate = outputSampleRate
        self.outputChannelCount = outputChannelCount
        av_channel_layout_default(&outputLayout, Int32(outputChannelCount))
    }

    /// Frees the context and the channel layouts.
    deinit {
        swr_free(&context)
        if var old = input?.layout { av_channel_layout_uninit(&old) }
        av_channel_layout_uninit(&outputLayout)
    }

    /// Prepares for `frame` (rebuilding the context if its format changed) and returns how many output
    /// frames converting it may produce at most: the capacity to give ``convert(_:into:capacity:)``.
    ///
    /// - Throws: the libswresample failure for an input it cannot convert.
    package func prepare(for frame: Frame) throws(FFmpegError) -> Int {
        try configureIfNeeded(for: frame)
        let count = swr_get_out_samples(context, Int32(frame.sampleCount))
        if count < 0 { throw FFmpegError(code: count, function: "swr_get_out_samples") }
        return Int(count)
    }

    /// Converts `frame` into `buffer` (interleaved, `capacity` frames of `outputChannelCount` floats).
    ///
    /// - Returns: the number of frames written; may be less than the input (the rest stays buffered
    ///   inside the resampler and comes out with the next call or ``drain(into:capacity:)``).
    package func convert(
        _ frame: Frame, into buffer: UnsafeMutablePointer<Float>, capacity: Int
    ) throws(FFmpegError)
        -> Int
    {
        try configureIfNeeded(for: frame)
        let input = UnsafeMutableRawPointer(frame.pointer.pointee.extended_data)?
            .assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        var output: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: UInt8.self)
        let written = swr_convert(context, &output, Int32(capacity), input, Int32(frame.sampleCount))
        if written < 0 { throw FFmpegError(code: written, function: "swr_convert") }
        return Int(written)
    }

    /// Flushes the samples still buffered inside the resampler (at end of stream) into `buffer`.
    ///
    /// - Returns: the number of frames written (0 when nothing was buffered or nothing was converted yet).
    package func drain(into buffer: UnsafeMutablePointer<Float>, capacity: Int) -> Int {
        guard let context else { return 0 }
        var output: UnsafeMutablePointer<UInt8>? = UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: UInt8.self)
        let written = swr_convert(context, &output, Int32(capacity), nil, 0)
        return max(0, Int(written))
    }

    /// Output frames currently buffered inside the resampler (its filter delay): the first output
    /// sample of the next conversion is this many output frames older than that input's first sample.
    package var delay: Int {
        guard let context else { return 0 }
        return Int(swr_get_delay(context, Int64(outputSampleRate)))
    }

    /// Discards buffered samples (after a seek), keeping the configuration.
    ///
    /// `swr_init` on the initialised context drops its buffered input and delay line and restarts the
    /// filter phase, as a new context would, but keeps the filter bank: rebuilding it costs tens of
    /// thousands of sine and Bessel evaluations (far more for an unusual input rate), on every seek.
    package func flush() {
        guard let context else { return }
        if swr_init(context) < 0 {
            // Cannot happen for a configuration that initialised once; if it does, the next frame rebuilds.
            swr_free(&self.context)
            if var old = input?.layout { av_channel_layout_uninit(&old) }
            input = nil
        }
    }

    /// Asks for `sampleDelta` more (or fewer, if negative) output frames spread over the next
    /// `distance` frames, to nudge audio towards the master clock (ffplay's `synchronize_audio`).
    package func setCompensation(sampleDelta: Int, distance: Int) throws(FFmpegError) {
        guard let context else { return }
        try FFmpegError.check(
            swr_set_compensation(context, Int32(sampleDelta), Int32(distance)), "swr_set_compensation")
    }

    // MARK: Private

    /// Rebuilds the context when `frame`'s format, rate or layout differs from the current input.
    private func configureIfNeeded(for frame: Frame) throws(FFmpegError) {
        let f = frame.pointer.pointee
        var layout = try frame.conversionChannelLayout()
        if context != nil, var current = input?.layout, input?.format == f.format,
            input?.sampleRate == f.sample_rate, av_channel_layout_compare(&current, &layout) == 0
        {
            av_channel_layout_uninit(&layout)
            return
        }
        swr_free(&context)
        if var old = input?.layout { av_channel_layout_uninit(&old) }
        input = nil
        try build(format: f.format, sampleRate: f.sample_rate, layout: layout)
    }

    /// Builds a context for the given input; takes ownership of `layout`.
    private func build(format: Int32, sampleRate: Int32, layout: AVChannelLayout) throws(FFmpegError) {
        var inputLayout = layout
        let rc = swr_alloc_set_opts2(
            &context, &outputLayout, AV_SAMPLE_FMT_FLT, Int32(outputSampleRate),
            &inputLayout, AVSampleFormat(rawValue: format), sampleRate, 0, nil)
        if rc < 0 {
            av_channel_layout_uninit(&inputLayout)
            throw FFmpegError(code: rc, function: "swr_alloc_set_opts2")
        }
        let initialised = swr_init(context)
        if initialised < 0 {
            swr_free(&context)
            av_channel_layout_uninit(&inputLayout)
            throw FFmpegError(code: initialised, function: "swr_init")
        }
        input = InputDescription(format: format, sampleRate: sampleRate, layout: inputLayout)
    }
}
