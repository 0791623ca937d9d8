import CoreGraphics
import CoreVideo
import Foundation
import OAVFLocking
import TestSupport
import XCTest

/// Counters a display-link callback writes on the link thread and the test reads.
private final class TickLog: @unchecked Sendable {
    private let lock = ConditionLock()
    private var stamps: [(now: CVTimeStamp, output: CVTimeStamp, entered: UInt64)] = []
    private var inFlight = 0
    private var overlaps = 0
    /// Sleep inside each callback (seconds).
    var work: Double = 0

    func record(_ now: CVTimeStamp, _ output: CVTimeStamp) {
        let entered = CVGetCurrentHostTime()
        lock.withLock {
            if inFlight > 0 { overlaps += 1 }
            inFlight += 1
            stamps.append((now, output, entered))
        }
        // Real time by design: a callback that takes this long (up to longer than a period) is what is tested.
        if work > 0 { Thread.sleep(forTimeInterval: work) }
        lock.withLock { inFlight -= 1 }
    }

    var count: Int { lock.withLock { stamps.count } }
    var all: [(now: CVTimeStamp, output: CVTimeStamp, entered: UInt64)] { lock.withLock { stamps } }
    var isInFlight: Bool { lock.withLock { inFlight > 0 } }
    var overlapCount: Int { lock.withLock { overlaps } }
}

/// The C-style callback (Apple's sample shape: a global function with the context pointer).
private func logTick(
    _ link: CVDisplayLink, _ inNow: UnsafePointer<CVTimeStamp>, _ inOutputTime: UnsafePointer<CVTimeStamp>,
    _ flagsIn: CVOptionFlags, _ flagsOut: UnsafeMutablePointer<CVOptionFlags>, _ context: UnsafeMutableRawPointer?
) -> CVReturn {
    Unmanaged<TickLog>.fromOpaque(context!).takeUnretainedValue().record(inNow.pointee, inOutputTime.pointee)
    return kCVReturnSuccess
}

/// Whether callbacks may still restart their link. A callback restarts under the switch's lock, so once
/// `disable()` returns no callback restarts the link any more.
private final class RestartSwitch: @unchecked Sendable {
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var enabled = true

    func ifEnabled(_ body: () -> Void) {
        lock.withLock {
            if enabled { body() }
        }
    }

    func disable() {
        lock.withLock { enabled = false }
    }
}

/// A handler that logs each tick and now and then restarts its own link from inside the callback (the new run must
/// wait for this callback to return).
private func restartingHandler(_ log: TickLog, _ restarts: RestartSwitch) -> CVDisplayLinkOutputHandler {
    { link, now, output, _, _ in
        log.record(now.pointee, output.pointee)
        if log.count.isMultiple(of: 4) {
            restarts.ifEnabled {
                CVDisplayLinkStop(link)
                CVDisplayLinkStart(link)
            }
        }
        return kCVReturnSuccess
    }
}

final class CVDisplayLinkTests: XCTestCase {
    /// The platform's display modes, if a test process installed them: these tests expect the nominal 60 Hz.
    private var savedProvider: (@Sendable (CGDirectDisplayID?) -> Int?)?

    override func setUp() {
        super.setUp()
        savedProvider = CVDisplayLink.setDisplayRefreshRateProvider(nil)
    }

    override func tearDown() {
        CVDisplayLink.setDisplayRefreshRateProvider(savedProvider)
        super.tearDown()
    }

    private func makeLink() throws -> CVDisplayLink {
        var link: CVDisplayLink?
        XCTAssertEqual(CVDisplayLinkCreateWithActiveCGDisplays(&link), kCVReturnSuccess)
        return try XCTUnwrap(link)
    }

