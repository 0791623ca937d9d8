import Foundation
import OAVFLocking

/// A rendering context, as CGL's `CGLContextObj`: here the EGL or GLX context pointer (`eglGetCurrentContext()`,
/// `glXGetCurrentContext()`), as ``CGLGetCurrentContext()`` returns it.
public typealias CGLContextObj = OpaquePointer
/// A pixel format object, as CGL's `CGLPixelFormatObj`: accepted and ignored (the context's own format is used).
public typealias CGLPixelFormatObj = OpaquePointer

/// The rendering context current on this thread, as CGL's `CGLGetCurrentContext()`: the EGL context, else the GLX
/// context; nil when none is current (or no GL library is installed).
public func CGLGetCurrentContext() -> CGLContextObj? {
    GLFunctions.shared?.currentContext
}

/// An OpenGL ES rendering context, as `EAGLContext` is passed to ``CVOpenGLESTextureCacheCreate(_:_:_:_:_:)``: here
/// the EGL context pointer (`CGLGetCurrentContext()`).
public typealias EAGLContext = OpaquePointer

/// One plane of a pixel buffer as a GL texture, as Apple's `CVOpenGLTexture` (macOS) / `CVOpenGLESTexture` (iOS,
/// the same type here): a `GL_TEXTURE_2D` named ``CVOpenGLTextureGetName(_:)``, valid in the context (or share
/// group) it was made in.
///
/// Differs from Apple: a class of its own, not a `CVImageBuffer`. Releasing it gives its GL texture back to its cache
/// (no GL call: any thread may release it); the cache reuses it for the next picture of the same size and format
/// (`glTexSubImage2D`) or deletes it in ``CVOpenGLTextureCacheFlush(_:_:)``.
public final class CVOpenGLTexture: @unchecked Sendable {
    /// The texture's name; the cache's until this object goes.
    let name: GLuint
    /// What the name holds (the reuse key).
    let shape: CVOpenGLTextureCache.Shape
    /// The cache the texture returns to.
    private let cache: CVOpenGLTextureCache

    init(name: GLuint, shape: CVOpenGLTextureCache.Shape, cache: CVOpenGLTextureCache) {
        self.name = name
        self.shape = shape
        self.cache = cache
    }

    /// Gives the texture back to the cache (no GL call).
    deinit {
        cache.recycle(name, shape)
    }
}

/// The iOS spelling of ``CVOpenGLTexture`` (Apple's `CVOpenGLESTexture`): the same type here.
public typealias CVOpenGLESTexture = CVOpenGLTexture

/// Turns pixel buffers into GL textures in the context the app made current, as Apple's `CVOpenGLTextureCache`
/// (macOS) and `CVOpenGLESTextureCache` (iOS, the same type here), over EGL or GLX with desktop GL or GLES 3.
///
/// A texture per plane: ``CVOpenGLESTextureCacheCreateTextureFromImage(_:_:_:_:_:_:_:_:_:_:_:_:)`` takes a plane
/// index as Apple's does — for bi-planar 4:2:0 (`'420v'`, `'420f'`) plane 0 is luma (`GL_R8`, `GL_RED`) and plane 1
/// the interleaved chroma (`GL_RG8`, `GL_RG`, half size), for the app's YCbCr shader; for 10-bit bi-planar 4:2:0
/// (`'x420'`, `'xf20'`: P010) the same with 16-bit normalised planes (`GL_R16`, `GL_RG16` of `GL_UNSIGNED_SHORT`;
/// multiply by 65535 / 64 for the 10-bit code). Desktop GL 3.0 has those formats; OpenGL ES needs
/// `GL_EXT_texture_norm16` (Mesa 22.3.6's llvmpipe has it: any ES 3 context there is ES 3.2), and without it the
/// upload fails with `kCVReturnError`. The macOS form ``CVOpenGLTextureCacheCreateTextureFromImage(_:_:_:_:_:)``
/// makes plane 0 (the whole picture for packed formats: `'BGRA'` as `GL_RGBA8` from `GL_BGRA`, `'RGBA'`, `'L008'`
/// as `GL_R8`).
///
/// GL contract:
/// - It never makes a context current: every function that touches GL works in the context current on the calling
///   thread and fails with `kCVReturnInvalidArgument` when none is. Textures belong to that context's share group.
/// - Each upload binds its texture to `GL_TEXTURE_2D` of the active texture unit, sets `GL_UNPACK_ALIGNMENT` 1,
///   `GL_UNPACK_ROW_LENGTH`, `GL_UNPACK_SKIP_ROWS` / `SKIP_PIXELS` 0, unbinds `GL_PIXEL_UNPACK_BUFFER`, and puts every
///   one of those back as it found it. It sets linear filtering and clamp-to-edge wrapping on its own textures only.
///   It reads `glGetError` after uploading (clearing errors the app left pending).
/// - Uploads copy from CPU memory: a texture of the same size and format given back earlier is refilled with
///   `glTexSubImage2D`; otherwise one is made with `glTexImage2D`. GL objects live only as textures the app holds
///   or textures given back and kept for reuse; ``CVOpenGLTextureCacheFlush(_:_:)`` deletes the latter (call it
///   with the context current before letting the cache go: a cache released without it leaves them to the
///   context's destruction, as it cannot make GL calls from `deinit`).
///
/// GL's types appear by value (`GLenum` and `GLuint` are `UInt32`, `GLint` and `GLsizei` `Int32`): CoreVideo
/// declares none that could clash with the app's GL module.
///
/// Thread safety: the functions may be called from any thread that has the context current; the cache's own
/// bookkeeping is locked.
public final class CVOpenGLTextureCache: @unchecked Sendable {
    /// A texture's size and format: textures of one shape are interchangeable.
    struct Shape: Hashable {
        var width: Int
        var height: Int
        var internalFormat: GLint
        var format: GLenum
        var type: GLenum
    }

