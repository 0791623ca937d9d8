import CoreMedia
import FFmpegBridge
import Foundation
import NativeBridge

/// Draws subtitle cues into a picture-sized frame with libass (the library mpv draws every text subtitle with).
///
/// One libass library and renderer with fontconfig's default fonts, and one track made from the stream's ASS header
/// (libavcodec's `subtitle_header`: the script info and `[V4+ Styles]`; ASS/SSA streams carry their own, SubRip,
/// WebVTT, mov_text and CEA-608 get libavcodec's default one), each owned by its NativeBridge wrapper (`ASSLibrary`,
/// `ASSRenderer`, `ASSTrack`). Cues are ASS event lines already: libavcodec turns every text format into them, with
/// bold, italic, underline and colour as override tags (`{\i1}`…); plain text regions are escaped into events here.
/// Each ``render(_:at:width:height:visible:)`` puts the cues shown into the track as its events (with their own start
/// and duration, so fades and moves play) and asks libass for the frame at that time, then composites libass's alpha
/// masks, and the pictures of bitmap cues (PGS, DVB, VobSub) scaled from ``bitmapFrameSize``, into one image over their
/// bounding box.
///
/// Not thread-safe: one thread owns a renderer (a window's thread).
package final class SubtitleRenderer {
    /// The libass library the renderer and every track are made from.
    private let library: ASSLibrary
    /// The libass renderer: frame geometry, fonts, the last frame's images.
    private let renderer: ASSRenderer
    /// The track made from ``header`` and ``style``; nil only when libass could not make one.
    private var track: ASSTrack?
    /// What the track was made from.
    private var header: String?
    private var style = SubtitleTextStyle()
    /// The cues the track holds as events.
    private var events: [SubtitleCue] = []
    private var frameSize = (width: 0, height: 0)
    /// The part of the video rectangle libass's frame covers.
    private var visibleArea = (x: 0, y: 0, width: 0, height: 0)
    /// The last image made, returned again while libass reports no change.
    private var lastImage: SubtitleImage?
    private var lastBitmapsKey: [SubtitleCue] = []

    /// The frame the pictures of bitmap cues are placed in (the codec's frame size; zeros: the video's size given to
    /// ``render(_:at:width:height:visible:)``).
    package var bitmapFrameSize = (width: 0, height: 0)

    /// The size of the video's pictures (libass scales borders and blur against it); zeros: the frame size.
    package var storageSize = (width: 0, height: 0)

    /// A renderer with fontconfig's fonts (`sans-serif` when a style's font is missing); nil when libass cannot
    /// start.
    package init?() {
        guard let library = ASSLibrary() else { return nil }
        // libass prints its version and font-matching chatter to stderr by default; a player's terminal is not the
        // place.
        library.silenceMessages()
        guard let renderer = ASSRenderer(library: library) else { return nil }
        self.library = library
        self.renderer = renderer
        renderer.setFonts(defaultFamily: "sans-serif")
        // Unpositioned events are placed in the frame, not the video: with the negative margins of a cropped picture
        // (see render's `visible`), inside what is on screen. (Without it libass crops such a line away.)
        renderer.setUseMargins(true)
        setScript(header: nil, style: SubtitleTextStyle())
    }

    /// Uses the stream's ASS header (nil: libavcodec's default one, which SubRip and the other text formats get)
    /// with `style` laid over its styles. Rebuilds the track only when either changed.
    package func setScript(header newHeader: String?, style newStyle: SubtitleTextStyle) {
        guard track == nil || newHeader != header || newStyle != style else { return }
        // The old track is freed before the new one is made.
        track = nil
        header = newHeader
        style = newStyle
        events = []
        lastImage = nil
        track = ASSTrack(library: library)
        guard let track else { return }
        track.processCodecPrivate(newHeader ?? Self.defaultHeader)
        // Events are replaced on every change of what is shown; libass must not drop a re-added one as a repeat.
        track.setCheckReadOrder(false)
        apply(newStyle, to: track)
    }

    /// The cues in `cues` drawn as shown at item time `time` for a `width`×`height` video rectangle: one
    /// straight-alpha image over the bounding box of what was drawn, or nil when nothing was.
    ///
    /// `visible` is the part of the video rectangle that is on screen (in its pixels; nil: all of it), smaller when
    /// the picture is cropped (`resizeAspectFill`). Text is then laid out, and sized, in the visible part (libass's
    /// negative margins with margins in use, as mpv does for pan-and-scan with its default `sub-scale-with-window`),
    /// so a bottom line stays on screen; bitmap cues stay where they are on the picture and are cropped with it. The
    /// image's position is relative to the visible part.
    package func render(
        _ cues: [SubtitleCue], at time: CMTime, width: Int, height: Int,
        visible: (x: Int, y: Int, width: Int, height: Int)? = nil
    ) -> SubtitleImage? {
        guard let track, width > 0, height > 0, width <= 16384, height <= 16384, time.isNumeric else { return nil }
        let shown = visible ?? (0, 0, width, height)
        guard shown.x >= 0, shown.y >= 0, shown.width > 0, shown.height > 0, shown.x + shown.width <= width,
            shown.y + shown.height <= height
        else { return nil }
        if frameSize != (width, height) || visibleArea != shown {
            frameSize = (width, height)
            visibleArea = shown
            renderer.setFrameSize(width: shown.width, height: shown.height)
            // Each margin is the distance from the video's edge to the frame's: negative where the video is cropped.
            renderer.setMargins(
                top: -shown.y, bottom: -(height - shown.y - shown.height), left: -shown.x,
                right: -(width - shown.x - shown.width))
            lastImage = nil
        }
        let storage = storageSize.width > 0 && storageSize.height > 0 ? storageSize : frameSize
        renderer.setStorageSize(width: storage.width, height: storage.height)
        let now = Self.milliseconds(time)
        let textCues = cues.filter { $0.regions.contains { !$0.isBitmap } }
        if textCues != events {
            track.flushEvents()
            for cue in textCues { add(cue, to: track, now: now) }
            events = textCues
            lastImage = nil
        }
        let changed = renderer.renderFrame(track, at: now)
        let bitmapCues = cues.filter { $0.regions.contains { $0.isBitmap } }
        if !changed, bitmapCues == lastBitmapsKey, let lastImage { return lastImage }
        lastBitmapsKey = bitmapCues
        let masks = renderer.frameImages()
        var pictures: [(x: Int, y: Int, width: Int, height: Int, rgba: [UInt8])] = []
        for cue in bitmapCues {
            for case .bitmap(let x, let y, let w, let h, let rgba) in cue.regions {
                pictures.append((x, y, w, h, rgba))
            }
        }
        let rects =
            masks.map(Canvas.rect(of:))
            + pictures.map {
                let r = Canvas.placement(
                    x: $0.x, y: $0.y, width: $0.width, height: $0.height, frame: bitmapFrameSize,
                    output: (width, height)
                ).rect
                return (r.x0 - shown.x, r.y0 - shown.y, r.x1 - shown.x, r.y1 - shown.y)
            }
        guard var canvas = Canvas(width: shown.width, height: shown.height, covering: rects) else {
            lastImage = nil
            return nil
        }
        for mask in masks { canvas.blend(mask) }
        for p in pictures {
            canvas.blend(
                bitmap: p.rgba, x: p.x, y: p.y, width: p.width, height: p.height, in: bitmapFrameSize,
                video: (width, height), offset: (shown.x, shown.y))
        }
        lastImage = canvas.image()
        return lastImage
    }

    /// The event line libass is given for `region` (nil for a picture): an ASS line as it is, plain text escaped.
    package static func eventLine(for region: SubtitleRegion) -> String? {
        switch region {
        case .ass(let line): return line
        case .text(let text):
            var escaped = ""
            for c in text {
                switch c {
                case "\n": escaped += "\\N"
                // A backslash stays literal (the word joiner keeps it from starting `\N`, `\h`…); braces are escaped.
                case "\\": escaped += "\\\u{2060}"
                case "{": escaped += "\\{"
                case "}": escaped += "\\}"
                default: escaped.append(c)
                }
            }
            return "0,0,Default,,0,0,0,,\(escaped)"
        case .bitmap: return nil
        }
    }

    private func add(_ cue: SubtitleCue, to track: ASSTrack, now: Int64) {
        let start = Self.milliseconds(cue.start)
        // A cue without an end lasts until the next one, which the caller stops showing it for: an hour past now.
        let end = cue.end.map(Self.milliseconds) ?? max(start, now) + 3_600_000
        let duration = max(end - start, 1)
        for region in cue.regions {
            guard let line = Self.eventLine(for: region) else { continue }
            track.processChunk(line, start: start, duration: duration)
        }
    }

    /// Lays `style` over every style of `track`.
    private func apply(_ style: SubtitleTextStyle, to track: ASSTrack) {
        guard !style.isEmpty else { return }
        let playResY = Double(track.playResY > 0 ? track.playResY : 288)
        for i in 0..<track.styleCount {
            track.updateStyle(at: i) { s in
                if let c = style.foregroundColour, c.count == 4 {
                    func byte(_ v: Double) -> UInt32 { UInt32((min(max(v, 0), 1) * 255).rounded()) }
                    // RGBA with the alpha byte as transparency (0: opaque).
                    s.primaryColour = byte(c[1]) << 24 | byte(c[2]) << 16 | byte(c[3]) << 8 | (255 - byte(c[0]))
                }
                if let bold = style.bold { s.bold = bold ? 1 : 0 }
                if let italic = style.italic { s.italic = italic ? 1 : 0 }
                if let underline = style.underline { s.underline = underline ? 1 : 0 }
                if let family = style.fontFamily { s.fontName = family }
                if let percent = style.fontSizePercentOfHeight, percent > 0, percent.isFinite {
                    s.fontSize = percent / 100 * playResY
                }
                if let relative = style.relativeFontSize, relative > 0, relative.isFinite {
                    s.fontSize *= relative / 100
                }
            }
        }
    }

    private static func milliseconds(_ t: CMTime) -> Int64 {
        Int64((t.seconds * 1000).rounded(.down))
    }

    /// libavcodec's default script header (`ff_ass_subtitle_header_default`), for cues of a stream without one.
    static let defaultHeader = """
        [Script Info]
        ScriptType: v4.00+
        PlayResX: 384
        PlayResY: 288
        ScaledBorderAndShadow: yes

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, \
        Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, \
        MarginR, MarginV, Encoding
        Style: Default,Arial,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """
}

