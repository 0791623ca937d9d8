// Attribute-dictionary keys (CVPixelBuffer.h, CVPixelBufferPool.h, CVBuffer.h) with Apple's string values, so
// dictionaries built with the constants or with literal strings ("PixelFormatType") behave the same.
//
// Differs from Apple: the constants are `CFString` = `String` (see CoreFoundationStandIns.swift), so
// `kCVPixelBufferPixelFormatTypeKey as String` compiles and is a no-op.

// MARK: Pixel buffer attributes

/// The pixel format: one number (an `OSType`) or an array of numbers in order of preference.
public let kCVPixelBufferPixelFormatTypeKey: CFString = "PixelFormatType"
/// The allocator to use. Ignored on Linux.
public let kCVPixelBufferMemoryAllocatorKey: CFString = "MemoryAllocator"
/// The width in pixels (a number).
public let kCVPixelBufferWidthKey: CFString = "Width"
/// The height in pixels (a number).
public let kCVPixelBufferHeightKey: CFString = "Height"
/// Extra pixels to the left of the image. Ignored on Linux (no extended pixels are allocated).
public let kCVPixelBufferExtendedPixelsLeftKey: CFString = "ExtendedPixelsLeft"
/// Extra pixels above the image. Ignored on Linux.
public let kCVPixelBufferExtendedPixelsTopKey: CFString = "ExtendedPixelsTop"
/// Extra pixels to the right of the image. Ignored on Linux.
public let kCVPixelBufferExtendedPixelsRightKey: CFString = "ExtendedPixelsRight"
/// Extra pixels below the image. Ignored on Linux.
public let kCVPixelBufferExtendedPixelsBottomKey: CFString = "ExtendedPixelsBottom"
/// Row length alignment in bytes (a number). Honoured; the default on Linux is 64.
public let kCVPixelBufferBytesPerRowAlignmentKey: CFString = "BytesPerRowAlignment"
/// Plane start alignment in bytes (a number). Honoured; the default on Linux is 64.
public let kCVPixelBufferPlaneAlignmentKey: CFString = "PlaneAlignment"
/// Whether buffers must work with `CGBitmapContext`. Accepted and ignored on Linux.
public let kCVPixelBufferCGBitmapContextCompatibilityKey: CFString = "CGBitmapContextCompatibility"
/// Whether buffers must work with `CGImage`. Accepted and ignored on Linux.
public let kCVPixelBufferCGImageCompatibilityKey: CFString = "CGImageCompatibility"
/// Whether buffers must work with OpenGL. Accepted and ignored on Linux.
public let kCVPixelBufferOpenGLCompatibilityKey: CFString = "OpenGLCompatibility"
/// Whether buffers must work with OpenGL ES. Accepted and ignored on Linux.
public let kCVPixelBufferOpenGLESCompatibilityKey: CFString = "OpenGLESCompatibility"
/// Whether buffers must work with Metal. Accepted and ignored on Linux (there is no Metal).
public let kCVPixelBufferMetalCompatibilityKey: CFString = "MetalCompatibility"
/// IOSurface properties; an empty dictionary asks for IOSurface backing on Apple's systems. Accepted and ignored
/// on Linux: buffers are always plain heap memory.
public let kCVPixelBufferIOSurfacePropertiesKey: CFString = "IOSurfaceProperties"

// MARK: Pool attributes

/// The minimum number of buffers the pool keeps once allocated, even when they age out (a number).
public let kCVPixelBufferPoolMinimumBufferCountKey: CFString = "MinimumBufferCount"
/// How long, in seconds, an unused buffer stays in the pool before it is freed (a number; 0 disables aging).
/// Apple's default is one second.
public let kCVPixelBufferPoolMaximumBufferAgeKey: CFString = "MaximumBufferAge"
/// Auxiliary attribute for `CVPixelBufferPoolCreatePixelBufferWithAuxAttributes`: the most buffers the pool may
/// have allocated at once; past it creation returns `kCVReturnWouldExceedAllocationThreshold`.
public let kCVPixelBufferPoolAllocationThresholdKey: CFString = "AllocationThreshold"

// MARK: Buffer attributes

/// In an attribute dictionary, attachments each created buffer gets in `.shouldPropagate` mode.
public let kCVBufferPropagatedAttachmentsKey: CFString = "PropagatedAttachments"
/// In an attribute dictionary, attachments each created buffer gets in `.shouldNotPropagate` mode.
public let kCVBufferNonPropagatedAttachmentsKey: CFString = "NonPropagatedAttachments"
