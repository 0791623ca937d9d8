// Apple's Metal and IOSurface bridges of pixel buffers, declared with Apple's spelling so that a port gets a clear
// compile-time message: Linux has neither Metal nor IOSurface. (The attribute keys `kCVPixelBufferMetalCompatibilityKey`
// and `kCVPixelBufferIOSurfacePropertiesKey` are accepted and ignored.)

/// Apple's cache of Metal textures made from pixel buffers. Unavailable: no Metal on Linux.
@available(*, unavailable, message: "Metal does not exist on Linux; read pixels with CVPixelBufferLockBaseAddress")
public final class CVMetalTextureCache {}

/// Apple's Metal texture backed by a pixel buffer. Unavailable: no Metal on Linux.
@available(*, unavailable, message: "Metal does not exist on Linux; read pixels with CVPixelBufferLockBaseAddress")
public final class CVMetalTexture {}

/// Apple's IOSurface behind a pixel buffer. Unavailable: no IOSurface on Linux.
@available(*, unavailable, message: "IOSurface does not exist on Linux; read pixels with CVPixelBufferLockBaseAddress")
public func CVPixelBufferGetIOSurface(_ pixelBuffer: CVPixelBuffer?) -> Never? { nil }
