import Foundation
import OAVFLocking
import PlaybackEngine

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The Xlib entry points that placing a player layer in an app's own X11 window needs (a child window, moved,
/// resized, mapped and watched), and the few more a test or an example needs to be that app (a window, a filled
/// rectangle, a screenshot). Looked up at run time (`dlopen("libX11.so.6")`), as CoreVideo looks up GL, so nothing
/// links libX11 that does not embed; SDL loads the same library for its X11 driver.
///
/// Calls on one `Display` connection must come from one thread at a time (each user here keeps its connection
/// to one thread); the table itself is immutable and may be shared.
package struct X11Library: @unchecked Sendable {
    package typealias OpenDisplay = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    package typealias CloseDisplay = @convention(c) (OpaquePointer) -> Int32
    package typealias CreateSimpleWindow =
        @convention(c) (OpaquePointer, UInt, Int32, Int32, UInt32, UInt32, UInt32, UInt, UInt) -> UInt
    package typealias WindowCall = @convention(c) (OpaquePointer, UInt) -> Int32
    package typealias MoveResizeWindow = @convention(c) (OpaquePointer, UInt, Int32, Int32, UInt32, UInt32) -> Int32
    package typealias SelectInput = @convention(c) (OpaquePointer, UInt, Int) -> Int32
    package typealias DisplayCall = @convention(c) (OpaquePointer) -> Int32
    package typealias NextEvent = @convention(c) (OpaquePointer, UnsafeMutableRawPointer) -> Int32
    package typealias Sync = @convention(c) (OpaquePointer, Int32) -> Int32
    /// `int (*)(Display *, XErrorEvent *)`.
    package typealias ErrorHandler = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
    package typealias SetErrorHandler = @convention(c) (ErrorHandler?) -> ErrorHandler?
    package typealias RootWindow = @convention(c) (OpaquePointer) -> UInt
    package typealias GetGeometry =
        @convention(c) (
            OpaquePointer, UInt, UnsafeMutablePointer<UInt>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>,
            UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<UInt32>,
            UnsafeMutablePointer<UInt32>
        ) -> Int32
    package typealias CreateGC = @convention(c) (OpaquePointer, UInt, UInt, UnsafeMutableRawPointer?) -> OpaquePointer?
    package typealias SetForeground = @convention(c) (OpaquePointer, OpaquePointer, UInt) -> Int32
    package typealias FillRectangle =
        @convention(c) (OpaquePointer, UInt, OpaquePointer, Int32, Int32, UInt32, UInt32) -> Int32
    package typealias FreeGC = @convention(c) (OpaquePointer, OpaquePointer) -> Int32
    package typealias GetImage =
        @convention(c) (OpaquePointer, UInt, Int32, Int32, UInt32, UInt32, UInt, Int32) -> UnsafeMutableRawPointer?
    package typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Int32

    package let openDisplay: OpenDisplay
    package let closeDisplay: CloseDisplay
    package let createSimpleWindow: CreateSimpleWindow
    package let destroyWindow: WindowCall
    package let mapWindow: WindowCall
    package let unmapWindow: WindowCall
    package let moveResizeWindow: MoveResizeWindow
    package let selectInput: SelectInput
    package let pending: DisplayCall
    package let nextEvent: NextEvent
    package let sync: Sync
    package let flush: DisplayCall
    package let setErrorHandler: SetErrorHandler
    package let defaultRootWindow: RootWindow
    package let getGeometry: GetGeometry
    package let createGC: CreateGC
    package let setForeground: SetForeground
    package let fillRectangle: FillRectangle
    package let freeGC: FreeGC
    package let getImage: GetImage
    package let free: Free

    /// The table, loaded once; nil when libX11 cannot be loaded (a system without X11 libraries).
    package static let shared: X11Library? = load()

    private static func load() -> X11Library? {
        guard let handle = dlopen("libX11.so.6", RTLD_NOW | RTLD_GLOBAL) else { return nil }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: type) }
        }
        guard let openDisplay = symbol("XOpenDisplay", as: OpenDisplay.self),
            let closeDisplay = symbol("XCloseDisplay", as: CloseDisplay.self),
            let createSimpleWindow = symbol("XCreateSimpleWindow", as: CreateSimpleWindow.self),
            let destroyWindow = symbol("XDestroyWindow", as: WindowCall.self),
            let mapWindow = symbol("XMapWindow", as: WindowCall.self),
            let unmapWindow = symbol("XUnmapWindow", as: WindowCall.self),
            let moveResizeWindow = symbol("XMoveResizeWindow", as: MoveResizeWindow.self),
            let selectInput = symbol("XSelectInput", as: SelectInput.self),
            let pending = symbol("XPending", as: DisplayCall.self),
            let nextEvent = symbol("XNextEvent", as: NextEvent.self),
            let sync = symbol("XSync", as: Sync.self),
            let flush = symbol("XFlush", as: DisplayCall.self),
            let setErrorHandler = symbol("XSetErrorHandler", as: SetErrorHandler.self),
            let defaultRootWindow = symbol("XDefaultRootWindow", as: RootWindow.self),
            let getGeometry = symbol("XGetGeometry", as: GetGeometry.self),
            let createGC = symbol("XCreateGC", as: CreateGC.self),
            let setForeground = symbol("XSetForeground", as: SetForeground.self),
            let fillRectangle = symbol("XFillRectangle", as: FillRectangle.self),
            let freeGC = symbol("XFreeGC", as: FreeGC.self),
            let getImage = symbol("XGetImage", as: GetImage.self),
            let free = symbol("XFree", as: Free.self)
        else { return nil }
        return X11Library(
            openDisplay: openDisplay, closeDisplay: closeDisplay, createSimpleWindow: createSimpleWindow,
            destroyWindow: destroyWindow, mapWindow: mapWindow, unmapWindow: unmapWindow,
            moveResizeWindow: moveResizeWindow, selectInput: selectInput, pending: pending, nextEvent: nextEvent,
            sync: sync, flush: flush, setErrorHandler: setErrorHandler, defaultRootWindow: defaultRootWindow,
            getGeometry: getGeometry, createGC: createGC, setForeground: setForeground,
            fillRectangle: fillRectangle, freeGC: freeGC, getImage: getImage, free: free)
    }

    // MARK: Constants (X.h)

    /// `StructureNotifyMask`: the window's own configure, map and destroy events.
    static let structureNotifyMask = 1 << 17
    /// `ExposureMask`.
    static let exposureMask = 1 << 15
    /// `DestroyNotify`.
    static let destroyNotify: Int32 = 17
    /// `Expose`.
    static let expose: Int32 = 12
    /// `ZPixmap`.
    static let zPixmap: Int32 = 2
    /// The size of `XEvent` (a union padded to 24 longs).
    static let eventSize = 24 * MemoryLayout<Int>.size

    // MARK: Errors

    /// Makes Xlib errors about the windows this process embeds into (and anything on the connections it opened for
    /// that) harmless: an app's window may be destroyed while a layer still draws into a child of it, and Xlib's
    /// default handler (which SDL's chains to) ends the process on any error. Other errors go to the handler that
    /// was installed before. Idempotent; call it on the thread that is about to use Xlib.
    func installErrorHandler() {
        X11Errors.state.withLock { state in
            let previous = setErrorHandler(x11ErrorHandler)
            // Our handler installed again (SDL re-installs its own over ours when it restarts its video): keep the
            // handler that was there before ours the first time.
            if let previous,
                unsafeBitCast(previous, to: UnsafeRawPointer.self)
                    != unsafeBitCast(x11ErrorHandler as ErrorHandler, to: UnsafeRawPointer.self)
            {
                state.previous = previous
            }
        }
    }
}

