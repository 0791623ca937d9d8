import CoreMedia
import Foundation

/// Item time as a function of host time: `item + (host − anchorHost) × rate` (ffplay's `Clock`: `pts_drift` + now,
/// with `speed`). Rate 0 is a frozen clock that reads `item` exactly (so a seek's target reads back unrounded).
///
/// A value: the engine thread keeps the live one in its ``Transport`` and publishes copies in snapshots that any
/// thread reads.
package struct ClockAnchor: Sendable, Equatable {
    /// The item time at ``host``.
    package var item: CMTime
    /// Host time (monotonic nanoseconds, or a virtual clock's nanoseconds) of ``item``; 0 while frozen.
    package var host: UInt64
    /// How fast item time moves per host time; 0 while frozen.
    package var rate: Double
    /// How fast item time moved before ``host`` (``rate`` unless the clock was re-based while running): a re-based
    /// clock reads, for a host time before its anchor, what the clock it replaced read there, so that a reader that
    /// took the host time before the new clock was published never reads back (``SnapshotStore``).
    package var rateBefore: Double
    /// While running forwards, item time stops here (nil: it does not): the end of what a network source has read,
    /// so that the playhead waits at the end of the media that arrived — where the stall that follows finds it —
    /// instead of running past pictures and sound that have not (a step that comes late on a loaded machine would
    /// otherwise stall later and resume there, skipping what came in between). A limit below ``item`` holds it.
    package var limit: CMTime?

    /// A clock reading `item` at `host`, moving at `rate` (and at `rateBefore`, `rate` by default, before `host`).
    package init(item: CMTime, host: UInt64, rate: Double, rateBefore: Double? = nil) {
        self.item = item
        self.host = host
        self.rate = rate
        self.rateBefore = rateBefore ?? rate
    }

    /// A clock frozen at `item`.
    package static func frozen(at item: CMTime) -> ClockAnchor {
        ClockAnchor(item: item, host: 0, rate: 0)
    }

    /// Whether the clock moves.
    package var isRunning: Bool { rate != 0 }

    /// The item time at `host`.
    package func time(at host: UInt64) -> CMTime {
        if rate == 0 { return item }
        let delta = Int64(bitPattern: host &- self.host)
        let elapsed = Double(delta) * (delta < 0 ? rateBefore : rate)
        let t = item + CMTime(value: Int64(elapsed.rounded()), timescale: 1_000_000_000)
        if rate > 0, let limit, t > limit { return max(item, limit) }
        return t
    }
}

/// The host time clock: monotonic nanoseconds (`CLOCK_MONOTONIC`, the time base of `CMClockGetHostTimeClock`).
package enum HostClock {
    /// Now, in monotonic nanoseconds.
    package static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
