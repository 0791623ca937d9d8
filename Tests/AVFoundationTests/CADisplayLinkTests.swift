import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// What a link's callbacks saw.
private final class TickLog: @unchecked Sendable {
    struct Tick {
        var timestamp: CFTimeInterval
        var targetTimestamp: CFTimeInterval
        var duration: CFTimeInterval
        var onThread: Thread
    }
    private let lock = ConditionLock()
    private var entries: [Tick] = []

    func record(_ link: CADisplayLink) {
        let tick = Tick(
            timestamp: link.timestamp, targetTimestamp: link.targetTimestamp, duration: link.duration,
            onThread: Thread.current)
        lock.withLock { entries.append(tick) }
    }

    var ticks: [Tick] { lock.withLock { entries } }
    var count: Int { lock.withLock { entries.count } }
}

/// A target with a method for the selector form.
private final class Stepper {
    var steps = 0
    var bareSteps = 0
    func step(_ link: CADisplayLink) { steps += 1 }
    func bareStep() { bareSteps += 1 }
}

final class CADisplayLinkTests: XCTestCase {
    /// Runs the current thread's run loop in `mode` (which delivers the link's ticks) until `condition` holds; only
    /// the hang guard bounds it, and no time is asserted.
    private func runLoop(
        _ mode: RunLoop.Mode = .default, until what: String, file: StaticString = #filePath, line: UInt = #line,
        _ condition: () -> Bool
    ) {
        if !Poll.runLoop(mode, slice: 0.02, until: condition) {
            XCTFail("timed out waiting for \(what)", file: file, line: line)
        }
    }

    func test_refreshesPerCallback_picksTheClosestFactorOfTheRefreshRate() {
        func every(_ refresh: Int64, _ preference: CADisplayLink.Preference) -> Int64 {
            CADisplayLink.refreshesPerCallback(refreshRate: refresh, preference: preference)
        }
        XCTAssertEqual(every(60, .framesPerSecond(0)), 1, "0: the display's rate")
        XCTAssertEqual(every(60, .framesPerSecond(60)), 1)
        XCTAssertEqual(every(60, .framesPerSecond(30)), 2)
        XCTAssertEqual(every(60, .framesPerSecond(25)), 2, "25 is nearer 30 than 20")
        XCTAssertEqual(every(60, .framesPerSecond(240)), 1, "never faster than the display")
        XCTAssertEqual(every(144, .framesPerSecond(60)), 2, "72 and 48 tie: the higher")
        XCTAssertEqual(every(75, .framesPerSecond(30)), 3, "25 is nearer than 37.5")
        XCTAssertEqual(every(60, .range(.default)), 1)
        XCTAssertEqual(every(60, .range(CAFrameRateRange(minimum: 20, maximum: 30))), 2, "no preference: the maximum")
        XCTAssertEqual(every(60, .range(CAFrameRateRange(minimum: 10, maximum: 60, preferred: 15))), 4)
        XCTAssertEqual(every(60, .range(CAFrameRateRange(minimum: 25, maximum: 60, preferred: 15))), 2, "inside first")
        XCTAssertEqual(every(60, .range(CAFrameRateRange(minimum: 80, maximum: 120))), 1, "none inside: the closest")
        XCTAssertTrue(CAFrameRateRangeIsEqualToRange(.default, CAFrameRateRange(minimum: 0, maximum: 0, preferred: 0)))
        XCTAssertFalse(CAFrameRateRangeIsEqualToRange(.default, CAFrameRateRange(minimum: 0, maximum: 30)))
    }