    /// The context current when the cache was made (nil: none was).
    let context: OpaquePointer?
    /// Guards `free`. Any thread that makes or releases textures. No engine here.
    private let lock = ConditionLock()
    /// Textures given back, by shape, ready for reuse.
    private var free: [Shape: [GLuint]] = [:]

    init(context: OpaquePointer?) {
        self.context = context
    }

    /// Takes back a released texture's name (any thread; no GL call).
    func recycle(_ name: GLuint, _ shape: Shape) {
        lock.withLock { free[shape, default: []].append(name) }
    }

    /// A free texture of `shape`, if one was given back.
    private func reusable(_ shape: Shape) -> GLuint? {
        lock.withLock { free[shape]?.popLast() }
    }

    /// Deletes the textures given back (the context must be current).
    func flush(_ gl: GLFunctions) {
        let names = lock.withLock {
            defer { free = [:] }
            return free.values.flatMap { $0 }
        }
        guard !names.isEmpty else { return }
        names.withUnsafeBufferPointer { gl.deleteTextures(GLsizei(names.count), $0.baseAddress!) }
    }

    /// How many textures wait for reuse (tests).
    var freeTextureCount: Int { lock.withLock { free.values.reduce(0) { $0 + $1.count } } }

    /// The GL format of plane `plane` of `buffer`: (internal format, format, type, bytes per pixel); nil when the
    /// plane cannot be a texture. 10-bit bi-planar planes (`'x420'`, P010) are 16-bit normalised textures (`GL_R16`,
    /// `GL_RG16` of `GL_UNSIGNED_SHORT`): a sample reads as its 16-bit word / 65535, the 10-bit value in the high
    /// bits.
    static func glFormat(of buffer: CVPixelBuffer, plane: Int) -> (GLint, GLenum, GLenum, Int)? {
        let type = CVPixelBufferGetPixelFormatType(buffer)
        switch type {
        case kCVPixelFormatType_32BGRA:
            return plane == 0 ? (GLConstant.rgba8, GLConstant.bgra, GLConstant.unsignedByte, 4) : nil
        case kCVPixelFormatType_32RGBA:
            return plane == 0 ? (GLConstant.rgba8, GLConstant.rgba, GLConstant.unsignedByte, 4) : nil
        default: break
        }
        guard let layout = PixelFormatLayout.forPixelFormatType(type), plane < layout.planes.count,
            layout.planes[plane].blockWidth == 1
        else { return nil }
        switch (layout.bitsPerComponent, layout.planes[plane].bytesPerBlock) {
        case (8, 1): return (GLConstant.r8, GLConstant.red, GLConstant.unsignedByte, 1)
        case (8, 2) where layout.isPlanar: return (GLConstant.rg8, GLConstant.rg, GLConstant.unsignedByte, 2)
        case (10, 2) where layout.isPlanar: return (GLConstant.r16, GLConstant.red, GLConstant.unsignedShort, 2)
        case (10, 4) where layout.isPlanar: return (GLConstant.rg16, GLConstant.rg, GLConstant.unsignedShort, 4)
        default: return nil
        }
    }

