import CFFmpeg
import CoreVideo
import FFmpegBridge
import TestSupport
import XCTest

/// The YCbCr → BGRA conversion that `AVPlayerItemVideoOutput` runs for every picture: libswscale's unscaled SIMD
/// path (no `SWS_ACCURATE_RND`) must still give the right colours and frame indices, into recycled pool buffers.
final class ScalerBGRATests: XCTestCase {
    /// The largest difference per channel allowed against the exact conversion (the SIMD path rounds in 16 bits).
    private let tolerance = 2

    func test_yuv420ToPackedRGB_takesTheFastPath_otherConversionsStayAccurate() {
        let accurate = SWS_BILINEAR | SWS_ACCURATE_RND
        for output in [AV_PIX_FMT_BGRA, AV_PIX_FMT_RGBA, AV_PIX_FMT_ARGB] {
            XCTAssertEqual(Scaler.flags(input: AV_PIX_FMT_YUV420P, output: output, height: 1080), SWS_BILINEAR)
        }
        // The SIMD converter needs an even height; the generic path rounds accurately.
        XCTAssertEqual(Scaler.flags(input: AV_PIX_FMT_YUV420P, output: AV_PIX_FMT_BGRA, height: 181), accurate)
        XCTAssertEqual(Scaler.flags(input: AV_PIX_FMT_NV12, output: AV_PIX_FMT_BGRA, height: 1080), accurate)
        XCTAssertEqual(Scaler.flags(input: AV_PIX_FMT_YUV420P, output: AV_PIX_FMT_NV12, height: 1080), accurate)
        XCTAssertEqual(Scaler.flags(input: AV_PIX_FMT_YUV420P10LE, output: AV_PIX_FMT_BGRA, height: 1080), accurate)
    }

    func test_knownColours_BT601AndBT709_convertWithinTolerance() throws {
        let scaler = try Scaler(outputPixelFormatType: kCVPixelFormatType_32BGRA)
        // (Y, Cb, Cr), video range; none of them clips.
        let colours: [(UInt8, UInt8, UInt8)] = [(128, 100, 160), (81, 90, 200), (180, 140, 110), (60, 150, 128)]
        // 1080p, and a width that is not a multiple of 8 (the SIMD loop's step). (Odd heights take the generic path,
        // unchanged; its bottom-right pixel may be 3 off.)
        let sizes = [(1920, 1080), (330, 180)]
        for matrix in [nil, kCVImageBufferYCbCrMatrix_ITU_R_709_2] {
            for (y, cb, cr) in colours {
                for (width, height) in sizes {
                    try checkColour(scaler, y: y, cb: cb, cr: cr, matrix: matrix, width: width, height: height)
                }
            }
        }
    }

