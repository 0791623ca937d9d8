#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The project's one kind of lock. Every other Swift module locks through these two types (`scripts/check-locks` fails
// the lint when `NSLock`, `NSCondition`, `NSRecursiveLock`, `pthread_mutex_*` or `Mutex<` appear elsewhere in Sources/
// or Tests/). Playback state needs none: the engine thread owns it, and callers post commands (DESIGN.md). A lock is
// for what a thread that cannot wait for the engine's mailbox shares: a device callback, a decode or demux thread, a
// caller reading a published snapshot. `Atomic` values (Synchronization) are not locks; they stay where one flag or
// counter is shared, each saying so in its doc.

/// A mutex with one condition variable: the primitive ffplay builds its queues on (`SDL_mutex` +
/// `SDL_cond`), over `pthread_mutex_t` and a `CLOCK_MONOTONIC` `pthread_cond_t`.
///
/// Use ``Locked`` for state that threads share without waiting (the state then lives inside the lock), and this
/// type where a thread sleeps until another changes the state. Not recursive: locking twice on one thread traps
/// (an error-checking mutex), so code restructures instead (no `NSRecursiveLock`).
///
/// Why not `Synchronization.Mutex`: the engine's threads block on conditions, which `Mutex` does not
/// offer, and ThreadSanitizer on this Linux toolchain reports false races inside `Mutex.withLock`; the
/// engine must stay TSan-clean. Both pthread objects live on the heap so that their addresses never
/// move (a pthread object must not be copied).
///
/// Thread-safe: any thread may lock, wait and signal. `wait` must be called with the lock held, as
/// with any condition variable; spurious wake-ups happen, so callers re-check their predicate.
package final class ConditionLock: @unchecked Sendable {
    /// The mutex; heap-allocated, initialised in `init`, destroyed in `deinit`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The condition, bound to `CLOCK_MONOTONIC` so timed waits ignore wall-clock jumps.
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Creates an unlocked lock.
    package init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        var mutexAttributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&mutexAttributes)
        pthread_mutexattr_settype(&mutexAttributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        let mutexResult = pthread_mutex_init(mutex, &mutexAttributes)
        pthread_mutexattr_destroy(&mutexAttributes)
        precondition(mutexResult == 0, "pthread_mutex_init failed: \(mutexResult)")
        var conditionAttributes = pthread_condattr_t()
        pthread_condattr_init(&conditionAttributes)
        pthread_condattr_setclock(&conditionAttributes, CLOCK_MONOTONIC)
        let conditionResult = pthread_cond_init(condition, &conditionAttributes)
        pthread_condattr_destroy(&conditionAttributes)
        precondition(conditionResult == 0, "pthread_cond_init failed: \(conditionResult)")
    }

    /// Destroys and frees the pthread objects (nobody can hold the lock any more).
    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Acquires the lock, blocking until it is free. Traps if this thread already holds it.
    package func lock() {
        let result = pthread_mutex_lock(mutex)
        precondition(result == 0, "ConditionLock.lock: \(result) (locked twice on one thread?)")
    }

    /// Releases the lock. Traps if this thread does not hold it.
    package func unlock() {
        let result = pthread_mutex_unlock(mutex)
        precondition(result == 0, "ConditionLock.unlock: \(result) (not held by this thread?)")
    }

    /// Runs `body` with the lock held.
    @inline(__always)
    package func withLock<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Atomically releases the lock and sleeps until signalled, then re-acquires it. The lock must be
    /// held. May wake spuriously.
    package func wait() {
        let result = pthread_cond_wait(condition, mutex)
        precondition(result == 0, "ConditionLock.wait: \(result)")
    }

    /// Like ``wait()``, but gives up after `seconds` (clamped at 0).
    ///
    /// - Returns: false when the timeout passed, true when woken (by a signal or spuriously).
    @discardableResult
    package func wait(timeout seconds: Double) -> Bool {
        wait(deadline: Self.deadline(after: seconds))
    }

    /// Waits, with the lock held, until `predicate` holds or `seconds` pass on the monotonic clock (one deadline for
    /// the whole wait, however often it wakes); re-checks `predicate` after every wake-up.
    ///
    /// - Returns: whether `predicate` holds (checked once more at the deadline).
    @discardableResult
    package func wait(timeout seconds: Double, until predicate: () throws -> Bool) rethrows -> Bool {
        let deadline = Self.deadline(after: seconds)
        while try !predicate() {
            if !wait(deadline: deadline) { return try predicate() }
        }
        return true
    }

    /// The monotonic time `seconds` (clamped to 0...1e6) from now.
    private static func deadline(after seconds: Double) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = Int(max(0, min(seconds, 1e6)) * 1e9)
        var deadline = timespec(
            tv_sec: now.tv_sec + nanoseconds / 1_000_000_000,
            tv_nsec: now.tv_nsec + nanoseconds % 1_000_000_000)
        if deadline.tv_nsec >= 1_000_000_000 {
            deadline.tv_sec += 1
            deadline.tv_nsec -= 1_000_000_000
        }
        return deadline
    }

    /// Waits until signalled or the monotonic `deadline`; false when the deadline passed.
    private func wait(deadline: timespec) -> Bool {
        var deadline = deadline
        let result = pthread_cond_timedwait(condition, mutex, &deadline)
        precondition(result == 0 || result == ETIMEDOUT, "ConditionLock.wait(timeout:): \(result)")
        return result == 0
    }

    /// Wakes one waiter. The lock may or may not be held.
    package func signal() {
        pthread_cond_signal(condition)
    }

    /// Wakes every waiter. The lock may or may not be held.
    package func broadcast() {
        pthread_cond_broadcast(condition)
    }
}

/// A value guarded by its own ``ConditionLock`` (swift-nio's `NIOLockedValueBox`), for state that
/// several threads read and write but nobody waits on.
///
/// Thread-safe: every access goes through ``withLock(_:)``; `Sendable` when the value is.
package final class Locked<Value> {
    /// The lock guarding ``value``.
    private let lock = ConditionLock()
    /// The guarded value; only touched inside `lock`.
    private var value: Value

    /// Wraps `value`.
    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the value, read under the lock.
    package var current: Value {
        withLock { $0 }
    }
}

/// `@unchecked`: every access to the value goes through the lock.
extension Locked: @unchecked Sendable where Value: Sendable {}