/// What a ``SubtitleRenderer`` drew: straight-alpha pixels placed in the frame it was asked for.
///
/// A value type: any thread.
package struct SubtitleImage: Sendable, Equatable {
    /// Where the image's top-left corner lies in the frame, in pixels.
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int
    /// B, G, R, A bytes (straight alpha), `width * 4` a row: SDL's ARGB8888 on little-endian hosts.
    package var pixels: [UInt8]
}

extension SubtitleRegion {
    var isBitmap: Bool {
        if case .bitmap = self { return true }
        return false
    }
}

/// A premultiplied canvas over the part of a frame that is drawn, the images composited onto it ("over").
private struct Canvas {
    /// The frame's size.
    let width: Int
    let height: Int
    /// The canvas, in frame pixels.
    let box: (x: Int, y: Int, width: Int, height: Int)
    /// Premultiplied B, G, R, A, `box.width` pixels a row.
    private var pixels: [UInt16]

    /// A canvas over the union of `rects` (frame pixels, clipped to the frame); nil when that is empty.
    init?(width: Int, height: Int, covering rects: [(x0: Int, y0: Int, x1: Int, y1: Int)]) {
        guard !rects.isEmpty else { return nil }
        let x0 = max(0, rects.map(\.x0).min()!)
        let y0 = max(0, rects.map(\.y0).min()!)
        let x1 = min(width, rects.map(\.x1).max()!)
        let y1 = min(height, rects.map(\.y1).max()!)
        guard x0 < x1, y0 < y1 else { return nil }
        self.width = width
        self.height = height
        box = (x0, y0, x1 - x0, y1 - y0)
        pixels = [UInt16](repeating: 0, count: box.width * box.height * 4)
    }