    /// Uploads plane `plane` of `buffer` into a texture (reused or new) in the current context.
    func makeTexture(from buffer: CVPixelBuffer, plane: Int) -> (CVReturn, CVOpenGLTexture?) {
        guard let gl = GLFunctions.shared, gl.currentContext != nil else { return (kCVReturnInvalidArgument, nil) }
        let planeCount = CVPixelBufferGetPlaneCount(buffer)
        guard plane >= 0, plane < max(1, planeCount),
            let (internalFormat, format, type, bytesPerPixel) = Self.glFormat(of: buffer, plane: plane)
        else { return (kCVReturnPixelBufferNotOpenGLCompatible, nil) }
        let planar = planeCount > 0
        let width = planar ? CVPixelBufferGetWidthOfPlane(buffer, plane) : CVPixelBufferGetWidth(buffer)
        let height = planar ? CVPixelBufferGetHeightOfPlane(buffer, plane) : CVPixelBufferGetHeight(buffer)
        let rowBytes = planar ? CVPixelBufferGetBytesPerRowOfPlane(buffer, plane) : CVPixelBufferGetBytesPerRow(buffer)
        guard width > 0, height > 0, rowBytes % bytesPerPixel == 0 else {
            return (kCVReturnPixelBufferNotOpenGLCompatible, nil)
        }
        let shape = Shape(width: width, height: height, internalFormat: internalFormat, format: format, type: type)

        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        guard
            let base = planar ? CVPixelBufferGetBaseAddressOfPlane(buffer, plane) : CVPixelBufferGetBaseAddress(buffer)
        else { return (kCVReturnInvalidPixelBufferAttributes, nil) }

        // The state the upload changes, to put back.
        func integer(_ name: GLenum) -> GLint {
            var value: GLint = 0
            gl.getIntegerv(name, &value)
            return value
        }
        let saved = (
            binding: integer(GLConstant.textureBinding2D), alignment: integer(GLConstant.unpackAlignment),
            rowLength: integer(GLConstant.unpackRowLength), skipRows: integer(GLConstant.unpackSkipRows),
            skipPixels: integer(GLConstant.unpackSkipPixels),
            unpackBuffer: gl.bindBuffer == nil ? 0 : integer(GLConstant.pixelUnpackBufferBinding)
        )
        if saved.unpackBuffer != 0 { gl.bindBuffer?(GLConstant.pixelUnpackBuffer, 0) }
        gl.pixelStorei(GLConstant.unpackAlignment, 1)
        gl.pixelStorei(GLConstant.unpackRowLength, GLint(rowBytes / bytesPerPixel))
        gl.pixelStorei(GLConstant.unpackSkipRows, 0)
        gl.pixelStorei(GLConstant.unpackSkipPixels, 0)

        let name: GLuint
        if let reused = reusable(shape) {
            name = reused
            gl.bindTexture(GLConstant.texture2D, name)
            gl.texSubImage2D(
                GLConstant.texture2D, 0, 0, 0, GLsizei(width), GLsizei(height), format, type, base)
        } else {
            var made: GLuint = 0
            gl.genTextures(1, &made)
            name = made
            gl.bindTexture(GLConstant.texture2D, name)
            gl.texParameteri(GLConstant.texture2D, GLConstant.textureMinFilter, GLConstant.linear)
            gl.texParameteri(GLConstant.texture2D, GLConstant.textureMagFilter, GLConstant.linear)
            gl.texParameteri(GLConstant.texture2D, GLConstant.textureWrapS, GLConstant.clampToEdge)
            gl.texParameteri(GLConstant.texture2D, GLConstant.textureWrapT, GLConstant.clampToEdge)
            gl.texImage2D(
                GLConstant.texture2D, 0, internalFormat, GLsizei(width), GLsizei(height), 0, format, type, base)
        }
        let error = gl.getError()

        gl.bindTexture(GLConstant.texture2D, GLuint(bitPattern: saved.binding))
        gl.pixelStorei(GLConstant.unpackAlignment, saved.alignment)
        gl.pixelStorei(GLConstant.unpackRowLength, saved.rowLength)
        gl.pixelStorei(GLConstant.unpackSkipRows, saved.skipRows)
        gl.pixelStorei(GLConstant.unpackSkipPixels, saved.skipPixels)
        if saved.unpackBuffer != 0 {
            gl.bindBuffer?(GLConstant.pixelUnpackBuffer, GLuint(bitPattern: saved.unpackBuffer))
        }

        guard error == GLConstant.noError else {
            withUnsafePointer(to: name) { gl.deleteTextures(1, $0) }
            return (kCVReturnError, nil)
        }
        return (kCVReturnSuccess, CVOpenGLTexture(name: name, shape: shape, cache: self))
    }
}

