import CoreImage
import FFmpegBridge
import Foundation
import ImageIO
import TestSupport
import XCTest

/// CGImage, CGImageDestination (PNG and JPEG through FFmpeg's encoders, decoded back with FFmpeg) and CIImage /
/// CIContext, checked by the frame-index bands drawn into the pictures.
final class CGImageDestinationTests: XCTestCase {
    /// A `width` x `height` opaque RGBA image (bytes R G B X) with `index` drawn as the fixtures' band strip on a
    /// mid-grey picture.
    static func bandImage(index: Int, width: Int = 320, height: Int = 240) -> CGImage {
        let stride = 4 * width + 16
        var bytes = [UInt8](repeating: 0, count: stride * height)
        for y in 0..<height {
            for x in 0..<width {
                let band = x * FrameIndexReader.bandCount / width
                let level: UInt8 =
                    y < height / 8 ? (index & (1 << band) != 0 ? 235 : 16) : UInt8(60 + (x + y) % 100)
                let p = y * stride + 4 * x
                (bytes[p], bytes[p + 1], bytes[p + 2], bytes[p + 3]) = (level, level, level, 255)
            }
        }
        let provider = CGDataProvider(data: Data(bytes) as CFData)!
        return CGImage(
            width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: stride,
            space: CGColorSpaceCreateDeviceRGB(),
            bitmapInfo: CGBitmapInfo(rawValue: CGImageAlphaInfo.noneSkipLast.rawValue),
            provider: provider, decode: nil, shouldInterpolate: true, intent: .defaultIntent)!
    }

