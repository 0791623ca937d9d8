import CoreMedia
import FFmpegBridge
import Foundation
import TestSupport
import XCTest

@testable import PlaybackEngine

private typealias Cue = PlaybackEngine.SubtitleCue

/// The libass renderer alone: cues drawn into a frame, the lit pixels counted where they must be and nowhere else.
final class SubtitleRendererTests: XCTestCase {
    private func seconds(_ s: Double) -> CMTime { CMTime(seconds: s, preferredTimescale: 1000) }

    private func cue(_ text: String, from start: Double, to end: Double?) -> Cue {
        Cue(start: seconds(start), end: end.map(seconds), regions: [.ass("0,0,Default,,0,0,0,,\(text)")])
    }

    private func renderer() throws -> SubtitleRenderer {
        try XCTUnwrap(SubtitleRenderer(), "libass starts")
    }

    /// Pixels of `image` for which `test(b, g, r, a)` holds, with their frame coordinates.
    private func pixels(
        _ image: SubtitleImage, where test: (UInt8, UInt8, UInt8, UInt8) -> Bool
    ) -> [(x: Int, y: Int)] {
        var found: [(Int, Int)] = []
        for y in 0..<image.height {
            for x in 0..<image.width {
                let o = (y * image.width + x) * 4
                let p = image.pixels
                if test(p[o], p[o + 1], p[o + 2], p[o + 3]) { found.append((image.x + x, image.y + y)) }
            }
        }
        return found
    }

    private func isOpaqueWhite(_ b: UInt8, _ g: UInt8, _ r: UInt8, _ a: UInt8) -> Bool {
        a > 200 && r > 200 && g > 200 && b > 200
    }

    func test_cue_isDrawnWhiteAtTheBottomCentre_onlyWhileShown() throws {
        let r = try renderer()
        let cues = [cue("Cue at the bottom", from: 1, to: 2)]
        let (w, h) = (640, 360)
        let image = try XCTUnwrap(r.render(cues, at: seconds(1.5), width: w, height: h), "a cue due is drawn")
        let lit = pixels(image) { _, _, _, a in a > 0 }
        XCTAssertGreaterThan(lit.count, 500)
        // libavcodec's default style: bottom centre, 10 of 288 script pixels above the bottom.
        XCTAssertTrue(lit.allSatisfy { $0.y >= h * 3 / 4 && $0.y < h }, "text only in the bottom quarter")
        let xs = lit.map(\.x)
        let centre = Double(xs.min()! + xs.max()!) / 2
        XCTAssertEqual(centre, Double(w) / 2, accuracy: Double(w) * 0.05, "centred")
        let white = pixels(image, where: isOpaqueWhite)
        XCTAssertGreaterThan(white.count, 200, "white fill (the default style's primary colour)")
        let black = pixels(image) { b, g, r, a in a > 200 && r < 40 && g < 40 && b < 40 }
        XCTAssertGreaterThan(black.count, 100, "black outline")

        // Not before its start, not at its end (exclusive), and larger in a larger frame.
        XCTAssertNil(r.render(cues, at: seconds(0.99), width: w, height: h))
        XCTAssertNil(r.render(cues, at: seconds(2), width: w, height: h))
        XCTAssertNil(r.render([], at: seconds(1.5), width: w, height: h))
        let large = try XCTUnwrap(r.render(cues, at: seconds(1.5), width: w * 2, height: h * 2))
        XCTAssertEqual(Double(large.height), Double(image.height) * 2, accuracy: Double(image.height) * 0.2)
        XCTAssertEqual(Double(large.width), Double(image.width) * 2, accuracy: Double(image.width) * 0.2)
    }

    /// A 640x480 picture filling a 640x360 window (aspect fill: 60 rows cropped at the top and bottom): the text is
    /// laid out in the visible part, bottom-centred in it, and sized to it (as mpv sizes subtitles to the window:
    /// three quarters of the uncropped size here).
    func test_croppedVideo_keepsTheTextInTheVisiblePart_atTheVideosScale() throws {
        let r = try renderer()
        let cues = [cue("Cue at the bottom", from: 1, to: 2)]
        let whole = try XCTUnwrap(r.render(cues, at: seconds(1.5), width: 640, height: 480))
        XCTAssertGreaterThan(whole.y + whole.height, 380, "uncropped, the line sits below the visible part's end")
        let cropped = try XCTUnwrap(
            r.render(cues, at: seconds(1.5), width: 640, height: 480, visible: (0, 60, 640, 360)))
        let lit = pixels(cropped) { _, _, _, a in a > 0 }
        XCTAssertGreaterThan(lit.count, 500)
        XCTAssertTrue(lit.allSatisfy { $0.y >= 270 && $0.y < 360 }, "in the bottom quarter of the visible part")
        XCTAssertEqual(Double(cropped.width) / Double(whole.width), 0.75, accuracy: 0.1, "sized to the visible part")
        let xs = lit.map(\.x)
        XCTAssertEqual(Double(xs.min()! + xs.max()!) / 2, 320, accuracy: 32, "centred")
        // Cropped at the sides too (a wide picture in a narrow window): still centred in what is visible.
        let narrow = try XCTUnwrap(
            r.render(cues, at: seconds(1.5), width: 640, height: 480, visible: (160, 0, 320, 480)))
        let narrowXs = pixels(narrow) { _, _, _, a in a > 0 }.map(\.x)
        XCTAssertGreaterThanOrEqual(narrowXs.min()!, 0)
        XCTAssertLessThanOrEqual(narrowXs.max()!, 320)
        XCTAssertNil(r.render(cues, at: seconds(1.5), width: 640, height: 480, visible: (0, 60, 640, 480)), "outside")
    }

