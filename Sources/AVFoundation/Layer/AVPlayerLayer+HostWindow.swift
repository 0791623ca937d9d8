import Foundation
import PlaybackEngine
import SDLOutput

extension AVPlayerLayer {
    /// Places the layer's video in a window the app owns, the X11 window `windowID`, at the layer's ``frame`` in it
    /// (the window's pixels, origin at its top left), instead of a window of the layer's own.
    ///
    /// **OpenAVFoundation extension, not Apple API.** On Apple's systems a layer lives in the app's layer tree; here
    /// an app that draws its own UI (SDL, GTK on X11, a game engine, a bare GL loop) names the window and the layer
    /// draws into a child window of it over the video rectangle: ``videoRect`` inside ``frame``, clipped to it. Only
    /// that rectangle is covered, so the app's drawing around it (and the letterbox bars, which the layer leaves
    /// transparent as Apple's does) stays the app's. ``frame``, ``videoGravity``, ``isHidden``, subtitles and the rule
    /// that only the newest layer of a player shows video apply as they do for a window of its own.
    ///
    /// The app keeps drawing as it likes (the X server clips its drawing around the child window); the layer draws on
    /// its window thread with a display connection of its own and never calls into the app's thread or reads the
    /// app's events. If the app destroys its window, the layer stops drawing and playback goes on; attach it to
    /// another window to show the picture again.
    ///
    /// Wayland: a Wayland surface cannot take another client's subsurface through a window id, so only XWayland
    /// windows can be named (an SDL or GTK app started with `SDL_VIDEODRIVER=x11` / `GDK_BACKEND=x11`). A Wayland-native
    /// app draws the video itself: pull frames with `AVPlayerItemVideoOutput` on a `CADisplayLink` and upload them with
    /// `CVOpenGLTextureCache`.
    ///
    /// - Throws: An `NSError` in `AVFoundationErrorDomain` (`AVError.Code.operationNotAllowed`) when no X11 display
    ///   can be opened or it has no window `windowID`.
    public func oavfAttach(toHostWindow windowID: UInt) throws {
        try attach(toHostWindow: windowID, appReadsSDLEvents: false)
    }

    private func attach(toHostWindow windowID: UInt, appReadsSDLEvents: Bool) throws {
        if let problem = X11ChildWindow.problem(withHost: windowID) {
            throw AVError(
                .operationNotAllowed,
                userInfo: [
                    NSLocalizedDescriptionKey: "The player layer can’t be placed in the app’s window.",
                    NSLocalizedFailureReasonErrorKey: problem,
                ])
        }
        setHostWindow(windowID, appReadsSDLEvents: appReadsSDLEvents)
    }

    /// Places the layer's video in the app's SDL window `window` (an `SDL_Window *`), at the layer's ``frame`` in
    /// it, as ``oavfAttach(toHostWindow:)`` does with the X11 window SDL made for it.
    ///
    /// **OpenAVFoundation extension, not Apple API.** Call it on the thread where the app calls SDL. SDL has one
    /// event queue per process: the layers do not read it while they only draw into app windows, and while a layer
    /// of the process also has a window of its own, they take only that window's events from it; the app's events
    /// (its windows', `SDL_QUIT`, its own event types) stay the app's. The app may keep drawing into the rest of its
    /// window with SDL's renderer or OpenGL.
    ///
    /// - Throws: An `NSError` in `AVFoundationErrorDomain` (`AVError.Code.operationNotAllowed`) when the window is
    ///   not an X11 one (SDL's Wayland driver, for one).
    public func oavfAttach(toSDLWindow window: OpaquePointer) throws {
        guard let id = SDLVideoWindow.x11WindowID(ofSDLWindow: window) else {
            throw AVError(
                .operationNotAllowed,
                userInfo: [
                    NSLocalizedDescriptionKey: "The player layer can’t be placed in the app’s window.",
                    NSLocalizedFailureReasonErrorKey:
                        "The SDL window is not an X11 window (SDL's video driver is \(SDLVideoWindow.videoDriverName))",
                ])
        }
        try attach(toHostWindow: id, appReadsSDLEvents: true)
    }

    /// Takes the layer's video out of the app's window (at once, while playing or not: playback goes on). The layer
    /// goes back to a window of its own, opened with the next picture; set ``isHidden`` first (or `player` to nil)
    /// to show nothing.
    ///
    /// **OpenAVFoundation extension, not Apple API.**
    public func oavfDetachFromHostWindow() {
        setHostWindow(nil)
    }

    /// The X11 window the layer's video is placed in (``oavfAttach(toHostWindow:)``), nil for a window of its own.
    ///
    /// **OpenAVFoundation extension, not Apple API.**
    public var oavfHostWindowID: UInt? { read { $0.hostWindow } }

    private func setHostWindow(_ hostWindow: UInt?, appReadsSDLEvents: Bool = false) {
        write { $0.hostWindow = hostWindow }
        placeInHostWindow()
        window.attachHost(hostWindow, appReadsSDLEvents: appReadsSDLEvents)
        if hostWindow == nil, player != nil, isReadyForDisplay {
            window.open()
        }
    }

    /// Tells the window where the layer is in the app's window (its ``frame``; unused for a window of its own).
    func placeInHostWindow() {
        let frame = read { $0.frame.standardized }
        window.setHostFrame(
            (
                Int(frame.minX.rounded()), Int(frame.minY.rounded()), Int(frame.width.rounded()),
                Int(frame.height.rounded())
            ))
    }
}
