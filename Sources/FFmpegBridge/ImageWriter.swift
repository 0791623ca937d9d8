import CFFmpeg
import CoreVideo

/// Encodes still pictures with FFmpeg's image encoders (PNG, JPEG).
///
/// Each call opens its own encoder, so it is safe from any thread.
package enum ImageWriter {
    /// The packed 32-bit formats ``pngData(from:)`` takes, with the byte offsets of red, green, blue and alpha.
    static func layout(_ format: OSType) -> (red: Int, green: Int, blue: Int, alpha: Int)? {
        switch format {
        case kCVPixelFormatType_32BGRA: return (2, 1, 0, 3)
        case kCVPixelFormatType_32RGBA: return (0, 1, 2, 3)
        case kCVPixelFormatType_32ARGB: return (1, 2, 3, 0)
        default: return nil
        }
    }

    /// Whether ``pngData(from:)`` takes buffers of `format` directly ('BGRA', 'RGBA', 'ARGB').
    package static func canEncode(pixelFormatType format: OSType) -> Bool { layout(format) != nil }

    /// The zlib level for PNGs written fast (`pngData(from:keepAlpha:fast:)`): deflate's quick matcher, which takes
    /// about half the instructions of the default level 6 (a 1624x820 contact sheet: 130 million fewer) for files
    /// about a tenth larger.
    static let fastPNGCompressionLevel: Int32 = 3

    /// The PNG file bytes of a packed 32-bit pixel buffer ('BGRA', 'RGBA' or 'ARGB'), encoded by FFmpeg's `png`
    /// encoder as 8-bit RGB (`keepAlpha` false, the alpha channel dropped) or RGBA; `fast` compresses with zlib level
    /// 3 instead of its default 6.
    ///
    /// - Throws: `FFmpegError` `EINVAL` for another pixel format, `ENOSYS` when this FFmpeg
    ///   build has no PNG encoder, or the encoder's own error.
    package static func pngData(
        from buffer: CVPixelBuffer, keepAlpha: Bool = false, fast: Bool = false
    ) throws(FFmpegError) -> [UInt8] {
        guard let layout = layout(CVPixelBufferGetPixelFormatType(buffer)) else { throw FFmpegError.posix(EINVAL) }
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { throw FFmpegError.posix(EINVAL) }
        let stride = CVPixelBufferGetBytesPerRow(buffer)
        let height = CVPixelBufferGetHeight(buffer)
        return try encode(
            pixels: UnsafeRawBufferPointer(start: base, count: stride * height),
            layout: PackedLayout(
                width: CVPixelBufferGetWidth(buffer), height: height, bytesPerRow: stride, bytesPerPixel: 4,
                red: layout.red, green: layout.green, blue: layout.blue, alpha: keepAlpha ? layout.alpha : nil),
            as: .png, compressionLevel: fast ? fastPNGCompressionLevel : nil)
    }

    /// The file format of ``encode(pixels:layout:as:)``.
    package enum StillFormat: Sendable, Equatable {
        /// PNG, 8-bit RGB or RGBA (FFmpeg's `png` encoder), lossless.
        case png
        /// Baseline JPEG, 4:2:0 full-range BT.601 YCbCr (FFmpeg's `mjpeg` encoder); `quality` 0…1 (1 the best)
        /// sets the quantiser scale from 31 down to 1.
        case jpeg(quality: Double)
    }

    /// Where the components of packed 8-bit RGB pixels are.
    package struct PackedLayout: Sendable {
        /// Width in pixels.
        package var width: Int
        /// Height in pixels.
        package var height: Int
        /// Bytes from one row to the next.
        package var bytesPerRow: Int
        /// 3 or 4.
        package var bytesPerPixel: Int
        /// Byte offset of red inside a pixel.
        package var red: Int
        /// Byte offset of green inside a pixel.
        package var green: Int
        /// Byte offset of blue inside a pixel.
        package var blue: Int
        /// Byte offset of alpha, nil for an opaque picture (PNG then has no alpha channel; JPEG never has one).
        package var alpha: Int?

        /// A layout from its parts.
        package init(
            width: Int, height: Int, bytesPerRow: Int, bytesPerPixel: Int, red: Int, green: Int, blue: Int, alpha: Int?
        ) {
            (self.width, self.height, self.bytesPerRow, self.bytesPerPixel) = (
                width, height, bytesPerRow, bytesPerPixel
            )
            (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
        }
    }

    /// The file bytes of packed 8-bit RGB(A) pixels encoded as `format`; `compressionLevel` (0…9) sets PNG's zlib
    /// level (nil: zlib's default).
    ///
    /// - Throws: `FFmpegError` `EINVAL` for a geometry the bytes cannot hold, `ENOSYS` when this FFmpeg build has no
    ///   such encoder, or the encoder's own error.
    package static func encode(
        pixels: UnsafeRawBufferPointer, layout: PackedLayout, as format: StillFormat, compressionLevel: Int32? = nil
    ) throws(FFmpegError) -> [UInt8] {
        let (width, height) = (layout.width, layout.height)
        guard width > 0, height > 0, layout.bytesPerPixel >= 3, layout.bytesPerRow >= width * layout.bytesPerPixel,
            pixels.count >= (height - 1) * layout.bytesPerRow + width * layout.bytesPerPixel,
            let source = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self)
        else { throw FFmpegError.posix(EINVAL) }
        let keepAlpha = format == .png && layout.alpha != nil
        // Repack into RGB24 / RGBA, the encoders' (or the JPEG conversion's) input.
        let rgb = Frame()
        rgb.pointer.pointee.width = Int32(width)
        rgb.pointer.pointee.height = Int32(height)
        rgb.pointer.pointee.format = (keepAlpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24).rawValue
        try FFmpegError.check(av_frame_get_buffer(rgb.pointer, 0), "av_frame_get_buffer")
        let (target, targetStride) = rgb.plane(0)
        guard let target else { throw FFmpegError.posix(ENOMEM) }
        let channels = keepAlpha ? 4 : 3
        let step = layout.bytesPerPixel
        for y in 0..<height {
            let s = source + y * layout.bytesPerRow
            let d = target + y * targetStride
            for x in 0..<width {
                let p = s + step * x
                let q = d + channels * x
                q[0] = p[layout.red]
                q[1] = p[layout.green]
                q[2] = p[layout.blue]
                if keepAlpha, let alpha = layout.alpha { q[3] = p[alpha] }
            }
        }
        switch format {
        case .png:
            return try StillEncoder(
                codec: AV_CODEC_ID_PNG, width: width, height: height,
                pixelFormat: keepAlpha
                    ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24, quality: nil, compressionLevel: compressionLevel
            ).encode(rgb)
        case .jpeg(let quality):
            let yuv = try fullRangeYCbCr420(rgb)
            return try StillEncoder(
                codec: AV_CODEC_ID_MJPEG, width: width, height: height, pixelFormat: AV_PIX_FMT_YUVJ420P,
                quality: quality
            ).encode(yuv)
        }
    }

    /// `rgb` (RGB24) converted to full-range BT.601 4:2:0 (`yuvj420p`), what JPEG stores.
    static func fullRangeYCbCr420(_ rgb: Frame) throws(FFmpegError) -> Frame {
        let (width, height) = (rgb.pointer.pointee.width, rgb.pointer.pointee.height)
        let yuv = Frame()
        yuv.pointer.pointee.width = width
        yuv.pointer.pointee.height = height
        yuv.pointer.pointee.format = AV_PIX_FMT_YUVJ420P.rawValue
        try FFmpegError.check(av_frame_get_buffer(yuv.pointer, 0), "av_frame_get_buffer")
        guard
            let context = sws_getContext(
                width, height, AV_PIX_FMT_RGB24, width, height, AV_PIX_FMT_YUV420P,
                SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INP, nil, nil, nil)
        else { throw FFmpegError.posix(EINVAL) }
        defer { sws_freeContext(context) }
        sws_setColorspaceDetails(
            context, sws_getCoefficients(SWS_CS_ITU601), 1, sws_getCoefficients(SWS_CS_ITU601), 1, 0, 1 << 16,
            1 << 16)
        let rc = withUnsafePointer(to: rgb.pointer.pointee.data) { sourceData in
            withUnsafePointer(to: rgb.pointer.pointee.linesize) { sourceStrides in
                withUnsafePointer(to: yuv.pointer.pointee.data) { targetData in
                    withUnsafePointer(to: yuv.pointer.pointee.linesize) { targetStrides in
                        sws_scale(
                            context,
                            UnsafeRawPointer(sourceData).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                            UnsafeRawPointer(sourceStrides).assumingMemoryBound(to: Int32.self), 0, height,
                            UnsafeRawPointer(targetData).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                            UnsafeRawPointer(targetStrides).assumingMemoryBound(to: Int32.self))
                    }
                }
            }
        }
        if rc < 0 { throw FFmpegError(code: rc, function: "sws_scale") }
        return yuv
    }
}

