import Foundation
import OAVFLocking
import PlaybackEngine
import SDLOutput
import TestSupport
import XCTest

@testable import AVFoundation

/// `AVPlayerLayer` drawing into a real SDL window on a private Xvfb display, read back from the renderer.
///
/// Skipped when `Xvfb` is not installed. The display is the first free one from a number this process picks
/// (`:100` up, so that a parallel test run does not take the same: it skipped these tests while another held `:97`);
/// `DISPLAY` is set for this process only while the test runs, and the server is stopped only after the window
/// thread has let go of it (Xlib exits the process when its server disappears).
final class AVPlayerLayerWindowTests: XCTestCase {
    private let xvfb = XvfbDisplay(first: 100)

    override func setUpWithError() throws {
        try xvfb.start()
    }

    override func tearDown() {
        xvfb.stop()
    }

    func test_window_drawsTheFramePresentedAfterOneSecond() throws {
        let v = VirtualPlayer(mode: .manual)
        let layer = AVPlayerLayer(player: v.player)
        defer { layer.player = nil }
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        v.player.replaceCurrentItem(with: item)
        waitUntil("first picture") { layer.isReadyForDisplay }
        v.player.play()
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        // About one second of playback, a frame at a time.
        for k in 1...31 {
            let target = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000)
            v.clock.advance(by: target - v.clock.time)
            waitUntil("frame \(k)") { v.frames.entries.last?.time == CMTime(value: Int64(k), timescale: 30) }
        }
        v.player.pause()
        // The picture on screen once paused: the window draws it sooner or later (a loaded machine draws the ones
        // before it late; the first read-back may still show one of those).
        let shown = try XCTUnwrap(v.frames.entries.last)
        XCTAssertEqual(shown.index, 31)

        var snapshot: SDLVideoWindow.Snapshot?
        // Each read-back waits for the window's next draw; only the hang guard bounds the wait (a loaded machine
        // draws late, not never).
        Poll.until {
            snapshot = layer.window.readBack(timeout: 2)
            guard let s = snapshot else { return false }
            return (s.itemTime - shown.time).seconds.magnitude < 0.5 / 30
        }
        let s = try XCTUnwrap(snapshot, "the window drew nothing")
        XCTAssertEqual(
            s.itemTime.seconds, shown.time.seconds, accuracy: 0.5 / 30, "the window shows the current picture")
        XCTAssertEqual(s.width, 320)
        XCTAssertEqual(s.height, 240)
        XCTAssertTrue(s.videoRect == (0, 0, 320, 240), "\(s.videoRect)")
        let expected = 31
        XCTAssertEqual(index(in: s), expected, "frame index drawn in the window")

        // The layer made wider (its frame is its window's size): pillarboxed, the picture scaled to the height; still
        // the same frame, and `videoRect` agrees with what was drawn.
        layer.frame = CGRect(x: 0, y: 0, width: 640, height: 360)
        let wide = try XCTUnwrap(readBack(layer) { $0.width == 640 && $0.height == 360 }, "no redraw after resize")
        XCTAssertTrue(wide.videoRect == (80, 0, 480, 360), "\(wide.videoRect)")
        XCTAssertEqual(layer.videoRect, CGRect(x: 80, y: 0, width: 480, height: 360))
        XCTAssertEqual(index(in: wide), expected)
        XCTAssertEqual(wide.pixels[(180 * 640 + 40) * 4 + 1], 0, "black bars beside the picture")

