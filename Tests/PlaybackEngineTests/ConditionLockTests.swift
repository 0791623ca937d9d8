import Foundation
import OAVFLocking
import XCTest

/// The project's one lock (`OAVFLocking`): the predicate wait and `Locked`'s value box.
final class ConditionLockTests: XCTestCase {
    /// A waiter sleeping in `wait(timeout:until:)` wakes when another thread makes the predicate hold and signals,
    /// and reports that it holds.
    func test_waitUntil_returnsTrueOnceAnotherThreadMakesThePredicateHold() {
        /// `ready`, guarded by `lock`.
        final class Shared: @unchecked Sendable {
            let lock = ConditionLock()
            var ready = false
        }
        let shared = Shared()
        let lock = shared.lock
        let started = DispatchSemaphore(value: 0)
        let thread = Thread {
            started.wait()
            lock.withLock { shared.ready = true }
            lock.broadcast()
        }
        thread.start()
        lock.lock()
        started.signal()
        // Generous: the other thread only has to run once; the wait ends as soon as it does.
        let held = lock.wait(timeout: 60) { shared.ready }
        lock.unlock()
        XCTAssertTrue(held)
        XCTAssertTrue(lock.withLock { shared.ready })
    }

    /// A predicate that never holds ends the wait at the deadline with false (and the lock held again).
    func test_waitUntil_returnsFalseAtTheDeadlineWhenThePredicateNeverHolds() {
        let lock = ConditionLock()
        var checks = 0
        lock.lock()
        let held = lock.wait(timeout: 0.01) {
            checks += 1
            return false
        }
        // The lock is held again: unlocking from this thread succeeds (an error-checking mutex traps otherwise).
        lock.unlock()
        XCTAssertFalse(held)
        XCTAssertGreaterThanOrEqual(checks, 2, "checked before waiting and once more at the deadline")
    }

    /// `Locked` keeps its value inside the lock: increments from several threads are none of them lost.
    func test_locked_keepsEveryIncrementFromFourThreads() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        XCTAssertEqual(counter.current, 40_000)
    }
}
