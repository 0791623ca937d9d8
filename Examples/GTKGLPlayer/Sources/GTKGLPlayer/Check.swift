// --check: screenshots of the window as GTK draws it, with the frame index read from the video pane and the app's
// own drawing (bar, frame, side pane) checked around it.
import AVFoundation
import CGtk4
import Foundation

/// A flag set from callbacks on other queues (a seek's completion) and read by the loop.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// The window rendered to pixels by its own GSK renderer: what GTK puts on screen, the GL area's picture included.
@MainActor
struct Screenshot {
    let width: Int
    let height: Int
    /// Cairo's ARGB32 words in memory order (B, G, R, A on little-endian hosts), premultiplied (opaque here).
    let bytes: [UInt8]

    /// Renders `window`; with `path`, also writes the picture there as PNG.
    init?(of window: UnsafeMutablePointer<GtkWidget>, savingTo path: String? = nil) {
        let (w, h) = (Double(gtk_widget_get_width(window)), Double(gtk_widget_get_height(window)))
        guard w > 0, h > 0, let paintable = gtk_widget_paintable_new(window), let snapshot = gtk_snapshot_new() else {
            return nil
        }
        defer { g_object_unref(UnsafeMutableRawPointer(paintable)) }
        gdk_paintable_snapshot(paintable, snapshot, w, h)
        guard let node = gtk_snapshot_free_to_node(snapshot) else { return nil }
        defer { gsk_render_node_unref(node) }
        var bounds = graphene_rect_t()
        bounds.size.width = Float(w)
        bounds.size.height = Float(h)
        guard let renderer = gtk_native_get_renderer(OpaquePointer(window)),
            let texture = gsk_renderer_render_texture(renderer, node, &bounds)
        else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        if let path, gdk_texture_save_to_png(texture, path) == 0 { print("cannot write \(path)") }
        width = Int(gdk_texture_get_width(texture))
        height = Int(gdk_texture_get_height(texture))
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        gdk_texture_download(texture, &pixels, gsize(width * 4))
        bytes = pixels
    }

    /// The (red, green, blue) of pixel (x, y), top-left origin.
    func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = (y * width + x) * 4
        return (Int(bytes[i + 2]), Int(bytes[i + 1]), Int(bytes[i]))
    }

    func matches(_ x: Int, _ y: Int, _ color: (Int, Int, Int)) -> Bool {
        let p = rgb(x, y)
        return abs(p.0 - color.0) <= 2 && abs(p.1 - color.1) <= 2 && abs(p.2 - color.2) <= 2
    }
}

/// Where `widget` is in the window (x, y, width, height).
@MainActor
func bounds(of widget: UnsafeMutablePointer<GtkWidget>) -> (x: Int, y: Int, width: Int, height: Int) {
    var rect = graphene_rect_t()
    _ = gtk_widget_compute_bounds(widget, window, &rect)
    return (Int(rect.origin.x), Int(rect.origin.y), Int(rect.size.width), Int(rect.size.height))
}

/// Screenshots the window and checks the picture the area shows and the app's drawing around it.
@MainActor
func check(_ label: String, frameRate: Double) -> Bool {
    guard let shot = Screenshot(of: window, savingTo: screenshotPath.map { "\($0)-\(label.prefix { $0 != " " }).png" })
    else {
        print("\(label): no screenshot")
        return false
    }
    // The screenshot rendered the area, taking in the picture pulled last.
    guard let picture = renderer?.picture else {
        print("\(label): no picture")
        return false
    }
    let video = bounds(of: area)
    let stripMiddle = video.y + video.height / 16
    var index = 0
    for band in 0..<16 {
        let x = video.x + Int((Double(band) + 0.5) * Double(video.width) / 16)
        let (r, g, b) = shot.rgb(x, stripMiddle)
        if (r + g + b) / 3 > 128 { index |= 1 << band }
    }
    let expected = Int((picture.time.seconds * frameRate).rounded())
    let barBox = bounds(of: bar)
    let frameBox = bounds(of: frame)
    let sideBox = bounds(of: side)
    // The bar's right end (the title sits at its left), the frame's four sides, the side pane under its widgets.
    let barIntact =
        shot.matches(barBox.x + barBox.width - 5, barBox.y + 5, barColor)
        && shot.matches(barBox.x + barBox.width - 5, barBox.y + barBox.height - 5, barColor)
    let frameIntact =
        shot.matches(frameBox.x + 1, frameBox.y + frameBox.height / 2, frameColor)
        && shot.matches(frameBox.x + frameBox.width - 2, frameBox.y + frameBox.height / 2, frameColor)
        && shot.matches(frameBox.x + frameBox.width / 2, frameBox.y + 1, frameColor)
        && shot.matches(frameBox.x + frameBox.width / 2, frameBox.y + frameBox.height - 2, frameColor)
    let sideIntact =
        shot.matches(sideBox.x + 5, sideBox.y + sideBox.height - 5, sideColor)
        && shot.matches(frameBox.x - 5, frameBox.y + frameBox.height - 5, sideColor)
    let format = picture.pixelFormat == kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange ? "x420" : "420v"
    print(
        "\(label): frame index \(index) on screen at \(String(format: "%.3f", picture.time.seconds)) s "
            + "(expected \(expected), \(format) textures, screenshot \(shot.width)x\(shot.height)); "
            + "bar \(barIntact ? "intact" : "OVERWRITTEN"), frame \(frameIntact ? "intact" : "OVERWRITTEN"), "
            + "side pane \(sideIntact ? "intact" : "OVERWRITTEN")")
    return index == expected && barIntact && frameIntact && sideIntact
}

/// Seeks to `seconds` (paused), checks; plays a second, pauses, checks again; waits for the link to go quiescent,
/// seeks back to `seconds` and checks a third time. True when every check passed.
@MainActor
func runCheck(at seconds: Double) -> Bool {
    let frameRate = 30.0  // the fixtures'
    let target = CMTime(seconds: seconds, preferredTimescale: 600)
    let seeked = Flag()
    player.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero) { if $0 { seeked.set() } }
    let oneFrame = CMTime(seconds: 1 / frameRate, preferredTimescale: 600)
    /// Whether the picture pulled last (pending or on screen) is the one for `time`.
    func showing(_ time: CMTime) -> Bool {
        guard let shown = pending?.time ?? renderer?.picture?.time else { return false }
        return shown <= time && time - shown < oneFrame
    }
    iterate(until: { seeked.isSet && showing(target) }, timeout: 60)
    guard seeked.isSet && showing(target) else {
        print("the seek to \(seconds) s did not reach the screen")
        return false
    }
    var ok = check("after seeking to \(seconds) s", frameRate: frameRate)
    player.play()
    iterate(until: { player.currentTime().seconds >= seconds + 1 }, timeout: 60)
    player.pause()
    let paused = player.currentTime()
    iterate(until: { showing(paused) }, timeout: 10)
    ok = check("paused at \(String(format: "%.3f", paused.seconds)) s", frameRate: frameRate) && ok
    // Paused, nothing new comes: the link goes quiescent. A seek back brings a picture, and the pull delegate
    // starts the link again.
    iterate(until: { tickID == 0 }, timeout: 30)
    guard tickID == 0 else {
        print("the link did not go quiescent while paused")
        return false
    }
    let back = Flag()
    player.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero) { if $0 { back.set() } }
    iterate(until: { back.isSet && showing(target) }, timeout: 60)
    ok = check("after seeking back to \(seconds) s from quiescence", frameRate: frameRate) && ok
    return ok
}
