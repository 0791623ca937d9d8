import CFFmpeg
import CoreVideo
import Foundation

/// A decoded frame's `AVFrame` reference, held by a wrapping `CVPixelBuffer` until the buffer is
/// released. `@unchecked Sendable`: the pointer is owned by exactly one pixel buffer, whose release
/// callback (run once, on whichever thread drops the last reference) frees it; `av_frame_free` only
/// unreferences the frame's buffers, which are atomically reference-counted.
private struct FrameReference: @unchecked Sendable {
    /// The cloned frame, owned.
    let pointer: UnsafeMutablePointer<AVFrame>

    /// Unreferences the frame's buffers and frees the `AVFrame`.
    func free() {
        var doomed: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&doomed)
    }
}

// Wrapping decoded pictures as CoreVideo pixel buffers (decode thread; the buffers go anywhere).
extension Frame {
    /// The CoreVideo pixel format this frame can be wrapped as without copying, or nil when it must be
    /// converted (``Scaler``): 8-bit 4:2:0 planar (`y420`, or `f420` at full range), NV12 (`420v` /
    /// `420f`), P010 (`x420` / `xf20`) and 8-bit grey (`L008`), with positive strides.
    package var wrappablePixelFormatType: OSType? {
        let f = pointer.pointee
        guard f.width > 0, f.height > 0 else { return nil }
        let planeCount: Int
        let type: OSType
        switch AVPixelFormat(rawValue: f.format) {
        case AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUVJ420P:
            type = isFullRange ? kCVPixelFormatType_420YpCbCr8PlanarFullRange : kCVPixelFormatType_420YpCbCr8Planar
            planeCount = 3
        case AV_PIX_FMT_NV12:
            type =
                isFullRange
                ? kCVPixelFormatType_420YpCbCr8BiPlanarFullRange : kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
            planeCount = 2
        case AV_PIX_FMT_P010LE:
            type =
                isFullRange
                ? kCVPixelFormatType_420YpCbCr10BiPlanarFullRange : kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange
            planeCount = 2
        case AV_PIX_FMT_GRAY8:
            type = kCVPixelFormatType_OneComponent8
            planeCount = 1
        default:
            return nil
        }
        for index in 0..<planeCount {
            let (data, lineSize) = plane(index)
            guard data != nil, lineSize > 0 else { return nil }
        }
        return type
    }

    /// The format a picture that cannot be wrapped is converted to when no consumer asked for one: bi-planar 10-bit
    /// 4:2:0 (`x420`, `xf20` at full range: P010) for 10-bit 4:2:0 pictures (`yuv420p10`), so their precision
    /// reaches the outputs that ask for it; 8-bit 4:2:0 planar (`y420`) for everything else.
    package var convertedPixelFormatType: OSType {
        switch AVPixelFormat(rawValue: pointer.pointee.format) {
        case AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_YUV420P10BE:
            return isFullRange
                ? kCVPixelFormatType_420YpCbCr10BiPlanarFullRange : kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange
        default:
            return kCVPixelFormatType_420YpCbCr8Planar
        }
    }

    /// Wraps the frame's pixels in a `CVPixelBuffer` without copying them, or returns nil when the
    /// format cannot be wrapped (see ``wrappablePixelFormatType``; convert those with a ``Scaler``).
    ///
    /// The buffer holds a new reference to the frame's data (`av_frame_clone`), released when the
    /// buffer goes away, so this frame may be unreferenced and reused at once; the decoder's buffer
    /// pool recycles the memory only after the pixel buffer is gone. The pixels are read-only by
    /// contract: the decoder may still reference them (e.g. as a reference frame).
    ///
    /// - Parameter attachments: the buffer's initial attachments; by default ``colorAttachments``.
    package func makePixelBuffer(attachments: CVBufferAttachmentStore? = nil) -> CVPixelBuffer? {
        guard let type = wrappablePixelFormatType, let layout = PixelFormatLayout.forPixelFormatType(type),
            let clone = av_frame_clone(pointer)
        else { return nil }
        let reference = FrameReference(pointer: clone)
        let planes = zip(layout.planes, Frame.planes(of: clone)).compactMap { formatPlane, plane in
            plane.data.map {
                PixelBufferPlane(
                    baseAddress: UnsafeMutableRawPointer($0),
                    width: formatPlane.width(forImageWidth: width),
                    height: formatPlane.height(forImageHeight: height),
                    bytesPerRow: plane.lineSize)
            }
        }
        guard planes.count == layout.planes.count else {
            reference.free()
            return nil
        }
        return CVBuffer(
            pixelFormatType: type, width: width, height: height, planes: planes,
            attachments: attachments ?? colorAttachments,
            releaseCallback: { reference.free() })
    }