    /// This process's display-link threads (named `oavf.displaylin`, the kernel's 15 bytes).
    private func linkThreadCount() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix("oavf.displaylin")
        }.count
    }

    /// Waits until the link threads are back to `baseline`: a stopped or released link's thread exits at its next
    /// tick without calling out, so once it is gone no callback can come. The event the "nothing after stop" checks
    /// wait for, instead of a while.
    private func waitForLinkThreads(toReturnTo baseline: Int) {
        wait("the link's thread to end") { linkThreadCount() <= baseline }
    }

    /// Waits until `condition` holds (a thread's exit, a callback's entry: no event to wait on, so ``Poll``, bounded
    /// by the hang guard only).
    private func wait(_ what: String, _ condition: () -> Bool) {
        if !Poll.until(condition) { XCTFail("timed out waiting for \(what)") }
    }

    func test_hostClock_isMonotonicNanoseconds() {
        XCTAssertEqual(CVGetHostClockFrequency(), 1e9)
        XCTAssertGreaterThanOrEqual(CVGetHostClockMinimumTimeDelta(), 1)
        let a = CVGetCurrentHostTime()
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let b = UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
        XCTAssertLessThanOrEqual(a, b)
        XCTAssertLessThan(b - a, 50_000_000)
    }

    func test_startStop_returnCodes_periods_andTicksAt60Hz_withLowJitter() throws {
        let link = try makeLink()
        XCTAssertFalse(CVDisplayLinkIsRunning(link))
        XCTAssertEqual(CVDisplayLinkStart(link), kCVReturnDisplayLinkCallbacksNotSet)
        XCTAssertEqual(CVDisplayLinkStop(link), kCVReturnDisplayLinkNotRunning)
        let log = TickLog()
        XCTAssertEqual(
            CVDisplayLinkSetOutputCallback(link, logTick, Unmanaged.passUnretained(log).toOpaque()), kCVReturnSuccess)
        let nominal = CVDisplayLinkGetNominalOutputVideoRefreshPeriod(link)
        XCTAssertEqual([nominal.timeValue, Int64(nominal.timeScale), Int64(nominal.flags)], [1, 60, 0])
        XCTAssertEqual(CVDisplayLinkGetActualOutputVideoRefreshPeriod(link), 0, "not running")
        let threads = linkThreadCount()
        let started = CVGetCurrentHostTime()
        XCTAssertEqual(CVDisplayLinkStart(link), kCVReturnSuccess)
        XCTAssertEqual(CVDisplayLinkStart(link), kCVReturnDisplayLinkAlreadyRunning)
        XCTAssertTrue(CVDisplayLinkIsRunning(link))
        wait("90 ticks") { log.count >= 90 }
        XCTAssertGreaterThan(linkThreadCount(), 0, "the link ticks on a thread of its own, found by its name")
        XCTAssertEqual(CVDisplayLinkGetActualOutputVideoRefreshPeriod(link), 1.0 / 60, accuracy: 0.002)
        var current = CVTimeStamp()
        XCTAssertEqual(CVDisplayLinkGetCurrentTime(link, &current), kCVReturnSuccess)
        XCTAssertGreaterThanOrEqual(current.videoTime, 89)
        XCTAssertEqual(CVDisplayLinkStop(link), kCVReturnSuccess)
        XCTAssertFalse(CVDisplayLinkIsRunning(link))
        let stoppedAt = log.count
        waitForLinkThreads(toReturnTo: threads)
        XCTAssertEqual(log.count, stoppedAt, "no callback after Stop returned")

        let ticks = log.all
        let period: UInt64 = 16_666_666
        var lateness: [Double] = []
        for (i, tick) in ticks.enumerated() {
            let flags = CVTimeStampFlags(rawValue: tick.now.flags)
            XCTAssertTrue(flags.contains(.hostTimeValid) && flags.contains(.videoTimeValid))
            XCTAssertEqual(tick.now.videoTimeScale, 60)
            XCTAssertEqual(tick.now.videoRefreshPeriod, 1)
            XCTAssertEqual(tick.output.videoTime, tick.now.videoTime + 1)
            // The output time is the next refresh: one period after "now".
            XCTAssertEqual(Double(tick.output.hostTime - tick.now.hostTime), Double(period), accuracy: 2)
            XCTAssertGreaterThanOrEqual(tick.entered, tick.now.hostTime, "never called before its time")
            if i > 0 { XCTAssertGreaterThan(tick.now.videoTime, ticks[i - 1].now.videoTime) }
            lateness.append(Double(tick.entered - tick.now.hostTime) / 1e6)
        }
        XCTAssertGreaterThan(ticks[0].now.hostTime, started)
        let skipped = Int(ticks.last!.now.videoTime - ticks[0].now.videoTime) + 1 - ticks.count
        let mean = lateness.reduce(0, +) / Double(lateness.count)
        let worst = lateness.max() ?? 0
        print(
            String(
                format: "CVDisplayLink jitter over %d ticks: mean %.3f ms, max %.3f ms, %d skipped", ticks.count,
                mean, worst, skipped))
        XCTAssertLessThan(mean, 4, "mean lateness (ms)")
        XCTAssertLessThanOrEqual(skipped, 5)
    }

    func test_callbacksNeverOverlap_andStopWaitsForTheCallbackInFlight() throws {
        let link = try makeLink()
        let log = TickLog()
        log.work = 0.030  // longer than a period: ticks are skipped, never stacked
        CVDisplayLinkSetOutputHandler(link) { _, now, output, _, _ in
            log.record(now.pointee, output.pointee)
            return kCVReturnSuccess
        }
        CVDisplayLinkStart(link)
        for _ in 0..<5 {
            wait("a callback in flight") { log.isInFlight }
            XCTAssertEqual(CVDisplayLinkStop(link), kCVReturnSuccess)
            XCTAssertFalse(log.isInFlight, "Stop returned while a callback was running")
            XCTAssertEqual(CVDisplayLinkStart(link), kCVReturnSuccess)
        }
        CVDisplayLinkStop(link)
        XCTAssertEqual(log.overlapCount, 0)
    }

    func test_stopFromInsideTheCallback_returnsAtOnce_andRestartWorks() throws {
        let link = try makeLink()
        let calls = TickLog()
        CVDisplayLinkSetOutputHandler(link) { link, now, output, _, _ in
            calls.record(now.pointee, output.pointee)
            XCTAssertEqual(CVDisplayLinkStop(link), kCVReturnSuccess)
            return kCVReturnSuccess
        }
        let threads = linkThreadCount()
        CVDisplayLinkStart(link)
        wait("first callback") { calls.count == 1 }
        waitForLinkThreads(toReturnTo: threads)
        XCTAssertEqual(calls.count, 1, "no callback after stopping from inside")
        XCTAssertFalse(CVDisplayLinkIsRunning(link))
        XCTAssertEqual(CVDisplayLinkStart(link), kCVReturnSuccess)
        wait("restarted") { calls.count == 2 }
    }

    func test_releasedRunningLink_stops() throws {
        let log = TickLog()
        let threads = linkThreadCount()
        do {
            let link = try makeLink()
            CVDisplayLinkSetOutputHandler(link) { _, now, output, _, _ in
                log.record(now.pointee, output.pointee)
                return kCVReturnSuccess
            }
            CVDisplayLinkStart(link)
            wait("ticking") { log.count >= 2 }
        }
        // The released link's thread finds it gone at its next tick and ends; a callback in flight then has ended.
        waitForLinkThreads(toReturnTo: threads)
        let count = log.count
        XCTAssertEqual(linkThreadCount(), threads, "nothing left that could tick")
        XCTAssertEqual(log.count, count, "a released link does not keep ticking")
    }

    func test_startStopAndOutputChanges_fromFourThreads_neverOverlapCallbacks() throws {
        let threads = linkThreadCount()
        let link = try makeLink()
        let log = TickLog()
        log.work = 0.004
        let restarts = RestartSwitch()
        CVDisplayLinkSetOutputHandler(link, restartingHandler(log, restarts))
        let deadline = CVGetCurrentHostTime() + 600_000_000
        runOnThreads(4) { thread in
            var stamp = CVTimeStamp()
            while CVGetCurrentHostTime() < deadline {
                switch thread {
                case 0: CVDisplayLinkStart(link)
                case 1: CVDisplayLinkStop(link)
                case 2: CVDisplayLinkSetOutputHandler(link, restartingHandler(log, restarts))
                default:
                    _ = CVDisplayLinkIsRunning(link)
                    _ = CVDisplayLinkGetActualOutputVideoRefreshPeriod(link)
                    CVDisplayLinkGetCurrentTime(link, &stamp)
                }
                // Real time by design: the calls race the link's ticks for 0.6 s, each thread at its own pace.
                Thread.sleep(forTimeInterval: thread == 1 ? 0.025 : 0.005)
            }
        }
        restarts.disable()
        CVDisplayLinkStop(link)
        XCTAssertFalse(log.isInFlight, "Stop returned while a callback was running")
        XCTAssertFalse(CVDisplayLinkIsRunning(link))
        let count = log.count
        waitForLinkThreads(toReturnTo: threads)
        XCTAssertEqual(log.count, count, "no callback after the last stop")
        XCTAssertGreaterThan(count, 0)
        XCTAssertEqual(log.overlapCount, 0)
    }
}
