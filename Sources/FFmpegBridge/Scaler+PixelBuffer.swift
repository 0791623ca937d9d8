import CFFmpeg
import CoreVideo

// Converting pixel buffers (not decoded frames) with a Scaler: what video outputs need when the decoded buffer's
// format is not the one the client asked for.
extension Scaler {
    /// The formats ``convert(pixelBuffer:)`` accepts as input.
    package static let supportedInputPixelFormatTypes: Set<OSType> = [
        kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8PlanarFullRange,
        kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
        kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr10BiPlanarFullRange,
        kCVPixelFormatType_32BGRA, kCVPixelFormatType_32RGBA, kCVPixelFormatType_32ARGB,
        kCVPixelFormatType_OneComponent8,
    ]

    /// Converts `pixelBuffer` into a new buffer of ``outputPixelFormatType`` from the scaler's pool, same size.
    ///
    /// The input's propagated attachments are carried over (an RGB output drops the YCbCr matrix and chroma
    /// siting); the YCbCr matrix attachment chooses the conversion matrix (BT.601 when absent).
    ///
    /// - Throws: `FFmpegError.patchWelcome` for an input format not in ``supportedInputPixelFormatTypes``; the
    ///   scaler's failures.
    package func convert(pixelBuffer: CVPixelBuffer) throws(FFmpegError) -> CVPixelBuffer {
        guard let input = Self.inputFormat(pixelBuffer.pixelFormatType) else { throw FFmpegError.patchWelcome }
        CVPixelBufferLockBaseAddress(pixelBuffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(pixelBuffer, .readOnly) }
        let frame = Frame()
        let f = frame.pointer
        f.pointee.width = Int32(pixelBuffer.width)
        f.pointee.height = Int32(pixelBuffer.height)
        f.pointee.format = input.format.rawValue
        f.pointee.color_range = input.fullRange ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        let matrix = CVBufferCopyAttachment(pixelBuffer, kCVImageBufferYCbCrMatrixKey, nil) as? String
        f.pointee.colorspace = Self.colorspace(matrix)
        let planes = pixelBuffer.planes
        func address(_ index: Int) -> UnsafeMutablePointer<UInt8>? {
            index < planes.count ? planes[index].baseAddress.assumingMemoryBound(to: UInt8.self) : nil
        }
        func stride(_ index: Int) -> Int32 {
            index < planes.count ? Int32(planes[index].bytesPerRow) : 0
        }
        f.pointee.data = (address(0), address(1), address(2), address(3), nil, nil, nil, nil)
        f.pointee.linesize = (stride(0), stride(1), stride(2), stride(3), 0, 0, 0, 0)
        // libswscale references the source's buffer: lend one that frees nothing (the pixel buffer, locked
        // and alive for this call, owns the memory). Without it, it would copy the picture first.
        guard let lent = av_buffer_create(address(0), pixelBuffer.dataSize, { _, _ in }, nil, 0) else {
            throw FFmpegError.posix(ENOMEM)
        }
        f.pointee.buf.0 = lent
        var attachments = CVBufferAttachmentStore(
            propagated: (CVBufferCopyAttachments(pixelBuffer, .shouldPropagate) as? [String: Any]) ?? [:])
        if !Self.isYCbCrOutput(outputPixelFormatType) {
            attachments.remove(kCVImageBufferYCbCrMatrixKey)
            attachments.remove(kCVImageBufferChromaLocationTopFieldKey)
        }
        let result = try withExtendedLifetime(pixelBuffer) { () throws(FFmpegError) -> CVPixelBuffer in
            try convert(frame, attachments: attachments)
        }
        frame.unref()
        return result
    }

