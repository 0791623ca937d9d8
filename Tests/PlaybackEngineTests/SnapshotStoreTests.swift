import CoreMedia
import XCTest

@testable import PlaybackEngine

/// The published clock never reads back while playback goes on: a reader may have read the old clock at any host
/// time up to the moment the engine publishes a new one (the engine re-anchored it as of an earlier host time, when
/// it measured the audio), so the store re-bases the new clock on what the old one reads then.
final class SnapshotStoreTests: XCTestCase {
    private static let ms: UInt64 = 1_000_000

    private func running(_ item: Double, host: UInt64, rate: Double, epoch: UInt64 = 1) -> EngineSnapshot {
        var s = EngineSnapshot()
        s.clock = ClockAnchor(item: CMTime(seconds: item, preferredTimescale: 1_000_000_000), host: host, rate: rate)
        s.epoch = epoch
        return s
    }

    /// Following audio behind the clock slows it down, anchored at the step's host time (50 ms); a reader read the
    /// old clock at 100 ms, before the new one was published at 100 ms: every later reading is at least that.
    func test_slowerClockAnchoredInThePast_neverReadsLessThanTheOldOneDid() {
        let store = SnapshotStore()
        XCTAssertNil(store.publish(running(0, host: 0, rate: 1), now: { 0 }))
        let read = store.current.clock.time(at: 100 * Self.ms)
        XCTAssertEqual(read.seconds, 0.1, accuracy: 1e-9)

        let rebased = store.publish(running(0.05, host: 50 * Self.ms, rate: 0.5), now: { 100 * Self.ms })
        XCTAssertNotNil(rebased)
        XCTAssertEqual(store.current.clock, rebased, "the engine adopts the clock readers see")
        // Without the re-basing it would read 0.075 at 100 ms and 0.08 at 110 ms.
        var previous = read
        for host in stride(from: UInt64(100), through: 400, by: 5) {
            let t = store.current.clock.time(at: host * Self.ms)
            XCTAssertGreaterThanOrEqual(t, previous, "at \(host) ms")
            previous = t
        }
        // From the publication on it moves at the engine's new rate.
        let a = store.current.clock.time(at: 200 * Self.ms)
        let b = store.current.clock.time(at: 300 * Self.ms)
        XCTAssertEqual((b - a).seconds, 0.05, accuracy: 1e-6)
        // Before it, it reads what the old clock read (a reader that took its host time before the publication).
        XCTAssertEqual(store.current.clock.time(at: 90 * Self.ms).seconds, 0.09, accuracy: 1e-6)
    }

    /// A limited clock (a network source read up to 2 s) stops there however late it is read — also once re-based —
    /// and the stall that follows stops it there: no reader saw time past the media read, so none sees it go back.
    func test_limitedClock_stopsAtTheMediaRead_andTheStallThere() {
        let store = SnapshotStore()
        var limited = running(1.9, host: 0, rate: 1)
        limited.clock.limit = CMTime(seconds: 2, preferredTimescale: 1000)
        _ = store.publish(limited, now: { 0 })
        XCTAssertEqual(store.current.clock.time(at: 50 * Self.ms).seconds, 1.95, accuracy: 1e-9)
        XCTAssertEqual(store.current.clock.time(at: 400 * Self.ms).seconds, 2, "a step 300 ms late")
        // Re-based (audio followed) after the limit was reached: still there.
        var followed = running(1.95, host: 50 * Self.ms, rate: 1.05)
        followed.clock.limit = limited.clock.limit
        _ = store.publish(followed, now: { 300 * Self.ms })
        XCTAssertEqual(store.current.clock.time(at: 500 * Self.ms).seconds, 2)
        var stalled = EngineSnapshot()
        stalled.clock = .frozen(at: CMTime(seconds: 2, preferredTimescale: 1000))
        stalled.epoch = 2
        stalled.continuesEpoch = 1
        XCTAssertNil(store.publish(stalled, now: { 600 * Self.ms }), "nothing past the limit was seen")
        XCTAssertEqual(store.current.clock.time(at: 700 * Self.ms).seconds, 2)
        // Without a limit the stall would stop at what readers may have seen, 0.6 s past the media read.
        let unlimited = SnapshotStore()
        _ = unlimited.publish(running(1.9, host: 0, rate: 1), now: { 0 })
        _ = unlimited.publish(stalled, now: { 600 * Self.ms })
        XCTAssertEqual(unlimited.current.clock.time(at: 700 * Self.ms).seconds, 2.5, accuracy: 1e-6)
    }

    /// A clock jumping forward to audio far ahead keeps its jump.
    func test_forwardJump_isKept() {
        let store = SnapshotStore()
        _ = store.publish(running(0, host: 0, rate: 1), now: { 0 })
        _ = store.publish(running(1.0, host: 50 * Self.ms, rate: 1), now: { 60 * Self.ms })
        XCTAssertEqual(store.current.clock.time(at: 60 * Self.ms).seconds, 1.01, accuracy: 1e-6)
    }

    /// A stall stops the clock where readers may have seen it, not at the earlier time the engine measured.
    func test_stall_stopsNoEarlierThanReadersSaw() {
        let store = SnapshotStore()
        _ = store.publish(running(0, host: 0, rate: 1), now: { 0 })
        var stalled = EngineSnapshot()
        stalled.clock = .frozen(at: CMTime(seconds: 0.05, preferredTimescale: 1000))
        stalled.epoch = 2
        stalled.continuesEpoch = 1
        let rebased = store.publish(stalled, now: { 80 * Self.ms })
        XCTAssertEqual(rebased.map { $0.item.seconds } ?? -1, 0.08, accuracy: 1e-6)
        XCTAssertFalse(store.current.clock.isRunning)
    }

    /// A seek (a new epoch that does not continue the old one) is published as the engine set it: time may go back.
    func test_seek_isPublishedAsIs() {
        let store = SnapshotStore()
        _ = store.publish(running(5, host: 0, rate: 1), now: { 0 })
        XCTAssertNil(store.publish(running(1, host: 10 * Self.ms, rate: 1, epoch: 2), now: { 20 * Self.ms }))
        XCTAssertEqual(store.current.clock.time(at: 20 * Self.ms).seconds, 1.01, accuracy: 1e-6)
    }
}
