import Foundation
import OAVFLocking
import Synchronization

/// Registration order of observers across all hubs: notifications of one change reach observers in
/// the order they were registered. One counter, so an `Atomic`, not a lock.
private let nextObserverSerial = Atomic<UInt64>(0)

/// One `observe(_:options:changeHandler:)` registration as hubs see it, without its key path's types
/// (``KeyPathObserver`` is the concrete kind).
///
/// Locks, in the only order they are taken (each is a pthread mutex; none is held while a change
/// handler runs):
/// 1. `changeLock`: held while the value is read through the key path and its notification queued,
///    so every notification's `oldValue` is the previous notification's `newValue`. Getters run
///    under it (they take their object's state lock briefly), which is why owners never publish
///    while holding their own state lock.
/// 2. `stateLock`: guards `isValid` and `dependencies`; delivery checks `isValid` under it.
/// 3. The table lock of ``KeyValueSubscriptions`` (a leaf).
class KeyValueObserver: @unchecked Sendable {
    /// A property the last read depended on. Weak: the subscriptions live as long as their object.
    private struct Dependency {
        weak var subscriptions: KeyValueSubscriptions?
        let keyPath: AnyKeyPath
    }

    /// Registration order (unique per process).
    let serial: UInt64
    /// Serialises read → compare → enqueue (see the type's doc). Taken by whichever thread changed an observed value.
    /// Not an engine command: observation belongs to the public objects, on the threads that change them.
    let changeLock = ConditionLock()
    /// Guards `valid` and `dependencies` (a leaf: taken after `changeLock`, see the type's doc). Any thread
    /// registering, invalidating or notifying. Not an engine command: observation belongs to the public objects.
    private let stateLock = ConditionLock()
    /// Guarded by `stateLock`.
    private var valid = true
    /// Guarded by `stateLock`: where this observer is subscribed.
    private var dependencies: [Dependency] = []

    init() {
        serial = nextObserverSerial.add(1, ordering: .relaxed).newValue
    }

    /// False once invalidated: queued notifications are then dropped.
    final var isValid: Bool {
        stateLock.lock()
        defer { stateLock.unlock() }
        return valid
    }

    /// Stops delivery and unsubscribes everywhere. Idempotent; never waits for a running handler.
    final func invalidate() {
        stateLock.lock()
        defer { stateLock.unlock() }
        guard valid else { return }
        valid = false
        for dependency in dependencies {
            dependency.subscriptions?.unsubscribe(self, from: dependency.keyPath)
        }
        dependencies = []
    }

    /// Subscribes to exactly what the last read of the key path depended on (a compound path's
    /// intermediate object may have changed). Returns false, changing nothing, once invalidated.
    final func updateDependencies(_ accesses: [AccessRecorder.Access]) -> Bool {
        stateLock.lock()
        defer { stateLock.unlock() }
        guard valid else { return false }
        for old in dependencies {
            guard let subscriptions = old.subscriptions else { continue }
            if !accesses.contains(where: { $0.subscriptions === subscriptions && $0.keyPath == old.keyPath }) {
                subscriptions.unsubscribe(self, from: old.keyPath)
            }
        }
        for access in accesses
        where !dependencies.contains(where: {
            $0.subscriptions === access.subscriptions && $0.keyPath == access.keyPath
        }) {
            access.subscriptions.subscribe(self, to: access.keyPath)
        }
        dependencies = accesses.map { Dependency(subscriptions: $0.subscriptions, keyPath: $0.keyPath) }
        return true
    }

    /// A property this observer depends on is about to change: send the prior notification if
    /// `.prior` was requested.
    func willChange() {
        preconditionFailure("\(Self.self) must override willChange()")
    }

    /// A property this observer depends on changed: read the new value and send the notification.
    func didChange() {
        preconditionFailure("\(Self.self) must override didChange()")
    }
}
