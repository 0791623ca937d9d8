// Creating and inspecting pixel buffers, and locking their base address (CVPixelBuffer.h).
//
// Like every C function Apple imports, these results may be ignored without a warning (`@discardableResult`).
// The `allocator` parameters are ignored on Linux.

// MARK: Creation

/// Creates a pixel buffer of the given size and format, as Apple's `CVPixelBufferCreate`.
///
/// The explicit width, height and format take precedence over the same keys in `pixelBufferAttributes`. Rows are
/// padded to `kCVPixelBufferBytesPerRowAlignmentKey` (default 64 bytes on Linux) and planes start on
/// `kCVPixelBufferPlaneAlignmentKey` boundaries (default 64). `kCVBufferPropagatedAttachmentsKey` and
/// `kCVBufferNonPropagatedAttachmentsKey` become the buffer's attachments; IOSurface, Metal, OpenGL and
/// CoreGraphics compatibility keys are accepted and ignored (all buffers are plain memory). The pixel bytes are
/// not initialised.
///
/// - Returns: `kCVReturnSuccess`; `kCVReturnInvalidArgument` when width or height is not positive;
///   `kCVReturnInvalidPixelFormat` for a format this implementation cannot allocate (see `CVPixelFormatType.swift`);
///   `kCVReturnInvalidPixelBufferAttributes` when an understood attribute has the wrong type;
///   `kCVReturnInvalidSize` or `kCVReturnAllocationFailed` when the memory cannot be had. On failure
///   `pixelBufferOut` is set to `nil`.
@discardableResult
public func CVPixelBufferCreate(
    _ allocator: CFAllocator?,
    _ width: Int,
    _ height: Int,
    _ pixelFormatType: OSType,
    _ pixelBufferAttributes: CFDictionary?,
    _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn {
    pixelBufferOut.pointee = nil
    do throws(CoreVideoError) {
        let attributes = try PixelBufferAttributes(pixelBufferAttributes)
        pixelBufferOut.pointee = try CVBuffer.allocate(
            width: width, height: height, pixelFormatType: pixelFormatType, attributes: attributes)
        return kCVReturnSuccess
    } catch {
        return error.code
    }
}

// MARK: Whole-buffer properties

/// The buffer's width in pixels.
public func CVPixelBufferGetWidth(_ pixelBuffer: CVPixelBuffer) -> Int {
    pixelBuffer.width
}

/// The buffer's height in pixels.
public func CVPixelBufferGetHeight(_ pixelBuffer: CVPixelBuffer) -> Int {
    pixelBuffer.height
}

/// The buffer's pixel format (`kCVPixelFormatType_...`).
public func CVPixelBufferGetPixelFormatType(_ pixelBuffer: CVPixelBuffer) -> OSType {
    pixelBuffer.pixelFormatType
}

/// The row stride in bytes, which may exceed `width * bytesPerPixel` because rows are padded.
///
/// Differs from Apple: for planar buffers this is the first plane's stride (Apple's value describes its planar
/// info header); use `CVPixelBufferGetBytesPerRowOfPlane` for planar buffers.
public func CVPixelBufferGetBytesPerRow(_ pixelBuffer: CVPixelBuffer) -> Int {
    pixelBuffer.planes[0].bytesPerRow
}

/// The address of pixel (0, 0) for chunky buffers.
///
/// Differs from Apple: for planar buffers this is the first plane's base address (Apple returns a pointer to a
/// big-endian `CVPlanarPixelBufferInfo` header or `NULL`); use `CVPixelBufferGetBaseAddressOfPlane` for planar
/// buffers. Apple requires the base address to be locked first; this implementation returns the address whether
/// or not the buffer is locked, since memory never moves, but portable code should lock.
public func CVPixelBufferGetBaseAddress(_ pixelBuffer: CVPixelBuffer) -> UnsafeMutableRawPointer? {
    pixelBuffer.planes[0].baseAddress
}

/// The size in bytes of the pixel memory: from the first plane's start to the end of the last plane's last
/// padded row for buffers CoreVideo allocates; the sum of `bytesPerRow * height` over the planes (or the size the
/// creator gave) for wrapped memory.
public func CVPixelBufferGetDataSize(_ pixelBuffer: CVPixelBuffer) -> Int {
    pixelBuffer.dataSize
}

/// Whether the buffer is planar (several planes, e.g. `'420v'`) rather than chunky (e.g. `'BGRA'`).
public func CVPixelBufferIsPlanar(_ pixelBuffer: CVPixelBuffer) -> Bool {
    pixelBuffer.isPlanar
}

/// Reports the extended (padding) pixels around the image. Always zero on Linux: extended pixels are never
/// allocated (`kCVPixelBufferExtendedPixels...Key` is ignored).
public func CVPixelBufferGetExtendedPixels(
    _ pixelBuffer: CVPixelBuffer,
    _ extraColumnsOnLeft: UnsafeMutablePointer<Int>?,
    _ extraColumnsOnRight: UnsafeMutablePointer<Int>?,
    _ extraRowsOnTop: UnsafeMutablePointer<Int>?,
    _ extraRowsOnBottom: UnsafeMutablePointer<Int>?
) {
    extraColumnsOnLeft?.pointee = 0
    extraColumnsOnRight?.pointee = 0
    extraRowsOnTop?.pointee = 0
    extraRowsOnBottom?.pointee = 0
}

/// Fills the extended pixels. A no-op returning `kCVReturnSuccess` on Linux, where there are none.
@discardableResult
public func CVPixelBufferFillExtendedPixels(_ pixelBuffer: CVPixelBuffer) -> CVReturn {
    kCVReturnSuccess
}

// MARK: Planes

/// The number of planes: 2 for bi-planar formats such as `'420v'`, 3 for `'y420'`, 0 for chunky formats.
public func CVPixelBufferGetPlaneCount(_ pixelBuffer: CVPixelBuffer) -> Int {
    pixelBuffer.planeCount
}

/// The width in plane pixels of plane `planeIndex` (chroma planes of 4:2:0 formats are half as wide, rounded
/// up); 0 for chunky buffers or an out-of-range index.
public func CVPixelBufferGetWidthOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    plane(of: pixelBuffer, planeIndex)?.width ?? 0
}