    /// Where a libass image lies in the frame.
    static func rect(of image: ASSImage) -> (x0: Int, y0: Int, x1: Int, y1: Int) {
        (image.x, image.y, image.x + image.width, image.y + image.height)
    }

    /// Where a picture placed at `x`, `y` (`w`×`h`) in a `frame`-sized space lies in the frame, and the scale.
    static func placement(
        x: Int, y: Int, width w: Int, height h: Int, frame: (Int, Int), output: (Int, Int)
    ) -> (
        rect: (x0: Int, y0: Int, x1: Int, y1: Int), sx: Double, sy: Double
    ) {
        let (fw, fh) = frame.0 > 0 && frame.1 > 0 ? frame : output
        let sx = Double(output.0) / Double(fw)
        let sy = Double(output.1) / Double(fh)
        let rect = (
            Int((Double(x) * sx).rounded(.down)), Int((Double(y) * sy).rounded(.down)),
            Int((Double(x + w) * sx).rounded(.up)), Int((Double(y + h) * sy).rounded(.up))
        )
        return (rect, sx, sy)
    }

    /// Puts a colour (0…255 each) with coverage `alpha` (0…255) over frame pixel `x`, `y` (inside the box).
    private mutating func over(_ x: Int, _ y: Int, b: Int, g: Int, r: Int, alpha: Int) {
        guard alpha > 0 else { return }
        let o = ((y - box.y) * box.width + x - box.x) * 4
        let keep = 255 - alpha
        pixels[o] = UInt16((b * alpha + Int(pixels[o]) * keep) / 255)
        pixels[o + 1] = UInt16((g * alpha + Int(pixels[o + 1]) * keep) / 255)
        pixels[o + 2] = UInt16((r * alpha + Int(pixels[o + 2]) * keep) / 255)
        pixels[o + 3] = UInt16((255 * alpha + Int(pixels[o + 3]) * keep) / 255)
    }