/// The iOS spelling of ``CVOpenGLTextureCache`` (Apple's `CVOpenGLESTextureCache`): the same type here.
public typealias CVOpenGLESTextureCache = CVOpenGLTextureCache

// MARK: - macOS functions

/// Creates a texture cache, as Apple's `CVOpenGLTextureCacheCreate`: `kCVReturnSuccess`, or `kCVReturnUnsupported`
/// when no OpenGL library is installed.
///
/// Differs from Apple: the context is the EGL or GLX one (``CGLGetCurrentContext()``; nil: the one current at each
/// call) and the pixel format is ignored; no GL call is made here. The attribute dictionaries are ignored.
@discardableResult
public func CVOpenGLTextureCacheCreate(
    _ allocator: CFAllocator?, _ cacheAttributes: CFDictionary?, _ cglContext: CGLContextObj?,
    _ cglPixelFormat: CGLPixelFormatObj?, _ textureAttributes: CFDictionary?,
    _ cacheOut: UnsafeMutablePointer<CVOpenGLTextureCache?>
) -> CVReturn {
    guard GLFunctions.shared != nil else {
        cacheOut.pointee = nil
        return kCVReturnUnsupported
    }
    cacheOut.pointee = CVOpenGLTextureCache(context: cglContext)
    return kCVReturnSuccess
}

/// Makes a texture of `sourceImage` (its plane 0: the whole picture for packed formats, luma for YCbCr) in the
/// context current on this thread, as Apple's `CVOpenGLTextureCacheCreateTextureFromImage`. For the other planes of
/// bi-planar YCbCr use ``CVOpenGLESTextureCacheCreateTextureFromImage(_:_:_:_:_:_:_:_:_:_:_:_:)``.
///
/// `kCVReturnInvalidArgument` when no context is current; `kCVReturnPixelBufferNotOpenGLCompatible` for a format
/// with no texture form (4:2:2 packed, 10-bit other than bi-planar); `kCVReturnError` when GL refused the upload
/// (an OpenGL ES context without `GL_EXT_texture_norm16` for `'x420'`).
@discardableResult
public func CVOpenGLTextureCacheCreateTextureFromImage(
    _ allocator: CFAllocator?, _ textureCache: CVOpenGLTextureCache, _ sourceImage: CVImageBuffer,
    _ attributes: CFDictionary?, _ textureOut: UnsafeMutablePointer<CVOpenGLTexture?>
) -> CVReturn {
    let (status, texture) = textureCache.makeTexture(from: sourceImage, plane: 0)
    textureOut.pointee = texture
    return status
}

/// The texture's target, as Apple's `CVOpenGLTextureGetTarget`: always `GL_TEXTURE_2D` here (Apple's macOS cache
/// gives `GL_TEXTURE_RECTANGLE`; coordinates here are normalised 0…1).
public func CVOpenGLTextureGetTarget(_ image: CVOpenGLTexture) -> UInt32 {
    GLConstant.texture2D
}

/// The texture's name, as Apple's `CVOpenGLTextureGetName`.
public func CVOpenGLTextureGetName(_ image: CVOpenGLTexture) -> UInt32 {
    image.name
}

/// Whether the texture's rows run bottom to top, as Apple's `CVOpenGLTextureIsFlipped`: false — row 0 of the
/// texture is the picture's top row (sample it with t = 0 at the top).
public func CVOpenGLTextureIsFlipped(_ image: CVOpenGLTexture) -> Bool {
    false
}

