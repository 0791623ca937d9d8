import AVFoundation
import Foundation
import OAVFLocking
import TestSupport
import XCTest

/// Behaviours that a public layer keeping its own copy of playback state got wrong, written as an app writes them and
/// run on the real-time clock (a race between the public layer and the engine cannot happen on a virtual clock). Each
/// runs with both cores kept busy by the test itself, as on the machine where they were first seen.
///
/// Real-time tests (named few): they take about as long as what they play.
final class PlaybackStateOwnershipTests: XCTestCase {
    override func setUp() {
        super.setUp()
        // No sound card here: SDL's dummy driver paces the audio clock as a device would, with its own thread.
        setenv("SDL_AUDIODRIVER", "dummy", 1)
    }

    override func tearDown() {
        unsetenv("SDL_AUDIODRIVER")
        super.tearDown()
    }

    /// A periodic time observer on the main queue (10 ms, the interval scrubber UIs use) while a local file with
    /// sound plays: every time delivered while the rate is non-zero and no seek was made is at or after the one
    /// before it, and so is the item's `currentTime()` read on the main thread between deliveries.
    func test_realTime_periodicObserver_neverReportsAnEarlierTimeWhilePlaying() throws {
        let player = AVPlayer(url: try fixture(.h264AAC))
        let item = try XCTUnwrap(player.currentItem)
        var delivered: [CMTime] = []
        var read: [CMTime] = []
        var playing = false
        let observer = player.addPeriodicTimeObserver(
            forInterval: CMTime(value: 1, timescale: 100), queue: .main
        ) { time in
            MainActor.assumeIsolated {
                guard playing else { return }
                delivered.append(time)
                read.append(item.currentTime())
            }
        }
        defer { player.removeTimeObserver(observer) }
        waitUntil("ready") { item.status == .readyToPlay }

        let load = BusyCores(threads: 2)
        defer { load.stop() }
        playing = true
        player.play()
        // A UI timer's reads of the time between deliveries (every 5 ms).
        var sampled: [CMTime] = []
        waitUntil("2.5 s played", timeout: 60) {
            let now = item.currentTime()
            sampled.append(now)
            return now.seconds >= 2.5
        }
        playing = false
        player.pause()

        // It fired (about every 10 ms on an idle machine — 250 times; every 21 ms, a device buffer, while the clock
        // stepped with the audio callbacks — but how often is up to the scheduler on a loaded one: not asserted).
        XCTAssertGreaterThan(delivered.count, 20, "the observer fired while playing")
        let series = [(delivered, "delivered"), (read, "currentTime() at deliveries"), (sampled, "currentTime()")]
        for (series, name) in series {
            let backwards = zip(series, series.dropFirst()).filter { $1 < $0 }
            XCTAssertTrue(
                backwards.isEmpty,
                "\(name) went backwards \(backwards.count) times, e.g. "
                    + backwards.prefix(3).map { "\($0.0.seconds) → \($0.1.seconds)" }.joined(separator: ", "))
        }
    }

    /// `preroll(atRate:)` followed at once by `cancelPendingPrerolls()`: the first completes `false` (Apple: cancelling
    /// invokes the pending completion handlers with `false`), the next preroll completes `true`.
    func test_realTime_prerollCancelledAtOnce_completesFalse_andTheNextOneTrue() throws {
        let player = AVPlayer(url: try fixture(.h264AAC))
        let item = try XCTUnwrap(player.currentItem)
        waitUntil("ready") { item.status == .readyToPlay }
        let load = BusyCores(threads: 2)
        defer { load.stop() }
        for round in 0..<5 {
            let results = Locked<[String: [Bool]]>([:])
            player.preroll(atRate: 1) { finished in results.withLock { $0["first", default: []].append(finished) } }
            player.cancelPendingPrerolls()
            player.preroll(atRate: 1) { finished in results.withLock { $0["second", default: []].append(finished) } }
            waitUntil("both prerolls complete") { results.withLock { $0.values.reduce(0) { $0 + $1.count } } == 2 }
            spinMainRunLoop(0.02)
            XCTAssertEqual(results.withLock { $0 }, ["first": [false], "second": [true]], "round \(round)")
        }
        XCTAssertEqual(player.rate, 0)
        XCTAssertEqual(player.timeControlStatus, .paused)
    }