    /// The part of `rect` inside the box.
    private func clip(_ rect: (x0: Int, y0: Int, x1: Int, y1: Int)) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
        let c = (
            max(rect.x0, box.x), max(rect.y0, box.y), min(rect.x1, box.x + box.width), min(rect.y1, box.y + box.height)
        )
        return c.0 < c.2 && c.1 < c.3 ? c : nil
    }

    /// One libass image: an alpha mask in one colour (RGBA, the alpha byte a transparency).
    mutating func blend(_ image: ASSImage) {
        let mask = image.alpha
        guard mask.count == image.width * image.height, let c = clip(Self.rect(of: image)) else { return }
        let colour = Int(image.color)
        let (r, g, b) = ((colour >> 24) & 0xFF, (colour >> 16) & 0xFF, (colour >> 8) & 0xFF)
        let opacity = 255 - (colour & 0xFF)
        guard opacity > 0 else { return }
        for y in c.y0..<c.y1 {
            let row = (y - image.y) * image.width - image.x
            for x in c.x0..<c.x1 {
                over(x, y, b: b, g: g, r: r, alpha: Int(mask[row + x]) * opacity / 255)
            }
        }
    }

    /// A picture (straight-alpha RGBA, `w`×`h` at `x`, `y` in a `frame`-sized space) scaled onto a `video`-sized
    /// rectangle (nearest neighbour), of which the canvas's frame is the part at `offset`.
    mutating func blend(
        bitmap rgba: [UInt8], x: Int, y: Int, width w: Int, height h: Int, in frame: (Int, Int), video: (Int, Int),
        offset: (x: Int, y: Int)
    ) {
        guard w > 0, h > 0, rgba.count >= w * h * 4 else { return }
        let p = Self.placement(x: x, y: y, width: w, height: h, frame: frame, output: video)
        let shifted = (p.rect.x0 - offset.x, p.rect.y0 - offset.y, p.rect.x1 - offset.x, p.rect.y1 - offset.y)
        guard let c = clip(shifted) else { return }
        for dy in c.y0..<c.y1 {
            let v = min(h - 1, max(0, Int((Double(dy + offset.y) + 0.5) / p.sy) - y))
            for dx in c.x0..<c.x1 {
                let u = min(w - 1, max(0, Int((Double(dx + offset.x) + 0.5) / p.sx) - x))
                let s = (v * w + u) * 4
                over(dx, dy, b: Int(rgba[s + 2]), g: Int(rgba[s + 1]), r: Int(rgba[s]), alpha: Int(rgba[s + 3]))
            }
        }
    }

    /// The visible part of the canvas as straight-alpha BGRA; nil when nothing is visible.
    func image() -> SubtitleImage? {
        var visible: (x0: Int, y0: Int, x1: Int, y1: Int)?
        for y in 0..<box.height {
            for x in 0..<box.width where pixels[(y * box.width + x) * 4 + 3] > 0 {
                if let v = visible {
                    visible = (min(v.x0, x), min(v.y0, y), max(v.x1, x + 1), max(v.y1, y + 1))
                } else {
                    visible = (x, y, x + 1, y + 1)
                }
            }
        }
        guard let v = visible else { return nil }
        let (w, h) = (v.x1 - v.x0, v.y1 - v.y0)
        var out = [UInt8](repeating: 0, count: w * h * 4)
        for y in 0..<h {
            for x in 0..<w {
                let i = ((v.y0 + y) * box.width + v.x0 + x) * 4
                let a = Int(pixels[i + 3])
                guard a > 0 else { continue }
                let o = (y * w + x) * 4
                out[o] = UInt8(min(255, Int(pixels[i]) * 255 / a))
                out[o + 1] = UInt8(min(255, Int(pixels[i + 1]) * 255 / a))
                out[o + 2] = UInt8(min(255, Int(pixels[i + 2]) * 255 / a))
                out[o + 3] = UInt8(a)
            }
        }
        return SubtitleImage(x: box.x + v.x0, y: box.y + v.y0, width: w, height: h, pixels: out)
    }
}
