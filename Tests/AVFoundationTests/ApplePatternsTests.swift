import AVFoundation
import Foundation
import OAVFLocking
import TestSupport
import XCTest

// Code written the way apps and Apple's samples write it: public API only (no `@testable`), the app's own KVO
// observations and queues, on the generated fixtures, with a `VirtualClock` as the player's source clock.

/// Apple's looping-player sample ("QueuePlayerLooper"): it keeps copies of an item in an `AVQueuePlayer` and, when
/// the current item changes, seeks the item that left back to zero and appends it again, from inside the KVO
/// callback that reports its leaving.
private final class QueuePlayerLooper {
    let player: AVQueuePlayer
    private var observation: NSKeyValueObservation?
    private(set) var numberOfTimesPlayed = 0
    /// The time of each item as it left (not part of the sample: what the test checks).
    private(set) var timesAtLeaving: [CMTime] = []

    init(player: AVQueuePlayer, items: [AVPlayerItem]) {
        self.player = player
        for item in items { player.insert(item, after: nil) }
        startObserving()
    }

    private func startObserving() {
        observation = player.observe(\.currentItem, options: [.old]) { [unowned self] player, change in
            // The play queue emptied out (a bad item): stop looping.
            if player.items().isEmpty {
                self.observation = nil
                return
            }
            if let itemRemoved = change.oldValue ?? nil {
                self.timesAtLeaving.append(itemRemoved.currentTime())
                itemRemoved.seek(to: .zero, completionHandler: nil)
                self.stopObserving()
                player.insert(itemRemoved, after: nil)
                self.startObserving()
                self.numberOfTimesPlayed += 1
            }
        }
    }

    private func stopObserving() {
        observation?.invalidate()
        observation = nil
    }

    func stop() {
        stopObserving()
        player.pause()
    }
}

/// Apple's Technical Q&A QA1820 "smooth scrubbing": the slider sets a chase time; a seek is issued only when none is in
/// flight, and the next one is chained from the completion of the previous (which hops to the main queue).
@MainActor
private final class ChaseTimeScrubber {
    let player: AVPlayer
    private(set) var chaseTime = CMTime.zero
    private(set) var isSeekInProgress = false
    private(set) var seeksIssued = 0
    private(set) var completions: [Bool] = []

    init(player: AVPlayer) { self.player = player }

    func stopPlayingAndSeekSmoothlyToTime(_ newChaseTime: CMTime) {
        player.pause()
        if CMTimeCompare(newChaseTime, chaseTime) != 0 {
            chaseTime = newChaseTime
            if !isSeekInProgress { trySeekToChaseTime() }
        }
    }

    private func trySeekToChaseTime() {
        guard player.currentItem?.status == .readyToPlay else { return }
        actuallySeekToTime()
    }

    private func actuallySeekToTime() {
        isSeekInProgress = true
        seeksIssued += 1
        let seekTimeInProgress = chaseTime
        player.seek(to: seekTimeInProgress, toleranceBefore: .zero, toleranceAfter: .zero) { finished in
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    self.completions.append(finished)
                    if CMTimeCompare(seekTimeInProgress, self.chaseTime) == 0 {
                        self.isSeekInProgress = false
                    } else {
                        self.trySeekToChaseTime()
                    }
                }
            }
        }
    }
}