    /// SubRip `<i>` reaches libass as the ASS tag `{\i1}` (libavcodec's conversion, kept as it is), and is drawn
    /// slanted: the same text without the tag draws differently. SubRip `<font color>` draws in its colour.
    func test_subRipItalicAndColour_reachLibassAsOverrideTags() throws {
        let reader = SubtitleTrackReader(
            source: FFmpegSource(url: try Fixtures.url(.subtitles)), streamIndex: 2, timeOrigin: .zero)
        reader.start()
        XCTAssertTrue(reader.store.waitUntilComplete(), "the reader finished")
        reader.stop()
        let store = reader.store
        XCTAssertTrue(store.isComplete)
        let cues = store.allCues.filter { !$0.regions.isEmpty }
        XCTAssertEqual(cues.count, 5)
        let italic = cues[1]
        guard case .ass(let line) = italic.regions.first else { return XCTFail("an ASS event") }
        let event = try XCTUnwrap(SubtitleRenderer.eventLine(for: .ass(line)))
        XCTAssertTrue(event.contains("{\\i1}Cue 2 at 1.5"), event)

        let r = try renderer()
        r.setScript(header: store.assHeader, style: SubtitleTextStyle())
        let at = italic.start + seconds(0.1)
        let slanted = try XCTUnwrap(r.render([italic], at: at, width: 640, height: 480))
        var upright = italic
        upright.regions = [
            .ass(line.replacingOccurrences(of: "{\\i1}", with: "").replacingOccurrences(of: "{\\i0}", with: ""))
        ]
        let plain = try XCTUnwrap(r.render([upright], at: at, width: 640, height: 480))
        XCTAssertNotEqual(slanted.pixels, plain.pixels, "italic draws differently")

        let red = cues[3]
        let colour = try XCTUnwrap(r.render([red], at: red.start + seconds(0.1), width: 640, height: 480))
        let redPixels = pixels(colour) { b, g, r, a in a > 200 && r > 200 && g < 60 && b < 60 }
        XCTAssertGreaterThan(redPixels.count, 150, "<font color=\"#FF0000\"> draws red")
        XCTAssertEqual(pixels(colour, where: isOpaqueWhite).count, 0, "no white fill")
    }

    /// CEA-608 captions (libavcodec's `ccaption` events, in its own script) are drawn, and only while due.
    func test_closedCaptions_areDrawnWhileDue() throws {
        let reader = SubtitleTrackReader(
            source: FFmpegSource(url: try Fixtures.url(.captions608)), streamIndex: 0, timeOrigin: .zero,
            closedCaptions: true)
        reader.start()
        XCTAssertTrue(reader.store.waitUntilComplete(), "the reader finished")
        reader.stop()
        let store = reader.store
        XCTAssertTrue(store.isComplete)
        let r = try renderer()
        r.setScript(header: store.assHeader, style: SubtitleTextStyle())
        for caption in Fixture.closedCaptions {
            let middle = seconds((caption.start + caption.end) / 2)
            let image = try XCTUnwrap(
                r.render(store.shown(at: middle), at: middle, width: 640, height: 480), caption.text)
            XCTAssertGreaterThan(pixels(image, where: isOpaqueWhite).count, 100, caption.text)
            let after = seconds(caption.end + 0.1)
            XCTAssertNil(r.render(store.shown(at: after), at: after, width: 640, height: 480), caption.text)
        }
    }