    func test_callsBackOnItsRunLoopsThread_onTheRefreshGrid() {
        let log = TickLog()
        let link = CADisplayLink(oavfHandler: { log.record($0) })
        XCTAssertEqual(link.timestamp, 0, "nothing before the first callback")
        XCTAssertEqual(link.duration, 0)
        link.add(to: .current, forMode: .common)
        defer { link.invalidate() }
        runLoop(until: "12 callbacks") { log.count >= 12 }
        let ticks = log.ticks
        XCTAssertTrue(ticks.allSatisfy { $0.onThread === Thread.current }, "on the run loop's thread")
        let period = ticks[0].duration
        XCTAssertGreaterThan(period, 0)
        XCTAssertLessThanOrEqual(period, 0.05)
        for (a, b) in zip(ticks, ticks.dropFirst()) {
            XCTAssertEqual(a.targetTimestamp - a.timestamp, period, accuracy: 1e-6, "every refresh: next is one on")
            let gap = (b.timestamp - a.timestamp) / period
            XCTAssertGreaterThanOrEqual(gap, 1 - 1e-6, "forward, never the same tick twice")
            XCTAssertEqual(gap, gap.rounded(), accuracy: 1e-3, "on the grid (late run loops skip whole ticks)")
        }
        // Host time: the same clock as CACurrentMediaTime().
        XCTAssertLessThanOrEqual(ticks.last!.timestamp, CACurrentMediaTime() + 0.001)
        XCTAssertGreaterThan(ticks.last!.timestamp, CACurrentMediaTime() - 5)
    }

    func test_preferredFramesPerSecond30_callsBackEverySecondRefresh() {
        let log = TickLog()
        let link = CADisplayLink(oavfHandler: { log.record($0) })
        link.preferredFramesPerSecond = 30
        XCTAssertEqual(link.preferredFramesPerSecond, 30)
        link.add(to: .current, forMode: .default)
        defer { link.invalidate() }
        runLoop(until: "8 callbacks") { log.count >= 8 }
        let ticks = log.ticks
        let refresh = (1 / ticks[0].duration).rounded()
        let every = Double(
            CADisplayLink.refreshesPerCallback(refreshRate: Int64(refresh), preference: .framesPerSecond(30)))
        for (a, b) in zip(ticks, ticks.dropFirst()) {
            XCTAssertEqual(a.targetTimestamp - a.timestamp, every / refresh, accuracy: 1e-6)
            let gap = (b.timestamp - a.timestamp) / (every / refresh)
            XCTAssertEqual(gap, gap.rounded(), accuracy: 1e-3)
            XCTAssertGreaterThanOrEqual(gap.rounded(), 1)
        }
        // Changing the rate while running moves the link to the new grid.
        link.preferredFrameRateRange = CAFrameRateRange(minimum: 0, maximum: Float(refresh), preferred: Float(refresh))
        XCTAssertEqual(link.preferredFrameRateRange.preferred, Float(refresh))
        let before = log.count
        runLoop(until: "4 more callbacks") { log.count >= before + 4 }
        let last = log.ticks.last!
        XCTAssertEqual(last.targetTimestamp - last.timestamp, 1 / refresh, accuracy: 1e-6)
    }

    func test_paused_callsNothing_untilResumed() {
        let reference = TickLog()
        let paused = TickLog()
        let clock = CADisplayLink(oavfHandler: { reference.record($0) })
        let link = CADisplayLink(oavfHandler: { paused.record($0) })
        link.isPaused = true
        XCTAssertTrue(link.isPaused)
        clock.add(to: .current, forMode: .default)
        link.add(to: .current, forMode: .default)
        defer {
            clock.invalidate()
            link.invalidate()
        }
        runLoop(until: "10 reference ticks") { reference.count >= 10 }
        XCTAssertEqual(paused.count, 0, "no callback while paused")
        link.isPaused = false
        runLoop(until: "callbacks after resuming") { paused.count >= 3 }
    }

