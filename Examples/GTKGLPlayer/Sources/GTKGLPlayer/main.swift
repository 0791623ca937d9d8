// A GTK 4 app with the video in one pane of its own window and its own widgets around it: a title bar, a side
// pane with a play/pause button and a time label, and an orange frame around a GtkGLArea. GTK's frame clock is the
// display link: a tick callback on the area asks the AVPlayerItemVideoOutput for the picture due at the frame's
// predicted presentation time (itemTime(forHostTime:), hasNewPixelBuffer, copyPixelBuffer — each returns at once),
// and the area's render handler turns it into textures with CVOpenGLESTextureCache (VideoRenderer.swift). The
// player never calls into GTK; nothing here waits for it, so the GTK main loop never blocks on playback.
//
//     swift run GTKGLPlayer movie.mp4                 play in a window until the end (closing it quits)
//     swift run GTKGLPlayer movie.mp4 --check 2.5     seek to 2.5 s, screenshot the window, read the frame index
//                                                     from the video pane, play a second, pause, check again;
//                                                     once the link is quiescent, seek back and check again
//     swift run GTKGLPlayer movie.mp4 --gles          the same in an OpenGL ES context (desktop GL by default)
//
// --check takes the screenshot the way GTK draws the window (its widget tree rendered to a texture by the window's
// own GSK renderer, the GL area's picture included), reads the index the fixture pictures carry (16 bands across
// the top eighth, band i white when bit i is set) from the video pane, and checks the bar, the frame and the side
// pane are the app's colours. It prints what it read and exits 1 on any mismatch. Under Xvfb it runs on Mesa's
// software GL (GDK_BACKEND=x11).
import AVFoundation
import CGtk4
import Foundation

// MARK: Arguments

let arguments = CommandLine.arguments.dropFirst()
guard let path = arguments.first else {
    print("usage: GTKGLPlayer FILE [--check SECONDS [--screenshots PREFIX]] [--gles]")
    exit(2)
}
/// --screenshots PREFIX: the checks also write their screenshots as PREFIX-after.png and PREFIX-paused.png.
let screenshotPath: String? = {
    guard let i = arguments.firstIndex(of: "--screenshots"), i + 1 < arguments.endIndex else { return nil }
    return arguments[i + 1]
}()
let checkTime: Double? = {
    guard let i = arguments.firstIndex(of: "--check"), i + 1 < arguments.endIndex else { return nil }
    return Double(arguments[i + 1])
}()

// MARK: The app's window

