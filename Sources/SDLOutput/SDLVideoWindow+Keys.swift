import CSDL2

/// Keys: SDL's key symbols as the window reports them.
extension SDLVideoWindow {
    /// The key for a key-down event, or nil for keys that type text while SDL's text input is on (those come as
    /// text input events, with the keyboard layout applied) and for keys the window does not report.
    static func key(_ keysym: SDL_Keysym, textInputActive: Bool) -> Key? {
        switch keysym.sym {
        case Int32(bitPattern: SDLK_LEFT.rawValue): return .left
        case Int32(bitPattern: SDLK_RIGHT.rawValue): return .right
        case Int32(bitPattern: SDLK_UP.rawValue): return .up
        case Int32(bitPattern: SDLK_DOWN.rawValue): return .down
        case Int32(bitPattern: SDLK_ESCAPE.rawValue): return .escape
        case Int32(bitPattern: SDLK_RETURN.rawValue), Int32(bitPattern: SDLK_KP_ENTER.rawValue): return .enter
        case 0x20..<0x7F:
            guard !textInputActive, let scalar = UnicodeScalar(UInt32(keysym.sym)) else { return nil }
            // Without text input only letters know Shift; other keys come unshifted.
            let shifted = keysym.mod & UInt16(KMOD_SHIFT.rawValue) != 0
            let c = Character(scalar)
            return .character(shifted ? Character(c.uppercased()) : c)
        default: return nil
        }
    }
}