    /// Converts a `width` x `height` picture of one colour and checks four pixels (corners, centre) against the
    /// exact conversion.
    private func checkColour(
        _ scaler: Scaler, y: UInt8, cb: UInt8, cr: UInt8, matrix: String?, width: Int, height: Int
    ) throws {
        let source = try makeY420(width: width, height: height, y: y, cb: cb, cr: cr, matrix: matrix)
        let converted = try scaler.convert(pixelBuffer: source)
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(converted), kCVPixelFormatType_32BGRA)
        let expected = exactRGB(y: y, cb: cb, cr: cr, bt709: matrix != nil)
        CVPixelBufferLockBaseAddress(converted, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(converted, .readOnly) }
        let base = try XCTUnwrap(CVPixelBufferGetBaseAddress(converted)).assumingMemoryBound(to: UInt8.self)
        let stride = CVPixelBufferGetBytesPerRow(converted)
        for (x, row) in [(0, 0), (width - 1, height - 1), (width / 2, height / 2), (17, height - 3)] {
            let p = base + row * stride + 4 * x
            let got = (Int(p[2]), Int(p[1]), Int(p[0]))
            let what =
                "YCbCr \(y) \(cb) \(cr) \(matrix ?? "BT.601") \(width)x\(height) at \(x),\(row): \(got) vs \(expected)"
            XCTAssertLessThanOrEqual(abs(got.0 - expected.0), tolerance, what)
            XCTAssertLessThanOrEqual(abs(got.1 - expected.1), tolerance, what)
            XCTAssertLessThanOrEqual(abs(got.2 - expected.2), tolerance, what)
            XCTAssertEqual(p[3], 255, "opaque alpha: \(what)")
        }
    }

    func test_decodedPictures_keepTheirIndex_inRecycledBuffers() throws {
        let url = try Fixtures.url(.h264AAC)
        let format = try FormatContext(url: url.path)
        let decoder = try CodecContext(format: format, stream: 0)
        let scaler = try Scaler(outputPixelFormatType: kCVPixelFormatType_32BGRA)
        let packet = Packet()
        let frame = Frame()
        var indices: [Int] = []
        reading: while indices.count < 40 {
            if case .endOfFile = try format.read(into: packet) { break }
            guard packet.streamIndex == 0 else { continue }
            _ = try decoder.send(packet)
            while case .frame = try decoder.receive(into: frame) {
                let wrapped = try XCTUnwrap(frame.makePixelBuffer())
                let bgra = try scaler.convert(pixelBuffer: wrapped)
                CVPixelBufferLockBaseAddress(bgra, .readOnly)
                let reading = FrameIndexReader.read(
                    pixels: try XCTUnwrap(CVPixelBufferGetBaseAddress(bgra)), layout: .bgra,
                    width: CVPixelBufferGetWidth(bgra), height: CVPixelBufferGetHeight(bgra),
                    bytesPerRow: CVPixelBufferGetBytesPerRow(bgra))
                CVPixelBufferUnlockBaseAddress(bgra, .readOnly)
                indices.append(reading?.index ?? -1)
                if indices.count == 40 { break reading }
            }
        }
        XCTAssertEqual(indices, Array(0..<40))
        // Each BGRA buffer was dropped before the next conversion: one block served all 40 pictures.
        let statistics = try XCTUnwrap(scaler.poolStatistics)
        XCTAssertEqual(statistics.allocationCount, 1)
        XCTAssertEqual(statistics.freeBufferCount, 1)
    }

    // MARK: Helpers

    /// A `y420` buffer of one colour, tagged with `matrix` (nil: untagged, converted as BT.601).
    private func makeY420(
        width: Int, height: Int, y: UInt8, cb: UInt8, cr: UInt8, matrix: String?
    ) throws -> CVPixelBuffer {
        var created: CVPixelBuffer?
        XCTAssertEqual(
            CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_420YpCbCr8Planar, nil, &created),
            kCVReturnSuccess)
        let buffer = try XCTUnwrap(created)
        CVPixelBufferLockBaseAddress(buffer, [])
        for (plane, value) in [(0, y), (1, cb), (2, cr)] {
            let base = try XCTUnwrap(CVPixelBufferGetBaseAddressOfPlane(buffer, plane))
            let bytes = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane) * CVPixelBufferGetHeightOfPlane(buffer, plane)
            base.initializeMemory(as: UInt8.self, repeating: value, count: bytes)
        }
        CVPixelBufferUnlockBaseAddress(buffer, [])
        if let matrix {
            CVBufferSetAttachment(buffer, kCVImageBufferYCbCrMatrixKey, matrix as AnyObject, .shouldPropagate)
        }
        return buffer
    }

    /// The exact video-range conversion, rounded and clamped.
    private func exactRGB(y: UInt8, cb: UInt8, cr: UInt8, bt709: Bool) -> (Int, Int, Int) {
        let (kr, kb) = bt709 ? (0.2126, 0.0722) : (0.299, 0.114)
        let luma = (Double(y) - 16) * 255 / 219
        let pb = (Double(cb) - 128) * 255 / 224
        let pr = (Double(cr) - 128) * 255 / 224
        let r = luma + 2 * (1 - kr) * pr
        let b = luma + 2 * (1 - kb) * pb
        let g = (luma - kr * r - kb * b) / (1 - kr - kb)
        func clamp(_ v: Double) -> Int { min(255, max(0, Int(v.rounded()))) }
        return (clamp(r), clamp(g), clamp(b))
    }
}