/// What the process-wide Xlib error handler knows: the connections and windows whose errors it swallows, the
/// handler it chains to, and how many errors it swallowed (tests read it). Xlib calls the handler on whatever
/// thread made the failing call, hence the lock; it guards only these few values and never waits on anything.
enum X11Errors {
    struct State {
        /// Connections this process opened to embed (their errors are all expected: windows vanish under them).
        var displays: Set<UInt> = []
        /// Child windows this process made in app windows, and those app windows.
        var windows: Set<UInt> = []
        /// The handler installed before ours.
        var previous: X11Library.ErrorHandler?
        /// Errors swallowed so far.
        var swallowed = 0
    }

    static let state = Locked(State())
}

extension X11Errors.State: @unchecked Sendable {}

/// The handler `X11Library.installErrorHandler()` installs. `XErrorEvent`: `int type; Display *display;
/// XID resourceid; unsigned long serial; unsigned char error_code, request_code, minor_code`.
private let x11ErrorHandler: X11Library.ErrorHandler = { display, event in
    guard let event else { return 0 }
    let resource = event.load(fromByteOffset: 2 * MemoryLayout<Int>.size, as: UInt.self)
    let displayKey = UInt(bitPattern: display.map { Int(bitPattern: UnsafeRawPointer($0)) } ?? 0)
    let previous: X11Library.ErrorHandler? = X11Errors.state.withLock { state in
        guard state.displays.contains(displayKey) || state.windows.contains(resource) else { return state.previous }
        state.swallowed += 1
        return nil
    }
    guard let previous else { return 0 }
    return previous(display, event)
}