final class ApplePatternsTests: XCTestCase {
    /// 30 s of virtual time through Apple's treadmill: 3 copies of a 3 s clip, each re-inserted from the callback
    /// reporting it left; every play runs the whole clip (3 s of clock each), none traps.
    func test_treadmill_reinsertsTheItemThatLeft_fromTheObservationCallback() throws {
        let url = try fixture(.videoOnly)
        let clock = VirtualClock(mode: .untimed)
        let player = AVQueuePlayer()
        player.sourceClock = clock
        let template = AVPlayerItem(url: url)
        let items = (0..<3).map { _ in template.copy() as! AVPlayerItem }
        let ends = Locked(0)
        let token = NotificationCenter.default.addObserver(
            forName: AVPlayerItem.didPlayToEndTimeNotification, object: nil, queue: nil
        ) { note in
            guard let item = note.object as? AVPlayerItem, items.contains(where: { $0 === item }) else { return }
            ends.withLock { $0 += 1 }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let looper = QueuePlayerLooper(player: player, items: items)
        player.play()
        waitUntil("10 plays", timeout: 60) { looper.numberOfTimesPlayed >= 10 }
        looper.stop()
        let played = ends.withLock { $0 }
        XCTAssertGreaterThanOrEqual(played, 10)
        // Each play ran the whole 3 s clip: a re-inserted item starts from where the app sought it (zero).
        XCTAssertEqual(clock.time.seconds, 3 * Double(played), accuracy: 1.5, "plays: \(played)")
        // An item that played out keeps its end as its time until the app seeks it.
        XCTAssertEqual(looper.timesAtLeaving.count, looper.numberOfTimesPlayed)
        for time in looper.timesAtLeaving { XCTAssertEqual(time.seconds, 3, accuracy: 0.05) }
        XCTAssertEqual(player.items().count, 3)
        XCTAssertTrue(player.items().allSatisfy { item in items.contains { $0 === item } })
    }

    /// The treadmill when the app makes the item leave (`advanceToNextItem()`, `remove(_:)`): the observation runs
    /// synchronously inside that call, and the item it reports leaving can be inserted again right there.
    func test_treadmill_whenTheAppAdvances_reinsertsFromInsideTheCall() throws {
        let player = AVQueuePlayer()
        player.sourceClock = VirtualClock(mode: .manual)
        let items = try [Fixture.videoOnly, .audioOnly, .audioWAV].map { AVPlayerItem(url: try fixture($0)) }
        let looper = QueuePlayerLooper(player: player, items: items)
        player.advanceToNextItem()
        XCTAssertEqual(looper.numberOfTimesPlayed, 1, "observed before advanceToNextItem() returned")
        XCTAssertTrue(player.items() == [items[1], items[2], items[0]])
        player.remove(items[1])
        XCTAssertEqual(looper.numberOfTimesPlayed, 2)
        XCTAssertTrue(player.items() == [items[2], items[0], items[1]])
        // Removing an item behind the current one does not change currentItem: nothing is reported.
        player.remove(items[0])
        XCTAssertEqual(looper.numberOfTimesPlayed, 2)
        XCTAssertTrue(player.items() == [items[2], items[1]])
        looper.stop()
    }

    /// A removed item keeps its time while detached and continues from there when inserted again.
    func test_removedItem_keepsItsTime_andContinuesFromThere() throws {
        let clock = VirtualClock(mode: .manual)
        let player = AVQueuePlayer()
        player.sourceClock = clock
        let a = AVPlayerItem(url: try fixture(.h264AAC))
        let b = AVPlayerItem(url: try fixture(.videoOnly))
        let output = AVPlayerItemVideoOutput()
        a.add(output)
        a.forwardPlaybackEndTime = CMTime(value: 9, timescale: 1)
        player.insert(a, after: nil)
        player.insert(b, after: a)
        waitUntil("a ready") { a.status == .readyToPlay }
        let done = Locked<Bool?>(nil)
        let target = CMTime(value: 4, timescale: 1)
        a.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero) { ok in done.withLock { $0 = ok } }
        waitUntil("seek") { done.withLock { $0 } != nil }
        XCTAssertEqual(done.withLock { $0 }, true)
        player.remove(a)
        XCTAssertTrue(player.currentItem === b)
        // Detached: its time, end time and outputs stay.
        XCTAssertEqual(a.currentTime(), target)
        XCTAssertEqual(a.forwardPlaybackEndTime, CMTime(value: 9, timescale: 1))
        XCTAssertTrue(a.outputs.first === output)
        XCTAssertEqual(a.status, .readyToPlay)
        // A detached item may be sought (the sample seeks the finished item to zero); it moves its own time.
        let detachedSeek = Locked<Bool?>(nil)
        a.seek(to: CMTime(value: 5, timescale: 1)) { ok in detachedSeek.withLock { $0 = ok } }
        waitUntil("detached seek") { detachedSeek.withLock { $0 } != nil }
        XCTAssertEqual(detachedSeek.withLock { $0 }, true)
        XCTAssertEqual(a.currentTime(), CMTime(value: 5, timescale: 1))
        // Inserted again in front: it continues from 5 s, showing frame 150.
        player.replaceCurrentItem(with: a)
        XCTAssertEqual(a.currentTime(), CMTime(value: 5, timescale: 1))
        let five = CMTime(value: 5, timescale: 1)
        var buffer: CVPixelBuffer?
        waitUntil("the picture at 5 s") {
            var shown = CMTime.invalid
            buffer = output.copyPixelBuffer(forItemTime: five, itemTimeForDisplay: &shown)
            return shown == five
        }
        XCTAssertEqual(frameIndex(of: try XCTUnwrap(buffer)), 150)
        XCTAssertEqual(a.currentTime(), five)
        XCTAssertEqual(a.forwardPlaybackEndTime, CMTime(value: 9, timescale: 1))
    }