/// Deletes the textures given back to the cache, as Apple's `CVOpenGLTextureCacheFlush` (the options are
/// ignored). Needs the cache's context current; with none current it does nothing.
public func CVOpenGLTextureCacheFlush(_ textureCache: CVOpenGLTextureCache, _ options: CVOptionFlags) {
    guard let gl = GLFunctions.shared, gl.currentContext != nil else { return }
    textureCache.flush(gl)
}

// MARK: - iOS functions

/// Creates a texture cache, as Apple's `CVOpenGLESTextureCacheCreate`; see ``CVOpenGLTextureCacheCreate(_:_:_:_:_:_:)``
/// (the context is the EGL one; nil: the one current at each call).
@discardableResult
public func CVOpenGLESTextureCacheCreate(
    _ allocator: CFAllocator?, _ cacheAttributes: CFDictionary?, _ eaglContext: EAGLContext?,
    _ textureAttributes: CFDictionary?, _ cacheOut: UnsafeMutablePointer<CVOpenGLESTextureCache?>
) -> CVReturn {
    CVOpenGLTextureCacheCreate(allocator, cacheAttributes, eaglContext, nil, textureAttributes, cacheOut)
}

/// Makes a texture of plane `planeIndex` of `sourceImage` in the context current on this thread, as Apple's
/// `CVOpenGLESTextureCacheCreateTextureFromImage`: for bi-planar 4:2:0, plane 0 is luma (`GL_R8` / `GL_RED`) and
/// plane 1 the chroma pairs (`GL_RG8` / `GL_RG`) at half width and height; for 10-bit bi-planar 4:2:0 (`'x420'`)
/// `GL_R16` / `GL_RG16` of `GL_UNSIGNED_SHORT` (OpenGL ES: with `GL_EXT_texture_norm16`).
///
/// `target` must be `GL_TEXTURE_2D`, and `width` / `height` the plane's; the internal format, format and type the
/// cache picks for the plane are used whatever is passed (Apple's `GL_LUMINANCE` / `GL_LUMINANCE_ALPHA` choices map
/// to `GL_RED` / `GL_RG`). Errors as ``CVOpenGLTextureCacheCreateTextureFromImage(_:_:_:_:_:)``, and
/// `kCVReturnInvalidArgument` for another target or size.
@discardableResult
public func CVOpenGLESTextureCacheCreateTextureFromImage(
    _ allocator: CFAllocator?, _ textureCache: CVOpenGLESTextureCache, _ sourceImage: CVImageBuffer,
    _ textureAttributes: CFDictionary?, _ target: UInt32, _ internalFormat: Int32, _ width: Int32,
    _ height: Int32, _ format: UInt32, _ type: UInt32, _ planeIndex: Int,
    _ textureOut: UnsafeMutablePointer<CVOpenGLESTexture?>
) -> CVReturn {
    textureOut.pointee = nil
    let planar = CVPixelBufferGetPlaneCount(sourceImage) > 0
    let planeWidth = planar ? CVPixelBufferGetWidthOfPlane(sourceImage, planeIndex) : CVPixelBufferGetWidth(sourceImage)
    let planeHeight =
        planar ? CVPixelBufferGetHeightOfPlane(sourceImage, planeIndex) : CVPixelBufferGetHeight(sourceImage)
    guard target == GLConstant.texture2D, Int(width) == planeWidth, Int(height) == planeHeight else {
        return kCVReturnInvalidArgument
    }
    let (status, texture) = textureCache.makeTexture(from: sourceImage, plane: planeIndex)
    textureOut.pointee = texture
    return status
}

/// The texture's target, as Apple's `CVOpenGLESTextureGetTarget`: `GL_TEXTURE_2D`.
public func CVOpenGLESTextureGetTarget(_ image: CVOpenGLESTexture) -> UInt32 {
    CVOpenGLTextureGetTarget(image)
}

/// The texture's name, as Apple's `CVOpenGLESTextureGetName`.
public func CVOpenGLESTextureGetName(_ image: CVOpenGLESTexture) -> UInt32 {
    CVOpenGLTextureGetName(image)
}

/// Deletes the textures given back to the cache, as Apple's `CVOpenGLESTextureCacheFlush`; see
/// ``CVOpenGLTextureCacheFlush(_:_:)``.
public func CVOpenGLESTextureCacheFlush(_ textureCache: CVOpenGLESTextureCache, _ options: CVOptionFlags) {
    CVOpenGLTextureCacheFlush(textureCache, options)
}
