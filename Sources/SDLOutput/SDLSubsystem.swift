import CSDL2
import Foundation
import OAVFLocking

/// Process-wide ownership of SDL's global state: subsystem reference counts, and one lock around every call that
/// touches SDL's tables of subsystems and devices.
///
/// SDL 2's `SDL_InitSubSystem` / `SDL_QuitSubSystem` and `SDL_OpenAudioDevice` / `SDL_CloseAudioDevice` are not
/// thread-safe, and a subsystem must stay up while any device of it is open. Each user ``acquire(_:)``s the
/// subsystem it needs and ``release(_:)``s it when done; the first acquire initialises it, the last release quits
/// it, so a later acquire initialises it again and re-reads the environment (`SDL_AUDIODRIVER`, ...). Tests in one
/// process can therefore open, close and reopen at will.
///
/// ``acquire(_:)`` and ``release(_:)`` are called inside ``withExclusiveAccess(_:)`` (the lock is not recursive; a
/// debug build traps when they are called outside it). Lock order: `SDLVideoThread`'s lock, then this one.
enum SDLSubsystem {
    /// The counts and the lock. A class so the `static let` is one shared, lazily made instance.
    private final class Registry: @unchecked Sendable {
        /// Guards `counts` and `owner`, and serialises every SDL call made through ``withExclusiveAccess(_:)``.
        /// Taken by any thread that calls SDL's global functions (the engine's audio sink opening and closing its
        /// device, the device watch, the window thread, callers probing devices and display modes). Not an engine
        /// command: SDL's tables are process-wide, shared by every player and the window thread, not one engine's
        /// state; and the window thread that quits video under it has no engine.
        let lock = ConditionLock()

        /// How many holders each subsystem flag has (guarded by `lock`).
        var counts: [UInt32: Int] = [:]

        /// The thread inside ``withExclusiveAccess(_:)`` (guarded by `lock`; checked by debug builds only).
        var owner: pthread_t?
    }

    /// The one registry of the process.
    private static let registry = Registry()

    /// Runs `body` while no other thread makes SDL calls through this type.
    static func withExclusiveAccess<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        registry.lock.lock()
        registry.owner = pthread_self()
        defer {
            registry.owner = nil
            registry.lock.unlock()
        }
        return try body()
    }

    /// Whether the calling thread is inside ``withExclusiveAccess(_:)`` (for assertions: read without the lock).
    private static var isExclusive: Bool {
        registry.owner.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// Takes a reference on subsystem `flag` (one `SDL_INIT_*` value), initialising it on the first one. Call inside
    /// ``withExclusiveAccess(_:)``.
    ///
    /// Before a first initialisation it asks SDL, at default priority (the `SDL_NO_SIGNAL_HANDLERS` environment
    /// variable still wins), not to install its SIGINT/SIGTERM handlers: SDL's audio subsystem brings up its event
    /// subsystem, whose handlers turn Ctrl-C into an `SDL_QUIT` event that an audio-only player never reads, so the
    /// process would no longer stop on Ctrl-C.
    ///
    /// - Returns: `nil` on success, else SDL's error text (no reference is then taken).
    static func acquire(_ flag: UInt32) -> String? {
        assert(isExclusive, "SDLSubsystem.acquire(_:) outside withExclusiveAccess")
        let count = registry.counts[flag, default: 0]
        if count == 0 {
            SDL_SetMainReady()
            SDL_SetHintWithPriority(SDL_HINT_NO_SIGNAL_HANDLERS, "1", SDL_HINT_DEFAULT)
            SDL_ClearError()
            guard SDL_InitSubSystem(flag) == 0 else { return lastError() }
        }
        registry.counts[flag] = count + 1
        return nil
    }

    /// Drops a reference taken by ``acquire(_:)``, quitting the subsystem with the last one. Call inside
    /// ``withExclusiveAccess(_:)``.
    static func release(_ flag: UInt32) {
        assert(isExclusive, "SDLSubsystem.release(_:) outside withExclusiveAccess")
        let count = registry.counts[flag, default: 0]
        precondition(count > 0, "SDLSubsystem.release(_:): subsystem \(flag) was not acquired")
        registry.counts[flag] = count - 1
        if count == 1 {
            SDL_QuitSubSystem(flag)
        }
    }

    /// How many references subsystem `flag` has (for tests and diagnostics).
    static func referenceCount(_ flag: UInt32) -> Int {
        withExclusiveAccess { registry.counts[flag, default: 0] }
    }

    /// SDL's error text for the calling thread (SDL 2 keeps one per thread), or a placeholder when SDL gave none.
    static func lastError() -> String {
        let message = String(cString: SDL_GetError())
        return message.isEmpty ? "SDL reported no reason" : message
    }
}
