// Wrapping caller-owned memory in a pixel buffer without copying (CVPixelBuffer.h).

/// Called when a buffer made by `CVPixelBufferCreateWithBytes` is deinitialised, with the `releaseRefCon` and
/// `baseAddress` passed at creation, as Apple's `CVPixelBufferReleaseBytesCallback`.
public typealias CVPixelBufferReleaseBytesCallback =
    @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?) -> Void

/// Called when a buffer made by `CVPixelBufferCreateWithPlanarBytes` is deinitialised, with the `releaseRefCon`,
/// `dataPtr`, `dataSize`, `numberOfPlanes` and plane addresses passed at creation, as Apple's
/// `CVPixelBufferReleasePlanarBytesCallback`. The plane-address array is only valid during the call.
public typealias CVPixelBufferReleasePlanarBytesCallback =
    @convention(c) (UnsafeMutableRawPointer?, UnsafeRawPointer?, Int, Int, UnsafeMutablePointer<UnsafeRawPointer?>?)
    -> Void

/// Creates a chunky pixel buffer over memory the caller owns, as Apple's `CVPixelBufferCreateWithBytes`. Nothing
/// is copied; `releaseCallback` (if any) runs exactly once, when the buffer is deinitialised, and is not called
/// when creation fails.
///
/// - Returns: `kCVReturnSuccess`; `kCVReturnInvalidArgument` for a non-positive size or a `bytesPerRow` shorter
///   than a row; `kCVReturnInvalidPixelFormat` for an unknown format, or for a planar one (use
///   `CVPixelBufferCreateWithPlanarBytes`; Apple's behaviour for planar formats here is unspecified);
///   `kCVReturnInvalidPixelBufferAttributes` for a malformed attribute. On failure `pixelBufferOut` is `nil`.
@discardableResult
public func CVPixelBufferCreateWithBytes(
    _ allocator: CFAllocator?,
    _ width: Int,
    _ height: Int,
    _ pixelFormatType: OSType,
    _ baseAddress: UnsafeMutableRawPointer,
    _ bytesPerRow: Int,
    _ releaseCallback: CVPixelBufferReleaseBytesCallback?,
    _ releaseRefCon: UnsafeMutableRawPointer?,
    _ pixelBufferAttributes: CFDictionary?,
    _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn {
    pixelBufferOut.pointee = nil
    do throws(CoreVideoError) {
        let attributes = try PixelBufferAttributes(pixelBufferAttributes)
        guard width > 0, height > 0 else { throw .invalidArgument }
        guard let format = PixelFormatLayout.forPixelFormatType(pixelFormatType), !format.isPlanar else {
            throw .invalidPixelFormat
        }
        guard bytesPerRow >= format.planes[0].minimumBytesPerRow(forPlaneWidth: width) else {
            throw .invalidArgument
        }
        let context = ReleaseBytesContext(callback: releaseCallback, refCon: releaseRefCon, baseAddress: baseAddress)
        let plane = PixelBufferPlane(baseAddress: baseAddress, width: width, height: height, bytesPerRow: bytesPerRow)
        pixelBufferOut.pointee = CVBuffer(
            pixelFormatType: pixelFormatType, width: width, height: height, planes: [plane],
            attachments: attributes.initialAttachments,
            releaseCallback: { context.release() })
        return kCVReturnSuccess
    } catch {
        return error.code
    }
}

/// Creates a planar pixel buffer over planes the caller owns, as Apple's `CVPixelBufferCreateWithPlanarBytes`.
/// Nothing is copied; `releaseCallback` (if any) runs exactly once, when the buffer is deinitialised, and is not
/// called when creation fails. The plane widths, heights and strides are taken as given.
///
/// `dataPtr` and `dataSize` are only handed back to `releaseCallback` (and `dataSize`, when positive, is what
/// `CVPixelBufferGetDataSize` reports). Differs from Apple: `CVPixelBufferGetBaseAddress` returns the first
/// plane, not `dataPtr`.
///
/// - Returns: `kCVReturnSuccess`; `kCVReturnInvalidArgument` for a non-positive size, a plane count that does not
///   match the format, a missing plane address or a plane stride shorter than its row;
///   `kCVReturnInvalidPixelFormat` for an unknown or chunky format; `kCVReturnInvalidPixelBufferAttributes` for a
///   malformed attribute. On failure `pixelBufferOut` is `nil`.
@discardableResult
public func CVPixelBufferCreateWithPlanarBytes(
    _ allocator: CFAllocator?,
    _ width: Int,
    _ height: Int,
    _ pixelFormatType: OSType,
    _ dataPtr: UnsafeMutableRawPointer?,
    _ dataSize: Int,
    _ numberOfPlanes: Int,
    _ planeBaseAddress: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
    _ planeWidth: UnsafeMutablePointer<Int>,
    _ planeHeight: UnsafeMutablePointer<Int>,
    _ planeBytesPerRow: UnsafeMutablePointer<Int>,
    _ releaseCallback: CVPixelBufferReleasePlanarBytesCallback?,
    _ releaseRefCon: UnsafeMutableRawPointer?,
    _ pixelBufferAttributes: CFDictionary?,
    _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn {
    pixelBufferOut.pointee = nil
    do throws(CoreVideoError) {
        let attributes = try PixelBufferAttributes(pixelBufferAttributes)
        guard width > 0, height > 0 else { throw .invalidArgument }
        guard let format = PixelFormatLayout.forPixelFormatType(pixelFormatType), format.isPlanar else {
            throw .invalidPixelFormat
        }
        guard numberOfPlanes == format.planes.count else { throw .invalidArgument }
        var planes: [PixelBufferPlane] = []
        for index in 0..<numberOfPlanes {
            let formatPlane = format.planes[index]
            guard let address = planeBaseAddress[index], planeWidth[index] > 0, planeHeight[index] > 0,
                planeBytesPerRow[index] >= formatPlane.minimumBytesPerRow(forPlaneWidth: planeWidth[index])
            else { throw .invalidArgument }
            planes.append(
                PixelBufferPlane(
                    baseAddress: address, width: planeWidth[index], height: planeHeight[index],
                    bytesPerRow: planeBytesPerRow[index]))
        }
        let context = ReleasePlanarBytesContext(
            callback: releaseCallback, refCon: releaseRefCon, dataPtr: dataPtr, dataSize: dataSize,
            planeAddresses: planes.map { UnsafeRawPointer($0.baseAddress) })
        pixelBufferOut.pointee = CVBuffer(
            pixelFormatType: pixelFormatType, width: width, height: height, planes: planes,
            dataSize: dataSize > 0 ? dataSize : nil, attachments: attributes.initialAttachments,
            releaseCallback: { context.release() })
        return kCVReturnSuccess
    } catch {
        return error.code
    }
}

/// What `CVPixelBufferCreateWithBytes` must hand back to its release callback.
///
/// `@unchecked Sendable`: C pointers captured at creation and used once, from the buffer's `deinit`.
private struct ReleaseBytesContext: @unchecked Sendable {
    let callback: CVPixelBufferReleaseBytesCallback?
    let refCon: UnsafeMutableRawPointer?
    let baseAddress: UnsafeMutableRawPointer

    func release() {
        callback?(refCon, UnsafeRawPointer(baseAddress))
    }
}

/// What `CVPixelBufferCreateWithPlanarBytes` must hand back to its release callback.
///
/// `@unchecked Sendable`: C pointers captured at creation and used once, from the buffer's `deinit`.
private struct ReleasePlanarBytesContext: @unchecked Sendable {
    let callback: CVPixelBufferReleasePlanarBytesCallback?
    let refCon: UnsafeMutableRawPointer?
    let dataPtr: UnsafeMutableRawPointer?
    let dataSize: Int
    let planeAddresses: [UnsafeRawPointer]

    func release() {
        guard let callback else { return }
        var addresses: [UnsafeRawPointer?] = planeAddresses
        addresses.withUnsafeMutableBufferPointer { buffer in
            callback(refCon, UnsafeRawPointer(dataPtr), dataSize, buffer.count, buffer.baseAddress)
        }
    }
}