    /// The frame's colour description as CoreVideo attachments (propagated, as Apple's decoders attach
    /// them): colour primaries, transfer function, YCbCr matrix, chroma siting and pixel aspect ratio,
    /// each only when the stream states it.
    package var colorAttachments: CVBufferAttachmentStore {
        let f = pointer.pointee
        var values: [String: Any] = [:]
        values[kCVImageBufferColorPrimariesKey] = Self.primaries(f.color_primaries)
        if let (transfer, gamma) = Self.transfer(f.color_trc) {
            values[kCVImageBufferTransferFunctionKey] = transfer
            if let gamma { values[kCVImageBufferGammaLevelKey] = gamma }
        }
        values[kCVImageBufferYCbCrMatrixKey] = Self.matrix(f.colorspace)
        values[kCVImageBufferChromaLocationTopFieldKey] = Self.chromaLocation(f.chroma_location)
        values[kCVImageBufferMasteringDisplayColorVolumeKey] = masteringDisplayColorVolume
        values[kCVImageBufferContentLightLevelInfoKey] = contentLightLevelInfo
        if let sar = sampleAspectRatio, sar.num > 0, sar.den > 0 {
            values[kCVImageBufferPixelAspectRatioKey] = [
                kCVImageBufferPixelAspectRatioHorizontalSpacingKey: Int(sar.num),
                kCVImageBufferPixelAspectRatioVerticalSpacingKey: Int(sar.den),
            ]
        }
        return CVBufferAttachmentStore(propagated: values)
    }

    /// Whether the frame carries HDR static metadata (mastering display or content light level side data), which
    /// ``colorDescriptionKey`` does not cover.
    package var hasHDRMetadata: Bool {
        av_frame_get_side_data(pointer, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA) != nil
            || av_frame_get_side_data(pointer, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL) != nil
    }

