import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An OpenGL enumerated value, as `GLenum` (`UInt32`).
typealias GLenum = UInt32
/// An OpenGL object name, as `GLuint` (`UInt32`).
typealias GLuint = UInt32
/// A signed OpenGL integer, as `GLint` (`Int32`).
typealias GLint = Int32
/// An OpenGL size, as `GLsizei` (`Int32`).
typealias GLsizei = Int32

/// The OpenGL entry points the texture cache calls, looked up at run time (`dlsym`), so CoreVideo links no GL
/// library: in the process first (the app's GL loader or libGL), else from libglvnd's `libOpenGL.so.0`, `libGL.so.1`
/// or `libGLESv2.so.2`. The current-context queries come from `libEGL.so.1` and libGL (GLX). libglvnd dispatches
/// every call to the context current on the calling thread, whichever API made it.
struct GLFunctions: @unchecked Sendable {
    typealias GenTextures = @convention(c) (GLsizei, UnsafeMutablePointer<GLuint>) -> Void
    typealias DeleteTextures = @convention(c) (GLsizei, UnsafePointer<GLuint>) -> Void
    typealias BindTexture = @convention(c) (GLenum, GLuint) -> Void
    typealias TexImage2D =
        @convention(c) (
            GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum, UnsafeRawPointer?
        ) -> Void
    typealias TexSubImage2D =
        @convention(c) (
            GLenum, GLint, GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, UnsafeRawPointer?
        ) -> Void
    typealias TexParameteri = @convention(c) (GLenum, GLenum, GLint) -> Void
    typealias PixelStorei = @convention(c) (GLenum, GLint) -> Void
    typealias GetIntegerv = @convention(c) (GLenum, UnsafeMutablePointer<GLint>) -> Void
    typealias GetError = @convention(c) () -> GLenum
    typealias BindBuffer = @convention(c) (GLenum, GLuint) -> Void
    typealias GetCurrentContext = @convention(c) () -> OpaquePointer?

    let genTextures: GenTextures
    let deleteTextures: DeleteTextures
    let bindTexture: BindTexture
    let texImage2D: TexImage2D
    let texSubImage2D: TexSubImage2D
    let texParameteri: TexParameteri
    let pixelStorei: PixelStorei
    let getIntegerv: GetIntegerv
    let getError: GetError
    /// `glBindBuffer` (GL 1.5 / ES 2): used only to lift an app's pixel-unpack buffer during an upload.
    let bindBuffer: BindBuffer?
    /// `eglGetCurrentContext`, when libEGL is there.
    let eglGetCurrentContext: GetCurrentContext?
    /// `glXGetCurrentContext`, when libGL is there.
    let glXGetCurrentContext: GetCurrentContext?

    /// The entry points, looked up once; nil when no GL library can be found.
    static let shared: GLFunctions? = load()

    /// The context current on this thread (EGL's, else GLX's), nil when none is.
    var currentContext: OpaquePointer? {
        eglGetCurrentContext?() ?? glXGetCurrentContext?()
    }

    private static func open(_ names: [String]) -> [UnsafeMutableRawPointer] {
        names.compactMap { dlopen($0, RTLD_LAZY | RTLD_GLOBAL) }
    }

    private static func load() -> GLFunctions? {
        let process = dlopen(nil, RTLD_LAZY)
        let gl = [process].compactMap { $0 } + open(["libOpenGL.so.0", "libGL.so.1", "libGLESv2.so.2"])
        let egl = [process].compactMap { $0 } + open(["libEGL.so.1"])
        let glx = [process].compactMap { $0 } + open(["libGL.so.1"])
        func symbol<T>(_ name: String, in handles: [UnsafeMutableRawPointer], as type: T.Type) -> T? {
            for handle in handles {
                if let pointer = dlsym(handle, name) { return unsafeBitCast(pointer, to: type) }
            }
            return nil
        }
        guard let genTextures = symbol("glGenTextures", in: gl, as: GenTextures.self),
            let deleteTextures = symbol("glDeleteTextures", in: gl, as: DeleteTextures.self),
            let bindTexture = symbol("glBindTexture", in: gl, as: BindTexture.self),
            let texImage2D = symbol("glTexImage2D", in: gl, as: TexImage2D.self),
            let texSubImage2D = symbol("glTexSubImage2D", in: gl, as: TexSubImage2D.self),
            let texParameteri = symbol("glTexParameteri", in: gl, as: TexParameteri.self),
            let pixelStorei = symbol("glPixelStorei", in: gl, as: PixelStorei.self),
            let getIntegerv = symbol("glGetIntegerv", in: gl, as: GetIntegerv.self),
            let getError = symbol("glGetError", in: gl, as: GetError.self)
        else { return nil }
        return GLFunctions(
            genTextures: genTextures, deleteTextures: deleteTextures, bindTexture: bindTexture,
            texImage2D: texImage2D, texSubImage2D: texSubImage2D, texParameteri: texParameteri,
            pixelStorei: pixelStorei, getIntegerv: getIntegerv, getError: getError,
            bindBuffer: symbol("glBindBuffer", in: gl, as: BindBuffer.self),
            eglGetCurrentContext: symbol("eglGetCurrentContext", in: egl, as: GetCurrentContext.self),
            glXGetCurrentContext: symbol("glXGetCurrentContext", in: glx, as: GetCurrentContext.self))
    }
}

/// OpenGL constants the texture cache uses (values from the Khronos headers).
enum GLConstant {
    static let texture2D: GLenum = 0x0DE1
    static let textureBinding2D: GLenum = 0x8069
    static let unpackAlignment: GLenum = 0x0CF5
    static let unpackRowLength: GLenum = 0x0CF2
    static let unpackSkipRows: GLenum = 0x0CF3
    static let unpackSkipPixels: GLenum = 0x0CF4
    static let pixelUnpackBuffer: GLenum = 0x88EC
    static let pixelUnpackBufferBinding: GLenum = 0x88EF
    static let textureMinFilter: GLenum = 0x2801
    static let textureMagFilter: GLenum = 0x2800
    static let textureWrapS: GLenum = 0x2802
    static let textureWrapT: GLenum = 0x2803
    static let linear: GLint = 0x2601
    static let clampToEdge: GLint = 0x812F
    static let unsignedByte: GLenum = 0x1401
    static let unsignedShort: GLenum = 0x1403
    static let red: GLenum = 0x1903
    static let rg: GLenum = 0x8227
    static let rgba: GLenum = 0x1908
    static let bgra: GLenum = 0x80E1
    static let r8: GLint = 0x8229
    static let rg8: GLint = 0x822B
    static let r16: GLint = 0x822A
    static let rg16: GLint = 0x822C
    static let rgba8: GLint = 0x8058
    static let noError: GLenum = 0
}