    /// `disableLooping()` with `loopCount == N`: exactly N + 1 plays in all, nothing afterwards. The clock is stepped
    /// by a tenth of a second (the app's observation runs between steps, as it would between frames).
    func test_looper_disableLooping_playsTheCurrentReplicaToItsEnd_andNothingMore() throws {
        let clock = VirtualClock(mode: .manual)
        let player = AVQueuePlayer()
        player.sourceClock = clock
        let template = AVPlayerItem(url: try fixture(.videoOnly))
        let looper = AVPlayerLooper(player: player, templateItem: template)
        let ends = Locked(0)
        let token = NotificationCenter.default.addObserver(
            forName: AVPlayerItem.didPlayToEndTimeNotification, object: nil, queue: nil
        ) { note in
            guard let item = note.object as? AVPlayerItem,
                looper.loopingPlayerItems.contains(where: { $0 === item })
            else { return }
            ends.withLock { $0 += 1 }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        let counted = Locked<Int?>(nil)
        // The app disables looping from its loopCount observation (main queue), as apps limit loops.
        let observation = looper.observe(\.loopCount, options: [.new]) { looper, change in
            guard change.newValue == 2, counted.withLock({ $0 }) == nil else { return }
            looper.disableLooping()
            counted.withLock { $0 = looper.loopCount }
        }
        player.play()
        let step = CMTime(value: 1, timescale: 10)
        for _ in 0..<400 where player.currentItem != nil {
            clock.advance(by: step)
            spinMainRunLoop(0.005)
        }
        XCTAssertNil(player.currentItem, "the replicas ran out")
        let n = try XCTUnwrap(counted.withLock { $0 })
        // Nothing plays afterwards: more time changes nothing.
        for _ in 0..<40 {
            clock.advance(by: step)
            spinMainRunLoop(0.002)
        }
        XCTAssertEqual(ends.withLock { $0 }, n + 1)
        XCTAssertEqual(looper.loopCount, n, "loopCount stops counting")
        XCTAssertNil(player.currentItem)
        XCTAssertEqual(looper.status, .cancelled)
        withExtendedLifetime(observation) {}
    }

    /// KVO semantics: what the app changes reaches observers synchronously, on the calling thread, before the setter
    /// returns, with that change's old and new values; an observer may call the player back. What the engine changes
    /// arrives on the main queue, in order.
    func test_appChanges_areObservedBeforeTheSetterReturns_engineChangesOnTheMainQueue() throws {
        let player = AVQueuePlayer()
        player.sourceClock = VirtualClock(mode: .manual)
        var rates: [Float] = []
        var rateChanges: [String] = []
        let rateObservation = player.observe(\.rate, options: [.old, .new]) { player, change in
            rates.append(player.rate)
            rateChanges.append("\(change.oldValue ?? -1)->\(change.newValue ?? -1)")
        }
        player.rate = 1.5
        player.pause()
        XCTAssertEqual(rates, [1.5, 0])
        XCTAssertEqual(rateChanges, ["0.0->1.5", "1.5->0.0"])

        // Re-entrant: the volume observer mutes the player; the mute observer hears it before `volume =` returns.
        var muted: [Bool] = []
        let volumeObservation = player.observe(\.volume, options: [.new]) { player, change in
            if change.newValue == 0 { player.isMuted = true }
        }
        let muteObservation = player.observe(\.isMuted, options: [.new]) { _, change in
            muted.append(change.newValue ?? false)
        }
        player.volume = 0
        XCTAssertEqual(muted, [true])

        // Settings of the player and of an item, and the current item through the queue calls.
        var heard: [String] = []
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        let other = AVPlayerItem(url: try fixture(.audioOnly))
        let observations = [
            player.observe(\.defaultRate, options: [.new]) { _, c in heard.append("defaultRate \(c.newValue ?? 0)") },
            player.observe(\.actionAtItemEnd, options: [.new]) { _, c in
                heard.append("actionAtItemEnd \(c.newValue?.rawValue ?? -1)")
            },
            player.observe(\.currentItem, options: [.old, .new]) { _, c in
                let name = { (i: AVPlayerItem??) in i.flatMap { $0 }.map { $0 === item ? "item" : "other" } ?? "nil" }
                heard.append("currentItem \(name(c.oldValue))->\(name(c.newValue))")
            },
            item.observe(\.preferredForwardBufferDuration, options: [.new]) { _, c in
                heard.append("buffer \(c.newValue ?? 0)")
            },
            item.observe(\.forwardPlaybackEndTime, options: [.new]) { _, c in
                heard.append("end \(c.newValue?.seconds ?? 0)")
            },
        ]
        player.defaultRate = 2
        player.actionAtItemEnd = .pause
        player.insert(item, after: nil)
        player.insert(other, after: item)
        item.preferredForwardBufferDuration = 5
        item.forwardPlaybackEndTime = CMTime(value: 2, timescale: 1)
        player.advanceToNextItem()
        player.remove(other)
        player.replaceCurrentItem(with: item)
        XCTAssertEqual(
            heard,
            [
                "defaultRate 2.0", "actionAtItemEnd 1", "currentItem nil->item", "buffer 5.0", "end 2.0",
                "currentItem item->other", "currentItem other->nil", "currentItem nil->item",
            ])

        // A change made on another thread reaches the observer on that thread.
        let threads = Locked<[Bool]>([])
        let background = player.observe(\.defaultRate, options: [.new]) { _, _ in
            threads.withLock { $0.append(Thread.isMainThread) }
        }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            player.defaultRate = 1
            done.signal()
        }
        done.wait()
        XCTAssertEqual(threads.withLock { $0 }, [false])

        // The engine's changes: on the main queue, in order, each with its own values.
        var statuses: [String] = []
        let statusObservation = item.observe(\.isPlaybackBufferEmpty, options: [.old, .new]) { _, change in
            dispatchPrecondition(condition: .onQueue(.main))
            statuses.append("\(change.oldValue.map { "\($0)" } ?? "?")->\(change.newValue.map { "\($0)" } ?? "?")")
        }
        waitUntil("the buffer fills") { !statuses.isEmpty }
        for (previous, next) in zip(statuses, statuses.dropFirst()) {
            XCTAssertEqual(previous.split(separator: ">").last, next.split(separator: "-").first, "\(statuses)")
        }
        withExtendedLifetime(
            (rateObservation, volumeObservation, muteObservation, observations, background, statusObservation)
        ) {}
    }

