import Foundation
import OAVFLocking

/// The token `observe(_:options:changeHandler:)` returns: Apple's `NSKeyValueObservation`.
///
/// The observation lasts until ``invalidate()`` is called or the token is deallocated, so keep it
/// (`self.observation = item.observe(...)`). The token does not retain the observed object.
/// Thread-safe: `invalidate()` may be called from any thread, more than once, and from inside the
/// change handler. Once it returns, no new handler call starts; a call already running on another
/// thread is not waited for (so invalidating from a handler, or while a handler waits for the
/// invalidating thread, never deadlocks). Invalidating releases the handler and what it captured.
///
/// Differs from Apple: declared by OpenAVFoundation (swift-corelibs-foundation lacks KVO, see
/// `NSKeyValueObservingOptions.swift`); it cannot be created directly.
public final class NSKeyValueObservation: NSObject, @unchecked Sendable {
    /// Guards `observer`. Any thread (`invalidate()`, `deinit`). Not an engine command: a token belongs to the app.
    private let lock = ConditionLock()
    /// Nil once invalidated.
    private var observer: KeyValueObserver?

    init(observer: KeyValueObserver) {
        self.observer = observer
        super.init()
    }

    /// Stops the observation: no handler call starts after this returns.
    public func invalidate() {
        lock.lock()
        let observer = self.observer
        self.observer = nil
        observer?.invalidate()
        lock.unlock()
        // Released outside the lock: the handler's captures may run arbitrary deinit code.
        withExtendedLifetime(observer) {}
    }

    deinit {
        observer?.invalidate()
    }
}
