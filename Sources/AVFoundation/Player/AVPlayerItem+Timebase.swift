import CoreMedia
import Foundation

extension AVPlayerItem {
    /// The item's timeline as a read-only `CMTimebase` (Apple's `timebase`): its time is ``currentTime()`` and its
    /// rate the rate playback moves at (0 while paused or waiting); nil until the item is ready in a player.
    /// Setting its time or rate fails with `kCMTimebaseError_ReadOnly`: the player owns it.
    public var timebase: CMTimebase? {
        guard status == .readyToPlay, player != nil else { return nil }
        return ownTimebase
    }

    /// What ``timebase`` reads: the current time and the rate time moves at, as the engine's snapshot says (the
    /// effective rate while the item's clock runs: `.lowQualityZeroLatency` snaps the rate the player reports).
    var timebaseReading: (time: CMTime, rate: Double) {
        let (session, player, resume) = read { ($0.session, $0.player, $0.resumeTime) }
        if let resume { return (resume, 0) }
        guard let session, let engine = player?.existingEngine else { return (.zero, 0) }
        return engine.timeline(of: session)
    }
}

/// A weak reference to an item, for closures made before the item exists.
final class WeakItemReference: @unchecked Sendable {
    weak var item: AVPlayerItem?
}
