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
            // A window of its own beside one placed in an SDL app's window: the queue is the app's too (SDL's queue is
            // one per process), so take only the events of this thread's own windows from it. The app pumps the
            // window system's events into the queue (SDL_PollEvent does); this thread does not, since pumping walks
            // SDL's window list, which the app's thread changes.
            if active.contains(where: \.isInSDLApp) {
                let own = Set(active.lazy.filter { !$0.isEmbedded }.compactMap(\.windowID))
                for var taken in Self.takeEvents(ofWindows: own) { dispatch(&taken, to: active, quit: false) }
                usleep(4000)
                continue
            }
            guard SDL_WaitEventTimeout(&event, 4) != 0 else { continue }
            repeat {
                dispatch(&event, to: active, quit: true)
            } while SDL_PollEvent(&event) != 0
        }
    }

    /// Hands one SDL event to the window it is for; `quit`: whether `SDL_QUIT` is this thread's (no SDL app in the
    /// process reads the queue) and asks the visible windows to close.
    private func dispatch(_ event: inout SDL_Event, to active: [SDLVideoWindow], quit: Bool) {
        switch event.type {
        case SDL_WINDOWEVENT.rawValue:
            let id = event.window.windowID
            active.first { $0.windowID == id }?.handle(event.window)
        case SDL_KEYDOWN.rawValue:
            let id = event.key.windowID
            if let key = SDLVideoWindow.key(event.key.keysym, textInputActive: SDL_IsTextInputActive() == SDL_TRUE) {
                active.first { $0.windowID == id }?.send(.key(key))
            }
        case SDL_TEXTINPUT.rawValue:
            let id = event.text.windowID
            guard let window = active.first(where: { $0.windowID == id }) else { break }
            let text = withUnsafeBytes(of: event.text.text) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            for c in text { window.send(.key(.character(c))) }
        case SDL_QUIT.rawValue where quit:
            // Windows already closed by the user have said so.
            for window in active where window.isVisible { window.send(.closeRequested) }
        default:
            break
        }
    }

    /// Removes from SDL's queue the events addressed to the windows `ids` (window, key, text, mouse events) and
    /// returns them in queue order; every other event stays for the app. Window thread.
    private static func takeEvents(ofWindows ids: Set<UInt32>) -> [SDL_Event] {
        guard !ids.isEmpty else { return [] }
        final class Taking {
            let ids: Set<UInt32>
            var taken: [SDL_Event] = []
            init(ids: Set<UInt32>) { self.ids = ids }
        }
        let taking = Taking(ids: ids)
        withExtendedLifetime(taking) {
            // SDL_FilterEvents runs the filter on each queued event under SDL's queue lock; 0 removes the event.
            SDL_FilterEvents(
                { context, event in
                    guard let context, let event else { return 1 }
                    let taking = Unmanaged<Taking>.fromOpaque(context).takeUnretainedValue()
                    guard let id = SDLVideoThread.windowID(of: event.pointee), taking.ids.contains(id) else { return 1 }
                    taking.taken.append(event.pointee)
                    return 0
                }, Unmanaged.passUnretained(taking).toOpaque())
        }
        return taking.taken
    }

    /// The window an event is addressed to, for the event kinds that carry one.
    private static func windowID(of event: SDL_Event) -> UInt32? {
        switch event.type {
        case SDL_WINDOWEVENT.rawValue: event.window.windowID
        case SDL_KEYDOWN.rawValue, SDL_KEYUP.rawValue: event.key.windowID
        case SDL_TEXTINPUT.rawValue: event.text.windowID
        case SDL_TEXTEDITING.rawValue: event.edit.windowID
        case SDL_MOUSEMOTION.rawValue: event.motion.windowID
        case SDL_MOUSEBUTTONDOWN.rawValue, SDL_MOUSEBUTTONUP.rawValue: event.button.windowID
        case SDL_MOUSEWHEEL.rawValue: event.wheel.windowID
        default: nil
        }
    }
}
