import CSDL2
import CoreMedia
import CoreVideo
import Foundation
import OAVFLocking
import PlaybackEngine

/// The one thread that makes SDL video calls: owns every ``SDLVideoWindow``'s SDL objects and pumps SDL events.
///
/// Started by the first registered window; it initialises SDL's video subsystem on itself (through
/// `SDLSubsystem`), and when no windows remain it destroys what it owns, quits the subsystem and ends. If the
/// subsystem cannot start, the thread ends at once and windows stay dark until registered again.
final class SDLVideoThread: @unchecked Sendable {
    static let shared = SDLVideoThread()

    /// Guards the `var`s below. Windows register from engine and app threads, the window thread reads. Not an engine
    /// command: one window thread serves every player. Lock order: this lock, then `SDLSubsystem`'s.
    private let lock = ConditionLock()
    private var windows: [ObjectIdentifier: SDLVideoWindow] = [:]
    /// Unregistered windows whose SDL objects the thread still has to destroy.
    private var retiring: [SDLVideoWindow] = []
    private var running = false

    var isRunning: Bool { lock.withLock { running } }

    func register(_ window: SDLVideoWindow) {
        guard SDLVideoWindow.isDisplayConfigured else { return }
        let start: Bool = lock.withLock {
            windows[ObjectIdentifier(window)] = window
            retiring.removeAll { $0 === window }
            defer { running = true }
            return !running
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "OpenAVFoundation.SDLVideo"
            thread.start()
        }
    }

    func unregister(_ window: SDLVideoWindow) {
        lock.withLock {
            guard windows.removeValue(forKey: ObjectIdentifier(window)) != nil else { return }
            if running { retiring.append(window) }
        }
    }

    private func run() {
        if SDLSubsystem.withExclusiveAccess({ SDLSubsystem.acquire(SDL_INIT_VIDEO) }) != nil {
            lock.withLock {
                running = false
                retiring = []
            }
            return
        }
        var event = SDL_Event()
        while true {
            let work: (active: [SDLVideoWindow], retired: [SDLVideoWindow])? = lock.withLock {
                let work = (Array(windows.values), retiring)
                retiring = []
                if work.0.isEmpty && work.1.isEmpty {
                    // Quit while holding the lock so a window registering now starts a thread that re-initialises.
                    SDLSubsystem.withExclusiveAccess { SDLSubsystem.release(SDL_INIT_VIDEO) }
                    running = false
                    return nil
                }
                return work
            }
            guard let (active, retired) = work else { return }
            for window in retired { window.destroy() }
            for window in active { window.service() }
            // Windows placed in an app's windows only: SDL's events are the app's (an SDL app reads them itself).
            if active.allSatisfy(\.isEmbedded) {
                usleep(4000)
                continue
            }
            guard SDL_WaitEventTimeout(&event, 4) != 0 else { continue }
            repeat {
                switch event.type {
                case SDL_WINDOWEVENT.rawValue:
                    let id = event.window.windowID
                    active.first { $0.windowID == id }?.handle(event.window)
                case SDL_KEYDOWN.rawValue:
                    let id = event.key.windowID
                    if let key = SDLVideoWindow.key(
                        event.key.keysym, textInputActive: SDL_IsTextInputActive() == SDL_TRUE)
                    {
                        active.first { $0.windowID == id }?.send(.key(key))
                    }
                case SDL_TEXTINPUT.rawValue:
                    let id = event.text.windowID
                    guard let window = active.first(where: { $0.windowID == id }) else { break }
                    let text = withUnsafeBytes(of: event.text.text) {
                        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
                    }
                    for c in text { window.send(.key(.character(c))) }
                case SDL_QUIT.rawValue:
                    // Windows already closed by the user have said so.
                    for window in active where window.isVisible { window.send(.closeRequested) }
                default:
                    break
                }
            } while SDL_PollEvent(&event) != 0
        }
    }
}