/// Owns an `AVCodecContext` opened for one of FFmpeg's still-image encoders (PNG, MJPEG) at one size.
final class StillEncoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?

    /// Opens `codec`'s encoder for `width` x `height` pictures of `pixelFormat`; `quality` (0…1) sets a fixed
    /// quantiser scale (`qscale` 31…1) for lossy encoders, `compressionLevel` the encoder's `compression_level`.
    init(
        codec id: AVCodecID, width: Int, height: Int, pixelFormat: AVPixelFormat, quality: Double?,
        compressionLevel: Int32? = nil
    ) throws(FFmpegError) {
        guard width > 0, height > 0, width <= 65535, height <= 65535 else { throw FFmpegError.posix(EINVAL) }
        guard let codec = avcodec_find_encoder(id) else { throw FFmpegError.posix(ENOSYS) }
        guard let ctx = avcodec_alloc_context3(codec) else { throw FFmpegError.posix(ENOMEM) }
        context = ctx
        ctx.pointee.width = Int32(width)
        ctx.pointee.height = Int32(height)
        ctx.pointee.pix_fmt = pixelFormat
        ctx.pointee.time_base = AVRational(num: 1, den: 1)
        if let compressionLevel { ctx.pointee.compression_level = compressionLevel }
        if let quality {
            let q = 1 + (1 - min(1, max(0, quality.isNaN ? 0.75 : quality))) * 30
            ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
            ctx.pointee.global_quality = Int32((q * Double(FF_QP2LAMBDA)).rounded())
            // qscale 1 is outside the encoder's default range (2…31).
            ctx.pointee.qmin = 1
        }
        try FFmpegError.check(avcodec_open2(ctx, codec, nil), "avcodec_open2")
    }

    deinit {
        avcodec_free_context(&context)
    }

    /// Encodes one picture and returns the file's bytes (the encoder's one packet).
    func encode(_ frame: Frame) throws(FFmpegError) -> [UInt8] {
        guard let ctx = context else { throw FFmpegError.posix(EINVAL) }
        // A fixed quantiser is read from each picture.
        if ctx.pointee.flags & AV_CODEC_FLAG_QSCALE != 0 { frame.pointer.pointee.quality = ctx.pointee.global_quality }
        try FFmpegError.check(avcodec_send_frame(ctx, frame.pointer), "avcodec_send_frame")
        try FFmpegError.check(avcodec_send_frame(ctx, nil), "avcodec_send_frame")
        let packet = Packet()
        var bytes: [UInt8] = []
        while true {
            let rc = avcodec_receive_packet(ctx, packet.pointer)
            if rc == FFmpegError.endOfFile.code || rc == FFmpegError.tryAgain.code { break }
            try FFmpegError.check(rc, "avcodec_receive_packet")
            if let data = packet.pointer.pointee.data {
                bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: packet.size))
            }
            packet.unref()
        }
        guard !bytes.isEmpty else { throw FFmpegError.unknown }
        return bytes
    }
}
