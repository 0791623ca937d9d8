import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// 10-bit output: `AVPlayerItemVideoOutput` vends `'x420'` (P010: a 16-bit little-endian word per sample, the 10 bits
/// on top; a luma plane and an interleaved CbCr plane) for the 10-bit HDR10 fixture, by default and when asked, with
/// the stream's colour and HDR metadata; its samples keep the 10 bits (checked against ffmpeg's own 8-bit 4:2:0 decode
/// of the same pictures, and against the 8-bit `'420v'` the output makes of them).
final class VideoOutputTenBitTests: XCTestCase {
    private func startPlaying(_ outputs: [AVPlayerItemVideoOutput]) throws -> VirtualPlayer {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let item = AVPlayerItem(url: try fixture(.hdr10HEVC))
        for output in outputs { item.add(output) }
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        v.player.rate = 1
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        return v
    }

    private func pull(
        _ outputs: [AVPlayerItemVideoOutput], picture k: Int, in v: VirtualPlayer
    ) throws -> [CVPixelBuffer] {
        let host = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000)
        if host > v.clock.time { v.clock.advance(by: host - v.clock.time) }
        let t = CMTime(value: Int64(k), timescale: 30)
        return try outputs.map { try XCTUnwrap(copyPicture($0, at: t).buffer) }
    }

    /// The 16-bit words of plane `plane` of a locked P010 buffer, row by row (`components` words a plane pixel).
    private func words(_ buffer: CVPixelBuffer, plane: Int, components: Int) throws -> [[UInt16]] {
        let base = try XCTUnwrap(CVPixelBufferGetBaseAddressOfPlane(buffer, plane))
        let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane)
        let width = CVPixelBufferGetWidthOfPlane(buffer, plane) * components
        return (0..<CVPixelBufferGetHeightOfPlane(buffer, plane)).map { y in
            (0..<width).map {
                UInt16(littleEndian: base.loadUnaligned(fromByteOffset: y * stride + 2 * $0, as: UInt16.self))
            }
        }
    }

    /// The bytes of plane `plane` of a locked 8-bit buffer, row by row.
    private func bytes(_ buffer: CVPixelBuffer, plane: Int, components: Int) throws -> [[UInt8]] {
        let base = try XCTUnwrap(CVPixelBufferGetBaseAddressOfPlane(buffer, plane))
        let stride = CVPixelBufferGetBytesPerRowOfPlane(buffer, plane)
        let width = CVPixelBufferGetWidthOfPlane(buffer, plane) * components
        return (0..<CVPixelBufferGetHeightOfPlane(buffer, plane)).map { y in
            (0..<width).map { base.load(fromByteOffset: y * stride + $0, as: UInt8.self) }
        }
    }

    /// The luma planes of pictures `indices` of `url` as ffmpeg decodes them to 8-bit 4:2:0 (`-pix_fmt yuv420p`: its
    /// own 10 → 8-bit conversion, video range kept), 320x240.
    private func eightBitLuma(of url: URL, indices: [Int]) throws -> [[UInt8]] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let select = indices.map { "eq(n\\,\($0))" }.joined(separator: "+")
        process.arguments = [
            "ffmpeg", "-nostdin", "-loglevel", "error", "-i", url.path, "-vf", "select='\(select)'", "-fps_mode",
            "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        let frameSize = 320 * 240 * 3 / 2
        XCTAssertEqual(data.count, frameSize * indices.count)
        let bytes = [UInt8](data)
        return (0..<(bytes.count / frameSize)).map { Array(bytes[$0 * frameSize..<$0 * frameSize + 320 * 240]) }
    }

    func test_x420_keepsTheTenBits_ofA10BitSource_matchingAnEightBitDecodeWithinRounding() throws {
        let x420 = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange)
        ])
        let natural = AVPlayerItemVideoOutput()
        let eightBit = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        ])
        let pictures = [0, 15, 29, 45]
        let reference = try eightBitLuma(of: try fixture(.hdr10HEVC), indices: pictures)
        XCTAssertEqual(
            reference.map { luma in
                FrameIndexReader.read(width: 320, height: 240) { x, y in Double(luma[y * 320 + x]) }?.index
            },
            pictures)
        let v = try startPlaying([x420, natural, eightBit])
        for (k, gray) in zip(pictures, reference) {
            let buffers = try pull([x420, natural, eightBit], picture: k, in: v)
            let (ten, eight) = (buffers[0], buffers[2])
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(ten), kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange)
            XCTAssertEqual(
                CVPixelBufferGetPixelFormatType(buffers[1]), kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange)
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(eight), kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            XCTAssertEqual(CVPixelBufferGetPlaneCount(ten), 2)
            XCTAssertEqual(CVPixelBufferGetWidthOfPlane(ten, 0), 320)
            XCTAssertEqual(CVPixelBufferGetHeightOfPlane(ten, 0), 240)
            XCTAssertEqual(CVPixelBufferGetWidthOfPlane(ten, 1), 160, "CbCr pairs at half width")
            XCTAssertEqual(CVPixelBufferGetHeightOfPlane(ten, 1), 120)
            XCTAssertGreaterThanOrEqual(CVPixelBufferGetBytesPerRowOfPlane(ten, 0), 640, "two bytes a sample")
            XCTAssertGreaterThanOrEqual(CVPixelBufferGetBytesPerRowOfPlane(ten, 1), 640, "four bytes a CbCr pair")
            XCTAssertEqual(frameIndex(of: ten), k)
            XCTAssertEqual(frameIndex(of: buffers[1]), k)
            XCTAssertEqual(frameIndex(of: eight), k)
            // The stream's colour and HDR10 metadata, as on the other formats.
            XCTAssertEqual(
                CVBufferCopyAttachment(ten, kCVImageBufferTransferFunctionKey, nil) as? String,
                kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ)
            XCTAssertEqual(
                CVBufferCopyAttachment(ten, kCVImageBufferYCbCrMatrixKey, nil) as? String,
                kCVImageBufferYCbCrMatrix_ITU_R_2020)
            XCTAssertEqual(
                CVBufferCopyAttachment(ten, kCVImageBufferContentLightLevelInfoKey, nil) as? Data,
                Data([0x03, 0xE8, 0x01, 0x90]))
            XCTAssertNotNil(CVBufferCopyAttachment(ten, kCVImageBufferMasteringDisplayColorVolumeKey, nil))

            CVPixelBufferLockBaseAddress(ten, .readOnly)
            CVPixelBufferLockBaseAddress(eight, .readOnly)
            defer {
                CVPixelBufferUnlockBaseAddress(ten, .readOnly)
                CVPixelBufferUnlockBaseAddress(eight, .readOnly)
            }
            let luma = try words(ten, plane: 0, components: 1)
            let chroma = try words(ten, plane: 1, components: 2)
            XCTAssertTrue((luma + chroma).allSatisfy { $0.allSatisfy { $0 & 0x3F == 0 } }, "P010: the low 6 bits clear")
            // Luma against ffmpeg's 8-bit decode (its own 10 → 8-bit conversion, dithered): less than one 8-bit
            // level apart (|code / 4 - 8-bit| ≤ 3/4: rounding plus dither; measured 3 on every picture).
            var worst = 0
            var between = 0
            for y in 0..<240 {
                for x in 0..<320 {
                    let code = Int(luma[y][x] >> 6)
                    worst = max(worst, abs(code - 4 * Int(gray[y * 320 + x])))
                    if code % 4 != 0 { between += 1 }
                }
            }
            XCTAssertLessThanOrEqual(worst, 3, "picture \(k): 10-bit luma vs ffmpeg's 8-bit decode")
            // Real 10-bit precision: samples fall between two 8-bit codes (an 8-bit picture widened has none). The
            // fixture is 8-bit testsrc2 widened and coded lossily, so only its coding noise does: 32-59 % of them.
            XCTAssertGreaterThan(between, 320 * 240 / 10, "picture \(k): samples between 8-bit codes")
            // Luma and chroma against the 8-bit 420v this output makes of the same picture: within rounding.
            let luma8 = try bytes(eight, plane: 0, components: 1)
            let chroma8 = try bytes(eight, plane: 1, components: 2)
            var worstConverted = 0
            for (rows10, rows8) in [(luma, luma8), (chroma, chroma8)] {
                for (row10, row8) in zip(rows10, rows8) {
                    for (w, b) in zip(row10, row8) {
                        worstConverted = max(worstConverted, abs(Int(w >> 6) - 4 * Int(b)))
                    }
                }
            }
            XCTAssertLessThanOrEqual(worstConverted, 3, "picture \(k): x420 vs the output's own 420v")
        }
    }
}