    /// Two seeks back to back while playing, as a scrubber gives them: Apple completes the first "immediately" with
    /// `false` when the second supersedes it, so its `false` comes before the second seek's time jump is told; a
    /// first seek the engine finished before it saw the second (a picture from the cache lands at once) completes
    /// `true` with its own jump before. Each completes once.
    func test_realTime_supersededSeek_completesFalseBeforeTheNextSeeksJump() throws {
        let player = AVPlayer(url: try fixture(.h264AAC))
        let item = try XCTUnwrap(player.currentItem)
        waitUntil("ready") { item.status == .readyToPlay }
        let history = Locked<[String]>([])
        let jumps = NotificationCenter.default.addObserver(
            forName: AVPlayerItem.timeJumpedNotification, object: item, queue: nil
        ) { _ in history.withLock { $0.append("jump") } }
        defer { NotificationCenter.default.removeObserver(jumps) }
        let load = BusyCores(threads: 2)
        defer { load.stop() }
        player.play()
        for round in 0..<8 {
            history.withLock { $0 = [] }
            let first = CMTime(value: Int64(1 + round % 4), timescale: 1)
            let second = first + CMTime(value: 1, timescale: 2)
            player.seek(to: first, toleranceBefore: .zero, toleranceAfter: .zero) { ok in
                history.withLock { $0.append("first(\(ok))") }
            }
            player.seek(to: second, toleranceBefore: .zero, toleranceAfter: .zero) { ok in
                history.withLock { $0.append("second(\(ok))") }
            }
            waitUntil("round \(round): the second seek completes") {
                history.withLock { $0.contains { $0.hasPrefix("second") } }
            }
            let seen = history.withLock { $0 }
            if seen.first == "first(false)" {
                XCTAssertEqual(seen, ["first(false)", "jump", "second(true)"], "round \(round)")
            } else {
                XCTAssertEqual(seen, ["jump", "first(true)", "jump", "second(true)"], "round \(round)")
            }
        }
        player.pause()
    }

    /// With `.lowQualityZeroLatency` the rate snaps to its table: the item's `timebase` runs at the rate time really
    /// moves at (1.5 for a rate of 1.4), as its time shows.
    func test_realTime_timebaseRate_isTheEffectiveRate() throws {
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        item.audioTimePitchAlgorithm = .lowQualityZeroLatency
        let player = AVPlayer(playerItem: item)
        waitUntil("ready") { item.status == .readyToPlay }
        player.rate = 1.4
        waitUntil("playing") { player.timeControlStatus == .playing }
        let timebase = try XCTUnwrap(item.timebase)
        XCTAssertEqual(player.rate, 1.4, "the player reports the rate set")
        XCTAssertEqual(timebase.rate, 1.5, accuracy: 1e-9)
        XCTAssertEqual(CMTimebaseGetRate(timebase), 1.5, accuracy: 1e-9)
        // Time moves (at the rate, give or take how the clock follows the audio heard: not asserted against the wall,
        // which a loaded machine stretches).
        let before = timebase.time
        waitUntil("time moves") { timebase.time > before }
        player.pause()
        XCTAssertEqual(timebase.rate, 0)
    }

    /// The resume pattern of player libraries (a saved position sought right after `replaceCurrentItem`) and Apple's
    /// chase-time scrubber (QA1820, which checks only `player.status`): a seek asked for before the item is ready is
    /// made by the engine once it is, and completes `true` then; the picture shown is the one sought.
    func test_realTime_seekRightAfterReplacingTheItem_landsOnceReady_andCompletesTrue() throws {
        let player = AVPlayer()
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
        item.add(output)
        player.replaceCurrentItem(with: item)
        XCTAssertEqual(player.status, .readyToPlay, "the scrubber's only check")
        let finished = Locked<Bool?>(nil)
        let target = CMTime(value: 4, timescale: 1)
        player.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero) { ok in
            finished.withLock { $0 = ok }
        }
        XCTAssertEqual(player.currentTime(), target, "the time sought reads back at once")
        waitUntil("the seek completes") { finished.withLock { $0 } != nil }
        XCTAssertEqual(finished.withLock { $0 }, true)
        XCTAssertEqual(item.status, .readyToPlay)
        XCTAssertEqual(item.currentTime(), target)
        let (buffer, _) = copyPicture(output, at: target)
        XCTAssertEqual(try frameIndex(of: XCTUnwrap(buffer)), 120, "the picture at 4 s")
    }
}

/// Threads that keep the cores busy (a loaded machine) until stopped.
final class BusyCores: @unchecked Sendable {
    private let running = Locked(true)
    private let finished = DispatchGroup()

    init(threads: Int) {
        for i in 0..<threads {
            finished.enter()
            let thread = Thread { [running, finished] in
                var x: UInt64 = 0
                while running.withLock({ $0 }) {
                    for j in 0..<100_000 { x = x &* 6_364_136_223_846_793_005 &+ UInt64(j) }
                }
                withExtendedLifetime(x) {}
                finished.leave()
            }
            thread.name = "busy-\(i)"
            thread.start()
        }
    }

    func stop() {
        running.withLock { $0 = false }
        finished.wait()
    }
}