    /// FFmpeg's format and range for an input pixel format.
    static func inputFormat(_ type: OSType) -> (format: AVPixelFormat, fullRange: Bool)? {
        switch type {
        case kCVPixelFormatType_420YpCbCr8Planar: return (AV_PIX_FMT_YUV420P, false)
        case kCVPixelFormatType_420YpCbCr8PlanarFullRange: return (AV_PIX_FMT_YUV420P, true)
        case kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange: return (AV_PIX_FMT_NV12, false)
        case kCVPixelFormatType_420YpCbCr8BiPlanarFullRange: return (AV_PIX_FMT_NV12, true)
        case kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange: return (AV_PIX_FMT_P010LE, false)
        case kCVPixelFormatType_420YpCbCr10BiPlanarFullRange: return (AV_PIX_FMT_P010LE, true)
        case kCVPixelFormatType_32BGRA: return (AV_PIX_FMT_BGRA, true)
        case kCVPixelFormatType_32RGBA: return (AV_PIX_FMT_RGBA, true)
        case kCVPixelFormatType_32ARGB: return (AV_PIX_FMT_ARGB, true)
        case kCVPixelFormatType_OneComponent8: return (AV_PIX_FMT_GRAY8, true)
        default: return nil
        }
    }

    /// Whether an output format stores YCbCr.
    static func isYCbCrOutput(_ type: OSType) -> Bool {
        switch type {
        case kCVPixelFormatType_32BGRA, kCVPixelFormatType_32RGBA, kCVPixelFormatType_32ARGB,
            kCVPixelFormatType_OneComponent8:
            return false
        default:
            return true
        }
    }

    /// FFmpeg's matrix for a CoreVideo YCbCr matrix attachment.
    static func colorspace(_ matrix: String?) -> AVColorSpace {
        switch matrix {
        case kCVImageBufferYCbCrMatrix_ITU_R_709_2: return AVCOL_SPC_BT709
        case kCVImageBufferYCbCrMatrix_ITU_R_601_4: return AVCOL_SPC_SMPTE170M
        case kCVImageBufferYCbCrMatrix_SMPTE_240M_1995: return AVCOL_SPC_SMPTE240M
        case kCVImageBufferYCbCrMatrix_ITU_R_2020: return AVCOL_SPC_BT2020_NCL
        default: return AVCOL_SPC_UNSPECIFIED
        }
    }
}

