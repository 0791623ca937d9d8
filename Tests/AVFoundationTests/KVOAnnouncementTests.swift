import AVFoundation
import Foundation
import OAVFLocking
import TestSupport
import XCTest

/// Key-value changes that Apple's framework posts even when the value stays the same (a setter called, an item
/// replaced), and the order changes reach observers in when the engine and the app act at nearly the same moment.
/// Player state machines in app code (loading → paused → ready, "buffering" vs. "failed") are built on both.
final class KVOAnnouncementTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("SDL_AUDIODRIVER", "dummy", 1)
    }

    override func tearDown() {
        unsetenv("SDL_AUDIODRIVER")
        super.tearDown()
    }

    /// `rate = 0` on a paused player posts `timeControlStatus` (old and new `.paused`) and `rate` (0 → 0), as Apple's
    /// setter does; `pause()` likewise.
    func test_settingRateZeroOnAPausedPlayer_announcesTimeControlStatusAndRate() throws {
        let player = AVPlayer(url: try fixture(.h264AAC))
        let item = try XCTUnwrap(player.currentItem)
        waitUntil("ready") { item.status == .readyToPlay }
        XCTAssertEqual(player.timeControlStatus, .paused)

        let changes = Locked<[(AVPlayer.TimeControlStatus?, AVPlayer.TimeControlStatus?)]>([])
        let rates = Locked<[(Float?, Float?)]>([])
        let o1 = player.observe(\.timeControlStatus, options: [.old, .new]) { _, change in
            changes.withLock { $0.append((change.oldValue, change.newValue)) }
        }
        let o2 = player.observe(\.rate, options: [.old, .new]) { _, change in
            rates.withLock { $0.append((change.oldValue, change.newValue)) }
        }
        defer { withExtendedLifetime((o1, o2)) {} }

        player.rate = 0
        XCTAssertEqual(changes.withLock { $0.count }, 1, "rate = 0 re-announced timeControlStatus")
        XCTAssertEqual(changes.withLock { $0.first?.0 }, .paused)
        XCTAssertEqual(changes.withLock { $0.first?.1 }, .paused)
        XCTAssertEqual(rates.withLock { $0.count }, 1, "the rate setter posted rate")
        XCTAssertEqual(rates.withLock { $0.first?.0 }, 0)
        XCTAssertEqual(rates.withLock { $0.first?.1 }, 0)

        player.pause()
        XCTAssertEqual(changes.withLock { $0.count }, 2, "pause() re-announced timeControlStatus")
        XCTAssertEqual(player.timeControlStatus, .paused)
    }

    /// `replaceCurrentItem(with:)` while paused posts `timeControlStatus` (old and new `.paused`): a wrapper that
    /// waits for it after loading a new track hears it.
    func test_replacingTheItemWhilePaused_announcesTimeControlStatus() throws {
        let player = AVPlayer(url: try fixture(.h264AAC))
        let first = try XCTUnwrap(player.currentItem)
        waitUntil("ready") { first.status == .readyToPlay }

        let changes = Locked<[(AVPlayer.TimeControlStatus?, AVPlayer.TimeControlStatus?)]>([])
        let observation = player.observe(\.timeControlStatus, options: [.old, .new]) { _, change in
            changes.withLock { $0.append((change.oldValue, change.newValue)) }
        }
        defer { withExtendedLifetime(observation) {} }

        player.replaceCurrentItem(with: AVPlayerItem(url: try fixture(.h264AAC)))
        XCTAssertEqual(changes.withLock { $0.count }, 1, "replaceCurrentItem re-announced timeControlStatus")
        XCTAssertEqual(changes.withLock { $0.first?.0 }, .paused)
        XCTAssertEqual(changes.withLock { $0.first?.1 }, .paused)
        XCTAssertEqual(player.timeControlStatus, .paused)
    }

    /// An item that fails at once (nothing listens on the port: the connection is refused within milliseconds) while
    /// the app calls `play()`: the changes reach observers in the order they happened, so a wrapper that maps
    /// "waiting" to buffering and a failed item to failed ends in "failed". Real time, repeated: the failure races
    /// the app's own call.
    func test_realTime_itemFailingAtOnce_afterPlay_isTheLastChangeObserversHear() throws {
        enum WrapperState: Equatable { case idle, buffering, playing, paused, failed, playCalled }
        for round in 0..<8 {
            let player = AVPlayer()
            let item = AVPlayerItem(url: URL(string: "http://127.0.0.1:9/round\(round).mp4")!)
            let log = Locked<[WrapperState]>([])
            let o1 = player.observe(\.timeControlStatus, options: [.new]) { player, _ in
                let s: WrapperState
                switch player.timeControlStatus {
                case .waitingToPlayAtSpecifiedRate: s = .buffering
                case .playing: s = .playing
                case .paused: s = .paused
                @unknown default: s = .idle
                }
                log.withLock { $0.append(s) }
            }
            let o2 = item.observe(\.status, options: [.new]) { item, _ in
                if item.status == .failed { log.withLock { $0.append(.failed) } }
            }
            player.replaceCurrentItem(with: item)
            log.withLock { $0.append(.playCalled) }
            player.play()
            waitUntil("failed (round \(round))") { item.status == .failed }
            // Whatever the engine reports after the failure arrives; the last word must stay the failure or a pause
            // that follows it, never a "waiting" that the app's play() caused before it.
            settle(player)
            let states = log.withLock { $0 }
            // The connection may be refused before the app's next line runs: then its play() comes after the
            // failure, and so may what it announces.
            guard states.firstIndex(of: .playCalled)! < states.firstIndex(of: .failed)! else { continue }
            let afterFailure = states.drop { $0 != .failed }.dropFirst()
            XCTAssertFalse(
                afterFailure.contains(.buffering), "round \(round): 'waiting' announced after the failure: \(states)")
            XCTAssertFalse(afterFailure.contains(.playing), "round \(round): \(states)")
            XCTAssertNotEqual(player.timeControlStatus, .playing)
            withExtendedLifetime((o1, o2)) {}
        }
    }
}
