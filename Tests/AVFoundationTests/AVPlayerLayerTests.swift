import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// `AVPlayerLayer` offscreen (no window: the readiness, geometry and pixel-buffer API) on a manual virtual clock.
final class AVPlayerLayerTests: XCTestCase {
    /// A manual-clock player with `fixture` as its current item, ready to play (paused at item time 0).
    private func readyPlayer(_ f: Fixture) throws -> (VirtualPlayer, AVPlayerItem) {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(f))
        v.player.replaceCurrentItem(with: item)
        waitUntil("item ready") { item.status == .readyToPlay }
        return (v, item)
    }

    func test_gravityRawValues_andMakeRect() {
        XCTAssertEqual(AVLayerVideoGravity.resizeAspect.rawValue, "AVLayerVideoGravityResizeAspect")
        XCTAssertEqual(AVLayerVideoGravity.resizeAspectFill.rawValue, "AVLayerVideoGravityResizeAspectFill")
        XCTAssertEqual(AVLayerVideoGravity.resize.rawValue, "AVLayerVideoGravityResize")
        XCTAssertEqual(AVLayerVideoGravity(rawValue: "AVLayerVideoGravityResize"), .resize)
        let bounds = CGRect(x: 10, y: 20, width: 640, height: 360)
        XCTAssertEqual(
            AVMakeRect(aspectRatio: CGSize(width: 320, height: 240), insideRect: bounds),
            CGRect(x: 90, y: 20, width: 480, height: 360))
        XCTAssertEqual(
            AVMakeRect(aspectRatio: CGSize(width: 1600, height: 400), insideRect: bounds),
            CGRect(x: 10, y: 120, width: 640, height: 160))
        XCTAssertEqual(AVMakeRect(aspectRatio: .zero, insideRect: bounds).size, .zero)
    }

    func test_defaults_andFrameBounds() {
        let layer = AVPlayerLayer()
        XCTAssertNil(layer.player)
        XCTAssertEqual(layer.videoGravity, .resizeAspect)
        XCTAssertFalse(layer.isReadyForDisplay)
        XCTAssertEqual(layer.videoRect, .zero)
        XCTAssertNil(layer.displayedPixelBuffer())
        XCTAssertNil(layer.pixelBufferAttributes)
        layer.frame = CGRect(x: 5, y: 6, width: 640, height: 360)
        XCTAssertEqual(layer.bounds, CGRect(x: 0, y: 0, width: 640, height: 360))
        layer.bounds = CGRect(x: 0, y: 0, width: 100, height: 50)
        XCTAssertEqual(layer.frame, CGRect(x: 5, y: 6, width: 100, height: 50))
    }

    func test_isReadyForDisplay_turnsTrueWithFirstPicture_andIsObservable() throws {
        let v = VirtualPlayer(mode: .manual)
        let layer = AVPlayerLayer(player: v.player)
        XCTAssertTrue(layer.player === v.player)
        XCTAssertFalse(layer.isReadyForDisplay, "no item")
        var seen: [Bool] = []
        let token = layer.observe(\.isReadyForDisplay, options: [.initial, .new]) { _, change in
            seen.append(change.newValue!)
        }
        defer { token.invalidate() }
        XCTAssertEqual(seen, [false])
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        v.player.replaceCurrentItem(with: item)
        waitUntil("first picture") { layer.isReadyForDisplay }
        // Sinks get a picture one after another: the recorder may hear of it just after the layer.
        waitUntil("the engine presented a picture") { v.frames.entries.count > 0 }
        waitUntil("KVO delivered") { seen.last == true }
        XCTAssertEqual(seen.first, false)

        // An item without video: not ready, and observers hear of it.
        let audio = AVPlayerItem(url: try fixture(.audioOnly))
        v.player.replaceCurrentItem(with: audio)
        waitUntil("audio item ready") { audio.status == .readyToPlay }
        XCTAssertFalse(layer.isReadyForDisplay)
        waitUntil("KVO of the change") { seen.last == false }

        // Back to video: ready again with its first picture.
        v.player.replaceCurrentItem(with: AVPlayerItem(url: try fixture(.videoOnly)))
        waitUntil("first picture of the new item") { layer.isReadyForDisplay }
        waitUntil("KVO delivered") { seen.last == true }
        // Without a player: not ready.
        layer.player = nil
        XCTAssertFalse(layer.isReadyForDisplay)
    }

    func test_videoRect_perGravity_320x240_in640x360() throws {
        let (v, item) = try readyPlayer(.videoOnly)
        XCTAssertEqual(item.presentationSize, CGSize(width: 320, height: 240))
        let layer = AVPlayerLayer(player: v.player)
        XCTAssertEqual(layer.videoRect, .zero, "empty bounds")
        var rects: [CGRect] = []
        let token = layer.observe(\.videoRect, options: [.new]) { _, change in rects.append(change.newValue!) }
        defer { token.invalidate() }
        layer.frame = CGRect(x: 0, y: 0, width: 640, height: 360)
        XCTAssertEqual(layer.videoRect, CGRect(x: 80, y: 0, width: 480, height: 360))
        layer.videoGravity = .resize
        XCTAssertEqual(layer.videoRect, CGRect(x: 0, y: 0, width: 640, height: 360))
        // Fill: the whole bounds covered, the picture cropped top and bottom.
        layer.videoGravity = .resizeAspectFill
        XCTAssertEqual(layer.videoRect, CGRect(x: 0, y: -60, width: 640, height: 480))
        waitUntil("three KVO changes") { rects.count == 3 }
        XCTAssertEqual(
            rects,
            [
                CGRect(x: 80, y: 0, width: 480, height: 360), CGRect(x: 0, y: 0, width: 640, height: 360),
                CGRect(x: 0, y: -60, width: 640, height: 480),
            ])
    }

    func test_videoRect_followsItemReadiness_andRotation() throws {
        let v = VirtualPlayer(mode: .manual)
        let layer = AVPlayerLayer(player: v.player)
        layer.frame = CGRect(x: 0, y: 0, width: 640, height: 360)
        var rects: [CGRect] = []
        let token = layer.observe(\.videoRect, options: [.new]) { _, change in rects.append(change.newValue!) }
        defer { token.invalidate() }
        let item = AVPlayerItem(url: try fixture(.rotated90))
        v.player.replaceCurrentItem(with: item)
        waitUntil("item ready") { item.status == .readyToPlay }
        XCTAssertEqual(item.presentationSize, CGSize(width: 240, height: 320))
        // 240x320 scaled by 360/320 = 1.125 to 270x360, centred.
        XCTAssertEqual(layer.videoRect, CGRect(x: 185, y: 0, width: 270, height: 360))
        waitUntil("KVO of the presentation size") { rects.last == CGRect(x: 185, y: 0, width: 270, height: 360) }
    }

    func test_newerLayer_takesOverThePausedPicture_andTheOlderOneTurnsFalse() throws {
        let v = VirtualPlayer(mode: .manual)
        let older = AVPlayerLayer(player: v.player)
        v.player.replaceCurrentItem(with: AVPlayerItem(url: try fixture(.videoOnly)))
        waitUntil("older ready") { older.isReadyForDisplay }
        var seen: [Bool] = []
        let token = older.observe(\.isReadyForDisplay, options: [.new]) { _, change in seen.append(change.newValue!) }
        defer { token.invalidate() }
        let newer = AVPlayerLayer(player: v.player)
        XCTAssertFalse(older.isReadyForDisplay)
        waitUntil("KVO of the older layer") { seen == [false] }
        // Paused: no new picture comes, yet the newer layer shows the one on display.
        waitUntil("newer ready") { newer.isReadyForDisplay }
        XCTAssertEqual(frameIndex(of: try XCTUnwrap(newer.displayedPixelBuffer())), 0)
    }

    func test_twoLayers_onlyTheNewestShowsVideo() throws {
        let v = VirtualPlayer(mode: .manual)
        let older = AVPlayerLayer(player: v.player)
        var newer: AVPlayerLayer? = AVPlayerLayer(player: v.player)
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        v.player.replaceCurrentItem(with: item)
        waitUntil("newest ready") { newer?.isReadyForDisplay == true }
        spinMainRunLoop()
        XCTAssertFalse(older.isReadyForDisplay)
        XCTAssertNil(older.displayedPixelBuffer())
        XCTAssertNotNil(newer?.displayedPixelBuffer())

        // With the newest gone, the older one shows the next picture.
        newer = nil
        XCTAssertFalse(older.isReadyForDisplay)
        v.player.play()
        v.clock.advance(by: CMTime(value: 2, timescale: 30))
        waitUntil("older ready") { older.isReadyForDisplay }
    }

    func test_suppressingOutput_keepsTheLayerFromShowingVideo_untilRemoved() throws {
        let v = VirtualPlayer(mode: .manual)
        let layer = AVPlayerLayer(player: v.player)
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        let output = AVPlayerItemVideoOutput()
        output.suppressesPlayerRendering = true
        item.add(output)
        v.player.replaceCurrentItem(with: item)
        waitUntil("the output's first picture") { output.hasNewPixelBuffer(forItemTime: .zero) }
        v.player.play()
        v.clock.advance(by: CMTime(value: 5, timescale: 30))
        waitUntil("frame 5 at the output") { output.hasNewPixelBuffer(forItemTime: CMTime(value: 5, timescale: 30)) }
        spinMainRunLoop()
        XCTAssertFalse(layer.isReadyForDisplay, "suppressed")
        XCTAssertNil(layer.displayedPixelBuffer())
        item.remove(output)
        v.clock.advance(by: CMTime(value: 2, timescale: 30))
        waitUntil("the layer shows video") { layer.isReadyForDisplay }
    }

    func test_displayedPixelBuffer_whilePaused_inRequestedFormat() throws {
        let v = VirtualPlayer(mode: .manual)
        let layer = AVPlayerLayer(player: v.player)
        v.player.replaceCurrentItem(with: AVPlayerItem(url: try fixture(.videoOnly)))
        waitUntil("first picture") { layer.isReadyForDisplay }
        let buffer = try XCTUnwrap(layer.displayedPixelBuffer())
        XCTAssertEqual(frameIndex(of: buffer), 0)
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), kCVPixelFormatType_420YpCbCr8Planar)

        layer.pixelBufferAttributes = [kCVPixelBufferPixelFormatTypeKey: kCVPixelFormatType_32BGRA]
        let bgra = try XCTUnwrap(layer.displayedPixelBuffer())
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(bgra), kCVPixelFormatType_32BGRA)
        XCTAssertEqual(frameIndex(of: bgra), 0)

        // Playing: nothing (Apple's is only for a paused player).
        v.player.play()
        waitUntil("playing") { v.player.rate == 1 }
        XCTAssertNil(layer.displayedPixelBuffer())
    }
}
