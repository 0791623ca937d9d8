import CSDL2
import CoreMedia
import CoreVideo
import Foundation
import OAVFLocking
import PlaybackEngine

/// A desktop window showing the pictures the engine presents: a ``VideoFrameSink`` drawing with an SDL renderer.
///
/// Threads:
/// - ``present(_:itemTime:session:)`` runs on the engine thread and only drops the picture into a one-slot mailbox
///   (the latest picture wins; a short lock, never a wait), so a slow display cannot hold up playback.
/// - Every SDL video call happens on one process-wide window thread (``SDLVideoThread``), which owns every window,
///   renderer and texture, uploads the newest picture of each window, letterboxes it per ``Gravity``, presents
///   (with vsync when the renderer offers it) and pumps SDL events: a resize redraws, a close request hides the
///   window; keys pressed in a window and close or quit requests go to its ``setEventHandler(_:)``. The thread
///   starts with the first open window and ends, quitting SDL's video subsystem, once the last window is closed.
/// - The other methods may be called from any thread.
///
/// Nothing is shown when no display is configured (``isDisplayConfigured``) or SDL's video subsystem cannot start;
/// the window then silently drops pictures. Pictures in `'y420'` / `'f420'` (planar 4:2:0, uploaded to an IYUV
/// streaming texture), `'420v'` / `'420f'` (NV12) and `'BGRA'` are drawn as they are; grey (`'L008'`), `'RGBA'`
/// and `'ARGB'` are converted to BGRA with libswscale on the window thread; other formats are not drawn.
///
/// Subtitles (``setSubtitleSource(_:)``) are drawn over the picture on the window thread: a ``SubtitleRenderer``
/// (libass) renders the cues shown at the picture's item time at the size the video rectangle has in the window,
/// so text stays sharp and scales with the window, and the result is blended on as a texture of its own.
package final class SDLVideoWindow: VideoWindow, @unchecked Sendable {
    /// How the picture fills the window (the engine's ``VideoGravity``).
    package typealias Gravity = VideoGravity
    /// Something the user did to the window, for ``setEventHandler(_:)`` (the engine's ``WindowEvent``).
    package typealias Event = WindowEvent
    /// A key: text as typed (from SDL's text input, layout and Shift applied), other keys by name.
    package typealias Key = WindowEvent.Key
    /// What the window drew last, read back from the renderer (for tests).
    package typealias Snapshot = VideoWindowSnapshot

    /// Whether a display is configured for SDL: `DISPLAY` or `WAYLAND_DISPLAY` set, or `SDL_VIDEODRIVER` chosen
    /// explicitly. Without one no window is attempted (SDL would otherwise probe a console driver such as KMSDRM).
    package static var isDisplayConfigured: Bool {
        let environment = ProcessInfo.processInfo.environment
        return ["DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"].contains { !(environment[$0] ?? "").isEmpty }
    }

    /// Whether the window thread is running (it holds SDL's video subsystem and a display connection).
    package static var isWindowThreadRunning: Bool { SDLVideoThread.shared.isRunning }

    /// Guards the mailbox `var`s below (window thread and callers). Engine thread (present), the window thread and the
    /// app's threads. Not an engine command: the window thread has no engine and `present` runs on the engine thread.
    private let lock = ConditionLock()
    /// Guards `snapshot` and `snapshotRequested`; a test thread waits on it for the window thread's next draw. Not an
    /// engine command: the window thread has no engine. Lock order: this lock, then `lock`.
    let snapshotReady = ConditionLock()
    /// Guarded by `lock`.
    private var pending: (buffer: CVPixelBuffer, time: CMTime)?
    private var title: String
    private var contentSize: (width: Int, height: Int)?
    private var displaySize: (width: Double, height: Double)?
    private var rotation = 0
    private var gravity = Gravity.resizeAspect
    private var requestedSize: (width: Int, height: Int)?
    /// Settings changed since the window thread last looked.
    private var settingsChanged = true
    /// Called on the window thread with each ``Event``.
    private var eventHandler: (@Sendable (Event) -> Void)?
    /// Names the cues drawn over the pictures and their styling (``setSubtitleSource(_:)``).
    private var subtitleSource: (@Sendable () -> SubtitleSelection)?
    /// The app's X11 window the picture is placed in (``setHost(_:frame:)``; nil: a window of its own), the
    /// rectangle of it the layer takes, and whether the app hid the picture (``setHidden(_:)``).
    private var host: UInt?
    /// Whether the app that owns `host` reads SDL's event queue itself (an SDL app,
    /// ``attachHost(_:appReadsSDLEvents:)``).
    private var hostReadsSDLEvents = false
    /// The SDL id of the window of its own while it is open (the window thread's `windowID`, for other threads).
    private var openWindowID: UInt32?
    private var hostFrame: X11ChildWindow.Rect = (0, 0, 0, 0)
    /// Counts ``attachHost(_:appReadsSDLEvents:)`` calls.
    private var hostAttachment = 0
    private var appHidden = false
    /// Guarded by `snapshotReady`.
    var snapshotRequested = false
    var snapshot: Snapshot?

    // Window thread only.
    private var window: OpaquePointer?
    private var renderer: OpaquePointer?
    private var texture: OpaquePointer?
    private var textureFormat: (format: UInt32, width: Int, height: Int)?
    /// Converts pictures SDL cannot take (grey, RGBA, ARGB to BGRA; 10-bit to y420); made on first need.
    private var scaler: PixelConverter?
    private var shown: (buffer: CVPixelBuffer, time: CMTime)?
    private var needsDraw = false
    /// The window could not be made (nothing more is tried until it is closed and opened again).
    private var failed = false
    /// The user closed the window: it stays hidden, and nothing is drawn.
    private var hidden = false
    private var windowTitle = ""
    private var windowGravity = Gravity.resizeAspect
    private var windowDisplaySize: (width: Double, height: Double)?
    private var windowRotation = 0
    var windowSubtitles: SubtitleCueStore?
    var windowSubtitleStyle = SubtitleTextStyle()
    /// When the subtitle source was asked last (monotonic seconds).
    private var subtitleSourceAsked = -Double.infinity
    /// The version of `windowSubtitles` drawn last.
    var drawnSubtitleVersion: Int?
    /// Made with the first subtitles to draw; `subtitleRendererFailed` when libass could not start.
    var subtitleRenderer: SubtitleRenderer?
    var subtitleRendererFailed = false
    /// The subtitle texture and the image in it.
    var subtitleTexture: OpaquePointer?
    var subtitleImage: SubtitleImage?
    /// Embedded: the child window in the app's window (its `host` is the one the SDL objects were made for).
    private var child: X11ChildWindow?
    /// The attachment `child` was made for.
    private var childAttachment = 0
    /// Whether the window is placed in an app's window (set with each service; the thread then takes no SDL events,
    /// which belong to the app).
    private(set) var isEmbedded = false
    /// Whether the window is placed in the window of an SDL app of this process, which reads SDL's event queue itself
    /// (set with each service; window thread only).
    private(set) var isInSDLApp = false
    /// Whether the own window is hidden by ``setHidden(_:)``.
    private var windowHiddenByApp = false

    /// A window titled `title`; it opens with the first picture presented, sized ``setContentSize(width:height:)``
    /// (else the picture's size).
    package init(title: String) {
        self.title = title
    }

    // MARK: Any thread

    /// The SDL id of the window of its own while it is open (nil when embedded); what an SDL event's `windowID`
    /// names. Any thread.
    package var sdlWindowID: UInt32? { lock.withLock { openWindowID } }

    /// The window's title.
    package func setTitle(_ newTitle: String) {
        lock.withLock {
            title = newTitle
            settingsChanged = true
        }
    }

    /// The size the window opens with (ignored once it is open).
    package func setContentSize(width: Int, height: Int) {
        lock.withLock { contentSize = width > 0 && height > 0 ? (width, height) : nil }
    }

    /// Resizes the open window (as a user dragging its border would); the picture is letterboxed again.
    package func resize(width: Int, height: Int) {
        guard width > 0, height > 0 else { return }
        lock.withLock {
            requestedSize = (width, height)
            settingsChanged = true
        }
    }

    /// How the picture fills the window.
    package func setGravity(_ newGravity: Gravity) {
        lock.withLock {
            gravity = newGravity
            settingsChanged = true
        }
    }

    /// The picture's display size (after pixel aspect ratio and rotation; nil: its pixel size) and its clockwise
    /// rotation in degrees (a multiple of 90).
    package func setDisplayGeometry(size: (width: Double, height: Double)?, rotation degrees: Int) {
        lock.withLock {
            displaySize = size.flatMap { $0.width > 0 && $0.height > 0 ? $0 : nil }
            rotation = ((degrees % 360) + 360) % 360 / 90 * 90
            settingsChanged = true
        }
    }

    /// Calls `handler` on the window thread with each key pressed in the window and each close request (nil: none).
    /// The handler must return quickly (hand the event to another queue); it must not call back into SDL.
    package func setEventHandler(_ handler: (@Sendable (Event) -> Void)?) {
        lock.withLock { eventHandler = handler }
    }

    /// Draws over each picture the cues of the store `source` names (nil: none), styled as it says; `source` is asked
    /// on the window thread with each new picture and every ``subtitleSourceInterval`` seconds.
    package func setSubtitleSource(_ source: (@Sendable () -> SubtitleSelection)?) {
        lock.withLock {
            subtitleSource = source
            settingsChanged = true
        }
    }

    /// Tuning: how often the subtitle source is asked between pictures (a paused player's selection or style
    /// change shows within this; asking costs a few lock acquisitions).
    static let subtitleSourceInterval = 0.05

    /// Places the picture in the app's X11 window `x11Window` instead of a window of its own (nil: back to a window
    /// of its own), in the rectangle ``setHostFrame(_:)`` gives. Inside it only the video rectangle is covered (a
    /// child window of that rectangle, clipped to the frame), so the app's drawing around it stays. Each call is a new
    /// attachment, also to the same id (X11 reuses the ids of destroyed windows). Takes effect with the next draw.
    ///
    /// `appReadsSDLEvents`: the app is an SDL app in this process, which reads SDL's (process-wide) event queue
    /// itself; while such an attachment exists the window thread takes only its own windows' events from the queue
    /// and leaves the rest to the app.
    package func attachHost(_ x11Window: UInt?, appReadsSDLEvents: Bool) {
        lock.withLock {
            host = x11Window
            hostReadsSDLEvents = x11Window != nil && appReadsSDLEvents
            hostAttachment &+= 1
            settingsChanged = true
        }
    }

    /// The rectangle of the app's window the picture takes (its pixels, origin top left); moving or resizing redraws
    /// the picture on display.
    package func setHostFrame(_ frame: (x: Int, y: Int, width: Int, height: Int)) {
        lock.withLock {
            hostFrame = frame
            settingsChanged = true
        }
    }

    /// Hides the picture (its own window, or the child in the app's window) or shows it again.
    package func setHidden(_ hidden: Bool) {
        lock.withLock {
            appHidden = hidden
            settingsChanged = true
        }
    }

    /// Starts showing pictures (registers with the window thread). Called again after ``close()`` it reopens.
    package func open() {
        SDLVideoThread.shared.register(self)
    }

    /// Closes the window (on the window thread, soon) and forgets the picture.
    package func close() {
        lock.withLock { pending = nil }
        SDLVideoThread.shared.unregister(self)
    }

    /// The renderer's output as drawn next (waits for the next draw, up to `timeout` seconds); nil without a
    /// window or on timeout. A test hook; never call it on the engine thread.
    package func readBack(timeout: TimeInterval) -> Snapshot? {
        snapshotReady.lock()
        defer { snapshotReady.unlock() }
        snapshot = nil
        snapshotRequested = true
        lock.withLock { settingsChanged = true }
        snapshotReady.wait(timeout: timeout) { snapshot != nil }
        snapshotRequested = false
        return snapshot
    }

    // MARK: VideoFrameSink (engine thread)

    package func present(_ frame: VideoFrame, itemTime: CMTime, session: ItemSession) {
        show(frame.pixelBuffer, itemTime: itemTime)
    }

    /// Shows `buffer` (item time `itemTime`) next, replacing any picture not yet drawn. Never waits.
    package func show(_ buffer: CVPixelBuffer, itemTime: CMTime) {
        lock.withLock { pending = (buffer, itemTime) }
    }

    /// Keeps showing the last picture (as a player does across a seek) until the next one arrives.
    package func flush(session: ItemSession?) {}

    // MARK: Window thread

    /// Takes the mailbox and draws if anything changed.
    func service() {
        lock.lock()
        let (picture, changed, title, contentSize) = (pending, settingsChanged, self.title, self.contentSize)
        let (gravity, displaySize, rotation) = (self.gravity, self.displaySize, self.rotation)
        let source = subtitleSource
        let (host, hostFrame, appHidden, attachment) = (self.host, self.hostFrame, self.appHidden, hostAttachment)
        isInSDLApp = hostReadsSDLEvents
        let resize = window == nil ? nil : requestedSize
        if resize != nil { requestedSize = nil }
        pending = nil
        settingsChanged = false
        lock.unlock()
        if let picture {
            shown = picture
            needsDraw = true
        }
        if changed {
            windowGravity = gravity
            windowDisplaySize = displaySize
            windowRotation = rotation
            needsDraw = true
        }
        let now = MonotonicTime.now
        if picture != nil || changed || now - subtitleSourceAsked >= Self.subtitleSourceInterval {
            subtitleSourceAsked = now
            let selection = source?() ?? SubtitleSelection(cues: nil)
            if selection.cues !== windowSubtitles || selection.style != windowSubtitleStyle {
                (windowSubtitles, windowSubtitleStyle) = (selection.cues, selection.style)
                needsDraw = true
            }
        }
        // Cues decoded after their picture was drawn (the stream is still being read while paused).
        if let windowSubtitles, windowSubtitles.version != drawnSubtitleVersion { needsDraw = true }
        // From a window of its own to an app's window, back, or to another app window: start again.
        if (host != child?.host || attachment != childAttachment) && (window != nil || child != nil) {
            destroySDLObjects()
            child?.destroy()
            child = nil
            (failed, hidden) = (false, false)
        }
        isEmbedded = host != nil
        if let child {
            if child.pollEvents() { needsDraw = true }
            // The app destroyed its window: nothing to draw into until it gives another.
            if child.isDestroyed {
                if window != nil { destroySDLObjects() }
                return
            }
        }
        guard let shown, needsDraw, !failed, !hidden else { return }
        if let host {
            guard
                prepareEmbedded(
                    in: host, attachment: attachment, frame: hostFrame, hidden: appHidden, picture: shown.buffer)
            else { return }
        } else if appHidden && window == nil {
            return  // opened when shown
        } else if !prepareOwnWindow(title: title, contentSize: contentSize, displaySize: displaySize, resize: resize) {
            return
        } else if let window, appHidden != windowHiddenByApp {
            if appHidden { SDL_HideWindow(window) } else { SDL_ShowWindow(window) }
            windowHiddenByApp = appHidden
        }
        if appHidden { return }
        if picture != nil || texture == nil { upload(shown.buffer) }
        draw(time: shown.time)
        needsDraw = false
    }

    /// Makes the window of its own if there is none, applies a requested size and the title; false if the window
    /// cannot be made (then nothing more is tried until it is closed and opened again).
    private func prepareOwnWindow(
        title: String, contentSize: (width: Int, height: Int)?, displaySize: (width: Double, height: Double)?,
        resize: (width: Int, height: Int)?
    ) -> Bool {
        guard let shown else { return false }
        if window == nil {
            let size =
                contentSize
                ?? displaySize.map { (Int($0.width.rounded()), Int($0.height.rounded())) }
                ?? (CVPixelBufferGetWidth(shown.buffer), CVPixelBufferGetHeight(shown.buffer))
            guard createWindow(title: title, width: size.0, height: size.1) else {
                failed = true
                return false
            }
        }
        if let window, let resize {
            SDL_SetWindowSize(window, Int32(clamping: resize.width), Int32(clamping: resize.height))
        }
        if let window, title != windowTitle {
            SDL_SetWindowTitle(window, title)
            windowTitle = title
        }
        return true
    }

    /// Places the child window in the app's window `host` over the part of `frame` the video rectangle covers (per
    /// gravity, display size and rotation of `picture`), made on first need, and an SDL window and renderer on it
    /// (made again when its size changes, so that SDL's idea of the size is the child's). False when there is
    /// nothing to draw: hidden, an empty rectangle, or the child or renderer could not be made (`failed`).
    private func prepareEmbedded(
        in host: UInt, attachment: Int, frame: X11ChildWindow.Rect, hidden: Bool, picture: CVPixelBuffer
    ) -> Bool {
        let quarterTurn = windowRotation == 90 || windowRotation == 270
        let (w, h) = (Double(CVPixelBufferGetWidth(picture)), Double(CVPixelBufferGetHeight(picture)))
        let pictureSize = windowDisplaySize ?? (quarterTurn ? (h, w) : (w, h))
        let video = windowGravity.videoRect(
            picture: pictureSize, output: (Double(frame.width), Double(frame.height)))
        let (x0, y0) = (max(0, Int(video.x.rounded())), max(0, Int(video.y.rounded())))
        let x1 = min(frame.width, Int((video.x + video.width).rounded()))
        let y1 = min(frame.height, Int((video.y + video.height).rounded()))
        let rect = (x: frame.x + x0, y: frame.y + y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
        let visible = !hidden && rect.width > 0 && rect.height > 0
        if child == nil {
            guard let made = X11ChildWindow(host: host) else {
                failed = true
                return false
            }
            child = made
            childAttachment = attachment
        }
        guard let child else { return false }
        if window != nil, child.rect.map({ ($0.width, $0.height) != (rect.width, rect.height) }) ?? true {
            destroySDLObjects()
        }
        child.place(rect, visible: visible)
        guard visible else { return false }
        if window == nil {
            guard let made = SDL_CreateWindowFrom(UnsafeRawPointer(bitPattern: child.id)) else {
                failed = true
                return false
            }
            guard let renderer = SDL_CreateRenderer(made, -1, 0) else {
                SDL_DestroyWindow(made)
                failed = true
                return false
            }
            (window, self.renderer) = (made, renderer)
        }
        return true
    }

    /// Handles an event addressed to this window.
    func handle(_ event: SDL_WindowEvent) {
        switch UInt32(event.event) {
        case SDL_WINDOWEVENT_CLOSE.rawValue:
            if let window { SDL_HideWindow(window) }
            hidden = true
            send(.closeRequested)
        case SDL_WINDOWEVENT_SIZE_CHANGED.rawValue, SDL_WINDOWEVENT_RESIZED.rawValue, SDL_WINDOWEVENT_EXPOSED.rawValue:
            needsDraw = true
        default:
            break
        }
    }

    /// The SDL id of the window, if open.
    var windowID: UInt32? { window.map { SDL_GetWindowID($0) } }

    /// Whether the window is open and not hidden by a close request (window thread).
    var isVisible: Bool { window != nil && !hidden && !isEmbedded }

    /// Hands `event` to the event handler, if any (window thread).
    func send(_ event: Event) {
        let handler = lock.withLock { eventHandler }
        handler?(event)
    }

    private func createWindow(title: String, width: Int, height: Int) -> Bool {
        let flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_SHOWN.rawValue
        let position = Int32(bitPattern: SDL_WINDOWPOS_UNDEFINED_MASK)
        guard
            let window = SDL_CreateWindow(
                title, position, position, Int32(clamping: max(width, 16)), Int32(clamping: max(height, 16)), flags)
        else { return false }
        let vsync = SDL_RENDERER_ACCELERATED.rawValue | SDL_RENDERER_PRESENTVSYNC.rawValue
        guard let renderer = SDL_CreateRenderer(window, -1, vsync) ?? SDL_CreateRenderer(window, -1, 0) else {
            SDL_DestroyWindow(window)
            return false
        }
        self.window = window
        self.renderer = renderer
        windowTitle = title
        lock.withLock { openWindowID = SDL_GetWindowID(window) }
        return true
    }

    /// Copies `buffer` into the streaming texture (recreated when the format or size changes).
    private func upload(_ picture: CVPixelBuffer) {
        guard let renderer else { return }
        var buffer = picture
        if !Self.drawnFormats.contains(CVPixelBufferGetPixelFormatType(buffer)) {
            guard PixelConverter.supportedInputPixelFormatTypes.contains(CVPixelBufferGetPixelFormatType(buffer)),
                let converted = convertToDrawn(buffer)
            else { return }
            buffer = converted
        }
        let (width, height) = (CVPixelBufferGetWidth(buffer), CVPixelBufferGetHeight(buffer))
        let sdlFormat: UInt32
        switch CVPixelBufferGetPixelFormatType(buffer) {
        case kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8PlanarFullRange:
            sdlFormat = SDL_PIXELFORMAT_IYUV.rawValue
        case kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange:
            sdlFormat = SDL_PIXELFORMAT_NV12.rawValue
        case kCVPixelFormatType_32BGRA:
            sdlFormat = SDL_PIXELFORMAT_ARGB8888.rawValue  // B, G, R, A in memory on little-endian hosts
        default:
            return
        }
        if textureFormat.map({ $0 != (sdlFormat, width, height) }) ?? true {
            if let texture { SDL_DestroyTexture(texture) }
            texture = SDL_CreateTexture(
                renderer, sdlFormat, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue), Int32(width), Int32(height))
            textureFormat = texture == nil ? nil : (sdlFormat, width, height)
        }
        guard let texture else { return }
        CVPixelBufferLockBaseAddress(buffer, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(buffer, .readOnly) }
        func plane(_ i: Int) -> (UnsafePointer<UInt8>?, Int32) {
            let base = CVPixelBufferGetBaseAddressOfPlane(buffer, i)?.assumingMemoryBound(to: UInt8.self)
            return (UnsafePointer(base), Int32(CVPixelBufferGetBytesPerRowOfPlane(buffer, i)))
        }
        switch sdlFormat {
        case SDL_PIXELFORMAT_IYUV.rawValue:
            let (y, u, v) = (plane(0), plane(1), plane(2))
            SDL_UpdateYUVTexture(texture, nil, y.0, y.1, u.0, u.1, v.0, v.1)
        case SDL_PIXELFORMAT_NV12.rawValue:
            let (y, uv) = (plane(0), plane(1))
            SDL_UpdateNVTexture(texture, nil, y.0, y.1, uv.0, uv.1)
        default:
            guard let base = CVPixelBufferGetBaseAddress(buffer) else { return }
            SDL_UpdateTexture(texture, nil, base, Int32(CVPixelBufferGetBytesPerRow(buffer)))
        }
    }

    /// The formats uploaded as they are.
    private static let drawnFormats: Set<OSType> = [
        kCVPixelFormatType_420YpCbCr8Planar, kCVPixelFormatType_420YpCbCr8PlanarFullRange,
        kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_420YpCbCr8BiPlanarFullRange,
        kCVPixelFormatType_32BGRA,
    ]

    /// `buffer` in a format SDL draws: 10-bit 4:2:0 (`x420`, `xf20`) rounded to 8-bit planar 4:2:0 (a repack, no
    /// colour conversion: SDL converts as for 8-bit video), anything else to BGRA.
    private func convertToDrawn(_ buffer: CVPixelBuffer) -> CVPixelBuffer? {
        let format: OSType
        switch CVPixelBufferGetPixelFormatType(buffer) {
        case kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange: format = kCVPixelFormatType_420YpCbCr8Planar
        case kCVPixelFormatType_420YpCbCr10BiPlanarFullRange: format = kCVPixelFormatType_420YpCbCr8PlanarFullRange
        default: format = kCVPixelFormatType_32BGRA
        }
        if scaler?.outputPixelFormatType != format { scaler = try? PixelConverter(outputPixelFormatType: format) }
        return try? scaler?.convert(buffer)
    }

    /// Clears to black, draws the texture per gravity and rotation, answers a pending read-back, presents.
    private func draw(time: CMTime) {
        guard let renderer else { return }
        var outputWidth: Int32 = 0
        var outputHeight: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &outputWidth, &outputHeight)
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        var rect = SDL_Rect()
        if let texture, let format = textureFormat {
            let quarterTurn = windowRotation == 90 || windowRotation == 270
            let pictureSize =
                windowDisplaySize
                ?? (quarterTurn
                    ? (Double(format.height), Double(format.width)) : (Double(format.width), Double(format.height)))
            let shownRect = windowGravity.videoRect(
                picture: pictureSize, output: (Double(outputWidth), Double(outputHeight)))
            rect = SDL_Rect(
                x: Int32(shownRect.x.rounded()), y: Int32(shownRect.y.rounded()),
                w: Int32(shownRect.width.rounded()), h: Int32(shownRect.height.rounded()))
            // The texture is drawn unrotated into a rect of swapped sides about the same centre, then turned.
            var destination = rect
            if quarterTurn {
                destination.x = rect.x + (rect.w - rect.h) / 2
                destination.y = rect.y + (rect.h - rect.w) / 2
                destination.w = rect.h
                destination.h = rect.w
            }
            SDL_RenderCopyEx(renderer, texture, nil, &destination, Double(windowRotation), nil, SDL_FLIP_NONE)
            drawSubtitles(
                renderer, in: rect, output: (Int(outputWidth), Int(outputHeight)),
                pictureSize: (format.width, format.height), time: time)
        }
        answerReadBack(renderer, width: Int(outputWidth), height: Int(outputHeight), rect: rect, time: time)
        SDL_RenderPresent(renderer)
    }

    /// Renders the cues shown at `time` at the size of `rect` (the video rectangle) and blends them over it. Where
    /// the rectangle reaches past the `output` (aspect fill crops the picture), text is laid out in the part on
    /// screen.
    /// Releases the texture, renderer and window, and the child window in an app's window.
    func destroy() {
        destroySDLObjects()
        child?.destroy()
        child = nil
        (shown, scaler) = (nil, nil)
        (failed, hidden, needsDraw, windowHiddenByApp) = (false, false, false, false)
    }

    /// Releases the textures, renderer and SDL window (for an app's window, SDL's wrapper of the child, not the
    /// child); the picture on display is kept, to be uploaded again.
    private func destroySDLObjects() {
        if let texture { SDL_DestroyTexture(texture) }
        if let subtitleTexture { SDL_DestroyTexture(subtitleTexture) }
        (subtitleTexture, subtitleImage, subtitleRenderer, subtitleRendererFailed) = (nil, nil, nil, false)
        drawnSubtitleVersion = nil
        if let renderer { SDL_DestroyRenderer(renderer) }
        if let window { SDL_DestroyWindow(window) }
        (texture, renderer, window, textureFormat) = (nil, nil, nil, nil)
        lock.withLock { openWindowID = nil }
        needsDraw = true
    }
}