/// The height in rows of plane `planeIndex`; 0 for chunky buffers or an out-of-range index.
public func CVPixelBufferGetHeightOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    plane(of: pixelBuffer, planeIndex)?.height ?? 0
}

/// The row stride in bytes of plane `planeIndex`; 0 for chunky buffers or an out-of-range index.
public func CVPixelBufferGetBytesPerRowOfPlane(_ pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> Int {
    plane(of: pixelBuffer, planeIndex)?.bytesPerRow ?? 0
}

/// The address of the first row of plane `planeIndex`; `nil` for chunky buffers or an out-of-range index.
/// As with `CVPixelBufferGetBaseAddress`, the address is returned whether or not the buffer is locked.
public func CVPixelBufferGetBaseAddressOfPlane(
    _ pixelBuffer: CVPixelBuffer,
    _ planeIndex: Int
) -> UnsafeMutableRawPointer? {
    plane(of: pixelBuffer, planeIndex)?.baseAddress
}

private func plane(of pixelBuffer: CVPixelBuffer, _ planeIndex: Int) -> PixelBufferPlane? {
    guard pixelBuffer.isPlanar, pixelBuffer.planes.indices.contains(planeIndex) else { return nil }
    return pixelBuffer.planes[planeIndex]
}

// MARK: Locking

/// Locks the base address before CPU access, as Apple's `CVPixelBufferLockBaseAddress`. Locks nest; pass
/// `.readOnly` when only reading, and the same flags to the matching unlock.
///
/// On Linux memory never moves, so locking only does the bookkeeping that lets unbalanced or mismatched unlocks
/// be reported. Always returns `kCVReturnSuccess`.
@discardableResult
public func CVPixelBufferLockBaseAddress(
    _ pixelBuffer: CVPixelBuffer,
    _ lockFlags: CVPixelBufferLockFlags
) -> CVReturn {
    pixelBuffer.lockBaseAddress(lockFlags)
}

/// Unlocks the base address, as Apple's `CVPixelBufferUnlockBaseAddress`; pass the flags given to the lock.
///
/// - Returns: `kCVReturnSuccess`; `kCVReturnInvalidArgument` when the buffer is locked but only with the other
///   flags (Apple calls mismatched flags undefined behaviour); `kCVReturnError` when the buffer is not locked at
///   all. The two error codes are this implementation's choice; nothing changes on error.
@discardableResult
public func CVPixelBufferUnlockBaseAddress(
    _ pixelBuffer: CVPixelBuffer,
    _ unlockFlags: CVPixelBufferLockFlags
) -> CVReturn {
    pixelBuffer.unlockBaseAddress(unlockFlags)
}