    /// CEA-708 captions (``CEA708Decoder``'s events, in its script) are drawn where their window is, while due:
    /// service 1 in the lower part of the picture, centred, caption 3 yellow; service 2 in the upper part.
    func test_closedCaptions708_areDrawnInTheirWindowsPlace_whileDue() throws {
        func store(_ service: Int) throws -> SubtitleCueStore {
            let reader = SubtitleTrackReader(
                source: FFmpegSource(url: try Fixtures.url(.captions708)), streamIndex: 0, timeOrigin: .zero,
                closedCaptions: true, captionService: .cea708(service: service))
            reader.start()
            XCTAssertTrue(reader.store.waitUntilComplete(), "the reader finished")
            reader.stop()
            XCTAssertTrue(reader.store.isComplete)
            return reader.store
        }
        let r = try renderer()
        for (service, captions) in [(1, Fixture.cea708Service1), (2, Fixture.cea708Service2)] {
            let cues = try store(service)
            r.setScript(header: cues.assHeader, style: SubtitleTextStyle())
            for (n, caption) in captions.enumerated() {
                let middle = seconds((caption.start + caption.end) / 2)
                let image = try XCTUnwrap(
                    r.render(cues.shown(at: middle), at: middle, width: 640, height: 480), caption.text)
                let centreY = image.y + image.height / 2
                if service == 1 {
                    XCTAssertGreaterThan(centreY, 300, "\(caption.text): low in the picture")
                    XCTAssertEqual(Double(image.x + image.width / 2), 320, accuracy: 12, "\(caption.text): centred")
                } else {
                    XCTAssertLessThan(centreY, 160, "\(caption.text): high in the picture")
                }
                let yellow = pixels(image) { b, g, r, a in a > 200 && r > 200 && g > 200 && b < 60 }.count
                let white = pixels(image, where: isOpaqueWhite).count
                if service == 1 && n == 2 {
                    XCTAssertGreaterThan(yellow, 100, caption.text)
                    XCTAssertEqual(white, 0, caption.text)
                } else {
                    XCTAssertGreaterThan(white, 100, caption.text)
                    XCTAssertEqual(yellow, 0, caption.text)
                }
                let after = seconds(caption.end + 0.05)
                XCTAssertNil(r.render(cues.shown(at: after), at: after, width: 640, height: 480), caption.text)
            }
        }
    }

    func test_textStyle_setsColourAndFontSize() throws {
        let r = try renderer()
        let cues = [cue("Styled", from: 0, to: 5)]
        let base = try XCTUnwrap(r.render(cues, at: seconds(1), width: 640, height: 480))

        var style = SubtitleTextStyle()
        style.foregroundColour = [1, 0, 1, 0]
        r.setScript(header: nil, style: style)
        let green = try XCTUnwrap(r.render(cues, at: seconds(1), width: 640, height: 480))
        XCTAssertGreaterThan(pixels(green) { b, g, r, a in a > 200 && g > 200 && r < 60 && b < 60 }.count, 150)
        XCTAssertEqual(pixels(green, where: isOpaqueWhite).count, 0)

        // 10 % of the video's height: 48 px of font in a 480 px frame; twice the size of the default's 16/288.
        style.fontSizePercentOfHeight = 10
        r.setScript(header: nil, style: style)
        let big = try XCTUnwrap(r.render(cues, at: seconds(1), width: 640, height: 480))
        let ratio = Double(big.height) / Double(base.height)
        XCTAssertEqual(ratio, 10 / (16.0 / 288 * 100), accuracy: 0.35, "size follows the percentage")
        style.relativeFontSize = 50
        r.setScript(header: nil, style: style)
        let half = try XCTUnwrap(r.render(cues, at: seconds(1), width: 640, height: 480))
        XCTAssertEqual(Double(half.width) / Double(big.width), 0.5, accuracy: 0.1, "relative size halves it")

        style = SubtitleTextStyle()
        style.bold = true
        r.setScript(header: nil, style: style)
        let bold = try XCTUnwrap(r.render(cues, at: seconds(1), width: 640, height: 480))
        XCTAssertGreaterThan(
            pixels(bold, where: isOpaqueWhite).count, pixels(base, where: isOpaqueWhite).count, "bold strokes are wider"
        )

        style = SubtitleTextStyle()
        style.italic = true
        r.setScript(header: nil, style: style)
        let italic = try XCTUnwrap(r.render(cues, at: seconds(1), width: 640, height: 480))
        XCTAssertNotEqual(italic.pixels, base.pixels, "italic draws differently")
        r.setScript(header: nil, style: SubtitleTextStyle())
        XCTAssertEqual(r.render(cues, at: seconds(1), width: 640, height: 480), base, "no style: as at first")
    }

    func test_plainText_isEscaped_andBitmapsAreScaledIntoTheFrame() throws {
        XCTAssertEqual(
            SubtitleRenderer.eventLine(for: .text("a{b}\nc")), "0,0,Default,,0,0,0,,a\\{b\\}\\Nc")
        XCTAssertNil(SubtitleRenderer.eventLine(for: .bitmap(x: 0, y: 0, width: 1, height: 1, rgba: [0, 0, 0, 0])))

        let r = try renderer()
        r.bitmapFrameSize = (100, 100)
        let rgba = [UInt8]((0..<200).flatMap { _ in [255, 0, 0, 255] })
        let cue = Cue(
            start: seconds(1), end: nil, regions: [.bitmap(x: 10, y: 80, width: 20, height: 10, rgba: rgba)])
        let image = try XCTUnwrap(r.render([cue], at: seconds(1), width: 200, height: 200))
        XCTAssertEqual([image.x, image.y, image.width, image.height], [20, 160, 40, 20])
        XCTAssertEqual(pixels(image) { b, g, r, a in a == 255 && r == 255 && g == 0 && b == 0 }.count, 40 * 20)
    }
}
