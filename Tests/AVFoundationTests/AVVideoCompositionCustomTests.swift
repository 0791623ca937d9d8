import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

final class AVVideoCompositionCustomTests: XCTestCase {
    private func customComposition() throws -> AVMutableVideoComposition {
        let c = try composition(for: .videoOnly) { _ in }
        c.customVideoCompositorClass = InvertingCompositor.self
        return c
    }

    func test_invertingCompositor_composesEveryPicture_withRightTimesAndTracks() throws {
        let trackID = try XCTUnwrap(AVURLAsset(url: try fixture(.videoOnly)).tracks(withMediaType: .video).first)
            .trackID
        let (item, frames) = try playComposed(try customComposition())
        let compositor = try XCTUnwrap(item.customVideoCompositor as? InvertingCompositor)
        XCTAssertTrue(item.customVideoCompositor === compositor, "one instance per item")
        let (records, contexts, _) = compositor.recorded

        // The render context came first, once, with the render size and a BGRA pool.
        XCTAssertEqual(contexts.count, 1)
        XCTAssertEqual(contexts.first?.size, CGSize(width: 320, height: 240))
        XCTAssertTrue(contexts.first?.videoComposition.customVideoCompositorClass == InvertingCompositor.self)
        XCTAssertEqual(records.first?.renderContextsBefore, 1)

        // One request per presented picture, at its item time, with the item's video track as the source (BGRA).
        XCTAssertEqual(frames.count, 90)
        XCTAssertEqual(records.count, 90)
        XCTAssertEqual(records.map(\.time), frames.map(\.time))
        XCTAssertEqual(records.map { frameNumber($0.time) }, Array(0..<90))
        // The first finish hands the picture over; the compositor's thread makes its two later calls after it, so the
        // last picture's may still be on their way when playback has ended.
        waitUntil("every request's three finish calls") { records.allSatisfy { $0.request.finishCallCount == 3 } }
        for r in records {
            XCTAssertEqual(r.trackIDs, [trackID])
            XCTAssertEqual(r.sourceFormat, kCVPixelFormatType_32BGRA)
            XCTAssertEqual(r.request.finishCallCount, 3, "the compositor called finish three times")
            XCTAssertTrue(r.request.isFinished)
            XCTAssertTrue(r.request.videoCompositionInstruction is AVVideoCompositionInstruction)
        }

        // Every shown picture is the inverted source: inverting it back gives the right index, and only the first
        // finish counted (the second passed the un-inverted source).
        for entry in frames {
            let k = frameNumber(entry.time)
            let image = BGRAImage(entry.buffer)
            XCTAssertEqual(image.width, 320)
            XCTAssertEqual(image.frameIndex(inverted: true), k, "frame \(k)")
            XCTAssertNotEqual(image.frameIndex(), k, "frame \(k) is not shown uninverted")
        }
        // Frame 1: band 0 is white in the source, so ~0 here; band 1 is black in the source, so ~255 here.
        let one = BGRAImage(try XCTUnwrap(frames.first { frameNumber($0.time) == 1 }).buffer)
        XCTAssertLessThan(one.level(10, 15), 8)
        XCTAssertGreaterThan(one.level(30, 15), 247)
    }

    func test_videoOutput_vendsTheCustomCompositorsPictures() throws {
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: [
            kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA
        ])
        let p = try ManualComposedPlayer(try customComposition(), output: output)
        for k in 0..<5 {
            let buffer = try XCTUnwrap(p.picture(k, from: output))
            XCTAssertEqual(BGRAImage(buffer).frameIndex(inverted: true), k)
        }
    }

    func test_playerLayer_displaysTheComposedPicture() throws {
        let player = AVPlayer()
        player.sourceClock = VirtualClock(mode: .manual)
        player.audioSinkOverride = { NullAudioSink() }
        let layer = AVPlayerLayer(player: player)
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        item.videoComposition = try customComposition()
        player.replaceCurrentItem(with: item)
        waitUntil("first picture") { layer.isReadyForDisplay }
        let buffer = try XCTUnwrap(layer.displayedPixelBuffer())
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), kCVPixelFormatType_32BGRA)
        XCTAssertEqual(BGRAImage(buffer).frameIndex(inverted: true), 0)
        XCTAssertGreaterThan(BGRAImage(buffer).level(10, 15), 247, "band 0 of frame 0 is black in the source")
    }

    func test_cancelledAndUnfinishedRequests_dropThePicture() throws {
        let c = try customComposition()
        let (item, frames) = try playComposed(c) { item in
            let compositor = item.customVideoCompositor as! InvertingCompositor
            // Requests 10…19 are cancelled; request 30 is never finished (dropped after the timeout).
            compositor.behaviour = { n in (10..<20).contains(n) ? .cancel : n == 30 ? .ignore : .invert }
        }
        let compositor = try XCTUnwrap(item.customVideoCompositor as? InvertingCompositor)
        let (records, _, cancelAll) = compositor.recorded
        XCTAssertEqual(records.count, 90)
        let shown = frames.map { frameNumber($0.time) }
        XCTAssertEqual(shown, Array(0..<10) + Array(20..<30) + Array(31..<90))
        XCTAssertFalse(records[30].request.isFinished)
        XCTAssertEqual(cancelAll, 1, "the compositor is asked to cancel after a timeout")
        for entry in frames {
            XCTAssertEqual(BGRAImage(entry.buffer).frameIndex(inverted: true), frameNumber(entry.time))
        }
    }

    func test_passthroughInstruction_showsDecodedPictures_withoutCallingTheCompositor() throws {
        let trackID = try XCTUnwrap(AVURLAsset(url: try fixture(.videoOnly)).tracks(withMediaType: .video).first)
            .trackID
        let c = AVMutableVideoComposition()
        c.renderSize = CGSize(width: 320, height: 240)
        c.frameDuration = CMTime(value: 1, timescale: 30)
        c.customVideoCompositorClass = InvertingCompositor.self
        c.instructions = [PassthroughInstruction(trackID: trackID)]
        let (item, frames) = try playComposed(c)
        XCTAssertEqual(frames.count, 90)
        XCTAssertEqual((item.customVideoCompositor as? InvertingCompositor)?.recorded.records.count, 0)
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(frames[5].buffer), kCVPixelFormatType_420YpCbCr8Planar)
    }

    func test_sameClass_keepsTheInstance_otherwiseNone() throws {
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        XCTAssertNil(item.customVideoCompositor)
        item.videoComposition = try customComposition()
        let first = try XCTUnwrap(item.customVideoCompositor)
        item.videoComposition = try customComposition()
        XCTAssertTrue(item.customVideoCompositor === first)
        item.videoComposition = try composition(for: .videoOnly) { _ in }
        XCTAssertNil(item.customVideoCompositor)
        XCTAssertFalse(item.seekingWaitsForVideoCompositionRendering)
        item.seekingWaitsForVideoCompositionRendering = true
        XCTAssertTrue(item.seekingWaitsForVideoCompositionRendering)
    }
}
