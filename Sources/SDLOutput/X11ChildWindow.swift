import Foundation

/// A child window inside an app's own X11 window, where an embedded ``SDLVideoWindow`` draws: made on a display
/// connection of its own, placed at a rectangle of the app's window, mapped and unmapped, and watched for its
/// destruction (an app closing its window destroys the child with it).
///
/// Window thread only (``SDLVideoThread``): every member is called there, so the connection is used by one thread.
package final class X11ChildWindow {
    /// A rectangle in the app's window, in its pixels, origin top left.
    package typealias Rect = (x: Int, y: Int, width: Int, height: Int)

    private let x11: X11Library
    private let display: OpaquePointer
    /// The app's window.
    let host: UInt
    /// The child's X11 id (what SDL wraps with `SDL_CreateWindowFrom`).
    let id: UInt
    /// The child is gone: the app destroyed its window (or the child) under it.
    private(set) var isDestroyed = false
    /// Where the child is, while it has been placed.
    private(set) var rect: Rect?
    private var isMapped = false

    /// A child of `host`, unmapped; nil when libX11, the display or the window cannot be had (a window id that names
    /// no window fails here, reported by the server when the connection is synchronised).
    init?(host: UInt) {
        guard host != 0, let x11 = X11Library.shared, let display = x11.openDisplay(nil) else { return nil }
        x11.installErrorHandler()
        let displayKey = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(display)))
        let before = X11Errors.state.withLock { state in
            state.displays.insert(displayKey)
            return state.swallowed
        }
        self.x11 = x11
        self.display = display
        self.host = host
        var root: UInt = 0
        var (x, y): (Int32, Int32) = (0, 0)
        var (width, height, border, depth): (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        // The window must exist (an error would be swallowed: counted, not reported).
        guard x11.getGeometry(display, host, &root, &x, &y, &width, &height, &border, &depth) != 0 else {
            X11Errors.state.withLock { _ = $0.displays.remove(displayKey) }
            _ = x11.closeDisplay(display)
            return nil
        }
        id = x11.createSimpleWindow(display, host, 0, 0, 1, 1, 0, 0, 0)
        _ = x11.selectInput(display, id, X11Library.structureNotifyMask | X11Library.exposureMask)
        _ = x11.sync(display, 0)
        let failed = X11Errors.state.withLock { state in
            state.windows.formUnion([host, id])
            return state.swallowed != before
        }
        if failed || id == 0 {
            destroy()
            return nil
        }
    }

    /// Why `host` cannot take a child window, in words for an error message; nil when it can (an X11 display opens
    /// and a window of that id exists on it). Any thread (it uses a connection of its own).
    package static func problem(withHost host: UInt) -> String? {
        guard let x11 = X11Library.shared else { return "libX11 (libX11.so.6) could not be loaded" }
        guard host != 0 else { return "0 is not an X11 window id" }
        guard let display = x11.openDisplay(nil) else {
            let name = ProcessInfo.processInfo.environment["DISPLAY"] ?? ""
            return name.isEmpty
                ? "no X11 display is set (DISPLAY is empty; on Wayland only XWayland windows can be used)"
                : "the X11 display \(name) could not be opened"
        }
        x11.installErrorHandler()
        let displayKey = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(display)))
        X11Errors.state.withLock { _ = $0.displays.insert(displayKey) }
        defer {
            _ = x11.closeDisplay(display)
            X11Errors.state.withLock { _ = $0.displays.remove(displayKey) }
        }
        var root: UInt = 0
        var (x, y): (Int32, Int32) = (0, 0)
        var (width, height, border, depth): (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        guard x11.getGeometry(display, host, &root, &x, &y, &width, &height, &border, &depth) != 0 else {
            return "there is no X11 window 0x\(String(host, radix: 16)) on the display"
        }
        return nil
    }

    /// Moves and resizes the child to `newRect` (at least 1x1), and maps it when `visible` (unmaps it otherwise).
    func place(_ newRect: Rect, visible: Bool) {
        guard !isDestroyed else { return }
        if rect.map({ $0 != newRect }) ?? true {
            _ = x11.moveResizeWindow(
                display, id, Int32(clamping: newRect.x), Int32(clamping: newRect.y),
                UInt32(clamping: max(newRect.width, 1)), UInt32(clamping: max(newRect.height, 1)))
            rect = newRect
        }
        if visible != isMapped {
            _ = visible ? x11.mapWindow(display, id) : x11.unmapWindow(display, id)
            isMapped = visible
        }
        // The server has the new geometry before SDL (on its own connection) looks at it.
        _ = x11.sync(display, 0)
    }

    /// Reads the child's events: returns whether it was exposed (needs a redraw); notes its destruction.
    func pollEvents() -> Bool {
        guard !isDestroyed else { return false }
        var exposed = false
        let event = UnsafeMutableRawPointer.allocate(byteCount: X11Library.eventSize, alignment: 16)
        defer { event.deallocate() }
        while x11.pending(display) > 0 {
            _ = x11.nextEvent(display, event)
            switch event.load(as: Int32.self) {
            case X11Library.destroyNotify:
                // `XDestroyWindowEvent`: type, serial, send_event, display, event, window.
                let window = event.load(fromByteOffset: 5 * MemoryLayout<Int>.size, as: UInt.self)
                if window == id { isDestroyed = true }
            case X11Library.expose:
                exposed = true
            default:
                break
            }
        }
        return exposed
    }

    /// Destroys the child (unless the app already destroyed it) and closes the connection.
    func destroy() {
        if !isDestroyed, id != 0 {
            _ = x11.destroyWindow(display, id)
            _ = x11.sync(display, 0)
        }
        isDestroyed = true
        let displayKey = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(display)))
        _ = x11.closeDisplay(display)
        // Errors about these windows may still come on SDL's connection; they stay swallowed.
        X11Errors.state.withLock { _ = $0.displays.remove(displayKey) }
    }
}
