import Foundation
import OAVFLocking
import XCTest

@testable import CoreVideo

#if canImport(Glibc)
import Glibc
#endif

/// A headless desktop-GL context for tests: EGL on Mesa's surfaceless platform (llvmpipe, no X server), made
/// current on the creating thread; the GL calls tests need to read textures back.
final class SurfacelessGLContext {
    typealias GetProcAddress = @convention(c) (UnsafePointer<CChar>) -> UnsafeMutableRawPointer?
    typealias GetPlatformDisplay =
        @convention(c) (UInt32, UnsafeMutableRawPointer?, UnsafePointer<Int32>?) ->
        OpaquePointer?
    typealias Initialize =
        @convention(c) (OpaquePointer?, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?)
        -> UInt32
    typealias BindAPI = @convention(c) (UInt32) -> UInt32
    typealias ChooseConfig =
        @convention(c) (
            OpaquePointer?, UnsafePointer<Int32>, UnsafeMutablePointer<OpaquePointer?>, Int32,
            UnsafeMutablePointer<Int32>
        ) -> UInt32
    typealias CreateContext =
        @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafePointer<Int32>?)
        -> OpaquePointer?
    typealias MakeCurrent = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, OpaquePointer?) -> UInt32
    typealias DestroyContext = @convention(c) (OpaquePointer?, OpaquePointer?) -> UInt32
    typealias GetTexImage = @convention(c) (UInt32, Int32, UInt32, UInt32, UnsafeMutableRawPointer) -> Void
    typealias PixelStorei = @convention(c) (UInt32, Int32) -> Void
    typealias IsTexture = @convention(c) (UInt32) -> UInt8

    let display: OpaquePointer
    let context: OpaquePointer
    let makeCurrent: MakeCurrent
    let destroyContext: DestroyContext
    let getTexImage: GetTexImage
    let pixelStorei: PixelStorei
    let isTexture: IsTexture

    init?() {
        guard let eglHandle = dlopen("libEGL.so.1", RTLD_NOW | RTLD_GLOBAL),
            let gl = dlopen("libOpenGL.so.0", RTLD_NOW | RTLD_GLOBAL) ?? dlopen("libGL.so.1", RTLD_NOW | RTLD_GLOBAL),
            let procAddress = dlsym(eglHandle, "eglGetProcAddress").map({ unsafeBitCast($0, to: GetProcAddress.self) })
        else { return nil }
        func egl<T>(_ name: String, _ type: T.Type) -> T? {
            (dlsym(eglHandle, name) ?? procAddress(name)).map { unsafeBitCast($0, to: type) }
        }
        func glSymbol<T>(_ name: String, _ type: T.Type) -> T? { dlsym(gl, name).map { unsafeBitCast($0, to: type) } }
        guard let platformDisplay = egl("eglGetPlatformDisplayEXT", GetPlatformDisplay.self),
            let initialize = egl("eglInitialize", Initialize.self), let bindAPI = egl("eglBindAPI", BindAPI.self),
            let chooseConfig = egl("eglChooseConfig", ChooseConfig.self),
            let createContext = egl("eglCreateContext", CreateContext.self),
            let makeCurrent = egl("eglMakeCurrent", MakeCurrent.self),
            let destroyContext = egl("eglDestroyContext", DestroyContext.self),
            let getTexImage = glSymbol("glGetTexImage", GetTexImage.self),
            let pixelStorei = glSymbol("glPixelStorei", PixelStorei.self),
            let isTexture = glSymbol("glIsTexture", IsTexture.self)
        else { return nil }
        let surfacelessMesa: UInt32 = 0x31DD
        guard let display = platformDisplay(surfacelessMesa, nil, nil), initialize(display, nil, nil) != 0,
            bindAPI(0x30A2 /* EGL_OPENGL_API */) != 0
        else { return nil }
        // EGL_SURFACE_TYPE: EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE: EGL_OPENGL_BIT
        let attributes: [Int32] = [0x3033, 0x0001, 0x3040, 0x0008, 0x3038]
        var config: OpaquePointer?
        var count: Int32 = 0
        _ = chooseConfig(display, attributes, &config, 1, &count)
        guard let context = createContext(display, count > 0 ? config : nil, nil, nil),
            makeCurrent(display, nil, nil, context) != 0
        else { return nil }
        (self.display, self.context, self.makeCurrent, self.destroyContext) =
            (display, context, makeCurrent, destroyContext)
        (self.getTexImage, self.pixelStorei, self.isTexture) = (getTexImage, pixelStorei, isTexture)
    }

    /// Releases the context from this thread and destroys it.
    func close() {
        _ = makeCurrent(display, nil, nil, nil)
        _ = destroyContext(display, context)
    }

    /// The bytes of `texture` (level 0) read back as `format` and `type` (`GL_RED` 1, `GL_RG` 2, `GL_BGRA` 4 bytes a
    /// pixel of `GL_UNSIGNED_BYTE`; twice that of `GL_UNSIGNED_SHORT`).
    func read(
        _ texture: GLuint, width: Int, height: Int, format: GLenum, type: GLenum = GLConstant.unsignedByte,
        bytesPerPixel: Int, _ gl: GLFunctions
    )
        -> [UInt8]
    {
        var previous: GLint = 0
        gl.getIntegerv(GLConstant.textureBinding2D, &previous)
        gl.bindTexture(GLConstant.texture2D, texture)
        pixelStorei(0x0D05 /* GL_PACK_ALIGNMENT */, 1)
        var bytes = [UInt8](repeating: 0, count: width * height * bytesPerPixel)
        bytes.withUnsafeMutableBytes {
            getTexImage(GLConstant.texture2D, 0, format, type, $0.baseAddress!)
        }
        gl.bindTexture(GLConstant.texture2D, GLuint(bitPattern: previous))
        return bytes
    }
}

