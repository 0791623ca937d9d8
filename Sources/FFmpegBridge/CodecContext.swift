import CFFmpeg

/// The outcome of asking a decoder for output.
public enum DecodeResult: Sendable {
    /// A frame was produced.
    case frame
    /// The decoder needs more input (`EAGAIN`).
    case needsInput
    /// The decoder is fully drained (`AVERROR_EOF`).
    case endOfStream
}

/// Owns a decoder `AVCodecContext` for one stream.
///
/// Not thread-safe: one decode thread owns it.
public final class CodecContext {
    private var context: UnsafeMutablePointer<AVCodecContext>?

    /// Opens a decoder for stream `index` of `format`.
    ///
    /// - Parameter threads: 0 lets libavcodec choose (frame + slice threading for video).
    /// - Throws: `FFmpegError.decoderNotFound` when this build has no decoder for the codec.
    public init(format: FormatContext, stream index: Int, threads: Int = 0) throws(FFmpegError) {
        guard let par = format.codecParametersPointer(stream: index) else { throw FFmpegError.streamNotFound }
        guard let codec = avcodec_find_decoder(par.pointee.codec_id) else { throw FFmpegError.decoderNotFound }
        guard let ctx = avcodec_alloc_context3(codec) else { throw FFmpegError.posix(ENOMEM) }
        context = ctx
        try FFmpegError.check(avcodec_parameters_to_context(ctx, par), "avcodec_parameters_to_context")
        if let stream = format.raw.pointee.streams[index] {
            ctx.pointee.pkt_timebase = stream.pointee.time_base
        }
        ctx.pointee.thread_count = Int32(threads)
        try FFmpegError.check(avcodec_open2(ctx, codec, nil), "avcodec_open2")
    }

    /// Opens a decoder from a stream's copied parameters, so the decode thread never touches the
    /// `FormatContext` (which belongs to the demux thread).
    ///
    /// - Parameters:
    ///   - timeBase: the stream's time base, the unit of the packets' timestamps (`pkt_timebase`).
    ///   - threads: 0 lets libavcodec choose (frame + slice threading for video).
    /// - Throws: `FFmpegError.decoderNotFound` when this build has no decoder for the codec.
    package init(parameters: CodecParameters, timeBase: Rational, threads: Int = 0) throws(FFmpegError) {
        guard let codec = avcodec_find_decoder(parameters.pointer.pointee.codec_id) else {
            throw FFmpegError.decoderNotFound
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw FFmpegError.posix(ENOMEM) }
        context = ctx
        try FFmpegError.check(avcodec_parameters_to_context(ctx, parameters.pointer), "avcodec_parameters_to_context")
        ctx.pointee.pkt_timebase = timeBase.av
        ctx.pointee.thread_count = Int32(threads)
        try FFmpegError.check(avcodec_open2(ctx, codec, nil), "avcodec_open2")
    }

    deinit {
        avcodec_free_context(&context)
    }

    var raw: UnsafeMutablePointer<AVCodecContext> { context! }

    /// Sends a packet; `nil` starts draining. Returns false when the decoder wants its output
    /// read first (`EAGAIN`); the caller keeps the packet and retries.
    public func send(_ packet: Packet?) throws(FFmpegError) -> Bool {
        let rc = avcodec_send_packet(raw, packet?.pointer)
        if rc == FFmpegError.tryAgain.code { return false }
        if rc == FFmpegError.endOfFile.code { return true }
        try FFmpegError.check(rc, "avcodec_send_packet")
        return true
    }

    /// Receives the next decoded frame into `frame`.
    public func receive(into frame: Frame) throws(FFmpegError) -> DecodeResult {
        let rc = avcodec_receive_frame(raw, frame.pointer)
        if rc == FFmpegError.tryAgain.code { return .needsInput }
        if rc == FFmpegError.endOfFile.code { return .endOfStream }
        try FFmpegError.check(rc, "avcodec_receive_frame")
        return .frame
    }

    /// Discards buffered frames (after a seek).
    public func flush() { avcodec_flush_buffers(raw) }
}
