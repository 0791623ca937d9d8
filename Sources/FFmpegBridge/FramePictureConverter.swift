import CFFmpeg
import Foundation

/// Turns decoded video frames into packed 8-bit B G R X pictures of a chosen size in one libswscale pass (format,
/// matrix, range and size at once): what still images (thumbnails, posters) are made of.
///
/// Colour: the frame's YCbCr matrix and range decide the conversion; an unspecified matrix is BT.709 above 576
/// rows, else BT.601 (mpv's guess). The output is full-range RGB. Frames with a high-dynamic-range transfer (PQ,
/// HLG) are converted the same way, values clipped (no tone mapping here: see the callers).
///
/// Not thread-safe: one owner at a time (it caches its `SwsContext`).
package final class FramePictureConverter {
    /// The cached scaler context; owned.
    private var context: OpaquePointer?
    /// What `context` was made for: source size and format, output size, then the colour details set on it. Kept
    /// here because `sws_getCachedContext` cannot tell: libswscale records B G R X output as BGRA inside the context,
    /// so its cache missed on every call and rebuilt the filters for each picture.
    private var made: (geometry: [Int32], colour: [Int32])?

    /// A converter; the context is made on first use.
    package init() {}

    /// Frees the scaler context.
    deinit {
        sws_freeContext(context)
    }

    /// The bytes per row of a `width`-pixel output picture: 4 bytes a pixel, padded to 64 bytes (SIMD rows).
    package static func bytesPerRow(width: Int) -> Int { (4 * width + 63) & ~63 }

    /// `frame` converted to `width` x `height` B G R X pixels, rows ``bytesPerRow(width:)`` apart.
    ///
    /// - Throws: `FFmpegError.invalidData` for a frame without a picture, `EINVAL` for a size out of 1…16384, or
    ///   libswscale's failure.
    package func bgrx(from frame: Frame, width: Int, height: Int) throws(FFmpegError) -> Data {
        let f = frame.pointer.pointee
        guard f.width > 0, f.height > 0, f.format >= 0 else { throw FFmpegError.invalidData }
        guard width > 0, height > 0, width <= 16384, height <= 16384 else { throw FFmpegError.posix(EINVAL) }
        var format = AVPixelFormat(rawValue: f.format)
        var fullRange = frame.isFullRange
        switch format {
        case AV_PIX_FMT_YUVJ420P: (format, fullRange) = (AV_PIX_FMT_YUV420P, true)
        case AV_PIX_FMT_YUVJ422P: (format, fullRange) = (AV_PIX_FMT_YUV422P, true)
        case AV_PIX_FMT_YUVJ444P: (format, fullRange) = (AV_PIX_FMT_YUV444P, true)
        default: break
        }
        // Bicubic, as ffmpeg's `scale` filter: a thumbnail's downscale averages away what accurate rounding and
        // full-resolution chroma would add (they cost about twice the time at 1080p).
        let geometry = [f.width, f.height, format.rawValue, Int32(width), Int32(height)]
        if made?.geometry != geometry || context == nil {
            sws_freeContext(context)
            made = nil
            context = sws_getContext(
                f.width, f.height, format, Int32(width), Int32(height), AV_PIX_FMT_BGR0, SWS_BICUBIC, nil, nil, nil)
        }
        guard let context else { throw FFmpegError.posix(EINVAL) }
        var matrix = Int32(f.colorspace.rawValue)
        if f.colorspace == AVCOL_SPC_UNSPECIFIED || f.colorspace == AVCOL_SPC_RESERVED {
            matrix = f.height > 576 ? SWS_CS_ITU709 : SWS_CS_ITU601
        }
        let colour = [matrix, fullRange ? 1 : 0]
        if made?.colour != colour {
            sws_setColorspaceDetails(
                context, sws_getCoefficients(matrix), fullRange ? 1 : 0, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0,
                1 << 16, 1 << 16)
        }
        made = (geometry, colour)
        let stride = Self.bytesPerRow(width: width)
        var out = Data(count: stride * height)
        let rc = out.withUnsafeMutableBytes { target -> Int32 in
            var targetData: [UnsafeMutablePointer<UInt8>?] = [
                target.baseAddress?.assumingMemoryBound(to: UInt8.self), nil, nil, nil,
            ]
            var targetStrides: [Int32] = [Int32(stride), 0, 0, 0]
            return withUnsafePointer(to: frame.pointer.pointee.data) { sourceData in
                withUnsafePointer(to: frame.pointer.pointee.linesize) { sourceStrides in
                    sws_scale(
                        context, UnsafeRawPointer(sourceData).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                        UnsafeRawPointer(sourceStrides).assumingMemoryBound(to: Int32.self), 0, f.height,
                        &targetData, &targetStrides)
                }
            }
        }
        if rc < 0 { throw FFmpegError(code: rc, function: "sws_scale") }
        return out
    }
}

// The frame facts still-image makers need.
extension Frame {
    /// Whether the frame's transfer function is a high-dynamic-range one (SMPTE ST 2084 PQ or ARIB STD-B67 HLG).
    package var hasHighDynamicRangeTransfer: Bool {
        let trc = pointer.pointee.color_trc
        return trc == AVCOL_TRC_SMPTE2084 || trc == AVCOL_TRC_ARIB_STD_B67
    }
}