final class CVOpenGLTextureCacheTests: XCTestCase {
    private var gl: SurfacelessGLContext!
    private var functions: GLFunctions!

    override func setUpWithError() throws {
        guard let context = SurfacelessGLContext() else {
            throw XCTSkip("no EGL surfaceless platform (Mesa) to make a GL context with")
        }
        gl = context
        functions = try XCTUnwrap(GLFunctions.shared)
    }

    override func tearDown() {
        gl?.close()
        gl = nil
    }

    /// A `format` buffer whose plane bytes follow `value(plane, x, y, byte)`.
    private func makeBuffer(
        _ format: OSType, width: Int = 64, height: Int = 48, _ value: (Int, Int, Int, Int) -> UInt8
    ) throws -> CVPixelBuffer {
        var out: CVPixelBuffer?
        XCTAssertEqual(CVPixelBufferCreate(nil, width, height, format, nil, &out), kCVReturnSuccess)
        let buffer = try XCTUnwrap(out)
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        let planes = max(1, CVPixelBufferGetPlaneCount(buffer))
        for p in 0..<planes {
            let planar = CVPixelBufferGetPlaneCount(buffer) > 0
            let base = try XCTUnwrap(
                planar ? CVPixelBufferGetBaseAddressOfPlane(buffer, p) : CVPixelBufferGetBaseAddress(buffer))
            let w = planar ? CVPixelBufferGetWidthOfPlane(buffer, p) : width
            let h = planar ? CVPixelBufferGetHeightOfPlane(buffer, p) : height
            let stride = planar ? CVPixelBufferGetBytesPerRowOfPlane(buffer, p) : CVPixelBufferGetBytesPerRow(buffer)
            let bpp = format == kCVPixelFormatType_32BGRA ? 4 : (p == 0 ? 1 : 2)
            for y in 0..<h {
                let row = base.advanced(by: y * stride).assumingMemoryBound(to: UInt8.self)
                for x in 0..<w {
                    for b in 0..<bpp { row[x * bpp + b] = value(p, x, y, b) }
                }
            }
        }
        return buffer
    }

