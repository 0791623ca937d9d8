import CoreGraphics
import CoreVideo
import Foundation
import OAVFLocking
import PlaybackEngine
import SDLOutput

/// The composition root: the one place the public layer chooses the platform's audio device and windows (SDL2),
/// so the rest of it knows only the engine's ``AudioSink`` and ``VideoWindow`` protocols. Any thread.
enum PlatformOutputs {
    /// The audio device for a player's engine in real-time playback (SDL2; `SDL_AUDIODRIVER` picks the driver).
    /// Nil would mean no device; the engine then runs silently on the system clock, as it does when opening fails.
    static func makeAudioSink(deviceName: String? = nil) -> (any AudioSink)? {
        SDLAudioSink(deviceName: deviceName)
    }

    /// Moves `sink` (one made here) to the SDL output device named `deviceName` (nil: the default one), at once if
    /// it is playing.
    static func selectAudioDevice(_ deviceName: String?, of sink: any AudioSink) {
        (sink as? SDLAudioSink)?.selectDevice(named: deviceName)
    }

    /// Gives `CVDisplayLink` the displays' refresh rates (SDL's display modes). Idempotent; called when the app makes
    /// a player or a video output, which display-link code goes with.
    static func installDisplayModes() {
        _ = displayModesInstalled
    }

    private static let displayModesInstalled: Bool = {
        CVDisplayLink.setDisplayRefreshRateProvider { SDLDisplayModes.refreshRate(of: $0) }
        return true
    }()

    /// A desktop window titled `title` for a player layer; it opens with the first picture it is given, and shows
    /// nothing when no display is configured.
    static func makeWindow(title: String) -> any VideoWindow {
        SDLVideoWindow(title: title)
    }
}

/// A player's platform audio device: makes its engine's sink on the device named by `audioOutputDeviceUniqueID`, and
/// moves the sink made last when the name changes. Thread-safe.
final class PlatformAudioDevice: @unchecked Sendable {
    /// Guards `deviceName` and `sink`: the app sets `audioOutputDeviceUniqueID` on any thread, the engine thread makes
    /// sinks. Not an engine command: the device name is what the app set (Apple's API stores it); the engine asks for a
    /// sink from its own thread.
    private let lock = ConditionLock()
    /// Guarded by `lock`: the device name (nil: default) and the sink made last.
    private var deviceName: String?
    private weak var sink: (any AudioSink)?

    /// A sink on the current device (the engine's factory calls it, on the engine thread).
    func makeSink() -> (any AudioSink)? {
        lock.lock()
        defer { lock.unlock() }
        let made = PlatformOutputs.makeAudioSink(deviceName: deviceName)
        sink = made
        return made
    }

    /// Uses `name` from now on, moving a sink already made.
    func select(_ name: String?) {
        let current: (any AudioSink)? = lock.withLock {
            deviceName = name
            return sink
        }
        if let current { PlatformOutputs.selectAudioDevice(name, of: current) }
    }

    /// The sink made last, while it lives (tests).
    var currentSink: (any AudioSink)? { lock.withLock { sink } }
}
