import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Pulling every picture through `AVPlayerItemVideoOutput` at 1× and 2× on a manual clock, in each pixel format the
/// issue names, and the zero-copy path when the requested format is the decoder's.
final class VideoOutputPullTests: XCTestCase {
    private func startPlaying(_ outputs: [AVPlayerItemVideoOutput], rate: Float) throws -> (VirtualPlayer, AVPlayerItem)
    {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        for output in outputs { item.add(output) }
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        v.player.rate = rate
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        return (v, item)
    }

    /// Pulls item times 0, 1/30, … (k/30 for k in `frames`) while the clock moves one frame of item time per step at
    /// `rate`; returns the index read from each picture and the item time the output gave for it.
    private func pullEveryFrame(rate: Float, frames: Range<Int>) throws -> [(index: Int?, time: CMTime)] {
        let output = AVPlayerItemVideoOutput()
        let (v, _) = try startPlaying([output], rate: rate)
        var pulled: [(Int?, CMTime)] = []
        for k in frames {
            // Host time for item time k/30 at `rate`, plus half a microsecond (the clock rounds to nanoseconds).
            let host = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: Int32(30_000_000 * rate))
            if host > v.clock.time { v.clock.advance(by: host - v.clock.time) }
            let t = CMTime(value: Int64(k), timescale: 30)
            let (copied, shown) = copyPicture(output, at: t)
            let buffer = try XCTUnwrap(copied)
            pulled.append((frameIndex(of: buffer), shown))
            // Nothing earlier than the picture just taken is ever handed out again.
            XCTAssertNil(
                output.copyPixelBuffer(forItemTime: t - CMTime(value: 1, timescale: 30), itemTimeForDisplay: nil)
                    .flatMap { frameIndex(of: $0).flatMap { $0 < k ? $0 : nil } })
        }
        return pulled
    }

    func test_everyFrame_at1x_and2x_withExactItemTimes() throws {
        for rate: Float in [1, 2] {
            let pulled = try pullEveryFrame(rate: rate, frames: 0..<60)
            XCTAssertEqual(pulled.map(\.index), (0..<60).map { Optional($0) }, "\(rate)×")
            XCTAssertEqual(pulled.map(\.time), (0..<60).map { CMTime(value: Int64($0), timescale: 30) }, "\(rate)×")
        }
    }

    func test_420f_y420_default420v_readTheRightIndex_andMatchingFormatsAreNotCopied() throws {
        let fullRange = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_420YpCbCr8BiPlanarFullRange)
        ])
        let planar = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_420YpCbCr8Planar)
        ])
        let planarToo = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey: [Int(kCVPixelFormatType_420YpCbCr8Planar)]
        ])
        let plain = AVPlayerItemVideoOutput()
        let (v, _) = try startPlaying([fullRange, planar, plain, planarToo], rate: 1)
        for k in [0, 5, 31] {
            let host = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000)
            if host > v.clock.time { v.clock.advance(by: host - v.clock.time) }
            let t = CMTime(value: Int64(k), timescale: 30)
            var buffers: [CVPixelBuffer] = []
            for output in [fullRange, planar, plain, planarToo] {
                buffers.append(try XCTUnwrap(copyPicture(output, at: t).buffer))
            }
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffers[0]), kCVPixelFormatType_420YpCbCr8BiPlanarFullRange)
            XCTAssertEqual(CVPixelBufferGetPlaneCount(buffers[0]), 2)
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffers[1]), kCVPixelFormatType_420YpCbCr8Planar)
            XCTAssertEqual(CVPixelBufferGetPlaneCount(buffers[1]), 3)
            for buffer in buffers { XCTAssertEqual(frameIndex(of: buffer), k) }
            // Full range stretches video-range luma: y' = (y − 16) × 255 / 219, pixel for pixel.
            XCTAssertLessThanOrEqual(meanRangeError(full: buffers[0], video: buffers[1]), 1.5)
            // The decoder makes 8-bit planar 4:2:0: outputs asking for y420 get the decoded picture itself; the
            // default is Apple's bi-planar 420v, a copy.
            XCTAssertTrue(buffers[1] === buffers[3], "y420 is handed out without a copy")
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffers[2]), kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            XCTAssertFalse(buffers[1] === buffers[2])
            XCTAssertFalse(buffers[0] === buffers[2])
        }
    }

    /// The mean absolute difference between `full`'s luma and `video`'s luma stretched to full range.
    private func meanRangeError(full: CVPixelBuffer, video: CVPixelBuffer) -> Double {
        CVPixelBufferLockBaseAddress(full, .readOnly)
        CVPixelBufferLockBaseAddress(video, .readOnly)
        defer {
            CVPixelBufferUnlockBaseAddress(full, .readOnly)
            CVPixelBufferUnlockBaseAddress(video, .readOnly)
        }
        guard let f = CVPixelBufferGetBaseAddressOfPlane(full, 0), let v = CVPixelBufferGetBaseAddressOfPlane(video, 0)
        else { return .infinity }
        let width = CVPixelBufferGetWidthOfPlane(video, 0)
        let height = CVPixelBufferGetHeightOfPlane(video, 0)
        var total = 0.0
        for y in 0..<height {
            let fr = f.advanced(by: y * CVPixelBufferGetBytesPerRowOfPlane(full, 0)).assumingMemoryBound(to: UInt8.self)
            let vr = v.advanced(by: y * CVPixelBufferGetBytesPerRowOfPlane(video, 0)).assumingMemoryBound(
                to: UInt8.self)
            for x in 0..<width {
                let expected = min(255, max(0, (Double(vr[x]) - 16) * 255 / 219))
                total += abs(Double(fr[x]) - expected)
            }
        }
        return total / Double(width * height)
    }

    func test_realTime_theNextPictureIsThereBeforeItIsDue() throws {
        // A display link asks for the picture of its next refresh, ahead of now. In real time the output gets each
        // picture up to 50 ms before it is due, so asking 20 ms ahead finds the picture due then, not the current one.
        setenv("SDL_AUDIODRIVER", "dummy", 1)
        defer { unsetenv("SDL_AUDIODRIVER") }
        let player = AVPlayer()
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        let output = AVPlayerItemVideoOutput()
        item.add(output)
        player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        player.play()
        waitUntil("playing") { player.timeControlStatus == .playing }
        var asked = 0
        var found = 0
        // Asks every 7 ms of real time, as a display link would (the cadence is the behaviour under test), until 100
        // asks or the clip's end: a count, not a duration, so a loaded machine that sleeps longer asks as often.
        Poll.until(every: 0.007) {
            let now = output.itemTime(forHostTime: CACurrentMediaTime())
            let ahead = now + CMTime(value: 20, timescale: 1000)
            if ahead.seconds >= 2.9 { return true }
            guard now.seconds > 0.1 else { return false }
            asked += 1
            if let buffer = output.copyPixelBuffer(forItemTime: ahead, itemTimeForDisplay: nil),
                frameIndex(of: buffer) == Int(ahead.seconds * 30)
            {
                found += 1
            }
            return asked >= 100
        }
        player.pause()
        XCTAssertGreaterThan(asked, 50)
        // Without the lead, asking 20 ms ahead finds the due picture only when no frame boundary lies between
        // (40 % of the time).
        XCTAssertGreaterThan(Double(found) / Double(asked), 0.8, "\(found) of \(asked)")
    }
}
