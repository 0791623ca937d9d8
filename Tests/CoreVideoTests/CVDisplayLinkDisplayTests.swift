import CoreGraphics
import CoreVideo
import Foundation
import TestSupport
import XCTest

/// Ticks of a display link running through a handler, as the link thread hands them over; each wakes the test's wait.
private final class StampLog: Sendable {
    private let stamps = Awaitable<[CVTimeStamp]>([])
    func append(_ stamp: CVTimeStamp) { stamps.update { $0.append(stamp) } }
    var all: [CVTimeStamp] { stamps.current }
    /// Waits until `condition` holds for the ticks so far; false after the hang guard.
    @discardableResult
    func wait(until condition: ([CVTimeStamp]) -> Bool) -> Bool { stamps.wait(until: condition) }
}

/// A display link follows its display's refresh rate: the window system's (a stand-in provider here, in place of
/// SDL's display modes), 60 Hz without one.
final class CVDisplayLinkDisplayTests: XCTestCase {
    private var savedProvider: (@Sendable (CGDirectDisplayID?) -> Int?)?

    override func setUp() {
        super.setUp()
        // Display 1 (the main one) at 144 Hz, display 2 at 50 Hz, nothing else.
        savedProvider = CVDisplayLink.setDisplayRefreshRateProvider { display in
            switch display ?? CGMainDisplayID() {
            case 1: return 144
            case 2: return 50
            default: return nil
            }
        }
    }

    override func tearDown() {
        CVDisplayLink.setDisplayRefreshRateProvider(savedProvider)
        super.tearDown()
    }

    private func period(_ link: CVDisplayLink) -> [Int64] {
        let p = CVDisplayLinkGetNominalOutputVideoRefreshPeriod(link)
        return [p.timeValue, Int64(p.timeScale)]
    }

    func test_linksFollowTheirDisplaysRefreshRate() throws {
        var link: CVDisplayLink?
        XCTAssertEqual(CVDisplayLinkCreateWithActiveCGDisplays(&link), kCVReturnSuccess)
        let main = try XCTUnwrap(link)
        XCTAssertEqual(CVDisplayLinkGetCurrentCGDisplay(main), CGMainDisplayID())
        XCTAssertEqual(period(main), [1, 144])
        XCTAssertEqual(CVDisplayLinkSetCurrentCGDisplay(main, 2), kCVReturnSuccess)
        XCTAssertEqual(CVDisplayLinkGetCurrentCGDisplay(main), 2)
        XCTAssertEqual(period(main), [1, 50])
        XCTAssertEqual(CVDisplayLinkSetCurrentCGDisplay(main, 7), kCVReturnInvalidDisplay)
        XCTAssertEqual(CVDisplayLinkGetCurrentCGDisplay(main), 2, "unchanged")
        var other: CVDisplayLink?
        XCTAssertEqual(CVDisplayLinkCreateWithCGDisplay(7, &other), kCVReturnInvalidDisplay)
        XCTAssertNil(other)
        XCTAssertEqual(CVDisplayLinkCreateWithCGDisplay(2, &other), kCVReturnSuccess)
        XCTAssertEqual(period(try XCTUnwrap(other)), [1, 50])
    }

    func test_aRunningLinkMovesToTheNewDisplaysRate() throws {
        var link: CVDisplayLink?
        XCTAssertEqual(CVDisplayLinkCreateWithCGDisplay(2, &link), kCVReturnSuccess)
        let running = try XCTUnwrap(link)
        let log = StampLog()
        CVDisplayLinkSetOutputHandler(running) { _, now, _, _, _ in
            log.append(now.pointee)
            return kCVReturnSuccess
        }
        XCTAssertEqual(CVDisplayLinkStart(running), kCVReturnSuccess)
        defer { CVDisplayLinkStop(running) }
        log.wait { $0.count >= 3 }
        // 50 Hz: stamps 20 ms apart in host time, on the display's time scale.
        let slow = log.all.prefix(3)
        XCTAssertTrue(slow.allSatisfy { $0.videoTimeScale == 50 && $0.videoRefreshPeriod == 1 })
        for (a, b) in zip(slow, slow.dropFirst()) where b.videoTime == a.videoTime + 1 {
            XCTAssertEqual(Double(b.hostTime - a.hostTime), 20_000_000, accuracy: 2)
        }
        XCTAssertEqual(CVDisplayLinkSetCurrentCGDisplay(running, 1), kCVReturnSuccess)
        log.wait { $0.filter { $0.videoTimeScale == 144 }.count >= 3 }
        let fast = log.all.filter { $0.videoTimeScale == 144 }
        XCTAssertGreaterThanOrEqual(fast.count, 3)
        for (a, b) in zip(fast, fast.dropFirst()) where b.videoTime == a.videoTime + 1 {
            XCTAssertEqual(Double(b.hostTime - a.hostTime), 1e9 / 144, accuracy: 2)
        }
        // Once moved, no tick of the old rate follows.
        let firstFast = try XCTUnwrap(log.all.firstIndex { $0.videoTimeScale == 144 })
        XCTAssertTrue(log.all[firstFast...].allSatisfy { $0.videoTimeScale == 144 })
        XCTAssertEqual(period(running), [1, 144])
    }

    func test_withoutAProvider_linksRunAtSixtyHertz() throws {
        CVDisplayLink.setDisplayRefreshRateProvider(nil)
        var link: CVDisplayLink?
        XCTAssertEqual(CVDisplayLinkCreateWithActiveCGDisplays(&link), kCVReturnSuccess)
        XCTAssertEqual(period(try XCTUnwrap(link)), [1, 60])
        XCTAssertEqual(CVDisplayLinkSetCurrentCGDisplay(try XCTUnwrap(link), 3), kCVReturnSuccess)
        XCTAssertEqual(period(try XCTUnwrap(link)), [1, 60])
    }
}
