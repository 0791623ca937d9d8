import CFFmpeg

/// An owned copy of one stream's `AVCodecParameters`, plus the stream facts a decoder needs, taken
/// from the `FormatContext` before the pipeline starts so that decode threads never touch the demuxer's
/// context (DESIGN.md: one owner per C object).
///
/// Immutable after creation, hence `Sendable`: it is only read (`avcodec_parameters_to_context`).
package final class CodecParameters: @unchecked Sendable {
    /// The owned copy; freed in `deinit`, never written after `init`.
    let pointer: UnsafeMutablePointer<AVCodecParameters>
    /// The container stream these parameters describe.
    package let streamIndex: Int
    /// The stream's time base (the unit of its packets' timestamps).
    package let timeBase: Rational
    /// The frame rate libavformat guesses for the stream (`av_guess_frame_rate`); nil when unknown or
    /// not video. Used for frame durations the container does not give.
    package let frameRate: Rational?

    /// Copies `source`.
    init(
        copying source: UnsafePointer<AVCodecParameters>, streamIndex: Int, timeBase: Rational, frameRate: Rational?
    ) throws(FFmpegError) {
        guard let copy = avcodec_parameters_alloc() else { throw FFmpegError.posix(ENOMEM) }
        let rc = avcodec_parameters_copy(copy, source)
        if rc < 0 {
            var doomed: UnsafeMutablePointer<AVCodecParameters>? = copy
            avcodec_parameters_free(&doomed)
            throw FFmpegError(code: rc, function: "avcodec_parameters_copy")
        }
        pointer = copy
        self.streamIndex = streamIndex
        self.timeBase = timeBase
        self.frameRate = frameRate
    }

    /// Frees the copy.
    deinit {
        var doomed: UnsafeMutablePointer<AVCodecParameters>? = pointer
        avcodec_parameters_free(&doomed)
    }

    /// Video, audio, subtitle…
    package var kind: StreamKind { StreamKind(pointer.pointee.codec_type) }
    /// FFmpeg's short codec name ("h264", "aac").
    package var codecName: String { String(cString: avcodec_get_name(pointer.pointee.codec_id)) }
    /// The codec's out-of-band configuration (`avcC`, `hvcC`, …); empty when there is none.
    package var extradata: [UInt8] {
        let p = pointer.pointee
        guard let data = p.extradata, p.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(p.extradata_size)))
    }
    /// Coded width in pixels (video).
    package var width: Int { Int(pointer.pointee.width) }
    /// Coded height in pixels (video).
    package var height: Int { Int(pointer.pointee.height) }
    /// Sample rate in Hz (audio).
    package var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    /// Channel count (audio).
    package var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }
}
