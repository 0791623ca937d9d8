import CoreMedia
import CoreVideo

/// A desktop window that shows the pictures the engine presents (mpv's `vo`): a ``VideoFrameSink`` the public
/// layer's player layer registers with the engine, configured through this protocol. Implemented outside the engine
/// (`SDLVideoWindow` in SDLOutput); the public layer gets one from its composition root.
///
/// Threads: ``VideoFrameSink/present(_:itemTime:session:)`` runs on the engine thread and must never wait; every
/// other member may be called from any thread. Without a display the window shows nothing and drops pictures.
package protocol VideoWindow: VideoFrameSink {
    /// Sets the window's title.
    func setTitle(_ title: String)
    /// The size the window opens with (ignored once it is open).
    func setContentSize(width: Int, height: Int)
    /// Resizes the open window (as a user dragging its border would); the picture is laid out again.
    func resize(width: Int, height: Int)
    /// How the picture fills the window.
    func setGravity(_ gravity: VideoGravity)
    /// The picture's display size (after pixel aspect ratio and rotation; nil: its pixel size) and its clockwise
    /// rotation in degrees (a multiple of 90).
    func setDisplayGeometry(size: (width: Double, height: Double)?, rotation degrees: Int)
    /// Calls `handler` with each key pressed in the window and each close request (nil: none), on the window's own
    /// thread: the handler must return quickly and hand the event on.
    func setEventHandler(_ handler: (@Sendable (WindowEvent) -> Void)?)
    /// Places the picture in the app's X11 window `x11Window` (each call a new attachment, even to the same id: X11
    /// reuses the ids of destroyed windows), only the video rectangle inside the frame covered; nil: a window of its
    /// own. `appReadsSDLEvents`: the app is an SDL app of this process that reads SDL's one event queue itself (the
    /// window then takes only its own window's events from it).
    func attachHost(_ x11Window: UInt?, appReadsSDLEvents: Bool)
    /// The SDL id of the window of its own while it is open (nil when embedded or closed): what an SDL event's
    /// `windowID` names. Any thread.
    var sdlWindowID: UInt32? { get }
    /// The rectangle of the app's window the picture takes (its pixels, origin top left).
    func setHostFrame(_ frame: (x: Int, y: Int, width: Int, height: Int))
    /// Hides the picture, or shows it again.
    func setHidden(_ hidden: Bool)
    /// Starts showing pictures; after ``close()`` it opens again.
    func open()
    /// Closes the window and forgets the picture.
    func close()
    /// Draws over each picture, in the video rectangle, the cues shown at the picture's item time of the store
    /// `source` names, styled as it says (nil: no subtitles). The window asks `source` on its own thread with each new
    /// picture and a few times a second between (so a selection or style changed while paused shows), and redraws
    /// when the answer changes or the store learns of more cues. `source` must return quickly.
    func setSubtitleSource(_ source: (@Sendable () -> SubtitleSelection)?)
    /// Shows `buffer` (item time `itemTime`) next, replacing any picture not yet drawn. Never waits.
    func show(_ buffer: CVPixelBuffer, itemTime: CMTime)
    /// The window's output as drawn next (waits for the next draw, up to `timeout` seconds); nil without a window or
    /// on timeout. A test hook; never call it on the engine thread.
    func readBack(timeout: Double) -> VideoWindowSnapshot?
}
