import CoreMedia
import Foundation

/// Item time as a function of host time: `anchorItem + (host − anchorHost) × rate` (ffplay's
/// `Clock`: `pts_drift` + now, with `speed`). Rate 0 freezes it at the anchor.
///
/// Thread-safe: set from the engine thread and the audio device thread, read from any thread.
package final class PlaybackClock: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var anchorItem: CMTime = .zero
    private var anchorHost: UInt64 = 0
    private var rate: Double = 0

    package init() {}

    /// Monotonic nanoseconds (the host time clock).
    package static func hostNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Re-bases the clock: item time `itemTime` at host time `host`, moving at `rate`.
    package func set(itemTime: CMTime, host: UInt64, rate: Double) {
        lock.lock()
        anchorItem = itemTime
        anchorHost = host
        self.rate = rate
        lock.unlock()
    }

    /// Freezes the clock at `itemTime` (paused, or stepped by a virtual clock).
    package func freeze(at itemTime: CMTime) {
        set(itemTime: itemTime, host: 0, rate: 0)
    }

    /// Freezes the clock at its current reading.
    package func freeze(host: UInt64) {
        let now = time(host: host)
        freeze(at: now)
    }

    /// The anchor: item time `item` at host time `host`, moving at `rate` (host 0 and rate 0 while frozen).
    package var anchor: (item: CMTime, host: UInt64, rate: Double) {
        lock.lock()
        defer { lock.unlock() }
        return (anchorItem, anchorHost, rate)
    }

    package var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return rate != 0
    }

    /// The item time at `host`. Exactly the anchor while frozen (so a seek's target reads back unrounded).
    package func time(host: UInt64) -> CMTime {
        lock.lock()
        let (item, h, r) = (anchorItem, anchorHost, rate)
        lock.unlock()
        if r == 0 { return item }
        let elapsed = Double(Int64(bitPattern: host &- h)) * r
        return item + CMTime(value: Int64(elapsed.rounded()), timescale: 1_000_000_000)
    }
}
