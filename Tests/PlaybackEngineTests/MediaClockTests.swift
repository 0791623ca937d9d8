import CoreMedia
import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

/// `MediaClock`: timed waits on a manual `VirtualClock` end when the clock is moved to their deadline (and are listed
/// by `pendingDeadlines` meanwhile), never because real time passed; which clock a source gets under each engine
/// clock.
final class MediaClockTests: XCTestCase {
    private func seconds(_ seconds: Double) -> CMTime {
        CMTime(seconds: seconds, preferredTimescale: 1000)
    }

    /// Waits until `done` holds (a thread reaching its wait on the clock is no event: ``Poll``).
    private func waitUntil(
        _ what: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line, _ done: () -> Bool
    ) {
        XCTAssertTrue(Poll.until(done), "timed out waiting until \(what())", file: file, line: line)
    }

    func test_sleepOnAManualClock_endsWhenTheClockReachesTheDeadline_notBefore() {
        let virtual = VirtualClock(mode: .manual)
        let clock = MediaClock(virtual)
        let woke = Locked<Bool?>(nil)
        let thread = Thread {
            let reached = clock.sleep(until: clock.deadline(after: 1), wakers: WaitWakers(), isInterrupted: { false })
            woke.withLock { $0 = reached }
        }
        thread.start()
        waitUntil("the sleeper waits for 1 s: \(virtual.pendingDeadlines)") { virtual.pendingDeadlines == [seconds(1)] }
        virtual.advance(by: seconds(0.999))
        waitUntil("still waiting for 1 s") { virtual.pendingDeadlines == [seconds(1)] }
        XCTAssertNil(woke.withLock { $0 }, "not before the deadline")
        virtual.advance(by: seconds(0.001))
        waitUntil("the sleeper woke") { woke.withLock { $0 } != nil }
        XCTAssertEqual(woke.withLock { $0 }, true)
        XCTAssertEqual(virtual.pendingDeadlines, [])
    }

    /// An interruption ends the sleep through its wakers, at once: it is not polled. The sleep registered with the
    /// wakers while it slept, and only then.
    func test_sleep_interruptedAndWoken_returnsFalse_andLeavesNoDeadline() {
        let virtual = VirtualClock(mode: .manual)
        let clock = MediaClock(virtual)
        let wakers = WaitWakers()
        let interrupted = Locked(false)
        let checks = Locked(0)
        let woke = Locked<Bool?>(nil)
        let thread = Thread {
            let reached = clock.sleep(until: clock.deadline(after: 5), wakers: wakers) {
                checks.withLock { $0 += 1 }
                return interrupted.current
            }
            woke.withLock { $0 = reached }
        }
        thread.start()
        waitUntil("the sleeper waits for 5 s") {
            virtual.pendingDeadlines == [seconds(5)] && wakers.registeredCount == 1
        }
        interrupted.withLock { $0 = true }
        wakers.wakeAll()
        waitUntil("the sleeper gave up") { woke.withLock { $0 } != nil }
        XCTAssertEqual(woke.withLock { $0 }, false)
        XCTAssertEqual(checks.current, 2, "one look before the wait, one after the wake: no poll")
        XCTAssertEqual(virtual.pendingDeadlines, [])
        XCTAssertEqual(wakers.registeredCount, 0)
        XCTAssertEqual(virtual.time, .zero, "the clock did not move")
    }

    func test_waitOnACondition_endsWhenSignalled_beforeTheDeadline() {
        let virtual = VirtualClock(mode: .manual)
        let clock = MediaClock(virtual)
        let condition = ConditionLock()
        let signalled = Locked(false)
        let result = Locked<Bool?>(nil)
        let thread = Thread {
            condition.lock()
            var reached = false
            while !signalled.current && !reached {
                reached = clock.wait(on: condition, until: clock.deadline(after: 10))
            }
            condition.unlock()
            result.withLock { $0 = reached }
        }
        thread.start()
        waitUntil("the waiter waits for 10 s") { virtual.pendingDeadlines == [seconds(10)] }
        signalled.withLock { $0 = true }
        condition.withLock { condition.broadcast() }
        waitUntil("the waiter woke") { result.withLock { $0 } != nil }
        XCTAssertEqual(result.withLock { $0 }, false, "signalled, not at its deadline")
    }

    func test_hostClock_aDeadlineReached_returnsAtOnce() {
        let condition = ConditionLock()
        let clock = MediaClock.host
        XCTAssertFalse(clock.isVirtual)
        let reached = condition.withLock { clock.wait(on: condition, until: clock.nanoseconds) }
        XCTAssertTrue(reached)
        XCTAssertTrue(clock.sleep(until: 0, wakers: WaitWakers(), isInterrupted: { false }))
    }

    func test_forSources_keepsAManualClock_andGivesTheHostClockOtherwise() {
        let manual = VirtualClock(mode: .manual)
        let untimed = VirtualClock(mode: .untimed)
        XCTAssertEqual(MediaClock.forSources(of: manual), MediaClock(manual))
        XCTAssertEqual(MediaClock.forSources(of: untimed), .host, "an untimed clock waits for the media itself")
        XCTAssertEqual(MediaClock.forSources(of: nil), .host)
        XCTAssertNotEqual(MediaClock(manual), MediaClock(VirtualClock(mode: .manual)), "compared by identity")
    }

    func test_virtualNow_isTheClocksTimeInNanoseconds() {
        let virtual = VirtualClock(mode: .manual, start: CMTime(value: 3, timescale: 2))
        let clock = MediaClock(virtual)
        XCTAssertEqual(clock.nanoseconds, 1_500_000_000)
        virtual.advance(by: seconds(0.25))
        XCTAssertEqual(clock.seconds, 1.75)
        XCTAssertEqual(clock.deadline(after: 2), 3_750_000_000)
        XCTAssertEqual(MediaClock.nanoseconds(-1), 0)
    }
}
