import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// What `AVPlayerItemVideoOutput` vends: Apple's default format, the formats `pixelBufferAttributes` asks for, the
/// colour attachments (and HDR10 metadata) on every buffer, and a pool that reuses buffers without stalling when the
/// app keeps some. Pictures are pulled on a manual clock and identified by the index drawn in them.
final class VideoOutputFormatTests: XCTestCase {
    private func startPlaying(_ fixtureFile: Fixture, _ outputs: [AVPlayerItemVideoOutput]) throws -> VirtualPlayer {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let item = AVPlayerItem(url: try fixture(fixtureFile))
        for output in outputs { item.add(output) }
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        v.player.rate = 1
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        return v
    }

    /// Moves the clock to picture `k` (at `fps`) and takes it from each output.
    private func pull(
        _ outputs: [AVPlayerItemVideoOutput], picture k: Int, fps: Int32 = 30, in v: VirtualPlayer,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> [CVPixelBuffer] {
        let host = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: fps * 1_000_000)
        if host > v.clock.time { v.clock.advance(by: host - v.clock.time) }
        let t = CMTime(value: Int64(k), timescale: fps)
        return try outputs.map { try XCTUnwrap(copyPicture($0, at: t, file: file, line: line).buffer) }
    }

    private func attachment(_ buffer: CVPixelBuffer, _ key: CFString) -> String? {
        CVBufferCopyAttachment(buffer, key, nil) as? String
    }

    func test_default_isBiPlanar420v_withTheColourPlayersAssumeForAnUntaggedStream() throws {
        let output = AVPlayerItemVideoOutput()
        let v = try startPlaying(.videoOnly, [output])
        for k in [0, 7, 40] {
            let buffer = try pull([output], picture: k, in: v)[0]
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            XCTAssertEqual(CVPixelBufferGetPlaneCount(buffer), 2)
            XCTAssertEqual(CVPixelBufferGetWidthOfPlane(buffer, 1), 160, "interleaved CbCr, half width")
            XCTAssertEqual(CVPixelBufferGetHeightOfPlane(buffer, 1), 120)
            XCTAssertEqual(frameIndex(of: buffer), k)
            // 320x240 with no colour tags: what players assume for standard definition.
            XCTAssertEqual(attachment(buffer, kCVImageBufferYCbCrMatrixKey), kCVImageBufferYCbCrMatrix_ITU_R_601_4)
            XCTAssertEqual(attachment(buffer, kCVImageBufferColorPrimariesKey), kCVImageBufferColorPrimaries_SMPTE_C)
            XCTAssertEqual(
                attachment(buffer, kCVImageBufferTransferFunctionKey), kCVImageBufferTransferFunction_ITU_R_709_2)
            XCTAssertNil(CVBufferCopyAttachment(buffer, kCVImageBufferMasteringDisplayColorVolumeKey, nil))
        }
    }

