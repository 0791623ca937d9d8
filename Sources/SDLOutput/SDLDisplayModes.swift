import CSDL2
import Foundation

/// The window system's displays as SDL 2 sees them, for `CVDisplayLink`: display `n` (a `CGDirectDisplayID`) is
/// SDL's display index `n − 1`; nil is the main display (index 0).
package enum SDLDisplayModes {
    /// The refresh rate (Hz) of `display` (nil: the main display) in its current mode; nil when SDL's video cannot
    /// start (no display), there is no such display, or the mode does not say.
    package static func refreshRate(of display: UInt32?) -> Int? {
        let index = Int32(display ?? 1) - 1
        guard index >= 0, hasWindowSystem else { return nil }
        return SDLSubsystem.withExclusiveAccess {
            guard SDLSubsystem.acquire(SDL_INIT_VIDEO) == nil else { return nil }
            defer { SDLSubsystem.release(SDL_INIT_VIDEO) }
            guard index < SDL_GetNumVideoDisplays() else { return nil }
            var mode = SDL_DisplayMode()
            guard SDL_GetCurrentDisplayMode(index, &mode) == 0, mode.refresh_rate > 0 else { return nil }
            return Int(mode.refresh_rate)
        }
    }

    /// Whether a window system may be there (`DISPLAY`, `WAYLAND_DISPLAY` or an explicit `SDL_VIDEODRIVER`): without
    /// one, starting SDL's video would only fail, after libwayland printed an error on the terminal.
    static var hasWindowSystem: Bool {
        let names: [String] = ["DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"]
        return names.contains { getenv($0) != nil }
    }
}