    func test_modes_removeAndInvalidate() {
        let reference = TickLog()
        let log = TickLog()
        let clock = CADisplayLink(oavfHandler: { reference.record($0) })
        let link = CADisplayLink(oavfHandler: { log.record($0) })
        let custom = RunLoop.Mode("oavf.test.custom")
        clock.add(to: .current, forMode: .common)
        clock.add(to: .current, forMode: custom)
        link.add(to: .current, forMode: .default)
        link.add(to: .current, forMode: .common)  // both fire in .default: still one callback per tick
        defer { clock.invalidate() }
        runLoop(until: "ticks") { log.count >= 6 }
        let stamps = log.ticks.map(\.timestamp)
        XCTAssertEqual(Set(stamps).count, stamps.count, "one callback per tick with two modes")
        // A mode the link was not added for calls nothing.
        link.remove(from: .current, forMode: .common)
        let inDefault = log.count
        let start = reference.count
        runLoop(custom, until: "reference ticks in the custom mode") { reference.count >= start + 6 }
        XCTAssertEqual(log.count, inDefault, "not added for the custom mode")
        // Removed from the last mode, then invalidated: nothing more.
        link.remove(from: .current, forMode: .default)
        let removed = log.count
        let mark = reference.count
        runLoop(until: "reference ticks after removal") { reference.count >= mark + 6 }
        XCTAssertEqual(log.count, removed)
        link.add(to: .current, forMode: .default)
        runLoop(until: "added again") { log.count > removed }
        link.invalidate()
        link.invalidate()
        let invalidated = log.count
        let mark2 = reference.count
        runLoop(until: "reference ticks after invalidate") { reference.count >= mark2 + 6 }
        XCTAssertEqual(log.count, invalidated)
        link.add(to: .current, forMode: .default)  // an invalidated link stays off
        let mark3 = reference.count
        runLoop(until: "reference ticks after a late add") { reference.count >= mark3 + 4 }
        XCTAssertEqual(log.count, invalidated)
    }

    func test_targetSelector_retainsTheTargetUntilInvalidate() {
        weak var released: Stepper?
        let reference = TickLog()
        let clock = CADisplayLink(oavfHandler: { reference.record($0) })
        clock.add(to: .current, forMode: .default)
        defer { clock.invalidate() }
        let link: CADisplayLink
        let bare: CADisplayLink
        do {
            let stepper = Stepper()
            released = stepper
            link = CADisplayLink(target: stepper, selector: Stepper.step)
            bare = CADisplayLink(target: stepper, selector: Stepper.bareStep)
        }
        XCTAssertNotNil(released, "the link keeps its target")
        link.add(to: .current, forMode: .default)
        bare.add(to: .current, forMode: .default)
        runLoop(until: "steps") { (released?.steps ?? 0) >= 3 && (released?.bareSteps ?? 0) >= 3 }
        // Invalidating from inside a callback: no callback after it.
        var calls = 0
        let selfStopping = CADisplayLink(oavfHandler: { link in
            calls += 1
            link.invalidate()
        })
        selfStopping.add(to: .current, forMode: .default)
        link.invalidate()
        bare.invalidate()
        XCTAssertNil(released, "released by invalidate()")
        let mark = reference.count
        runLoop(until: "reference ticks") { reference.count >= mark + 6 }
        XCTAssertEqual(calls, 1)
    }

    func test_runsOnAnotherThreadsRunLoop() {
        let log = TickLog()
        let link = CADisplayLink(oavfHandler: { log.record($0) })
        let ready = DispatchSemaphore(value: 0)
        let stop = ConditionLock()
        nonisolated(unsafe) var done = false
        nonisolated(unsafe) var runLoopThread: Thread?
        nonisolated(unsafe) let shared = link
        let thread = Thread {
            runLoopThread = Thread.current
            shared.add(to: .current, forMode: .common)
            ready.signal()
            while !stop.withLock({ done }) {
                _ = RunLoop.current.run(mode: .default, before: Date().addingTimeInterval(0.02))
            }
        }
        thread.start()
        ready.wait()
        Poll.until { log.count >= 5 }
        stop.withLock { done = true }
        link.invalidate()
        XCTAssertGreaterThanOrEqual(log.count, 5)
        XCTAssertTrue(log.ticks.allSatisfy { $0.onThread === runLoopThread })
    }
}
