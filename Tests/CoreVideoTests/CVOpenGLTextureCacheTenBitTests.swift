import Foundation
import XCTest

@testable import CoreVideo

/// 10-bit bi-planar 4:2:0 (`'x420'`, P010) through the texture cache: a 16-bit normalised texture per plane
/// (`GL_R16` luma, `GL_RG16` CbCr pairs at half size), read back word for word, in a surfaceless desktop-GL context
/// on Mesa.
final class CVOpenGLTextureCacheTenBitTests: XCTestCase {
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

    /// The 10-bit code of component `c` of plane pixel (x, y) of plane `p`.
    private static func code(_ p: Int, _ x: Int, _ y: Int, _ c: Int) -> UInt16 {
        UInt16((x * 13 + y * 29 + p * 300 + c * 500) % 1024)
    }

    func test_x420_givesSixteenBitPlanes_holdingTheTenBitCodesOnTop() throws {
        var out: CVPixelBuffer?
        XCTAssertEqual(
            CVPixelBufferCreate(nil, 64, 48, kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, nil, &out),
            kCVReturnSuccess)
        let buffer = try XCTUnwrap(out)
        CVPixelBufferLockBaseAddress(buffer, [])
        for p in 0..<2 {
            let base = try XCTUnwrap(CVPixelBufferGetBaseAddressOfPlane(buffer, p))
            let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, p)
            for y in 0..<CVPixelBufferGetHeightOfPlane(buffer, p) {
                for x in 0..<CVPixelBufferGetWidthOfPlane(buffer, p) {
                    for c in 0..<(p == 0 ? 1 : 2) {
                        let word = (Self.code(p, x, y, c) << 6).littleEndian
                        base.storeBytes(of: word, toByteOffset: y * stride + (x * (p + 1) + c) * 2, as: UInt16.self)
                    }
                }
            }
        }
        CVPixelBufferUnlockBaseAddress(buffer, [])

        var cache: CVOpenGLESTextureCache?
        XCTAssertEqual(CVOpenGLESTextureCacheCreate(nil, nil, CGLGetCurrentContext(), nil, &cache), kCVReturnSuccess)
        let textureCache = try XCTUnwrap(cache)
        var luma: CVOpenGLESTexture?
        var chroma: CVOpenGLESTexture?
        XCTAssertEqual(
            CVOpenGLESTextureCacheCreateTextureFromImage(
                nil, textureCache, buffer, nil, GLConstant.texture2D, GLConstant.r16, 64, 48, GLConstant.red,
                GLConstant.unsignedShort, 0, &luma), kCVReturnSuccess)
        XCTAssertEqual(
            CVOpenGLESTextureCacheCreateTextureFromImage(
                nil, textureCache, buffer, nil, GLConstant.texture2D, GLConstant.rg16, 32, 24, GLConstant.rg,
                GLConstant.unsignedShort, 1, &chroma), kCVReturnSuccess)
        // The macOS form makes plane 0, the 16-bit luma, too.
        var plane0: CVOpenGLTexture?
        XCTAssertEqual(
            CVOpenGLTextureCacheCreateTextureFromImage(nil, textureCache, buffer, nil, &plane0), kCVReturnSuccess)

        func words(
            _ texture: CVOpenGLESTexture?, width: Int, height: Int, format: GLenum, components: Int
        ) throws
            -> [UInt16]
        {
            let bytes = gl.read(
                CVOpenGLESTextureGetName(try XCTUnwrap(texture)), width: width, height: height, format: format,
                type: GLConstant.unsignedShort, bytesPerPixel: 2 * components, functions)
            return stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8 }
        }
        func expected(plane p: Int, width: Int, height: Int, components: Int) -> [UInt16] {
            (0..<height).flatMap { y in
                (0..<width).flatMap { x in (0..<components).map { Self.code(p, x, y, $0) << 6 } }
            }
        }
        XCTAssertEqual(
            try words(luma, width: 64, height: 48, format: GLConstant.red, components: 1),
            expected(plane: 0, width: 64, height: 48, components: 1), "luma")
        XCTAssertEqual(
            try words(chroma, width: 32, height: 24, format: GLConstant.rg, components: 2),
            expected(plane: 1, width: 32, height: 24, components: 2), "CbCr pairs")
        XCTAssertEqual(
            try words(plane0, width: 64, height: 48, format: GLConstant.red, components: 1),
            expected(plane: 0, width: 64, height: 48, components: 1), "plane 0 through the macOS form")
        luma = nil
        chroma = nil
        plane0 = nil
        CVOpenGLESTextureCacheFlush(textureCache, 0)
        XCTAssertEqual(textureCache.freeTextureCount, 0)
    }
}
