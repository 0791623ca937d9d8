import CoreMedia
import Dispatch
import Foundation
import OAVFLocking
import TestSupport
import XCTest

/// A timebase drives a subtitle renderer the way apps do: a dispatch timer source added to it, its next fire time set
/// from the timer's own handler, and the timebase's notifications observed.
final class CMTimebaseTests: XCTestCase {
    /// Counts the notifications of one name for one timebase, with their event times.
    private final class NotificationRecorder: @unchecked Sendable {
        private let lock = ConditionLock()
        private var times: [CMTime] = []
        private var token: NSObjectProtocol?

        init(_ name: String, _ timebase: CMTimebase) {
            token = NotificationCenter.default.addObserver(
                forName: Notification.Name(name as String), object: timebase, queue: nil
            ) { [weak self] note in
                guard let self, let time = note.userInfo?[kCMTimebaseNotificationKey_EventTime] as? CMTime else {
                    return
                }
                self.lock.withLock { self.times.append(time) }
            }
        }

        deinit { if let token { NotificationCenter.default.removeObserver(token) } }

        var eventTimes: [CMTime] { lock.withLock { times } }
    }

    func test_setTimeAndRate_postTimeJumpedAndEffectiveRateChanged() throws {
        let clock = VirtualClock(mode: .manual)
        let timebase = try CMTimebase(sourceClock: clock)
        let jumps = NotificationRecorder(kCMTimebaseNotification_TimeJumped, timebase)
        let rates = NotificationRecorder(kCMTimebaseNotification_EffectiveRateChanged, timebase)
        XCTAssertEqual(CMTimebaseSetTime(timebase, time: CMTime(value: 5, timescale: 1)), 0)
        XCTAssertEqual(CMTimebaseSetRate(timebase, rate: 1), 0)
        XCTAssertEqual(CMTimebaseSetRate(timebase, rate: 1), 0)  // unchanged: no notification
        clock.advance(by: CMTime(value: 2, timescale: 1))
        XCTAssertEqual(CMTimebaseSetRate(timebase, rate: 0), 0)
        XCTAssertEqual(jumps.eventTimes, [CMTime(value: 5, timescale: 1)])
        XCTAssertEqual(rates.eventTimes.map(\.seconds), [5, 7])
    }

    func test_dispatchTimer_firesOnceWhenTheTimebaseReachesItsFireTime_onAVirtualClock() throws {
        let clock = VirtualClock(mode: .manual)
        let timebase = try CMTimebase(sourceClock: clock)
        let queue = DispatchQueue(label: "timebase-timer")
        let fired = LockedCounter()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { fired.increment(at: timebase.time) }
        timer.resume()
        defer { timer.cancel() }
        XCTAssertEqual(CMTimebaseAddTimerDispatchSource(timebase, timerSource: timer), 0)
        XCTAssertEqual(
            CMTimebaseSetTimerDispatchSourceNextFireTime(
                timebase, timerSource: timer, fireTime: CMTime(value: 2, timescale: 1), flags: 0), 0)
        // Rate 0: time stands still, nothing fires however far the clock moves.
        clock.advance(by: CMTime(value: 5, timescale: 1))
        queue.sync {}
        XCTAssertEqual(fired.count, 0)
        // Rate 1: one second is not enough, the next half second reaches 2 s.
        XCTAssertEqual(CMTimebaseSetRate(timebase, rate: 1), 0)
        clock.advance(by: CMTime(value: 1, timescale: 1))
        queue.sync {}
        XCTAssertEqual(fired.count, 0)
        clock.advance(by: CMTime(value: 3, timescale: 2))
        XCTAssertTrue(fired.wait(untilCount: 1))
        XCTAssertEqual(fired.times.first?.seconds ?? 0, 2.5, accuracy: 1e-9)
        // Fired once: later time does not fire it again until a new fire time is set.
        clock.advance(by: CMTime(value: 3, timescale: 1))
        queue.sync {}
        XCTAssertEqual(fired.count, 1)
        // A fire time already passed fires at once; a removed timer never fires.
        XCTAssertEqual(
            CMTimebaseSetTimerDispatchSourceNextFireTime(
                timebase, timerSource: timer, fireTime: CMTime(value: 1, timescale: 1), flags: 0), 0)
        XCTAssertTrue(fired.wait(untilCount: 2))
        XCTAssertEqual(CMTimebaseRemoveTimerDispatchSource(timebase, timerSource: timer), 0)
        XCTAssertNotEqual(
            CMTimebaseSetTimerDispatchSourceNextFireTime(
                timebase, timerSource: timer, fireTime: CMTime(value: 99, timescale: 1), flags: 0), 0)
    }

    func test_dispatchTimer_onTheHostClock_firesAfterTheTimebaseTime() throws {
        let timebase = try CMTimebase(sourceClock: CMClockGetHostTimeClock())
        let fired = LockedCounter()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "host-timer"))
        timer.setEventHandler { fired.increment(at: timebase.time) }
        timer.resume()
        defer { timer.cancel() }
        _ = CMTimebaseAddTimerDispatchSource(timebase, timerSource: timer)
        _ = CMTimebaseSetTime(timebase, time: .zero)
        _ = CMTimebaseSetTimerDispatchSourceNextFireTime(
            timebase, timerSource: timer, fireTime: CMTime(value: 1, timescale: 20), flags: 0)
        // Twice the speed: 50 ms of timebase time pass in 25 ms.
        _ = CMTimebaseSetRate(timebase, rate: 2)
        XCTAssertTrue(fired.wait(untilCount: 1))
        XCTAssertGreaterThanOrEqual(fired.times.first?.seconds ?? 0, 0.05 - 1e-3)
    }
}

/// A thread-safe count of timer firings and the timebase times they saw; a test waits for a firing itself.
private final class LockedCounter: Sendable {
    private let seen = Awaitable<[CMTime]>([])
    func increment(at time: CMTime) { seen.update { $0.append(time) } }
    var count: Int { seen.current.count }
    var times: [CMTime] { seen.current }
    /// Waits until the timer has fired exactly `count` times (its handler wakes the wait); false after the hang guard.
    func wait(untilCount count: Int) -> Bool { seen.wait { $0.count == count } }
}
