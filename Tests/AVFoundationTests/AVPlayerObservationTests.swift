import Observation
import Synchronization
import TestSupport
import XCTest

@testable import AVFoundation

/// The KVO spelling, Swift Observation and notifications on the real player classes.
final class AVPlayerObservationTests: XCTestCase {
    func test_itemStatus_initialThenReady() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        var history: [AVPlayerItem.Status] = []
        let token = item.observe(\.status, options: [.initial, .new]) { _, change in
            if let s = change.newValue { history.append(s) }
        }
        XCTAssertEqual(history, [.unknown], ".initial is delivered synchronously")
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready delivered") { history.count == 2 }
        XCTAssertEqual(history, [.unknown, .readyToPlay])
        token.invalidate()
    }

    func test_timeControlStatus_oldAndNewAcrossPlayPauseAndEnd() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        var changes: [String] = []
        let token = v.player.observe(\.timeControlStatus, options: [.old, .new]) { _, c in
            changes.append("\(c.oldValue!.rawValue)→\(c.newValue!.rawValue)")
        }
        var rates: [Float] = []
        let rateToken = v.player.observe(\.rate, options: [.new]) { _, c in rates.append(c.newValue!) }
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let rateNotes = NotificationLog(AVPlayer.rateDidChangeNotification, object: v.player)
        v.player.play()
        waitUntil("end") { ends.count == 1 }
        waitUntil("paused delivered") { changes.last == "2→0" }
        // paused → waiting (evaluating) or straight to playing → … → paused at the end.
        XCTAssertEqual(changes.first?.hasPrefix("0→"), true)
        XCTAssertTrue(changes.contains("1→2") || changes.contains("0→2"), "\(changes)")
        XCTAssertEqual(rates, [1, 0])
        XCTAssertEqual(rateNotes.count, 2)
        token.invalidate()
        rateToken.invalidate()
    }

    func test_swiftObservation_tracksTimeControlStatus() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        let changed = expectation(description: "onChange")
        withObservationTracking {
            _ = v.player.timeControlStatus
        } onChange: {
            changed.fulfill()
        }
        v.player.play()
        wait(for: [changed], timeout: 5)
    }

    func test_currentItem_kvoOnQueueAdvance() throws {
        let v = VirtualPlayer(queue: true)
        let queue = v.player as! AVQueuePlayer
        let a = AVPlayerItem(url: try fixture(.audioWAV))
        let b = AVPlayerItem(url: try fixture(.videoOnly))
        queue.insert(a, after: nil)
        queue.insert(b, after: a)
        var seen: [ObjectIdentifier?] = []
        let token = queue.observe(\.currentItem, options: [.new]) { _, c in
            seen.append(c.newValue!.map { ObjectIdentifier($0) })
        }
        let end = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: b)
        queue.play()
        waitUntil("b ends") { end.count == 1 }
        waitUntil("two changes") { seen.count == 2 }
        XCTAssertEqual(seen, [ObjectIdentifier(b), nil])
        token.invalidate()
    }

    func test_bufferFlags_publishedForLocalFiles() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        var keepUp: [Bool] = []
        let token = item.observe(\.isPlaybackLikelyToKeepUp, options: [.initial, .new]) { _, c in
            keepUp.append(c.newValue!)
        }
        v.player.replaceCurrentItem(with: item)
        waitUntil("likely to keep up") { keepUp.last == true }
        XCTAssertEqual(keepUp.first, false)
        XCTAssertFalse(item.loadedTimeRanges.isEmpty)
        token.invalidate()
    }

    func test_accessAndErrorLogs() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.videoOnly))
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        XCTAssertNil(item.accessLog())
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end") { ends.count == 1 }
        let log = try XCTUnwrap(item.accessLog())
        let event = try XCTUnwrap(log.events.first)
        XCTAssertEqual(event.numberOfDroppedVideoFrames, 0)
        XCTAssertEqual(event.numberOfStalls, 0)
        XCTAssertEqual(event.playbackType, "FILE")
        XCTAssertNotNil(event.playbackStartDate)
        XCTAssertGreaterThanOrEqual(event.startupTime, 0)
        XCTAssertGreaterThan(event.indicatedBitrate, 0)
        let w3c = String(decoding: try XCTUnwrap(log.extendedLogData()), as: UTF8.self)
        XCTAssertTrue(w3c.hasPrefix("#Version: 1.0"))
        XCTAssertTrue(w3c.contains("c-frames-dropped"))
        XCTAssertNil(item.errorLog())
    }
}
