import OAVFLocking

/// The conditions that threads wait on for something a flag outside them decides — an interruption, a wake
/// request, a suspension lifted — so that whoever sets that flag wakes each of those waits at once
/// (``wakeAll()``) instead of each waiter looking at the flag every few milliseconds (mpv's `mp_wakeup_core`, ffplay's
/// abort flag followed by a signal of every condition).
///
/// A waiter registers its condition before it checks its flags (``whileRegistered(_:_:)``), and checks them and
/// waits with the condition held; ``wakeAll()`` takes each registered condition's lock before it broadcasts, so a
/// flag set before ``wakeAll()`` is either seen by the waiter's check or followed by a broadcast it is waiting for:
/// no wake-up is lost, and the waits need no timeout for it.
///
/// Thread-safe. Never call ``wakeAll()`` holding a registered condition (it locks each one).
package final class WaitWakers: Sendable {
    /// The conditions registered, by token; its own lock, held only to copy the list in or out (never while a
    /// registered condition is locked, so that a waiter's registration and ``wakeAll()`` cannot deadlock).
    private let registered = Locked<(next: UInt64, conditions: [UInt64: ConditionLock])>((0, [:]))

    /// An empty list.
    package init() {}

    /// Registers `condition` until ``unregister(_:)``; returns the token for it. A condition may be registered more
    /// than once. Any thread.
    package func register(_ condition: ConditionLock) -> UInt64 {
        registered.withLock {
            $0.next += 1
            $0.conditions[$0.next] = condition
            return $0.next
        }
    }

    /// Removes the registration `token` names. Any thread.
    package func unregister(_ token: UInt64) {
        registered.withLock { _ = $0.conditions.removeValue(forKey: token) }
    }

    /// Runs `body` (which locks `condition`, checks its flags and waits) with `condition` registered. Any thread not
    /// holding `condition`.
    package func whileRegistered<Result, Failure: Error>(
        _ condition: ConditionLock, _ body: () throws(Failure) -> Result
    ) throws(Failure) -> Result {
        let token = register(condition)
        defer { unregister(token) }
        return try body()
    }

    /// Wakes every wait registered now: each re-checks its flags. Any thread holding none of the registered
    /// conditions.
    package func wakeAll() {
        let conditions = registered.withLock { Array($0.conditions.values) }
        for condition in conditions {
            // Taking the lock orders this wake-up after a waiter's check of its flags (see the type's summary).
            condition.lock()
            condition.unlock()
            condition.broadcast()
        }
    }

    /// How many threads reading media now wait for input that has not arrived (``blockedForInput(_:)``); its own
    /// lock, a leaf taken with a registered condition held.
    private let readersBlocked = Locked<Int>(0)

    /// Runs `wait` — a reading thread's wait for input (a body's bytes, a playlist's change, a retry's back-off),
    /// with its condition held — counted in ``isReaderBlocked``. Any thread.
    package func blockedForInput<Result>(_ wait: () -> Result) -> Result {
        readersBlocked.withLock { $0 += 1 }
        defer { readersBlocked.withLock { $0 -= 1 } }
        return wait()
    }

    /// Whether a thread reading media waits for input now: everything it had was handed on (its demuxer queued every
    /// packet it could make), so no media that has arrived is still on its way. Any thread.
    package var isReaderBlocked: Bool { readersBlocked.withLock { $0 > 0 } }

    /// How many waits are registered now (tests see a thread reach its wait by it). Any thread.
    package var registeredCount: Int { registered.withLock { $0.conditions.count } }
}