    /// A scrubber that waits for both statuses to be ready, then issues one exact seek: it completes `true` (nothing
    /// superseded it) and shows the target's frame.
    func test_firstExactSeekAfterReadyToPlay_completesTrue() throws {
        let player = AVPlayer()
        player.sourceClock = VirtualClock(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        let output = AVPlayerItemVideoOutput()
        item.add(output)
        let results = Locked<[Bool]>([])
        var observation: NSKeyValueObservation?
        observation = item.observe(\.status, options: [.initial, .new]) { item, _ in
            guard player.status == .readyToPlay, item.status == .readyToPlay, observation != nil else { return }
            observation = nil
            player.seek(to: CMTime(value: 33, timescale: 10), toleranceBefore: .zero, toleranceAfter: .zero) { ok in
                results.withLock { $0.append(ok) }
            }
        }
        player.replaceCurrentItem(with: item)
        waitUntil("the seek completes") { !results.withLock { $0 }.isEmpty }
        settle(player)
        XCTAssertEqual(results.withLock { $0 }, [true])
        let target = CMTime(value: 33, timescale: 10)
        XCTAssertEqual(item.currentTime(), target)
        let buffer = try XCTUnwrap(output.copyPixelBuffer(forItemTime: target, itemTimeForDisplay: nil))
        XCTAssertEqual(frameIndex(of: buffer), 99)
    }

    /// QA1820 end to end for 30 s of virtual time: the slider moves every 1/30 s (forwards, then back, jumping), every
    /// seek completes exactly once, and the last requested time's frame is what is shown at the end.
    @MainActor
    func test_chaseTimeScrubber_thirtySecondsOfVirtualTime() throws {
        let clock = VirtualClock(mode: .manual)
        let player = AVPlayer()
        player.sourceClock = clock
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        let output = AVPlayerItemVideoOutput()
        item.add(output)
        player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        let scrubber = ChaseTimeScrubber(player: player)
        var lastFrame = 0
        for step in 0..<900 {
            clock.advance(by: CMTime(value: 1, timescale: 30))
            // A slider dragged back and forth over the 10 s clip, in uneven jumps.
            lastFrame = (step * 37 + (step / 90) * 11) % 300
            scrubber.stopPlayingAndSeekSmoothlyToTime(CMTime(value: Int64(lastFrame), timescale: 30))
            RunLoop.main.run(until: Date().addingTimeInterval(0.001))
        }
        waitUntil("the chase settles") { !scrubber.isSeekInProgress }
        XCTAssertGreaterThan(scrubber.seeksIssued, 1)
        XCTAssertEqual(scrubber.completions.count, scrubber.seeksIssued, "every completion once")
        XCTAssertEqual(scrubber.completions.last, true)
        // Nothing superseded the chained seeks: each completed true.
        XCTAssertEqual(scrubber.completions.filter { !$0 }, [])
        let target = CMTime(value: Int64(lastFrame), timescale: 30)
        XCTAssertEqual(item.currentTime(), target)
        let buffer = try XCTUnwrap(output.copyPixelBuffer(forItemTime: target, itemTimeForDisplay: nil))
        XCTAssertEqual(frameIndex(of: buffer), lastFrame)
    }

    /// `audioOutputDeviceUniqueID` picks the output device by SDL name and moves the sound while playing. SDL's disk
    /// driver takes a device name as the file to write what would be heard, so the move is visible as the second
    /// file growing while the first stops.
    func test_audioOutputDeviceUniqueID_movesTheSoundWhilePlaying() throws {
        let saved = ["SDL_AUDIODRIVER", "SDL_DISKAUDIOFILE"].map { ($0, ProcessInfo.processInfo.environment[$0]) }
        defer { for (name, value) in saved { if let value { setenv(name, value, 1) } else { unsetenv(name) } } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-devices-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = folder.appendingPathComponent("first.f32").path
        let second = folder.appendingPathComponent("second.f32").path
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", folder.appendingPathComponent("default.f32").path, 1)
        func size(_ path: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
        }

        let player = AVPlayer(url: try fixture(.audioWAV))
        player.audioOutputDeviceUniqueID = first
        XCTAssertEqual(player.audioOutputDeviceUniqueID, first)
        player.play()
        // A quarter of a second of 48 kHz stereo float on the first device.
        waitUntil("sound on the first device") { size(first) >= 48_000 * 8 / 4 }
        player.audioOutputDeviceUniqueID = second
        let firstSize = size(first)
        let timeAtMove = player.currentTime()
        waitUntil("sound on the second device") { size(second) >= 48_000 * 8 / 4 }
        XCTAssertEqual(size(first), firstSize, "the first device stopped")
        XCTAssertGreaterThan(player.currentTime(), timeAtMove, "playback went on")
        XCTAssertEqual(player.currentItem?.status, .readyToPlay)
        player.pause()
        player.replaceCurrentItem(with: nil)
    }
}