/// Converts pixel buffers to another size (and format) with libswscale (bicubic), into pooled buffers of
/// ``width`` x ``height``: what a video output asked for specific dimensions needs. Formats: those of
/// ``Scaler/supportedInputPixelFormatTypes``, in and out.
///
/// Not thread-safe: one owner at a time. The buffers it returns are independent of it.
package final class PixelBufferScaler {
    /// What every output buffer is.
    package let outputPixelFormatType: OSType
    /// Output width in pixels.
    package let width: Int
    /// Output height in pixels.
    package let height: Int
    private let output: (format: AVPixelFormat, fullRange: Bool)
    private let pool: CVPixelBufferPool
    /// The scaler context for `configuration`; owned.
    private var context: OpaquePointer?
    private var configuration: Configuration?

    /// The input a context is built for.
    private struct Configuration: Equatable {
        var width: Int32
        var height: Int32
        var format: Int32
        var fullRange: Bool
        var colorspace: UInt32
    }

    /// A scaler producing `outputPixelFormatType` buffers of `width` x `height`.
    ///
    /// - Throws: `FFmpegError.patchWelcome` for an unsupported format or a size that is not positive; ENOMEM.
    package init(outputPixelFormatType: OSType, width: Int, height: Int) throws(FFmpegError) {
        guard width > 0, height > 0, width <= 16384, height <= 16384,
            let output = Scaler.inputFormat(outputPixelFormatType)
        else { throw FFmpegError.patchWelcome }
        self.outputPixelFormatType = outputPixelFormatType
        self.width = width
        self.height = height
        self.output = output
        do {
            pool = try CVPixelBufferPool(
                poolAttributes: nil,
                pixelBufferAttributes: [
                    kCVPixelBufferWidthKey: width, kCVPixelBufferHeightKey: height,
                    kCVPixelBufferPixelFormatTypeKey: Int(outputPixelFormatType),
                ])
        } catch {
            throw FFmpegError.posix(ENOMEM)
        }
    }

    /// Frees the scaler context.
    deinit {
        sws_freeContext(context)
    }

    /// Scales `pixelBuffer` into a new buffer from the pool, carrying its propagated attachments over (an RGB
    /// output drops the YCbCr matrix and chroma siting).
    ///
    /// - Throws: `FFmpegError.patchWelcome` for an unsupported input format; the libswscale or pool failure.
    package func convert(pixelBuffer: CVPixelBuffer) throws(FFmpegError) -> CVPixelBuffer {
        guard let input = Scaler.inputFormat(pixelBuffer.pixelFormatType) else { throw FFmpegError.patchWelcome }
        let matrix = CVBufferCopyAttachment(pixelBuffer, kCVImageBufferYCbCrMatrixKey, nil) as? String
        let wanted = Configuration(
            width: Int32(pixelBuffer.width), height: Int32(pixelBuffer.height), format: input.format.rawValue,
            fullRange: input.fullRange, colorspace: Scaler.colorspace(matrix).rawValue)
        if wanted != configuration || context == nil {
            try configure(wanted, inputIsYCbCr: Scaler.isYCbCrOutput(pixelBuffer.pixelFormatType))
        }
        let result: CVPixelBuffer
        do { result = try pool.makePixelBuffer() } catch { throw FFmpegError.posix(ENOMEM) }
        CVPixelBufferLockBaseAddress(pixelBuffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(pixelBuffer, .readOnly) }
        let source = pixelBuffer.planes
        let destination = result.planes
        var sourceData: [UnsafePointer<UInt8>?] = (0..<4).map {
            $0 < source.count ? UnsafePointer(source[$0].baseAddress.assumingMemoryBound(to: UInt8.self)) : nil
        }
        var sourceStrides: [Int32] = (0..<4).map { $0 < source.count ? Int32(source[$0].bytesPerRow) : 0 }
        var destinationData: [UnsafeMutablePointer<UInt8>?] = (0..<4).map {
            $0 < destination.count ? destination[$0].baseAddress.assumingMemoryBound(to: UInt8.self) : nil
        }
        var destinationStrides: [Int32] = (0..<4).map {
            $0 < destination.count ? Int32(destination[$0].bytesPerRow) : 0
        }
        let rc = withExtendedLifetime(pixelBuffer) {
            sws_scale(
                context, &sourceData, &sourceStrides, 0, Int32(pixelBuffer.height), &destinationData,
                &destinationStrides)
        }
        if rc < 0 { throw FFmpegError(code: rc, function: "sws_scale") }
        var attachments = (CVBufferCopyAttachments(pixelBuffer, .shouldPropagate) as? [String: Any]) ?? [:]
        if !Scaler.isYCbCrOutput(outputPixelFormatType) {
            attachments[kCVImageBufferYCbCrMatrixKey] = nil
            attachments[kCVImageBufferChromaLocationTopFieldKey] = nil
        }
        for (key, value) in attachments {
            CVBufferSetAttachment(result, key, value as AnyObject, .shouldPropagate)
        }
        return result
    }

    /// Builds the `SwsContext` for `wanted`.
    private func configure(_ wanted: Configuration, inputIsYCbCr: Bool) throws(FFmpegError) {
        sws_freeContext(context)
        configuration = nil
        context = sws_getContext(
            wanted.width, wanted.height, AVPixelFormat(rawValue: wanted.format), Int32(width), Int32(height),
            output.format, SWS_BICUBIC | SWS_ACCURATE_RND, nil, nil, nil)
        guard let context else { throw FFmpegError.invalidData }
        let outputIsYCbCr = Scaler.isYCbCrOutput(outputPixelFormatType)
        let sourceMatrix = inputIsYCbCr ? Int32(wanted.colorspace) : SWS_CS_DEFAULT
        let destinationMatrix =
            outputIsYCbCr ? (inputIsYCbCr ? Int32(wanted.colorspace) : SWS_CS_ITU601) : SWS_CS_DEFAULT
        sws_setColorspaceDetails(
            context, sws_getCoefficients(sourceMatrix), wanted.fullRange ? 1 : 0,
            sws_getCoefficients(destinationMatrix), output.fullRange ? 1 : 0, 0, 1 << 16, 1 << 16)
        configuration = wanted
    }
}