    func test_pixelBufferAttributes_chooseTheFormat_firstProducibleOfAList() throws {
        func output(_ formats: [OSType]) -> AVPlayerItemVideoOutput {
            AVPlayerItemVideoOutput(pixelBufferAttributes: [kCVPixelBufferPixelFormatTypeKey: formats.map { Int($0) }])
        }
        let cases: [(asked: [OSType], vended: OSType)] = [
            ([kCVPixelFormatType_32BGRA], kCVPixelFormatType_32BGRA),
            ([kCVPixelFormatType_420YpCbCr8BiPlanarFullRange], kCVPixelFormatType_420YpCbCr8BiPlanarFullRange),
            ([kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange], kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange),
            ([kCVPixelFormatType_420YpCbCr8Planar], kCVPixelFormatType_420YpCbCr8Planar),
            // 10-bit from an 8-bit source, as Apple converts it; an unknown format is skipped for the next listed.
            (
                [kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, kCVPixelFormatType_32BGRA],
                kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange
            ),
            ([0x6E6F_6E65, kCVPixelFormatType_32BGRA], kCVPixelFormatType_32BGRA),
        ]
        let outputs = cases.map { output($0.asked) }
        let v = try startPlaying(.videoOnly, outputs)
        for k in [3, 33] {
            let buffers = try pull(outputs, picture: k, in: v)
            for (buffer, c) in zip(buffers, cases) {
                XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), c.vended, "asked \(c.asked)")
                XCTAssertEqual(frameIndex(of: buffer), k, "asked \(c.asked)")
                // y420 is the decoder's own buffer: it carries what the stream states (here nothing).
                guard c.vended != kCVPixelFormatType_420YpCbCr8Planar else { continue }
                XCTAssertNotNil(attachment(buffer, kCVImageBufferColorPrimariesKey), "asked \(c.asked)")
                XCTAssertNotNil(attachment(buffer, kCVImageBufferTransferFunctionKey), "asked \(c.asked)")
            }
            // RGB carries no YCbCr matrix; the converted YCbCr formats do.
            XCTAssertNil(attachment(buffers[0], kCVImageBufferYCbCrMatrixKey))
            XCTAssertNotNil(attachment(buffers[1], kCVImageBufferYCbCrMatrixKey))
            XCTAssertNotNil(attachment(buffers[2], kCVImageBufferYCbCrMatrixKey))
        }
    }

    func test_hdr10Stream_carriesItsColourAndMasteringMetadata_onEveryBuffer() throws {
        let output = AVPlayerItemVideoOutput()
        let bgra = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_32BGRA)
        ])
        let v = try startPlaying(.hdr10HEVC, [output, bgra])
        // G(13250, 34500) B(7500, 3000) R(34000, 16000) WP(15635, 16450) L(10000000, 1), big-endian.
        let mastering = Data([
            0x33, 0xC2, 0x86, 0xC4, 0x1D, 0x4C, 0x0B, 0xB8, 0x84, 0xD0, 0x3E, 0x80, 0x3D, 0x13, 0x40, 0x42,
            0x00, 0x98, 0x96, 0x80, 0x00, 0x00, 0x00, 0x01,
        ])
        let contentLight = Data([0x03, 0xE8, 0x01, 0x90])  // MaxCLL 1000, MaxFALL 400
        for k in [0, 1, 29, 45] {
            for buffer in try pull([output, bgra], picture: k, in: v) {
                XCTAssertEqual(frameIndex(of: buffer), k)
                XCTAssertEqual(
                    attachment(buffer, kCVImageBufferColorPrimariesKey), kCVImageBufferColorPrimaries_ITU_R_2020)
                XCTAssertEqual(
                    attachment(buffer, kCVImageBufferTransferFunctionKey),
                    kCVImageBufferTransferFunction_SMPTE_ST_2084_PQ)
                XCTAssertEqual(
                    CVBufferCopyAttachment(buffer, kCVImageBufferMasteringDisplayColorVolumeKey, nil) as? Data,
                    mastering, "picture \(k)")
                XCTAssertEqual(
                    CVBufferCopyAttachment(buffer, kCVImageBufferContentLightLevelInfoKey, nil) as? Data,
                    contentLight, "picture \(k)")
            }
            // Apple's default for a 10-bit source: bi-planar 10-bit.
            let yuv = try pull([output], picture: k, in: v)[0]
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(yuv), kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange)
            XCTAssertEqual(attachment(yuv, kCVImageBufferYCbCrMatrixKey), kCVImageBufferYCbCrMatrix_ITU_R_2020)
        }
    }

    /// Pictures are converted on the output's own queue as they arrive (default 420v from the decoder's y420): a
    /// display link pulling a picture that has arrived gets it without converting on its thread, so the pull returns
    /// at once; each picture is converted once.
    func test_picturesAreConvertedAheadOfThePull_offThePullingThread() throws {
        let output = AVPlayerItemVideoOutput()
        let v = try startPlaying(.videoOnly, [output])
        output.store.recordArrivals()
        for k in 1...20 {
            let host = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000)
            if host > v.clock.time { v.clock.advance(by: host - v.clock.time) }
            let t = CMTime(value: Int64(k), timescale: 30)
            XCTAssertTrue(
                Poll.until {
                    output.store.arrivalLog.contains { $0.itemTime == t }
                        && !output.store.notAcquired().contains { $0.time <= t }
                }, "picture \(k) arrived and converted")
            var shown = CMTime.invalid
            let buffer = try XCTUnwrap(output.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: &shown))
            XCTAssertEqual(shown, t)
            XCTAssertEqual(frameIndex(of: buffer), k)
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        }
        let counts = output.conversionCounts
        XCTAssertEqual(counts.onPull, 0, "no pull converted")
        XCTAssertGreaterThanOrEqual(counts.ahead, 20)
        XCTAssertLessThanOrEqual(counts.ahead, 20 + 1 + VideoOutputStore.capacity, "each picture converted once")
    }

    func test_buffersTheAppKeeps_neverStallPlayback_andThePoolReusesTheRest() throws {
        let output = AVPlayerItemVideoOutput()
        let v = try startPlaying(.videoOnly, [output])
        // The app keeps 24 pictures: playback goes on, each pull gets its picture.
        var kept: [CVPixelBuffer] = []
        for k in 0..<24 {
            let buffer = try pull([output], picture: k, in: v)[0]
            XCTAssertEqual(frameIndex(of: buffer), k)
            kept.append(buffer)
        }
        let whileKept = try XCTUnwrap(output.converterPoolStatistics)
        XCTAssertGreaterThanOrEqual(whileKept.allocationCount, 24, "kept buffers are not reused")
        kept.removeAll()
        // Let go one by one: the pool reuses what came back and allocates nothing more.
        for k in 24..<84 {
            let buffer = try pull([output], picture: k, in: v)[0]
            XCTAssertEqual(frameIndex(of: buffer), k)
        }
        let after = try XCTUnwrap(output.converterPoolStatistics)
        XCTAssertEqual(after.allocationCount, whileKept.allocationCount, "reused, none allocated")
        XCTAssertLessThanOrEqual(after.liveAllocationCount, whileKept.allocationCount)
    }

    func test_copyAndHasNew_fromManyThreadsAtOnce() throws {
        let output = AVPlayerItemVideoOutput()
        let v = try startPlaying(.videoOnly, [output])
        _ = try pull([output], picture: 10, in: v)
        let t = CMTime(value: 10, timescale: 30)
        let copies = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            if i % 2 == 0 {
                _ = output.hasNewPixelBuffer(forItemTime: t)
            } else if let buffer = output.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: nil),
                frameIndex(of: buffer) == 10
            {
                copies.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(copies.current, 32, "every thread got the picture")
    }
}
