import PlaybackEngine
import SDLOutput

/// The composition root: the one place the public layer chooses the platform's audio device and windows (SDL2),
/// so the rest of it knows only the engine's ``AudioSink`` and ``VideoWindow`` protocols. Any thread.
enum PlatformOutputs {
    /// The audio device for a player's engine in real-time playback (SDL2; `SDL_AUDIODRIVER` picks the driver).
    /// Nil would mean no device; the engine then runs silently on the system clock, as it does when opening fails.
    static func makeAudioSink() -> (any AudioSink)? {
        SDLAudioSink()
    }

    /// A desktop window titled `title` for a player layer; it opens with the first picture it is given, and shows
    /// nothing when no display is configured.
    static func makeWindow(title: String) -> any VideoWindow {
        SDLVideoWindow(title: title)
    }
}
