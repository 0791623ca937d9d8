import CSDL2
import Foundation

/// What an SDL app of this process asks of the window code about its own windows (`AVPlayerLayer`'s
/// `oavfAttach(toSDLWindow:)`): the X11 window behind an `SDL_Window *`, and SDL's video driver.
extension SDLVideoWindow {
    /// The X11 window id of an SDL window the app made (`SDL_Window *`), from `SDL_GetWindowWMInfo`; nil when the
    /// window is not an X11 one (SDL's Wayland driver, for one). Call it where the app calls SDL.
    package static func x11WindowID(ofSDLWindow window: OpaquePointer) -> UInt? {
        typealias GetWindowWMInfo = @convention(c) (OpaquePointer, UnsafeMutableRawPointer) -> SDL_bool
        // SDL_GetVersion first: it loads libSDL2 (on first use, globally: Sources/CSDL2Loader) if nothing has.
        var version = SDL_version()
        SDL_GetVersion(&version)
        guard let symbol = dlsym(nil, "SDL_GetWindowWMInfo") else { return nil }
        let getInfo = unsafeBitCast(symbol, to: GetWindowWMInfo.self)
        // `SDL_SysWMinfo`: SDL_version (3 bytes), SDL_SYSWM_TYPE subsystem (int, at 4), then the union (at 8):
        // for X11 `Display *display; Window window;`. The union is padded to 64 bytes.
        let info = UnsafeMutableRawPointer.allocate(byteCount: 128, alignment: 16)
        defer { info.deallocate() }
        info.initializeMemory(as: UInt8.self, repeating: 0, count: 128)
        info.storeBytes(of: version, as: SDL_version.self)
        guard getInfo(window, info) == SDL_TRUE else { return nil }
        let subsystemX11: Int32 = 2
        guard info.load(fromByteOffset: 4, as: Int32.self) == subsystemX11 else { return nil }
        let id = info.load(fromByteOffset: 16, as: UInt.self)
        return id == 0 ? nil : id
    }

    /// The name of SDL's current video driver (`x11`, `wayland`, …), or "none" before SDL's video starts.
    package static var videoDriverName: String {
        SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? "none"
    }
}