    /// The mastering display side data in Apple's `kCVImageBufferMasteringDisplayColorVolumeKey` layout (24 bytes,
    /// big-endian, primaries in SEI order green, blue, red), nil without it or when it lacks primaries or luminance.
    var masteringDisplayColorVolume: Data? {
        guard let side = av_frame_get_side_data(pointer, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA),
            side.pointee.size >= MemoryLayout<AVMasteringDisplayMetadata>.size, let bytes = side.pointee.data
        else { return nil }
        let m = UnsafeRawPointer(bytes).loadUnaligned(as: AVMasteringDisplayMetadata.self)
        guard m.has_primaries != 0, m.has_luminance != 0 else { return nil }
        var data = Data(capacity: 24)
        func append16(_ value: AVRational, unit: Double) {
            let scaled = av_q2d(value) / unit
            let v = UInt16(clamping: Int(scaled.isFinite ? scaled.rounded() : 0))
            data.append(contentsOf: [UInt8(v >> 8), UInt8(v & 0xFF)])
        }
        func append32(_ value: AVRational, unit: Double) {
            let scaled = av_q2d(value) / unit
            let v = UInt32(clamping: Int64(scaled.isFinite ? scaled.rounded() : 0))
            data.append(contentsOf: [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)])
        }
        // FFmpeg keeps red, green, blue; the SEI (and Apple's layout) order is green, blue, red.
        let p = m.display_primaries
        for (x, y) in [(p.1.0, p.1.1), (p.2.0, p.2.1), (p.0.0, p.0.1)] {
            append16(x, unit: 0.00002)
            append16(y, unit: 0.00002)
        }
        append16(m.white_point.0, unit: 0.00002)
        append16(m.white_point.1, unit: 0.00002)
        append32(m.max_luminance, unit: 0.0001)
        append32(m.min_luminance, unit: 0.0001)
        return data
    }

    /// The content light level side data in Apple's `kCVImageBufferContentLightLevelInfoKey` layout (MaxCLL, MaxFALL
    /// as big-endian `UInt16`), nil without it.
    var contentLightLevelInfo: Data? {
        guard let side = av_frame_get_side_data(pointer, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL),
            side.pointee.size >= MemoryLayout<AVContentLightMetadata>.size, let bytes = side.pointee.data
        else { return nil }
        let c = UnsafeRawPointer(bytes).loadUnaligned(as: AVContentLightMetadata.self)
        let cll = UInt16(clamping: c.MaxCLL)
        let fall = UInt16(clamping: c.MaxFALL)
        return Data([UInt8(cll >> 8), UInt8(cll & 0xFF), UInt8(fall >> 8), UInt8(fall & 0xFF)])
    }

    /// `data[i]` / `linesize[i]` of the first four planes of `frame`.
    static func planes(of frame: UnsafeMutablePointer<AVFrame>) -> [(data: UnsafeMutablePointer<UInt8>?, lineSize: Int)]
    {
        let data = frame.pointee.data
        let lineSizes = frame.pointee.linesize
        return [
            (data.0, Int(lineSizes.0)), (data.1, Int(lineSizes.1)), (data.2, Int(lineSizes.2)),
            (data.3, Int(lineSizes.3)),
        ]
    }

    /// Apple's name for FFmpeg colour primaries, nil when unspecified or unknown to CoreVideo.
    static func primaries(_ value: AVColorPrimaries) -> String? {
        switch value {
        case AVCOL_PRI_BT709: return kCVImageBufferColorPrimaries_ITU_R_709_2
        case AVCOL_PRI_BT470BG: return kCVImageBufferColorPrimaries_EBU_3213
        case AVCOL_PRI_SMPTE170M, AVCOL_PRI_SMPTE240M: return kCVImageBufferColorPrimaries_SMPTE_C
        case AVCOL_PRI_BT2020: return kCVImageBufferColorPrimaries_ITU_R_2020
        case AVCOL_PRI_SMPTE431: return kCVImageBufferColorPrimaries_DCI_P3
        case AVCOL_PRI_SMPTE432: return kCVImageBufferColorPrimaries_P3_D65
        case AVCOL_PRI_JEDEC_P22: return kCVImageBufferColorPrimaries_P22
        default: return nil
        }
    }

    /// The transfer function, with the gamma exponent for pure power curves.
    static func transfer(_ value: AVColorTransferCharacteristic) -> (String, Double?)? {
        switch value {
        // Apple tags BT.601 content with the BT.709 curve, which is the same function.
        case AVCOL_TRC_BT709, AVCOL_TRC_SMPTE170M, AVCOL_TRC_BT1361_ECG:
            return (kCVImageBufferTransferFunction_ITU_R_709_2, nil)
        case AVCOL_TRC_SMPTE240M: return (kCVImageBufferTransferFunction_SMPTE_240M_1995, nil)
        case AVCOL_TRC_BT2020_10, AVCOL_TRC_BT2020_12: return (kCVImageBufferTransferFunction_ITU_R_2020, nil)
        case AVCOL_TRC_SMPTE2084: return (kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ, nil)
        case AVCOL_TRC_ARIB_STD_B67: return (kCVImageBufferTransferFunction_ITU_R_2100_HLG, nil)
        case AVCOL_TRC_SMPTE428: return (kCVImageBufferTransferFunction_SMPTE_ST_428_1, nil)
        case AVCOL_TRC_LINEAR: return (kCVImageBufferTransferFunction_Linear, nil)
        case AVCOL_TRC_IEC61966_2_1: return (kCVImageBufferTransferFunction_sRGB, nil)
        case AVCOL_TRC_GAMMA22: return (kCVImageBufferTransferFunction_UseGamma, 2.2)
        case AVCOL_TRC_GAMMA28: return (kCVImageBufferTransferFunction_UseGamma, 2.8)
        default: return nil
        }
    }

    /// Apple's name for an FFmpeg YCbCr matrix, nil when unspecified or unknown to CoreVideo.
    static func matrix(_ value: AVColorSpace) -> String? {
        switch value {
        case AVCOL_SPC_BT709: return kCVImageBufferYCbCrMatrix_ITU_R_709_2
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: return kCVImageBufferYCbCrMatrix_ITU_R_601_4
        case AVCOL_SPC_SMPTE240M: return kCVImageBufferYCbCrMatrix_SMPTE_240M_1995
        case AVCOL_SPC_BT2020_NCL: return kCVImageBufferYCbCrMatrix_ITU_R_2020
        default: return nil
        }
    }

    /// Apple's name for an FFmpeg chroma siting, nil when unspecified.
    static func chromaLocation(_ value: AVChromaLocation) -> String? {
        switch value {
        case AVCHROMA_LOC_LEFT: return kCVImageBufferChromaLocation_Left
        case AVCHROMA_LOC_CENTER: return kCVImageBufferChromaLocation_Center
        case AVCHROMA_LOC_TOPLEFT: return kCVImageBufferChromaLocation_TopLeft
        case AVCHROMA_LOC_TOP: return kCVImageBufferChromaLocation_Top
        case AVCHROMA_LOC_BOTTOMLEFT: return kCVImageBufferChromaLocation_BottomLeft
        case AVCHROMA_LOC_BOTTOM: return kCVImageBufferChromaLocation_Bottom
        default: return nil
        }
    }
}