    private func expected(
        width: Int, height: Int, bytesPerPixel: Int, plane: Int, _ value: (Int, Int, Int, Int) -> UInt8
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                for b in 0..<bytesPerPixel { bytes.append(value(plane, x, y, b)) }
            }
        }
        return bytes
    }

    func test_biPlanar420v_givesATexturePerPlane_andPutsTheAppsStateBack() throws {
        let pattern: (Int, Int, Int, Int) -> UInt8 = { p, x, y, b in UInt8((x * 3 + y * 7 + p * 50 + b * 90) & 0xFF) }
        let buffer = try makeBuffer(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, pattern)
        var cache: CVOpenGLESTextureCache?
        XCTAssertEqual(CVOpenGLESTextureCacheCreate(nil, nil, CGLGetCurrentContext(), nil, &cache), kCVReturnSuccess)
        let textureCache = try XCTUnwrap(cache)
        XCTAssertNotNil(CGLGetCurrentContext())

        // The app's own state: a texture bound, unpack alignment 8.
        var own: GLuint = 0
        functions.genTextures(1, &own)
        functions.bindTexture(GLConstant.texture2D, own)
        functions.pixelStorei(GLConstant.unpackAlignment, 8)

        var luma: CVOpenGLESTexture?
        var chroma: CVOpenGLESTexture?
        XCTAssertEqual(
            CVOpenGLESTextureCacheCreateTextureFromImage(
                nil, textureCache, buffer, nil, GLConstant.texture2D, GLConstant.r8, 64, 48, GLConstant.red,
                GLConstant.unsignedByte, 0, &luma), kCVReturnSuccess)
        XCTAssertEqual(
            CVOpenGLESTextureCacheCreateTextureFromImage(
                nil, textureCache, buffer, nil, GLConstant.texture2D, GLConstant.rg8, 32, 24, GLConstant.rg,
                GLConstant.unsignedByte, 1, &chroma), kCVReturnSuccess)
        let y = try XCTUnwrap(luma)
        let c = try XCTUnwrap(chroma)
        XCTAssertEqual(CVOpenGLESTextureGetTarget(y), GLConstant.texture2D)
        XCTAssertNotEqual(CVOpenGLESTextureGetName(y), CVOpenGLESTextureGetName(c))

        var binding: GLint = 0
        functions.getIntegerv(GLConstant.textureBinding2D, &binding)
        XCTAssertEqual(GLuint(binding), own, "the app's binding is back")
        var alignment: GLint = 0
        functions.getIntegerv(GLConstant.unpackAlignment, &alignment)
        XCTAssertEqual(alignment, 8, "the app's unpack alignment is back")

        XCTAssertEqual(
            gl.read(
                CVOpenGLESTextureGetName(y), width: 64, height: 48, format: GLConstant.red, bytesPerPixel: 1, functions),
            expected(width: 64, height: 48, bytesPerPixel: 1, plane: 0, pattern), "luma plane")
        XCTAssertEqual(
            gl.read(
                CVOpenGLESTextureGetName(c), width: 32, height: 24, format: GLConstant.rg, bytesPerPixel: 2, functions),
            expected(width: 32, height: 24, bytesPerPixel: 2, plane: 1, pattern), "CbCr plane")

        // A wrong plane size or target is refused.
        var wrong: CVOpenGLESTexture?
        XCTAssertEqual(
            CVOpenGLESTextureCacheCreateTextureFromImage(
                nil, textureCache, buffer, nil, GLConstant.texture2D, GLConstant.rg8, 64, 48, GLConstant.rg,
                GLConstant.unsignedByte, 1, &wrong), kCVReturnInvalidArgument)
        XCTAssertNil(wrong)
        withUnsafePointer(to: own) { functions.deleteTextures(1, $0) }
    }

    func test_releasedTexturesAreRefilled_andFlushDeletesThem() throws {
        var cache: CVOpenGLTextureCache?
        XCTAssertEqual(CVOpenGLTextureCacheCreate(nil, nil, CGLGetCurrentContext(), nil, nil, &cache), kCVReturnSuccess)
        let textureCache = try XCTUnwrap(cache)
        let first: (Int, Int, Int, Int) -> UInt8 = { _, x, y, b in UInt8((x + y + b * 60) & 0xFF) }
        let second: (Int, Int, Int, Int) -> UInt8 = { _, x, y, b in UInt8((x * 5 + y * 2 + b) & 0xFF) }
        var texture: CVOpenGLTexture?
        XCTAssertEqual(
            CVOpenGLTextureCacheCreateTextureFromImage(
                nil, textureCache, try makeBuffer(kCVPixelFormatType_32BGRA, first), nil, &texture),
            kCVReturnSuccess)
        let name = CVOpenGLTextureGetName(try XCTUnwrap(texture))
        XCTAssertFalse(CVOpenGLTextureIsFlipped(texture!))
        XCTAssertEqual(
            gl.read(name, width: 64, height: 48, format: GLConstant.bgra, bytesPerPixel: 4, functions),
            expected(width: 64, height: 48, bytesPerPixel: 4, plane: 0, first))
        texture = nil
        XCTAssertEqual(textureCache.freeTextureCount, 1, "given back, kept for reuse")
        XCTAssertEqual(
            CVOpenGLTextureCacheCreateTextureFromImage(
                nil, textureCache, try makeBuffer(kCVPixelFormatType_32BGRA, second), nil, &texture),
            kCVReturnSuccess)
        XCTAssertEqual(CVOpenGLTextureGetName(texture!), name, "the same texture, refilled")
        XCTAssertEqual(
            gl.read(name, width: 64, height: 48, format: GLConstant.bgra, bytesPerPixel: 4, functions),
            expected(width: 64, height: 48, bytesPerPixel: 4, plane: 0, second))
        // A different size needs a texture of its own.
        var other: CVOpenGLTexture?
        XCTAssertEqual(
            CVOpenGLTextureCacheCreateTextureFromImage(
                nil, textureCache, try makeBuffer(kCVPixelFormatType_32BGRA, width: 32, height: 16, first), nil, &other),
            kCVReturnSuccess)
        XCTAssertNotEqual(CVOpenGLTextureGetName(other!), name)
        texture = nil
        other = nil
        XCTAssertEqual(textureCache.freeTextureCount, 2)
        CVOpenGLTextureCacheFlush(textureCache, 0)
        XCTAssertEqual(textureCache.freeTextureCount, 0)
        XCTAssertEqual(gl.isTexture(name), 0, "deleted by the flush")
    }

    func test_withoutACurrentContext_nothingIsMade() throws {
        var cache: CVOpenGLTextureCache?
        XCTAssertEqual(CVOpenGLTextureCacheCreate(nil, nil, nil, nil, nil, &cache), kCVReturnSuccess)
        let textureCache = try XCTUnwrap(cache)
        let buffer = try makeBuffer(kCVPixelFormatType_32BGRA) { _, _, _, _ in 0 }
        final class Result: @unchecked Sendable {
            let lock = ConditionLock()
            var status: CVReturn = 0
            var made = true
        }
        let result = Result()
        let done = DispatchSemaphore(value: 0)
        // Another thread has no context current.
        let thread = Thread {
            var texture: CVOpenGLTexture?
            let status = CVOpenGLTextureCacheCreateTextureFromImage(nil, textureCache, buffer, nil, &texture)
            result.lock.withLock { (result.status, result.made) = (status, texture != nil) }
            done.signal()
        }
        thread.start()
        done.wait()
        XCTAssertEqual(result.lock.withLock { result.status }, kCVReturnInvalidArgument)
        XCTAssertFalse(result.lock.withLock { result.made })
        // Formats with no texture form are refused.
        var texture: CVOpenGLTexture?
        var packed422: CVPixelBuffer?
        _ = CVPixelBufferCreate(nil, 16, 16, kCVPixelFormatType_422YpCbCr8, nil, &packed422)
        XCTAssertEqual(
            CVOpenGLTextureCacheCreateTextureFromImage(nil, textureCache, try XCTUnwrap(packed422), nil, &texture),
            kCVReturnPixelBufferNotOpenGLCompatible)
    }
}
