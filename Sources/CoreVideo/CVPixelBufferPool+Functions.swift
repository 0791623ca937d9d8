// Creating pools and taking buffers from them (CVPixelBufferPool.h). The `allocator` parameters are ignored on
// Linux.

/// Creates a pixel buffer pool, as Apple's `CVPixelBufferPoolCreate`.
///
/// `pixelBufferAttributes` must give `kCVPixelBufferWidthKey`, `kCVPixelBufferHeightKey` and
/// `kCVPixelBufferPixelFormatTypeKey` (a number, or an array whose first allocatable format is used); row and
/// plane alignment and initial attachments are honoured as in `CVPixelBufferCreate`. `poolAttributes` may give
/// `kCVPixelBufferPoolMinimumBufferCountKey` and `kCVPixelBufferPoolMaximumBufferAgeKey` (seconds, default 1,
/// 0 disables aging).
///
/// - Returns: `kCVReturnSuccess`; `kCVReturnInvalidPixelBufferAttributes` when width, height or format is missing
///   or malformed; `kCVReturnInvalidPixelFormat` when no requested format can be allocated;
///   `kCVReturnInvalidPoolAttributes` for a malformed pool attribute; `kCVReturnInvalidSize` for an impossible
///   size. On failure `poolOut` is `nil`.
@discardableResult
public func CVPixelBufferPoolCreate(
    _ allocator: CFAllocator?,
    _ poolAttributes: CFDictionary?,
    _ pixelBufferAttributes: CFDictionary?,
    _ poolOut: UnsafeMutablePointer<CVPixelBufferPool?>
) -> CVReturn {
    poolOut.pointee = nil
    do throws(CoreVideoError) {
        poolOut.pointee = try CVPixelBufferPool(
            poolAttributes: PixelBufferAttributes.stringKeyed(poolAttributes),
            pixelBufferAttributes: PixelBufferAttributes.stringKeyed(pixelBufferAttributes))
        return kCVReturnSuccess
    } catch {
        return error.code
    }
}

/// Takes a buffer from the pool, reusing returned memory when possible, as Apple's
/// `CVPixelBufferPoolCreatePixelBuffer`. Pixel contents are not cleared.
///
/// - Returns: `kCVReturnSuccess`, or `kCVReturnPoolAllocationFailed` when memory is exhausted. On failure
///   `pixelBufferOut` is `nil`.
@discardableResult
public func CVPixelBufferPoolCreatePixelBuffer(
    _ allocator: CFAllocator?,
    _ pixelBufferPool: CVPixelBufferPool,
    _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn {
    CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(allocator, pixelBufferPool, nil, pixelBufferOut)
}

/// Takes a buffer from the pool with auxiliary attributes, as Apple's
/// `CVPixelBufferPoolCreatePixelBufferWithAuxAttributes`. The one understood auxiliary attribute is
/// `kCVPixelBufferPoolAllocationThresholdKey`: when no returned buffer is free and that many buffers already exist,
/// the call fails with `kCVReturnWouldExceedAllocationThreshold` instead of allocating.
///
/// - Returns: `kCVReturnSuccess`, `kCVReturnWouldExceedAllocationThreshold`, `kCVReturnInvalidArgument` for a
///   malformed threshold, or `kCVReturnPoolAllocationFailed`. On failure `pixelBufferOut` is `nil`.
@discardableResult
public func CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(
    _ allocator: CFAllocator?,
    _ pixelBufferPool: CVPixelBufferPool,
    _ auxAttributes: CFDictionary?,
    _ pixelBufferOut: UnsafeMutablePointer<CVPixelBuffer?>
) -> CVReturn {
    pixelBufferOut.pointee = nil
    var threshold: Int?
    if let value = PixelBufferAttributes.stringKeyed(auxAttributes)?[kCVPixelBufferPoolAllocationThresholdKey] {
        guard let number = value as? NSNumber, number.intValue > 0 else { return kCVReturnInvalidArgument }
        threshold = number.intValue
    }
    do throws(CoreVideoError) {
        pixelBufferOut.pointee = try pixelBufferPool.makePixelBuffer(allocationThreshold: threshold)
        return kCVReturnSuccess
    } catch {
        return error.code
    }
}

/// The pool attributes the pool was created with, as Apple's `CVPixelBufferPoolGetAttributes`. Convert with
/// `as? [String: Any]`.
public func CVPixelBufferPoolGetAttributes(_ pool: CVPixelBufferPool) -> CFDictionary? {
    NSDictionary(dictionary: pool.poolAttributeEntries.mapValues { $0.object })
}

/// The pixel-buffer attributes of the pool's buffers as given at creation, as Apple's
/// `CVPixelBufferPoolGetPixelBufferAttributes`. Convert with `as? [String: Any]`.
public func CVPixelBufferPoolGetPixelBufferAttributes(_ pool: CVPixelBufferPool) -> CFDictionary? {
    NSDictionary(dictionary: pool.pixelBufferAttributes.entries.mapValues { $0.object })
}

/// Frees unused buffers, as Apple's `CVPixelBufferPoolFlush`: every unused buffer with `.excessBuffers`,
/// otherwise only those older than the pool's maximum buffer age. Buffers in use are never affected.
public func CVPixelBufferPoolFlush(_ pool: CVPixelBufferPool, _ options: CVPixelBufferPoolFlushFlags) {
    pool.flush(options)
}
