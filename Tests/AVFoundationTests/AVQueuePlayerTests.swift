import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

final class AVQueuePlayerTests: XCTestCase {
    func test_threeItems_playInOrder_withoutAnAudioGap() throws {
        let v = VirtualPlayer(queue: true)
        let queue = v.player as! AVQueuePlayer
        XCTAssertEqual(queue.actionAtItemEnd, .advance)
        let items = try [Fixture.audioWAV, .h264AACTS, .audioFLAC].map { AVPlayerItem(url: try fixture($0)) }
        for item in items { queue.insert(item, after: nil) }
        XCTAssertTrue(queue.items() == items)
        let ends = items.map { NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: $0) }
        queue.play()
        waitUntil("all three end") { ends.allSatisfy { $0.count == 1 } }
        settle(queue)
        XCTAssertNil(queue.currentItem)
        XCTAssertTrue(queue.items().isEmpty)
        XCTAssertEqual(queue.timeControlStatus, .waitingToPlayAtSpecifiedRate)
        XCTAssertEqual(queue.reasonForWaitingToPlay, .noItemToPlay)

        // 3 s + 3 s + 3 s of continuous 440 Hz on the left: the seams add no gap longer than one
        // audio buffer (1024 frames).
        let left = ToneAnalyzer.deinterleave(v.audio.samples, channelCount: 2)[0]
        XCTAssertEqual(Double(left.count) / 48_000, 9, accuracy: 0.1)
        let gaps = ToneAnalyzer.discontinuities(in: left, sampleRate: 48_000, frequency: 440)
            .filter { $0.kind == .silence }
        for g in gaps {
            XCTAssertLessThanOrEqual(
                g.samples.count, 1024, "gap of \(g.samples.count) frames at \(g.samples.lowerBound)")
        }
        // The video of the middle item was presented in full.
        XCTAssertEqual(v.frames.indices, (0..<90).map { Optional($0) })
    }

    func test_insertAndRemoveDuringPlay() throws {
        let v = VirtualPlayer(queue: true)
        let queue = v.player as! AVQueuePlayer
        let a = AVPlayerItem(url: try fixture(.videoOnly))
        let b = AVPlayerItem(url: try fixture(.audioWAV))
        let c = AVPlayerItem(url: try fixture(.audioOnly))
        queue.insert(a, after: nil)
        queue.insert(b, after: a)
        XCTAssertFalse(queue.canInsert(a, after: nil))
        queue.insert(c, after: a)  // a, c, b
        XCTAssertTrue(queue.items() == [a, c, b])
        queue.remove(c)
        XCTAssertTrue(queue.items() == [a, b])
        XCTAssertTrue(queue.canInsert(c, after: b))
        let endB = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: b)
        let endC = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: c)
        queue.play()
        queue.advanceToNextItem()  // skip a
        XCTAssertTrue(queue.currentItem === b)
        waitUntil("b ends") { endB.count == 1 }
        XCTAssertEqual(endC.count, 0)
        queue.removeAllItems()
        XCTAssertNil(queue.currentItem)
    }

    func test_advanceOnAPlainPlayerTraps_isDocumentedByCanInsert() {
        // A plain AVPlayer refuses .advance (it traps, as Apple raises): not exercised here since a
        // trap ends the test process; AVQueuePlayer defaults to it.
        XCTAssertEqual(AVPlayer().actionAtItemEnd, .pause)
        XCTAssertEqual(AVQueuePlayer().actionAtItemEnd, .advance)
    }
}

final class AVPlayerLooperTests: XCTestCase {
    func test_loops_countAndReplicas() throws {
        let v = VirtualPlayer(queue: true)
        let queue = v.player as! AVQueuePlayer
        let template = AVPlayerItem(url: try fixture(.audioWAV))
        let looper = AVPlayerLooper(player: queue, templateItem: template)
        XCTAssertEqual(looper.status, .ready)
        XCTAssertEqual(looper.loopingPlayerItems.count, 3)
        XCTAssertFalse(looper.loopingPlayerItems.contains { $0 === template })
        queue.play()
        waitUntil("5 loops", timeout: 30) { looper.loopCount >= 5 }
        looper.disableLooping()
        XCTAssertEqual(looper.status, .cancelled)
        XCTAssertEqual(queue.actionAtItemEnd, .advance)
    }

    func test_hundredLoops_memoryStaysFlat() throws {
        // Audio is discarded: a capturing sink would (rightly) grow with everything played.
        let v = VirtualPlayer(queue: true, captureAudio: false)
        let queue = v.player as! AVQueuePlayer
        let template = AVPlayerItem(url: try fixture(.audioOnly))
        let looper = AVPlayerLooper(
            player: queue, templateItem: template,
            timeRange: CMTimeRange(start: .zero, duration: CMTime(value: 1, timescale: 2)))
        queue.play()
        waitUntil("10 loops", timeout: 60) { looper.loopCount >= 10 }
        let early = residentMegabytes()
        waitUntil("100 loops", timeout: 120) { looper.loopCount >= 100 }
        let late = residentMegabytes()
        looper.disableLooping()
        queue.pause()
        // AddressSanitizer's quarantine keeps freed memory resident: the bound means nothing there.
        if !Sanitizers.isAddressSanitizerActive {
            XCTAssertLessThan(late - early, 15, "RSS grew from \(early) MB to \(late) MB over 90 loops")
        }
    }
}

/// Resident set size in MB (Linux /proc).
func residentMegabytes() -> Double {
    guard let s = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let pages = Double(s.split(separator: " ")[1]) ?? 0
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}

/// Apple's `init(url:)`, `init(playerItem:)` and `init(items:)` are designated: subclasses call them.
private final class TrackingPlayer: AVPlayer, @unchecked Sendable {
    let label: String
    init(label: String, item: AVPlayerItem) {
        self.label = label
        super.init(playerItem: item)
    }
}

private final class LabelledQueuePlayer: AVQueuePlayer, @unchecked Sendable {
    let label: String
    init(label: String, items: [AVPlayerItem]) {
        self.label = label
        super.init(items: items)
    }
}

final class AVPlayerInitializerTests: XCTestCase {
    func test_subclassesCallTheDesignatedInitializers() throws {
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        let player = TrackingPlayer(label: "a", item: item)
        XCTAssertTrue(player.currentItem === item)
        XCTAssertEqual(player.actionAtItemEnd, .pause)
        let items = [AVPlayerItem(url: try fixture(.videoOnly)), AVPlayerItem(url: try fixture(.audioOnly))]
        let queue = LabelledQueuePlayer(label: "q", items: items)
        XCTAssertEqual(queue.items().count, 2)
        XCTAssertEqual(queue.actionAtItemEnd, .advance)
        let fromURL = AVQueuePlayer(url: try fixture(.videoOnly))
        XCTAssertEqual(fromURL.items().count, 1)
        XCTAssertEqual(fromURL.actionAtItemEnd, .advance)
        XCTAssertEqual(AVQueuePlayer(playerItem: nil).items().count, 0)
        XCTAssertEqual(player.label + queue.label, "aq")
    }
}
