import Foundation
import PlaybackEngine

/// Something the user did to an ``AVPlayerLayer``'s window: a key pressed while it had the keyboard focus, or a
/// request to close it.
///
/// **OpenAVFoundation extension, not Apple API.** On Apple's systems a layer is part of the app's own views and
/// the app receives keyboard events through AppKit or UIKit; on Linux the layer owns its window, so it reports
/// what happens there through ``AVPlayerLayer/windowEventHandler``.
public enum AVPlayerLayerWindowEvent: Sendable, Equatable {
    /// A key went down (or repeated while held down).
    case keyDown(Key)
    /// The user asked to close the window (its close button, the window manager's close action) or the desktop
    /// session asked the program to quit. The window is hidden; the program decides whether to quit.
    case closeRequested

    /// A key, as the player programs that use it care about: text characters as typed (keyboard layout and
    /// Shift applied, so Shift+`]` is `}` on a US layout), and the keys that type no text by name.
    public enum Key: Sendable, Equatable, Hashable {
        /// A key that typed this character (space included).
        case character(Character)
        /// The left arrow.
        case left
        /// The right arrow.
        case right
        /// The up arrow.
        case up
        /// The down arrow.
        case down
        /// Escape.
        case escape
        /// Return or Enter.
        case enter
    }

    /// The public event for the window's `event`.
    init(_ event: WindowEvent) {
        switch event {
        case .closeRequested: self = .closeRequested
        case .key(let key):
            switch key {
            case .character(let c): self = .keyDown(.character(c))
            case .left: self = .keyDown(.left)
            case .right: self = .keyDown(.right)
            case .up: self = .keyDown(.up)
            case .down: self = .keyDown(.down)
            case .escape: self = .keyDown(.escape)
            case .enter: self = .keyDown(.enter)
            }
        }
    }
}
