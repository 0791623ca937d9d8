import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// A player whose queue empties gives the allocator's free memory back (``FreeMemory``, glibc's `malloc_trim`) once
/// per emptying, and not while it changes items. Counted, not timed: resident memory itself is measured by
/// `avplay memory-bench` (`make bench` row 15).
final class IdleMemoryTests: XCTestCase {
    func test_releasingTheLastItem_givesFreeMemoryBackOnce_andChangingItemsDoesNot() throws {
        let v = VirtualPlayer(captureAudio: false)
        let player = v.player
        let url = try fixture(.h264AAC)
        let before = FreeMemory.releases
        for round in 1...2 {
            let first = AVPlayerItem(url: url)
            player.replaceCurrentItem(with: first)
            player.play()
            waitUntil("round \(round): the first item is ready") { first.status == .readyToPlay }
            let second = AVPlayerItem(url: url)
            player.replaceCurrentItem(with: second)
            waitUntil("round \(round): the second item is ready") { second.status == .readyToPlay }
            XCTAssertEqual(FreeMemory.releases - before, round - 1, "round \(round): an item replaced by another")
            player.pause()
            player.replaceCurrentItem(with: nil)
            waitUntil("round \(round): the emptied queue gives memory back") {
                FreeMemory.releases - before >= round
            }
            XCTAssertEqual(FreeMemory.releases - before, round, "round \(round): once for the emptied queue")
        }
    }

    func test_queuePlayerThatPlayedItsLastItem_givesFreeMemoryBack() throws {
        let v = VirtualPlayer(queue: true, captureAudio: false)
        let queue = v.player as! AVQueuePlayer
        let item = AVPlayerItem(url: try fixture(.audioWAV))
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let before = FreeMemory.releases
        queue.insert(item, after: nil)
        queue.play()
        waitUntil("the item ends") { ends.count == 1 }
        waitUntil("the emptied queue gives memory back") { FreeMemory.releases - before >= 1 }
        XCTAssertEqual(FreeMemory.releases - before, 1)
        XCTAssertTrue(queue.items().isEmpty)
    }
}
