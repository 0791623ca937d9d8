import Dispatch
import Foundation
import OAVFLocking
import PlaybackEngine

/// A value that threads change and a test waits on: every ``update(_:)`` wakes the waiters, so a test waits for the
/// event itself (a report the engine sent, a picture presented, a store that finished) instead of sleeping and
/// polling.
///
/// The only real time involved is ``hangGuard``: how long a wait lasts before the test fails as hung. It tells a hang
/// from a loaded machine and is never a measurement; a wait that gets its event returns at once.
///
/// Thread-safe: any thread may update, read and wait.
public final class Awaitable<Value>: @unchecked Sendable {
    /// How long ``wait(until:)`` waits for its event before it gives up (seconds): far longer than any event takes on
    /// a machine whose cores are busy with other builds, short enough that a hang fails the test, not the run.
    public static var hangGuard: Double { 60 }

    /// Guards `value` (a test's record of what it heard, not engine state); its condition is broadcast after every
    /// update.
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var value: Value

    /// Creates one holding `value`.
    public init(_ value: Value) {
        self.value = value
    }

    /// Changes the value and wakes every waiter; returns what `body` returns.
    @discardableResult
    public func update<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        let result = body(&value)
        lock.broadcast()
        lock.unlock()
        return result
    }

    /// The value now.
    public var current: Value { lock.withLock { value } }

    /// Waits until `predicate` holds for the value, checked now and after every update. False if it still does not
    /// after ``hangGuard`` seconds.
    @discardableResult
    public func wait(until predicate: (Value) -> Bool) -> Bool {
        lock.withLock { lock.wait(timeout: Self.hangGuard) { predicate(value) } }
    }
}

extension SubtitleCueStore {
    /// Waits until `condition` holds, looking again whenever the store changes (its observer), not by polling;
    /// false after ``Awaitable/hangGuard`` seconds.
    @discardableResult
    package func wait(until condition: () -> Bool) -> Bool {
        let changed = Awaitable(0)
        addObserver { changed.update { $0 += 1 } }
        return changed.wait { _ in condition() }
    }

    /// Waits until the store finished (its reader reached the end or failed); false after ``Awaitable/hangGuard``
    /// seconds.
    @discardableResult
    package func waitUntilComplete() -> Bool {
        wait { isComplete }
    }
}

extension TimedMetadataStore {
    /// Waits until the store finished (its reader reached the end or failed), told by the store's observer, not by
    /// polling; false after ``Awaitable/hangGuard`` seconds.
    @discardableResult
    package func waitUntilComplete() -> Bool {
        let changed = Awaitable(0)
        addObserver { changed.update { $0 += 1 } }
        return changed.wait { _ in self.isComplete }
    }
}

/// Waits for a state that offers no event to wait on — a thread reaching its wait on a virtual clock
/// (`VirtualClock.pendingDeadlines`), a queue filling up, a screen grabbed from a window — by looking again every
/// millisecond (or every `interval`, for a look that is itself costly, such as a screenshot). Prefer ``Awaitable``
/// wherever the test can hear the change itself.
///
/// The one place such tests spend real time: the only bound is ``Awaitable/hangGuard`` (a hang, not a measurement).
public enum Poll {
    /// Looks at `condition` every `interval` seconds (a millisecond by default) until it holds; false if it still
    /// does not after ``Awaitable/hangGuard`` seconds. An error `condition` throws ends the wait and is rethrown.
    @discardableResult
    public static func until(every interval: TimeInterval = 0.001, _ condition: () throws -> Bool) rethrows -> Bool {
        let start = DispatchTime.now().uptimeNanoseconds
        while try !condition() {
            if Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 >= Awaitable<Void>.hangGuard {
                return try condition()
            }
            usleep(useconds_t(max(0, interval) * 1e6))
        }
        return true
    }

    /// Runs the current thread's run loop in `mode` until `condition` holds, looking again after each source the run
    /// loop handled (a timer, a display link, a block for the main queue) or every `slice` seconds; false if it
    /// still does not after ``Awaitable/hangGuard`` seconds. For events delivered on the waiting thread's run loop.
    @discardableResult
    public static func runLoop(
        _ mode: RunLoop.Mode = .default, slice: TimeInterval = 0.01, until condition: () throws -> Bool
    ) rethrows -> Bool {
        let start = DispatchTime.now().uptimeNanoseconds
        while try !condition() {
            if Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 >= Awaitable<Void>.hangGuard {
                return try condition()
            }
            _ = RunLoop.current.run(mode: mode, before: Date(timeIntervalSinceNow: slice))
        }
        return true
    }
}
