import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// `AVPlayerItemVideoOutput` on a manually stepped virtual clock, reading the index drawn in each picture.
final class VideoOutputTests: XCTestCase {
    /// One frame of the 30 fps fixtures.
    private let frame = CMTime(value: 1, timescale: 30)
    /// `video_only.mp4` is 320 pixels wide and this high.
    private let fixtureHeight = 240

    /// A manual-clock player playing `video_only.mp4` with `outputs` added, at item time 0.
    private func startPlaying(_ outputs: [AVPlayerItemVideoOutput]) throws -> (VirtualPlayer, AVPlayerItem) {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        for output in outputs { item.add(output) }
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        return (v, item)
    }

    /// Moves the virtual clock to just after item time `k`/30 (the clock rounds to nanoseconds).
    private func advance(_ v: VirtualPlayer, toFrame k: Int) {
        let target = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000)
        v.clock.advance(by: target - v.clock.time)
    }

    func test_manualClock_handsOutFrameK_atItemTimeKOver30_andAcquiresIt() throws {
        let output = AVPlayerItemVideoOutput()
        let (v, item) = try startPlaying([output])
        XCTAssertEqual(item.outputs.count, 1)
        XCTAssertTrue(item.outputs.first === output)
        for k in 0..<45 {
            if k > 0 { advance(v, toFrame: k) }
            let t = CMTime(value: Int64(k), timescale: 30)
            waitUntil("frame \(k)") { output.hasNewPixelBuffer(forItemTime: t) }
            // Host time (the virtual clock's, here) converts to the item time.
            XCTAssertEqual(output.itemTime(forHostTime: v.clock.time.seconds).seconds, t.seconds, accuracy: 0.001)
            var shown = CMTime.invalid
            let buffer = try XCTUnwrap(output.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: &shown))
            XCTAssertEqual(frameIndex(of: buffer), k)
            XCTAssertEqual(shown, t)
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            XCTAssertFalse(output.hasNewPixelBuffer(forItemTime: t), "acquired")
            XCTAssertFalse(output.hasNewPixelBuffer(forItemTime: t + frame), "frame \(k + 1) is not due yet")
            // Copying again returns the same buffer (converted once).
            XCTAssertTrue(output.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: nil) === buffer)
        }
        // Before the first picture there is nothing to show.
        XCTAssertNil(output.copyPixelBuffer(forItemTime: CMTime(value: -1, timescale: 30), itemTimeForDisplay: nil))
        XCTAssertNil(output.copyPixelBuffer(forItemTime: .invalid, itemTimeForDisplay: nil))
        XCTAssertFalse(output.hasNewPixelBuffer(forItemTime: .invalid))
    }

    func test_convertedFormats_BGRA_420v_ARGB_readTheRightIndex() throws {
        let bgra = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey: Int(kCVPixelFormatType_32BGRA)
        ])
        // An array: the first producible format is used.
        let nv12 = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey: [
                NSNumber(value: 0x7878_7878 as UInt32),
                NSNumber(value: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange),
            ]
        ])
        let argb = AVPlayerItemVideoOutput(outputSettings: [
            kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32ARGB
        ])
        let outputs = [bgra, nv12, argb]
        let (v, _) = try startPlaying(outputs)
        let expected: [(AVPlayerItemVideoOutput, OSType)] = [
            (bgra, kCVPixelFormatType_32BGRA), (nv12, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange),
            (argb, kCVPixelFormatType_32ARGB),
        ]
        for k in [0, 1, 2, 7, 20] {
            if k > 0 { advance(v, toFrame: k) }
            let t = CMTime(value: Int64(k), timescale: 30)
            for (output, format) in expected {
                // Several frames become due at once: take pictures until frame k's is there.
                let buffer = try XCTUnwrap(copyPicture(output, at: t).buffer)
                XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), format)
                XCTAssertEqual(frameIndex(of: buffer), k, "format \(format)")
                XCTAssertEqual(CVPixelBufferGetWidth(buffer), 320)
                XCTAssertEqual(CVPixelBufferGetHeight(buffer), fixtureHeight)
                // Converted once: a second copy is the same buffer.
                XCTAssertTrue(output.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: nil) === buffer)
            }
        }
        // RGB outputs carry no YCbCr matrix.
        let last = CMTime(value: 20, timescale: 30)
        let rgb = try XCTUnwrap(bgra.copyPixelBuffer(forItemTime: last, itemTimeForDisplay: nil))
        XCTAssertFalse(CVBufferHasAttachment(rgb, kCVImageBufferYCbCrMatrixKey))
    }

    func test_widthAndHeight_scale_andKeepTheIndexReadable() throws {
        let small = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA, kCVPixelBufferWidthKey: 160,
            kCVPixelBufferHeightKey: 90,
        ])
        // Only a width: the height follows the aspect ratio; the format stays the decoded one.
        let wide = AVPlayerItemVideoOutput(pixelBufferAttributes: [kCVPixelBufferWidthKey: NSNumber(value: 640)])
        let (v, _) = try startPlaying([small, wide])
        for k in 0..<4 {
            if k > 0 { advance(v, toFrame: k) }
            let t = CMTime(value: Int64(k), timescale: 30)
            for output in [small, wide] {
                waitUntil("frame \(k)") { output.hasNewPixelBuffer(forItemTime: t) }
            }
            let a = try XCTUnwrap(small.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: nil))
            XCTAssertEqual(CVPixelBufferGetWidth(a), 160)
            XCTAssertEqual(CVPixelBufferGetHeight(a), 90)
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(a), kCVPixelFormatType_32BGRA)
            XCTAssertEqual(frameIndex(of: a), k)
            let b = try XCTUnwrap(wide.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: nil))
            XCTAssertEqual(CVPixelBufferGetWidth(b), 640)
            XCTAssertEqual(CVPixelBufferGetHeight(b), 640 * fixtureHeight / 320)
            XCTAssertEqual(CVPixelBufferGetPixelFormatType(b), kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
            XCTAssertEqual(frameIndex(of: b), k)
        }
    }

    func test_twoOutputs_eachGetEveryFrame_independently() throws {
        let a = AVPlayerItemVideoOutput()
        let b = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA
        ])
        let (v, _) = try startPlaying([a, b])
        for k in 0..<10 {
            if k > 0 { advance(v, toFrame: k) }
            let t = CMTime(value: Int64(k), timescale: 30)
            waitUntil("frame \(k) in a") { a.hasNewPixelBuffer(forItemTime: t) }
            let fromA = try XCTUnwrap(a.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: nil))
            XCTAssertEqual(frameIndex(of: fromA), k)
            XCTAssertFalse(a.hasNewPixelBuffer(forItemTime: t))
            // Acquiring from `a` does not acquire for `b`; `b` reads only every other frame and never lags.
            if k.isMultiple(of: 2) {
                // Frame k − 1 (never taken from `b`) counts as new until frame k arrives: wait for frame k's picture.
                let fromB = try XCTUnwrap(copyPicture(b, at: t).buffer)
                XCTAssertEqual(frameIndex(of: fromB), k)
            }
        }
    }

    func test_seek_flushesOnDelegateQueue_andRestartsAtTheTarget() throws {
        let output = AVPlayerItemVideoOutput()
        let delegate = PullDelegateRecorder()
        output.setDelegate(delegate, queue: delegate.queue)
        XCTAssertTrue(output.delegate === delegate)
        XCTAssertTrue(output.delegateQueue === delegate.queue)
        let (v, _) = try startPlaying([output])
        advance(v, toFrame: 3)
        let t3 = CMTime(value: 3, timescale: 30)
        waitUntil("frame 3") { output.hasNewPixelBuffer(forItemTime: t3) }
        XCTAssertEqual(delegate.counts.flushes, 0)
        let done = Locked(false)
        v.player.seek(to: CMTime(value: 2, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero) { _ in
            done.withLock { $0 = true }
        }
        waitUntil("flushed") { delegate.counts.flushes == 1 }
        waitUntil("seek done") { done.withLock { $0 } }
        XCTAssertEqual(delegate.counts.offQueue, 0, "delegate called on its queue only")
        // Pictures from before the seek are gone; the target's picture is there.
        let target = CMTime(value: 60, timescale: 30)
        waitUntil("frame 60") { output.hasNewPixelBuffer(forItemTime: target) }
        XCTAssertNil(output.copyPixelBuffer(forItemTime: t3, itemTimeForDisplay: nil))
        let buffer = try XCTUnwrap(output.copyPixelBuffer(forItemTime: target, itemTimeForDisplay: nil))
        XCTAssertEqual(frameIndex(of: buffer), 60)
    }

    func test_requestNotification_firesOncePerRequest_whenDataArrives() throws {
        let output = AVPlayerItemVideoOutput()
        let delegate = PullDelegateRecorder()
        output.setDelegate(delegate, queue: delegate.queue)
        let (v, _) = try startPlaying([output])
        waitUntil("frame 0") { output.hasNewPixelBuffer(forItemTime: .zero) }
        // A picture not yet acquired is there: notified at once.
        output.requestNotificationOfMediaDataChange(withAdvanceInterval: 0.1)
        waitUntil("notified at once") { delegate.counts.changes == 1 }
        _ = output.copyPixelBuffer(forItemTime: .zero, itemTimeForDisplay: nil)
        // Nothing new: the notice waits for the next picture, and comes once.
        output.requestNotificationOfMediaDataChange(withAdvanceInterval: 0.1)
        spinMainRunLoop(0.1)
        XCTAssertEqual(delegate.counts.changes, 1)
        advance(v, toFrame: 1)
        waitUntil("notified on new data") { delegate.counts.changes == 2 }
        advance(v, toFrame: 2)
        spinMainRunLoop(0.1)
        XCTAssertEqual(delegate.counts.changes, 2, "once per request")
    }

    func test_removeOutput_stopsDelivery_andItemChangeRebinds() throws {
        let output = AVPlayerItemVideoOutput()
        let (v, item) = try startPlaying([output])
        waitUntil("frame 0") { output.hasNewPixelBuffer(forItemTime: .zero) }
        item.remove(output)
        XCTAssertTrue(item.outputs.isEmpty)
        XCTAssertEqual(output.itemTime(forHostTime: 0), .invalid, "unbound")
        advance(v, toFrame: 1)
        spinMainRunLoop(0.1)
        XCTAssertFalse(output.hasNewPixelBuffer(forItemTime: CMTime(value: 1, timescale: 30)))
        // Added to a new item that then becomes current: it receives that item's pictures.
        let next = AVPlayerItem(url: try fixture(.videoOnly))
        next.add(output)
        v.player.replaceCurrentItem(with: next)
        waitUntil("ready") { next.status == .readyToPlay }
        waitUntil("next item's first picture") { output.hasNewPixelBuffer(forItemTime: .zero) }
        let buffer = try XCTUnwrap(output.copyPixelBuffer(forItemTime: .zero, itemTimeForDisplay: nil))
        XCTAssertEqual(frameIndex(of: buffer), 0)
    }

    func test_itemTimeConversions_CVTimeStamp_andMachAbsoluteTime() throws {
        let output = AVPlayerItemVideoOutput()
        XCTAssertEqual(output.itemTime(forHostTime: 1), .invalid, "not attached")
        let (v, _) = try startPlaying([output])
        advance(v, toFrame: 15)
        let host = v.clock.time
        let ns = CMClockConvertHostTimeToSystemUnits(host)
        var stamp = CVTimeStamp()
        stamp.hostTime = ns
        XCTAssertEqual(output.itemTime(for: stamp), .invalid, "no valid host time in the stamp")
        stamp.flags = CVTimeStampFlags.hostTimeValid.rawValue
        XCTAssertEqual(output.itemTime(for: stamp).seconds, 0.5, accuracy: 0.001)
        XCTAssertEqual(output.itemTime(forMachAbsoluteTime: Int64(ns)).seconds, 0.5, accuracy: 0.001)
        XCTAssertFalse(output.suppressesPlayerRendering)
        output.suppressesPlayerRendering = true
        XCTAssertTrue(output.suppressesPlayerRendering)
    }
}
