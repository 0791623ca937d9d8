import CFFmpeg
import CoreVideo

/// Encodes still pictures with FFmpeg's image encoders (PNG).
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

    /// The PNG file bytes of a packed 32-bit pixel buffer ('BGRA', 'RGBA' or 'ARGB'), encoded by FFmpeg's `png`
    /// encoder as 8-bit RGB (`keepAlpha` false, the alpha channel dropped) or RGBA.
    ///
    /// - Throws: `FFmpegError` `EINVAL` for another pixel format, `ENOSYS` when this FFmpeg
    ///   build has no PNG encoder, or the encoder's own error.
    package static func pngData(from buffer: CVPixelBuffer, keepAlpha: Bool = false) throws(FFmpegError) -> [UInt8] {
        guard let layout = layout(CVPixelBufferGetPixelFormatType(buffer)) else { throw FFmpegError.posix(EINVAL) }
        let width = CVPixelBufferGetWidth(buffer)
        let height = CVPixelBufferGetHeight(buffer)
        let encoder = try PNGEncoder(width: width, height: height, alpha: keepAlpha)
        let frame = Frame()
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = encoder.pixelFormat.rawValue
        try FFmpegError.check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer")

        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { throw FFmpegError.posix(EINVAL) }
        let source = base.assumingMemoryBound(to: UInt8.self)
        let sourceStride = CVPixelBufferGetBytesPerRow(buffer)
        let (target, targetStride) = frame.plane(0)
        guard let target else { throw FFmpegError.posix(ENOMEM) }
        let channels = keepAlpha ? 4 : 3
        for y in 0..<height {
            let s = source + y * sourceStride
            let d = target + y * targetStride
            for x in 0..<width {
                let p = s + 4 * x
                let q = d + channels * x
                q[0] = p[layout.red]
                q[1] = p[layout.green]
                q[2] = p[layout.blue]
                if keepAlpha { q[3] = p[layout.alpha] }
            }
        }
        return try encoder.encode(frame)
    }
}

/// Owns an `AVCodecContext` opened for FFmpeg's PNG encoder at one size.
final class PNGEncoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    /// `AV_PIX_FMT_RGB24` or `AV_PIX_FMT_RGBA`.
    let pixelFormat: AVPixelFormat

    init(width: Int, height: Int, alpha: Bool) throws(FFmpegError) {
        guard width > 0, height > 0, width <= 65535, height <= 65535 else { throw FFmpegError.posix(EINVAL) }
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG) else { throw FFmpegError.posix(ENOSYS) }
        guard let ctx = avcodec_alloc_context3(codec) else { throw FFmpegError.posix(ENOMEM) }
        context = ctx
        pixelFormat = alpha ? AV_PIX_FMT_RGBA : AV_PIX_FMT_RGB24
        ctx.pointee.width = Int32(width)
        ctx.pointee.height = Int32(height)
        ctx.pointee.pix_fmt = pixelFormat
        ctx.pointee.time_base = AVRational(num: 1, den: 1)
        try FFmpegError.check(avcodec_open2(ctx, codec, nil), "avcodec_open2")
    }

    deinit {
        avcodec_free_context(&context)
    }

    /// Encodes one picture and returns the PNG file's bytes (the encoder's one packet).
    func encode(_ frame: Frame) throws(FFmpegError) -> [UInt8] {
        guard let ctx = context else { throw FFmpegError.posix(EINVAL) }
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
