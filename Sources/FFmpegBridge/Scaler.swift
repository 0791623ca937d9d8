import CFFmpeg
import CoreVideo

/// Converts decoded pictures that cannot be wrapped as they are (4:4:4, 4:2:2, planar 10-bit, RGB, odd
/// layouts), or that a consumer wants in another format (BGRA for an output that asked for it), into
/// pooled `CVPixelBuffer`s, with libswscale (`sws_scale_frame`, slice-threaded through the scaler's
/// `threads` option).
///
/// The size is kept; only the format changes. The `SwsContext` is rebuilt when the input's size,
/// format, range or matrix changes; the output pool when the size changes.
///
/// Not thread-safe: one decode thread owns it. The buffers it returns are independent of it.
package final class Scaler {
    /// The output pixel formats the scaler can produce.
    package static let supportedOutputPixelFormatTypes: Set<OSType> = [
        kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8PlanarFullRange,
        kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
        kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr10BiPlanarFullRange,
        kCVPixelFormatType_32BGRA, kCVPixelFormatType_32RGBA, kCVPixelFormatType_32ARGB,
        kCVPixelFormatType_OneComponent8,
    ]

    /// What every output buffer is.
    package let outputPixelFormatType: OSType
    /// Slice threads libswscale may run (0: one per CPU).
    package let threads: Int
    /// The FFmpeg pixel format and range matching ``outputPixelFormatType``.
    private let output: (format: AVPixelFormat, fullRange: Bool, isYCbCr: Bool)
    /// The scaler context for `configuration`; owned.
    private var context: OpaquePointer?
    /// The input the context was built for.
    private var configuration: Configuration?
    /// Output buffers, for the current size.
    private var pool: CVPixelBufferPool?
    /// A reusable `AVFrame` describing the destination buffer for `sws_scale_frame`; owned.
    private let destination: UnsafeMutablePointer<AVFrame>

    /// The input a context is built for.
    private struct Configuration: Equatable {
        /// Input width in pixels.
        var width: Int32
        /// Input height in pixels.
        var height: Int32
        /// Input format (`yuvj*` mapped to their plain twins).
        var format: AVPixelFormat
        /// Whether the input is full range.
        var fullRange: Bool
        /// The input's `AVColorSpace` (matrix) raw value.
        var colorspace: Int32
    }

    /// A scaler producing `outputPixelFormatType` buffers (by default 8-bit 4:2:0 planar, `y420`).
    ///
    /// - Throws: `FFmpegError.patchWelcome` for an output format not in
    ///   ``supportedOutputPixelFormatTypes``; ENOMEM.
    package init(
        outputPixelFormatType: OSType = kCVPixelFormatType_420YpCbCr8Planar, threads: Int = 0
    ) throws(FFmpegError) {
        guard let output = Self.ffmpegFormat(for: outputPixelFormatType) else { throw FFmpegError.patchWelcome }
        guard let destination = av_frame_alloc() else { throw FFmpegError.posix(ENOMEM) }
        self.outputPixelFormatType = outputPixelFormatType
        self.threads = threads
        self.output = output
        self.destination = destination
    }

    /// Frees the scaler context and the destination frame.
    deinit {
        sws_freeContext(context)
        var doomed: UnsafeMutablePointer<AVFrame>? = destination
        av_frame_free(&doomed)
    }

    /// Converts `frame` into a new buffer from the scaler's pool.
    ///
    /// - Parameter attachments: the buffer's attachments; by default the frame's colour description
    ///   adjusted to the conversion (an RGB output carries no YCbCr matrix; RGB converted to YCbCr is
    ///   tagged BT.601, the matrix libswscale uses).
    /// - Throws: the libswscale or pool failure (invalid input size or format, ENOMEM).
    package func convert(
        _ frame: Frame, attachments: CVBufferAttachmentStore? = nil
    ) throws(FFmpegError)
        -> CVPixelBuffer
    {
        let source = frame.pointer.pointee
        guard source.width > 0, source.height > 0, source.format >= 0 else { throw FFmpegError.invalidData }
        let (format, fullRange) = Self.normalised(AVPixelFormat(rawValue: source.format), fullRange: frame.isFullRange)
        let wanted = Configuration(
            width: source.width, height: source.height, format: format, fullRange: fullRange,
            colorspace: Int32(source.colorspace.rawValue))
        if wanted != configuration || context == nil {
            try configure(wanted)
        }
        let buffer = try makeBuffer(width: Int(source.width), height: Int(source.height))
        try scale(frame, into: buffer)
        let tags = attachments ?? adjustedAttachments(for: frame, inputIsYCbCr: Self.isYCbCr(format))
        for (key, value) in tags.propagated {
            CVBufferSetAttachment(buffer, key, value.object, .shouldPropagate)
        }
        return buffer
    }

    /// The output pool's counters (nil before the first conversion): flat allocation counts show buffers being
    /// recycled (tests, diagnostics).
    package var poolStatistics: PixelBufferPoolStatistics? { pool?.statistics }

    // MARK: Private

    /// Builds the `SwsContext` for `wanted`.
    private func configure(_ wanted: Configuration) throws(FFmpegError) {
        sws_freeContext(context)
        context = nil
        configuration = nil
        guard let ctx = sws_alloc_context() else { throw FFmpegError.posix(ENOMEM) }
        let options: [(String, Int64)] = [
            ("srcw", Int64(wanted.width)), ("srch", Int64(wanted.height)),
            ("src_format", Int64(wanted.format.rawValue)), ("src_range", wanted.fullRange ? 1 : 0),
            ("dstw", Int64(wanted.width)), ("dsth", Int64(wanted.height)),
            ("dst_format", Int64(output.format.rawValue)), ("dst_range", output.fullRange ? 1 : 0),
            // Same size: only the format changes, so the cheapest filter that keeps chroma right.
            ("sws_flags", Int64(Self.flags(input: wanted.format, output: output.format, height: wanted.height))),
            ("threads", Int64(threads)),
        ]
        for (name, value) in options {
            let rc = av_opt_set_int(UnsafeMutableRawPointer(ctx), name, value, 0)
            if rc < 0 {
                sws_freeContext(ctx)
                throw FFmpegError(code: rc, function: "av_opt_set_int(\(name))")
            }
        }
        let rc = sws_init_context(ctx, nil, nil)
        if rc < 0 {
            sws_freeContext(ctx)
            throw FFmpegError(code: rc, function: "sws_init_context")
        }
        // YCbCr → YCbCr keeps the stream's matrix; RGB → YCbCr uses BT.601; YCbCr → RGB decodes with
        // the stream's matrix (unspecified: BT.601, libswscale's default).
        let inputIsYCbCr = Self.isYCbCr(wanted.format)
        let sourceMatrix = inputIsYCbCr ? wanted.colorspace : SWS_CS_DEFAULT
        let destinationMatrix = output.isYCbCr ? (inputIsYCbCr ? wanted.colorspace : SWS_CS_ITU601) : SWS_CS_DEFAULT
        sws_setColorspaceDetails(
            ctx, sws_getCoefficients(sourceMatrix), wanted.fullRange ? 1 : 0, sws_getCoefficients(destinationMatrix),
            output.fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        context = ctx
        configuration = wanted
    }

    /// A buffer of the output format and `width` x `height` from the pool, rebuilding the pool on a
    /// size change.
    private func makeBuffer(width: Int, height: Int) throws(FFmpegError) -> CVPixelBuffer {
        do {
            return try CVPixelBufferPool.makeBuffer(
                reusing: &pool, width: width, height: height, pixelFormatType: outputPixelFormatType)
        } catch {
            throw FFmpegError.posix(ENOMEM)
        }
    }

    /// Runs `sws_scale_frame` from `frame` into `buffer`'s planes.
    private func scale(_ frame: Frame, into buffer: CVPixelBuffer) throws(FFmpegError) {
        av_frame_unref(destination)
        destination.pointee.format = output.format.rawValue
        destination.pointee.width = Int32(buffer.width)
        destination.pointee.height = Int32(buffer.height)
        let planes = buffer.planes
        func address(_ index: Int) -> UnsafeMutablePointer<UInt8>? {
            index < planes.count ? planes[index].baseAddress.assumingMemoryBound(to: UInt8.self) : nil
        }
        func stride(_ index: Int) -> Int32 {
            index < planes.count ? Int32(planes[index].bytesPerRow) : 0
        }
        destination.pointee.data = (address(0), address(1), address(2), address(3), nil, nil, nil, nil)
        destination.pointee.linesize = (stride(0), stride(1), stride(2), stride(3), 0, 0, 0, 0)
        // sws_scale_frame references the destination's buffer; lend it one that frees nothing (the
        // memory belongs to the pixel buffer, which outlives this call).
        guard
            let lent = av_buffer_create(
                address(0), buffer.dataSize, { _, _ in }, nil, 0)
        else { throw FFmpegError.posix(ENOMEM) }
        destination.pointee.buf.0 = lent
        defer { av_frame_unref(destination) }
        let rc = sws_scale_frame(context, destination, frame.pointer)
        if rc < 0 { throw FFmpegError(code: rc, function: "sws_scale_frame") }
    }

    /// The frame's colour attachments adjusted to this conversion.
    private func adjustedAttachments(for frame: Frame, inputIsYCbCr: Bool) -> CVBufferAttachmentStore {
        var store = frame.colorAttachments
        if !output.isYCbCr {
            store.remove(kCVImageBufferYCbCrMatrixKey)
            store.remove(kCVImageBufferChromaLocationTopFieldKey)
        } else if !inputIsYCbCr {
            store.set(
                kCVImageBufferYCbCrMatrixKey, SendableObject(kCVImageBufferYCbCrMatrix_ITU_R_601_4),
                mode: .shouldPropagate)
        }
        return store
    }

    /// The libswscale flags for a same-size conversion from `input` to `output` of pictures `height` rows high.
    ///
    /// 8-bit 4:2:0 and 4:2:2 YCbCr to packed RGB at an even height goes without `SWS_ACCURATE_RND`: only then does
    /// libswscale take its unscaled SIMD converter (`ff_yuv2rgb_get_func_ptr`, what the `ffmpeg` tool uses), about
    /// four times cheaper than the generic path for 1080p BGRA; its results stay within 2 of the exact conversion
    /// per channel. Everything else (which the generic path converts either way) keeps accurate rounding.
    package static func flags(input: AVPixelFormat, output: AVPixelFormat, height: Int32) -> Int32 {
        let fastInputs: Set<Int32> = [
            AV_PIX_FMT_YUV420P.rawValue, AV_PIX_FMT_YUV422P.rawValue, AV_PIX_FMT_YUVA420P.rawValue,
        ]
        let packedRGB: Set<Int32> = [
            AV_PIX_FMT_BGRA.rawValue, AV_PIX_FMT_RGBA.rawValue, AV_PIX_FMT_ARGB.rawValue,
        ]
        if fastInputs.contains(input.rawValue) && packedRGB.contains(output.rawValue) && height % 2 == 0 {
            return SWS_BILINEAR
        }
        return SWS_BILINEAR | SWS_ACCURATE_RND
    }

    /// Maps the deprecated full-range `yuvj*` formats to their plain twins plus a range flag, as
    /// libswscale wants.
    private static func normalised(_ format: AVPixelFormat, fullRange: Bool) -> (AVPixelFormat, Bool) {
        switch format {
        case AV_PIX_FMT_YUVJ420P: return (AV_PIX_FMT_YUV420P, true)
        case AV_PIX_FMT_YUVJ422P: return (AV_PIX_FMT_YUV422P, true)
        case AV_PIX_FMT_YUVJ444P: return (AV_PIX_FMT_YUV444P, true)
        case AV_PIX_FMT_YUVJ440P: return (AV_PIX_FMT_YUV440P, true)
        case AV_PIX_FMT_YUVJ411P: return (AV_PIX_FMT_YUV411P, true)
        default: return (format, fullRange)
        }
    }

    /// Whether `format` stores YCbCr (not RGB, not grey, not palette).
    private static func isYCbCr(_ format: AVPixelFormat) -> Bool {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return false }
        let flags = descriptor.pointee.flags
        return flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0 && flags & UInt64(AV_PIX_FMT_FLAG_PAL) == 0
            && descriptor.pointee.nb_components >= 3
    }

    /// The FFmpeg format, range and kind for a CoreVideo output format.
    private static func ffmpegFormat(for type: OSType) -> (format: AVPixelFormat, fullRange: Bool, isYCbCr: Bool)? {
        switch type {
        case kCVPixelFormatType_420YpCbCr8Planar: return (AV_PIX_FMT_YUV420P, false, true)
        case kCVPixelFormatType_420YpCbCr8PlanarFullRange: return (AV_PIX_FMT_YUV420P, true, true)
        case kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: return (AV_PIX_FMT_NV12, false, true)
        case kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: return (AV_PIX_FMT_NV12, true, true)
        // P010: each 10-bit sample in the high bits of a little-endian 16-bit word, as Apple's 'x420'.
        case kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange: return (AV_PIX_FMT_P010LE, false, true)
        case kCVPixelFormatType_420YpCbCr10BiPlanarFullRange: return (AV_PIX_FMT_P010LE, true, true)
        case kCVPixelFormatType_32BGRA: return (AV_PIX_FMT_BGRA, true, false)
        case kCVPixelFormatType_32RGBA: return (AV_PIX_FMT_RGBA, true, false)
        case kCVPixelFormatType_32ARGB: return (AV_PIX_FMT_ARGB, true, false)
        case kCVPixelFormatType_OneComponent8: return (AV_PIX_FMT_GRAY8, true, false)
        default: return nil
        }
    }
}