        // Fill gravity: the width filled, top and bottom cropped.
        layer.videoGravity = .resizeAspectFill
        let fill = try XCTUnwrap(readBack(layer) { $0.videoRect == (0, -60, 640, 480) }, "no redraw for fill")
        XCTAssertEqual(fill.width, 640)
    }

    /// A 10-bit source: the decoder's pictures are `x420` (P010), which the window rounds to 8-bit 4:2:0 for SDL.
    func test_window_drawsA10BitPicture() throws {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let layer = AVPlayerLayer(player: v.player)
        defer { layer.player = nil }
        v.player.replaceCurrentItem(with: AVPlayerItem(url: try fixture(.hdr10HEVC)))
        waitUntil("first picture") { layer.isReadyForDisplay }
        v.player.play()
        waitUntil("playing") { v.player.timeControlStatus == .playing }
        for k in 1...15 {
            v.clock.advance(by: CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000) - v.clock.time)
            waitUntil("frame \(k)") { v.frames.entries.last?.time == CMTime(value: Int64(k), timescale: 30) }
        }
        v.player.pause()
        let s = try XCTUnwrap(
            readBack(layer) { ($0.itemTime - CMTime(value: 15, timescale: 30)).seconds.magnitude < 0.5 / 30 },
            "the window did not draw picture 15")
        XCTAssertEqual(index(in: s), 15, "frame index drawn in the window")
    }

    /// `subtitles.mkv` with its SubRip track selected: cue 1 ("Cue 1 at 0.5") is due from 0.521 s to 1.221 s. Each
    /// picture is read back twice, with a legible output suppressing player rendering and without: the pixels that
    /// differ are the subtitle's. The item's text style rule colours the text pure green.
    func test_window_drawsTheCueDue_atTheBottomOfTheVideoRect_andNotWhenSuppressed() throws {
        let v = VirtualPlayer(mode: .manual)
        let layer = AVPlayerLayer(player: v.player)
        defer { layer.player = nil }
        let green = try XCTUnwrap(
            AVTextStyleRule(textMarkupAttributes: [kCMTextMarkupAttribute_ForegroundColorARGB: [1.0, 0, 1, 0]]))
        let (item, output) = try showSubRip(in: v, layer: layer, rules: [green])

        // A cue due: suppressed, then shown (while paused, without presenting another picture).
        seek(item, to: 0.8)
        let off = try XCTUnwrap(readBack(layer) { shows($0, 0.8) }, "no picture at 0.8 s")
        item.remove(output)
        let on = try XCTUnwrap(
            readBack(layer) { shows($0, 0.8) && differences($0, off).count > 200 }, "no subtitle drawn")
        XCTAssertTrue(on.videoRect == (0, 0, 320, 240), "\(on.videoRect)")
        XCTAssertEqual(index(in: off), index(in: on), "the same picture under it")
        let changed = differences(on, off)
        XCTAssertTrue(changed.allSatisfy { $0.y >= 180 }, "all in the bottom quarter of the video rect")
        let centre = Double(changed.map(\.x).min()! + changed.map(\.x).max()!) / 2
        XCTAssertEqual(centre, 160, accuracy: 16, "centred")
        XCTAssertGreaterThan(changed.filter { isGreen(on, $0) }.count, 40, "drawn in the rule’s colour")

        // No cue due (cue 1 starts at 0.521 s): the window draws the picture alone, with or without suppression.
        seek(item, to: 0.3)
        let gapOn = try XCTUnwrap(readBack(layer) { shows($0, 0.3) }, "no picture at 0.3 s")
        item.add(output)
        seek(item, to: 0.3)
        let gapOff = try XCTUnwrap(readBack(layer) { shows($0, 0.3) }, "no picture at 0.3 s")
        XCTAssertEqual(differences(gapOn, gapOff).count, 0, "nothing drawn over the picture")

        // The subtitle scales with the window: twice the size, about four times the pixels.
        layer.frame = CGRect(x: 0, y: 0, width: 640, height: 480)
        seek(item, to: 0.8)
        let largeOff = try XCTUnwrap(readBack(layer) { $0.width == 640 && shows($0, 0.8) }, "no redraw")
        item.remove(output)
        seek(item, to: 0.8)
        let largeOn = try XCTUnwrap(
            readBack(layer) { $0.width == 640 && shows($0, 0.8) && differences($0, largeOff).count > 200 },
            "no subtitle drawn in the larger window")
        let largeChanged = differences(largeOn, largeOff)
        XCTAssertTrue(largeChanged.allSatisfy { $0.y >= 360 }, "all in the bottom quarter")
        let ratio = Double(largeChanged.count) / Double(changed.count)
        XCTAssertGreaterThan(ratio, 2.5, "larger text in a larger window")
        XCTAssertLessThan(ratio, 6)
    }

    /// Aspect fill crops the picture: `subtitles.mkv` (320x240) fills a 640x360 window, its video rectangle
    /// (0, -60, 640, 480). Cue 1 at 0.8 s is drawn inside the window, in its bottom quarter (uncropped, the line would
    /// sit at y ≈ 440 of the rectangle, below the window's edge).
    func test_window_keepsSubtitlesOnScreen_whenAspectFillCropsThePicture() throws {
        let v = VirtualPlayer(mode: .manual)
        let layer = AVPlayerLayer(player: v.player)
        defer { layer.player = nil }
        layer.frame = CGRect(x: 0, y: 0, width: 640, height: 360)
        layer.videoGravity = .resizeAspectFill
        let (item, output) = try showSubRip(in: v, layer: layer)
        seek(item, to: 0.8)
        let off = try XCTUnwrap(
            readBack(layer) { $0.videoRect == (0, -60, 640, 480) && shows($0, 0.8) }, "no cropped picture")
        item.remove(output)
        let on = try XCTUnwrap(
            readBack(layer) { shows($0, 0.8) && differences($0, off).count > 200 }, "no subtitle drawn")
        let changed = differences(on, off)
        XCTAssertTrue(changed.allSatisfy { $0.y >= 270 && $0.y < 360 }, "in the bottom quarter of the window")
        XCTAssertEqual(Double(changed.map(\.x).min()! + changed.map(\.x).max()!) / 2, 320, accuracy: 32, "centred")
    }

    /// `bitmap_subtitles.mkv`'s PGS, DVD and DVB tracks (bitmap formats) in a window twice the picture's size: the
    /// yellow box placed at (40, 180) 240x40 in the 320x240 subtitle frame from 1 s to 2 s is drawn at (80, 360)
    /// 480x80, every pixel of it yellow and nothing else changed; the cyan box (100, 20) 120x30 of 3–4 s at (200, 40)
    /// 240x60; nothing between.
    func test_window_drawsBitmapSubtitles_scaledIntoTheVideoRect() throws {
        let v = VirtualPlayer(mode: .manual)
        let layer = AVPlayerLayer(player: v.player)
        defer { layer.player = nil }
        layer.frame = CGRect(x: 0, y: 0, width: 640, height: 480)
        let item = AVPlayerItem(url: try fixture(.bitmapSubtitles))
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        XCTAssertEqual(group.options.map(\.displayName), ["PGS", "DVD", "DVB"])
        let output = AVPlayerItemLegibleOutput()
        output.suppressesPlayerRendering = true
        item.add(output)
        v.player.replaceCurrentItem(with: item)
        waitUntil("first picture") { layer.isReadyForDisplay }

        func check(
            at seconds: Double, box: (x: Int, y: Int, width: Int, height: Int)?, colour: (Int, Int, Int),
            _ name: String
        ) throws {
            seek(item, to: seconds)
            let off = try XCTUnwrap(readBack(layer) { $0.width == 640 && shows($0, seconds) }, "no picture")
            item.remove(output)
            defer { item.add(output) }
            guard let box else {
                let on = try XCTUnwrap(readBack(layer) { shows($0, seconds) })
                XCTAssertEqual(differences(on, off).count, 0, "nothing drawn at \(seconds) s (\(name))")
                return
            }
            let on = try XCTUnwrap(
                readBack(layer) { shows($0, seconds) && differences($0, off).count > 1000 },
                "no box at \(seconds) s (\(name))")
            XCTAssertTrue(on.videoRect == (0, 0, 640, 480), "\(on.videoRect)")
            let inside = { (p: (x: Int, y: Int)) in
                (box.x..<box.x + box.width).contains(p.x) && (box.y..<box.y + box.height).contains(p.y)
            }
            XCTAssertTrue(differences(on, off).allSatisfy(inside), "only the box changed at \(seconds) s (\(name))")
            var matching = 0
            for y in box.y..<box.y + box.height {
                for x in box.x..<box.x + box.width {
                    let o = (y * on.width + x) * 4
                    let (b, g, r) = (Int(on.pixels[o]), Int(on.pixels[o + 1]), Int(on.pixels[o + 2]))
                    if abs(r - colour.0) <= 3 && abs(g - colour.1) <= 3 && abs(b - colour.2) <= 3 { matching += 1 }
                }
            }
            XCTAssertEqual(matching, box.width * box.height, "the whole box in its colour at \(seconds) s (\(name))")
        }
        for option in group.options {
            item.select(option, in: group)
            waitUntil("\(option.displayName) decoded") {
                let store = item.read { $0.session }?.subtitleCues
                return store?.streamIndex == option.streamIndex && store?.isComplete == true
            }
            try check(at: 1.5, box: (80, 360, 480, 80), colour: (255, 255, 0), option.displayName)
            try check(at: 2.5, box: nil, colour: (0, 0, 0), option.displayName)
            try check(at: 3.5, box: (200, 40, 240, 60), colour: (0, 255, 255), option.displayName)
        }
    }

    /// `subtitles.mkv` in `v`'s player with its SubRip track selected, `rules` applied, and a legible output that
    /// suppresses the player's rendering (remove it to show the subtitles); returns once the first picture is up and
    /// every cue decoded.
    private func showSubRip(
        in v: VirtualPlayer, layer: AVPlayerLayer, rules: [AVTextStyleRule] = []
    ) throws -> (AVPlayerItem, AVPlayerItemLegibleOutput) {
        let item = AVPlayerItem(url: try fixture(.subtitles))
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        item.select(try XCTUnwrap(group.options.first { $0.displayName == "SubRip" }), in: group)
        item.textStyleRules = rules
        let output = AVPlayerItemLegibleOutput()
        output.suppressesPlayerRendering = true
        item.add(output)
        v.player.replaceCurrentItem(with: item)
        waitUntil("first picture") { layer.isReadyForDisplay }
        waitUntil("cues decoded") { item.read { $0.session }?.subtitleCues?.isComplete == true }
        return (item, output)
    }

    private func seek(_ item: AVPlayerItem, to seconds: Double) {
        let done = Locked<Bool?>(nil)
        item.seek(
            to: CMTime(seconds: seconds, preferredTimescale: 600), toleranceBefore: .zero, toleranceAfter: .zero
        ) { ok in done.withLock { $0 = ok } }
        waitUntil("seek \(seconds)") { done.withLock { $0 } != nil }
    }

    /// Whether `s` shows the picture at `seconds` (within a frame).
    private func shows(_ s: SDLVideoWindow.Snapshot, _ seconds: Double) -> Bool {
        (s.itemTime.seconds - seconds).magnitude <= 1.0 / 30
    }

    /// Whether pixel `p` of `s` is pure green.
    private func isGreen(_ s: SDLVideoWindow.Snapshot, _ p: (x: Int, y: Int)) -> Bool {
        let o = (p.y * s.width + p.x) * 4
        return s.pixels[o + 1] > 220 && s.pixels[o + 2] < 40 && s.pixels[o] < 40
    }

    /// The pixels that differ between two snapshots of the same size.
    private func differences(_ a: SDLVideoWindow.Snapshot, _ b: SDLVideoWindow.Snapshot) -> [(x: Int, y: Int)] {
        guard a.width == b.width, a.height == b.height else { return [(0, 0)] }
        var found: [(x: Int, y: Int)] = []
        for y in 0..<a.height {
            for x in 0..<a.width {
                let o = (y * a.width + x) * 4
                if a.pixels[o..<o + 3] != b.pixels[o..<o + 3] { found.append((x, y)) }
            }
        }
        return found
    }

    /// The window's next draw that satisfies `condition` (each read-back waits for a draw); `nil` after the hang
    /// guard (a loaded machine draws late, not never).
    private func readBack(
        _ layer: AVPlayerLayer, _ condition: (SDLVideoWindow.Snapshot) -> Bool
    ) -> SDLVideoWindow.Snapshot? {
        var found: SDLVideoWindow.Snapshot?
        Poll.until {
            found = layer.window.readBack(timeout: 1).flatMap { condition($0) ? $0 : nil }
            return found != nil
        }
        return found
    }

    /// The frame index drawn inside the snapshot's video rect (which must lie inside the output).
    private func index(in s: SDLVideoWindow.Snapshot) -> Int? {
        let origin = (s.videoRect.y * s.width + s.videoRect.x) * 4
        return s.pixels.withUnsafeBytes { (pixels: UnsafeRawBufferPointer) in
            FrameIndexReader.read(
                pixels: UnsafeRawBufferPointer(rebasing: pixels[origin...]), layout: .bgra,
                width: s.videoRect.width, height: s.videoRect.height, bytesPerRow: s.width * 4)?
                .index
        }
    }
}
