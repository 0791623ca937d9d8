import AVFoundation
import OAVFLocking
import TestSupport
import XCTest

/// Spellings player code takes from Darwin and Apple's Foundation, compiled with only `import AVFoundation` (the
/// `TestSupport` import is for the virtual-clock player and fixtures, not for these names).
final class DarwinSpellingsTests: XCTestCase {
    /// `NSEC_PER_SEC` and its siblings come with `import AVFoundation`, as `UInt64` (Darwin's type), and the
    /// nanosecond-timescale `CMTime` every player builds from them seeks to the right picture.
    func test_NSEC_PER_SEC_timescale_seeksExactly() throws {
        let perSecond: UInt64 = NSEC_PER_SEC
        XCTAssertEqual(perSecond, 1_000_000_000)
        XCTAssertEqual(NSEC_PER_MSEC * 1_000, NSEC_PER_SEC)
        XCTAssertEqual(NSEC_PER_USEC * USEC_PER_SEC, NSEC_PER_SEC)
        XCTAssertEqual(DispatchTime(uptimeNanoseconds: 2 * NSEC_PER_MSEC).uptimeNanoseconds, 2_000_000)

        let target = CMTime(seconds: 0.5, preferredTimescale: CMTimeScale(NSEC_PER_SEC))
        XCTAssertEqual(target.timescale, 1_000_000_000)
        XCTAssertEqual(target.value, 500_000_000)

        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        let done = Locked<Bool?>(nil)
        let twoSeconds = CMTime(seconds: 2, preferredTimescale: CMTimeScale(NSEC_PER_SEC))
        v.player.seek(to: twoSeconds, toleranceBefore: .zero, toleranceAfter: .zero) { ok in
            done.withLock { $0 = ok }
        }
        waitUntil("seek") { done.withLock { $0 } != nil }
        XCTAssertEqual(done.withLock { $0 }, true)
        XCTAssertEqual(item.currentTime().seconds, 2, accuracy: 1e-9)
        // The picture shown is the one at 2 s: index 60 at 30 frames per second, read from its pixels.
        waitUntil("the picture at 2 s") { v.frames.indices.last == 60 }
    }

    /// Code that kept its `observeValue(forKeyPath:of:change:context:)` body and feeds it from block KVO names
    /// `NSKeyValueChangeKey`; the dictionary it builds carries the player's real rate change.
    func test_NSKeyValueChangeKey_observeValueBodyFedFromBlockKVO() throws {
        XCTAssertEqual(NSKeyValueChangeKey.newKey.rawValue, "new")
        XCTAssertEqual(NSKeyValueChangeKey.oldKey.rawValue, "old")
        XCTAssertEqual(NSKeyValueChangeKey.kindKey.rawValue, "kind")
        XCTAssertEqual(NSKeyValueChangeKey.indexesKey.rawValue, "indexes")
        XCTAssertEqual(NSKeyValueChangeKey.notificationIsPriorKey.rawValue, "notificationIsPrior")
        XCTAssertEqual(NSKeyValueChangeKey("new"), .newKey)

        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        let watcher = LegacyRateWatcher()
        watcher.start(observing: v.player)
        v.player.rate = 1
        v.player.rate = 0
        XCTAssertEqual(watcher.changes.map(\.old), [0, 1])
        XCTAssertEqual(watcher.changes.map(\.new), [1, 0])
        XCTAssertEqual(watcher.changes.map(\.kind), [.setting, .setting])
        XCTAssertEqual(watcher.priorCount, 2, "the prior notifications came with notificationIsPriorKey")
    }
}

/// An app class as it was written for Apple (`addObserver(self, forKeyPath: "rate", ...)` plus
/// `override func observeValue(...)`), ported with the porting guide's smallest rewrite: the body stays, `override`
/// goes, and a block observation feeds it.
private final class LegacyRateWatcher {
    private var token: NSKeyValueObservation?
    private(set) var changes: [(kind: NSKeyValueChange?, old: Float?, new: Float?)] = []
    private(set) var priorCount = 0

    func start(observing player: AVPlayer) {
        token = player.observe(\.rate, options: [.old, .new, .prior]) { [weak self] player, change in
            var dictionary: [NSKeyValueChangeKey: Any] = [.kindKey: NSKeyValueChange.setting.rawValue]
            if let old = change.oldValue { dictionary[.oldKey] = old }
            if let new = change.newValue { dictionary[.newKey] = new }
            if change.isPrior { dictionary[.notificationIsPriorKey] = true }
            self?.observeValue(forKeyPath: "rate", of: player, change: dictionary, context: nil)
        }
    }

    // The body as it was on Apple's systems.
    func observeValue(
        forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
        context: UnsafeMutableRawPointer?
    ) {
        guard keyPath == "rate", object is AVPlayer, let change else { return }
        if change[.notificationIsPriorKey] as? Bool == true {
            priorCount += 1
            return
        }
        let kind = (change[.kindKey] as? UInt).flatMap(NSKeyValueChange.init(rawValue:))
        changes.append((kind, change[.oldKey] as? Float, change[.newKey] as? Float))
    }
}
