/// Something the user did to a ``VideoWindow``: a key pressed while it had the keyboard focus, or a request to
/// close it.
///
/// A value type: any thread.
package enum WindowEvent: Sendable, Equatable {
    /// A key went down (or repeated) while the window had the keyboard focus.
    case key(Key)
    /// The window's close button, or the desktop's quit request (the last window closed, the session ending).
    case closeRequested

    /// A key: text as typed (keyboard layout and Shift applied), other keys by name.
    package enum Key: Sendable, Equatable {
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
}