/// GTK's widget pointers are typed per class; this casts between them (every one is a GObject).
func cast<T>(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<T> {
    UnsafeMutableRawPointer(widget).assumingMemoryBound(to: T.self)
}

/// `widget` as the GtkGLArea it is (C callbacks cannot call the generic `cast`).
func glArea(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkGLArea> {
    UnsafeMutableRawPointer(widget).assumingMemoryBound(to: GtkGLArea.self)
}

/// Connects a C handler to a GObject signal (`g_signal_connect`, a macro Swift cannot call).
func connect<F>(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: F) {
    g_signal_connect_data(instance, signal, unsafeBitCast(handler, to: GCallback.self), nil, nil, GConnectFlags(0))
}

/// The app's colours (CSS), checked in the screenshot.
let barColor = (26, 51, 153)
let frameColor = (255, 128, 0)
let sideColor = (51, 51, 51)
let css = """
    window { background-color: rgb(\(sideColor.0), \(sideColor.1), \(sideColor.2)); color: white; }
    .bar { background-color: rgb(\(barColor.0), \(barColor.1), \(barColor.2)); min-height: 40px; padding: 0 12px; }
    .frame { border: 4px solid rgb(\(frameColor.0), \(frameColor.1), \(frameColor.2)); margin: 20px; }
    .side { padding: 20px 0 20px 20px; }
    """

gtk_init()
let provider = gtk_css_provider_new()!
gtk_css_provider_load_from_data(provider, css, -1)
gtk_style_context_add_provider_for_display(
    gdk_display_get_default(), OpaquePointer(provider), UInt32(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))

let window = gtk_window_new()!
gtk_window_set_title(cast(window), "GTKGLPlayer")
// No client-side decorations: the screenshot's coordinates are the window's.
gtk_window_set_decorated(cast(window), 0)
gtk_window_set_resizable(cast(window), 0)
let column = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
let bar = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
gtk_widget_add_css_class(bar, "bar")
let title = gtk_label_new("OpenAVFoundation in a GTK 4 window")!
gtk_box_append(cast(bar), title)
gtk_box_append(cast(column), bar)
let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0)!
let side = gtk_box_new(GTK_ORIENTATION_VERTICAL, 12)!
gtk_widget_add_css_class(side, "side")
let playButton = gtk_button_new_with_label("Play / Pause")!
let timeLabel = gtk_label_new("0.00 s")!
gtk_box_append(cast(side), playButton)
gtk_box_append(cast(side), timeLabel)
gtk_box_append(cast(row), side)
let frame = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
gtk_widget_add_css_class(frame, "frame")
let area = gtk_gl_area_new()!
gtk_widget_set_size_request(area, 400, 300)
gtk_gl_area_set_has_depth_buffer(cast(area), 0)
// --gles: ask GTK for an OpenGL ES context (the shader and the texture cache handle both).
if arguments.contains("--gles") { gtk_gl_area_set_use_es(cast(area), 1) }
gtk_box_append(cast(frame), area)
gtk_box_append(cast(row), frame)
gtk_box_append(cast(column), row)
gtk_window_set_child(cast(window), column)

// MARK: Player and output

let player = AVPlayer()
let item = AVPlayerItem(url: URL(fileURLWithPath: path))
// No attributes: Apple's default for the source, bi-planar 420v (8-bit) or x420 (10-bit), one texture per plane.
let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
item.add(output)
player.replaceCurrentItem(with: item)

// MARK: GL (the area's own context)

var renderer: VideoRenderer?
/// What this app's handlers cost GTK's loop: ticks run, and the longest tick (pull) and render (upload + draw), in
/// seconds. Printed at the end; nothing here waits on the player, so both stay short.
var tickCount = 0
var longestTick = 0.0
var longestRender = 0.0
/// The picture pulled on the last tick, made into textures by the next render.
var pending: (buffer: CVPixelBuffer, time: CMTime)?
var failed = false

connect(
    area, "realize",
    { (widget: UnsafeMutablePointer<GtkWidget>?, _: gpointer?) in
        MainActor.assumeIsolated {
            guard let widget else { return }
            gtk_gl_area_make_current(glArea(widget))
            if let error = gtk_gl_area_get_error(glArea(widget)) {
                print("no GL context: \(String(cString: error.pointee.message))")
                failed = true
                return
            }
            let context = gtk_gl_area_get_context(glArea(widget))
            let es = gdk_gl_context_get_use_es(context) != 0
            print("GL: \(String(cString: glGetString(GLenum(GL_VERSION)))) (\(es ? "OpenGL ES" : "desktop GL"))")
            renderer = VideoRenderer(openGLES: es)
            if renderer == nil { failed = true }
        }
    } as @convention(c) (UnsafeMutablePointer<GtkWidget>?, gpointer?) -> Void)

connect(
    area, "unrealize",
    { (widget: UnsafeMutablePointer<GtkWidget>?, _: gpointer?) in
        MainActor.assumeIsolated {
            guard let widget else { return }
            gtk_gl_area_make_current(glArea(widget))
            renderer?.release()
            renderer = nil
        }
    } as @convention(c) (UnsafeMutablePointer<GtkWidget>?, gpointer?) -> Void)

connect(
    area, "render",
    { (widget: UnsafeMutablePointer<GtkWidget>?, _: OpaquePointer?, _: gpointer?) -> gboolean in
        MainActor.assumeIsolated {
            guard let renderer, let widget else { return 0 }
            let start = CACurrentMediaTime()
            defer { longestRender = max(longestRender, CACurrentMediaTime() - start) }
            if let next = pending {
                pending = nil
                renderer.show(next.buffer, at: next.time)
            }
            let scale = gtk_widget_get_scale_factor(widget)
            renderer.draw(width: gtk_widget_get_width(widget) * scale, height: gtk_widget_get_height(widget) * scale)
            return 1
        }
    } as @convention(c) (UnsafeMutablePointer<GtkWidget>?, OpaquePointer?, gpointer?) -> gboolean)

// MARK: The display link: GTK's frame clock

var lastLabelUpdate = 0.0
/// The tick callback while the link runs (0: quiescent), and the ticks in a row that found no new picture.
var tickID: guint = 0
var idleTicks = 0
var quiescences = 0
var restarts = 0

/// Once per frame of GTK's frame clock: pull the picture due when this frame reaches the screen. The frame clock
/// counts g_get_monotonic_time microseconds, the host clock here (CLOCK_MONOTONIC). After half a second without a
/// new picture (paused, or not ready yet) the link goes quiescent, as in Apple's sample: the callback ends and the
/// output's pull delegate starts it again when pictures come.
let tick: GtkTickCallback = { widget, clock, _ in
    MainActor.assumeIsolated {
        guard let widget, let clock else { return 1 }
        let start = CACurrentMediaTime()
        defer {
            tickCount += 1
            longestTick = max(longestTick, CACurrentMediaTime() - start)
        }
        var due = gdk_frame_clock_get_frame_time(clock)
        if let timings = gdk_frame_clock_get_current_timings(clock),
            gdk_frame_timings_get_predicted_presentation_time(timings) > 0
        {
            due = gdk_frame_timings_get_predicted_presentation_time(timings)
        } else {
            var interval: gint64 = 0
            gdk_frame_clock_get_refresh_info(clock, due, &interval, nil)
            due += interval
        }
        let t = output.itemTime(forHostTime: CFTimeInterval(due) / 1_000_000)
        idleTicks += 1
        if output.hasNewPixelBuffer(forItemTime: t) {
            var shown = CMTime.invalid
            if let buffer = output.copyPixelBuffer(forItemTime: t, itemTimeForDisplay: &shown) {
                pending = (buffer, shown)
                idleTicks = 0
                gtk_gl_area_queue_render(glArea(widget))
            }
        }
        // The app's own widgets go on living beside the video.
        let now = player.currentTime().seconds
        if abs(now - lastLabelUpdate) >= 0.1 {
            lastLabelUpdate = now
            gtk_label_set_text(OpaquePointer(timeLabel), String(format: "%.2f s", now))
        }
        if idleTicks >= 30 {
            tickID = 0
            quiescences += 1
            output.requestNotificationOfMediaDataChange(withAdvanceInterval: 0.03)
            return 0  // G_SOURCE_REMOVE: quiescent
        }
        return 1  // G_SOURCE_CONTINUE
    }
}

/// Starts the link (again).
@MainActor
func startTicking() {
    guard tickID == 0 else { return }
    idleTicks = 0
    tickID = gtk_widget_add_tick_callback(area, tick, nil, nil)
}

/// Wakes the quiescent link when pictures come (on the main queue, which the GLib timeout below runs).
final class LinkWaker: AVPlayerItemOutputPullDelegate, @unchecked Sendable {
    func outputMediaDataWillChange(_ sender: AVPlayerItemOutput) {
        MainActor.assumeIsolated {
            restarts += 1
            startTicking()
        }
    }
}
let waker = LinkWaker()
output.setDelegate(waker, queue: .main)
startTicking()

connect(
    playButton, "clicked",
    { (_: UnsafeMutablePointer<GtkButton>?, _: gpointer?) in
        MainActor.assumeIsolated {
            if player.rate == 0 { player.play() } else { player.pause() }
        }
    } as @convention(c) (UnsafeMutablePointer<GtkButton>?, gpointer?) -> Void)

var running = true
connect(
    window, "close-request",
    { (_: UnsafeMutablePointer<GtkWindow>?, _: gpointer?) -> gboolean in
        MainActor.assumeIsolated { running = false }
        return 1  // the loop below ends and tears down
    } as @convention(c) (UnsafeMutablePointer<GtkWindow>?, gpointer?) -> gboolean)

gtk_window_present(cast(window))

// MARK: Foundation's main queue inside GLib's loop

/// GTK owns the main thread and runs GLib's loop; callbacks the player sends to the main queue (a seek's completion,
/// notifications) are run by turning Foundation's main run loop once, without waiting, every 5 ms.
_ = g_timeout_add(
    5,
    { _ in
        _ = RunLoop.main.run(mode: .default, before: .distantPast)
        return 1
    }, nil)

/// Runs GLib's loop (and so GTK and the tick) until `done` or `running` is false.
@MainActor
func iterate(until done: () -> Bool, timeout: Double) {
    let deadline = Date().addingTimeInterval(timeout)
    while running && !done() && Date() < deadline { g_main_context_iteration(nil, 1) }
}

iterate(until: { item.status != .unknown }, timeout: 30)
guard item.status == .readyToPlay else {
    print("cannot play \(path): \(item.error?.localizedDescription ?? "unknown error")")
    exit(1)
}
print("ready: \(String(format: "%.2f", item.duration.seconds)) s")

if let checkTime {
    failed = !runCheck(at: checkTime) || failed
} else {
    player.play()
    iterate(until: { player.currentTime() >= item.duration }, timeout: .infinity)
}

player.pause()
print(
    String(
        format:
            "main loop: %d ticks, longest tick (pull) %.2f ms, longest render (upload + draw) %.2f ms; "
            + "the link went quiescent %d times and was restarted %d times", tickCount, longestTick * 1000,
        longestRender * 1000, quiescences, restarts))
gtk_window_destroy(cast(window))
// Let GTK unrealize the area (the renderer gives its textures back in the area's context).
for _ in 0..<10 { g_main_context_iteration(nil, 0) }
exit(failed ? 1 : 0)
