import OAVFLocking
import PlaybackEngine
import Synchronization
import TestSupport
import XCTest

@testable import AVFoundation

/// Four threads calling the public API at random: no crash, no deadlock, every completion once.
final class AVPlayerStressTests: XCTestCase {
    func test_fourThreads_randomCalls() throws {
        let clock = VirtualClock(mode: .untimed)
        let player = AVQueuePlayer()
        player.sourceClock = clock
        player.audioSinkOverride = { NullAudioSink() }
        let urls = try [Fixture.videoOnly, .audioWAV, .h264AAC].map { try fixture($0) }
        let completions = Locked<[Int: Int]>([:])
        let issued = Atomic<Int>(0)
        // A 3 s soak of real time: how many calls fit is not checked, so a loaded machine only makes fewer.
        let deadline = Date().addingTimeInterval(3)
        let group = DispatchGroup()
        for worker in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                var rng = SystemRandomNumberGenerator()
                while Date() < deadline {
                    switch Int.random(in: 0..<8, using: &rng) {
                    case 0: player.play()
                    case 1: player.pause()
                    case 2: player.rate = [0.5, 1, 2][Int.random(in: 0..<3, using: &rng)]
                    case 3:
                        let item = AVPlayerItem(url: urls[Int.random(in: 0..<urls.count, using: &rng)])
                        player.replaceCurrentItem(with: item)
                    case 4:
                        let id = issued.add(1, ordering: .relaxed).newValue
                        player.seek(to: CMTime(value: Int64.random(in: 0..<3, using: &rng), timescale: 1)) { _ in
                            completions.withLock { $0[id, default: 0] += 1 }
                        }
                    case 5: _ = player.currentTime()
                    case 6: player.isMuted.toggle()
                    default:
                        let t = player.addPeriodicTimeObserver(
                            forInterval: CMTime(value: 1, timescale: 10), queue: .global()
                        ) { _ in }
                        player.removeTimeObserver(t)
                    }
                    _ = worker
                }
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + Awaitable<Void>.hangGuard), .success, "no deadlock")
        player.pause()
        player.removeAllItems()
        let total = issued.load(ordering: .relaxed)
        waitUntil("every seek completion") { completions.withLock { $0.count } == total }
        XCTAssertTrue(completions.withLock { $0.values.allSatisfy { $0 == 1 } }, "each completion exactly once")
    }
}