    private func temporaryURL(_ name: String) -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-imageio-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder.appendingPathComponent(name)
    }

    func testCGImageGeometryAndBytes() throws {
        let image = Self.bandImage(index: 0x5A3C)
        XCTAssertEqual(image.width, 320)
        XCTAssertEqual(image.height, 240)
        XCTAssertEqual(image.bitsPerComponent, 8)
        XCTAssertEqual(image.bitsPerPixel, 32)
        XCTAssertEqual(image.bytesPerRow, 4 * 320 + 16)
        XCTAssertEqual(image.alphaInfo, .noneSkipLast)
        XCTAssertEqual(image.colorSpace?.model, .rgb)
        let data = try XCTUnwrap(image.dataProvider?.data)
        XCTAssertEqual(CFDataGetLength(data), image.bytesPerRow * 240)
        XCTAssertEqual(FrameIndexReader.read(image: image)?.index, 0x5A3C)
        // Unsupported layouts are refused, as Apple's initializer may.
        XCTAssertNil(
            CGImage(
                width: 4, height: 4, bitsPerComponent: 16, bitsPerPixel: 64, bytesPerRow: 32,
                space: CGColorSpaceCreateDeviceRGB(), bitmapInfo: [],
                provider: CGDataProvider(data: Data(count: 128) as CFData)!,
                decode: nil, shouldInterpolate: false, intent: .defaultIntent))
        XCTAssertEqual(CGColorSpace(name: CGColorSpace.sRGB)?.name, CGColorSpace.sRGB)
        XCTAssertNil(CGColorSpace(name: "no such space"))
    }

    func testCroppingKeepsPixelsAndClipsToTheImage() throws {
        let image = Self.bandImage(index: 0xFFFF)
        let right = try XCTUnwrap(image.cropping(to: CGRect(x: 160, y: 0, width: 400, height: 30)))
        XCTAssertEqual(right.width, 160)
        XCTAssertEqual(right.height, 30)
        // The right half holds bands 8…15, all white: the reader (16 bands across) sees 0xFFFF.
        XCTAssertEqual(FrameIndexReader.read(image: right, minimumMargin: 0.5)?.index, 0xFFFF)
        XCTAssertNil(image.cropping(to: CGRect(x: 400, y: 0, width: 10, height: 10)))
    }

    func testPNGWrittenToAFileDecodesBackToTheSameBands() throws {
        let url = temporaryURL("bands.png")
        let destination = try XCTUnwrap(CGImageDestinationCreateWithURL(url as CFURL, "public.png" as CFString, 1, nil))
        CGImageDestinationAddImage(destination, Self.bandImage(index: 0x1234), nil)
        XCTAssertTrue(CGImageDestinationFinalize(destination))
        XCTAssertFalse(CGImageDestinationFinalize(destination), "a second finalize has nothing to write")
        let header = try Data(contentsOf: url).prefix(8)
        XCTAssertEqual(Array(header), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let decoded = try XCTUnwrap(StillImageFileDecoder.decode(url))
        XCTAssertEqual(decoded.width, 320)
        XCTAssertEqual(decoded.height, 240)
        XCTAssertEqual(FrameIndexReader.read(image: decoded, minimumMargin: 0.8)?.index, 0x1234)
    }

    func testJPEGIntoDataHonoursQuality() throws {
        func jpeg(quality: Double) throws -> Data {
            let data = NSMutableData()
            let destination = try XCTUnwrap(
                CGImageDestinationCreateWithData(data as CFMutableData, "public.jpeg" as CFString, 1, nil))
            CGImageDestinationAddImage(
                destination, Self.bandImage(index: 0xBEEF),
                [kCGImageDestinationLossyCompressionQuality: quality] as CFDictionary)
            XCTAssertTrue(CGImageDestinationFinalize(destination))
            return data as Data
        }
        let high = try jpeg(quality: 0.95)
        let low = try jpeg(quality: 0.1)
        XCTAssertEqual(Array(high.prefix(3)), [0xFF, 0xD8, 0xFF])
        XCTAssertLessThan(low.count, high.count, "lower quality makes a smaller file")
        for bytes in [high, low] {
            let url = temporaryURL("bands.jpg")
            try bytes.write(to: url)
            let decoded = try XCTUnwrap(StillImageFileDecoder.decode(url))
            XCTAssertEqual(FrameIndexReader.read(image: decoded)?.index, 0xBEEF)
        }
    }

    func testUnknownTypesAndEmptyDestinationsFail() throws {
        XCTAssertNil(
            CGImageDestinationCreateWithData(NSMutableData() as CFMutableData, "com.example.nope" as CFString, 1, nil))
        let destination = try XCTUnwrap(
            CGImageDestinationCreateWithData(NSMutableData() as CFMutableData, "public.png" as CFString, 1, nil))
        XCTAssertFalse(CGImageDestinationFinalize(destination))
        XCTAssertEqual(CGImageDestinationCopyTypeIdentifiers() as? [String], ["public.png", "public.jpeg"])
    }

    func testCIImageFromAPixelBufferRendersTurnedCroppedAndScaled() throws {
        let image = Self.bandImage(index: 0x0F0F)
        var made: CVPixelBuffer?
        XCTAssertEqual(CVPixelBufferCreate(nil, 320, 240, kCVPixelFormatType_32BGRA, nil, &made), kCVReturnSuccess)
        let buffer = try XCTUnwrap(made)
        CVPixelBufferLockBaseAddress(buffer, [])
        let base = try XCTUnwrap(CVPixelBufferGetBaseAddress(buffer))
        let stride = CVPixelBufferGetBytesPerRow(buffer)
        image.oavfBytes.withUnsafeBytes { (source: UnsafeRawBufferPointer) in
            for y in 0..<240 {
                for x in 0..<320 {
                    let s = y * image.bytesPerRow + 4 * x
                    let d = (base + y * stride + 4 * x).assumingMemoryBound(to: UInt8.self)
                    (d[0], d[1], d[2], d[3]) = (source[s + 2], source[s + 1], source[s], 255)
                }
            }
        }
        CVPixelBufferUnlockBaseAddress(buffer, [])

        let ci = CIImage(cvPixelBuffer: buffer)
        XCTAssertEqual(ci.extent, CGRect(x: 0, y: 0, width: 320, height: 240))
        let context = CIContext()
        let plain = try XCTUnwrap(context.createCGImage(ci, from: ci.extent))
        XCTAssertEqual(FrameIndexReader.read(image: plain)?.index, 0x0F0F)

        // A decoder's 4:2:0 planar buffer (what a video output vends) reads the same.
        let planar = try Scaler(outputPixelFormatType: kCVPixelFormatType_420YpCbCr8Planar).convert(pixelBuffer: buffer)
        let fromVideo = try XCTUnwrap(
            CIContext(options: [.useSoftwareRenderer: true]).createCGImage(
                CIImage(cvPixelBuffer: planar), from: CGRect(x: 0, y: 0, width: 320, height: 240)))
        XCTAssertEqual(FrameIndexReader.read(image: fromVideo)?.index, 0x0F0F)

        // .right: shown turned 90° clockwise.
        let right = ci.oriented(.right)
        XCTAssertEqual(right.extent, CGRect(x: 0, y: 0, width: 240, height: 320))
        let turned = try XCTUnwrap(context.createCGImage(right, from: right.extent))
        XCTAssertEqual(turned.width, 240)
        XCTAssertEqual(FrameIndexReader.read(image: turned, quarterTurns: 1)?.index, 0x0F0F)
        let left = ci.oriented(.left)
        let turnedLeft = try XCTUnwrap(context.createCGImage(left, from: left.extent))
        XCTAssertEqual(FrameIndexReader.read(image: turnedLeft, quarterTurns: 3)?.index, 0x0F0F)
        let mirrored = ci.oriented(.upMirrored)
        let flipped = try XCTUnwrap(context.createCGImage(mirrored, from: mirrored.extent))
        XCTAssertEqual(FrameIndexReader.read(image: flipped, mirrored: true)?.index, 0x0F0F)

        // Half size (libswscale), then the top half cropped (Core Image's y grows upwards).
        let half = ci.transformed(by: CGAffineTransform(scaleX: 0.5, y: 0.5))
        XCTAssertEqual(half.extent, CGRect(x: 0, y: 0, width: 160, height: 120))
        let top = half.cropped(to: CGRect(x: 0, y: 60, width: 160, height: 60))
        let small = try XCTUnwrap(context.createCGImage(top, from: top.extent))
        XCTAssertEqual(small.width, 160)
        XCTAssertEqual(small.height, 60)
        // The strip is the top eighth of the full picture: a quarter of this crop; read its top 15 rows.
        let strip = try XCTUnwrap(small.cropping(to: CGRect(x: 0, y: 0, width: 160, height: 15)))
        XCTAssertEqual(FrameIndexReader.read(image: strip, minimumMargin: 0.3)?.index, 0x0F0F)
    }
}
