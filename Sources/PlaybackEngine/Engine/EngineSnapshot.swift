import CoreMedia
import Foundation
import OAVFLocking

/// What the engine publishes for readers on other threads (Media3's immutable `PlaybackInfo`): the playback clock,
/// the rate, counters. Built by the engine thread after each iteration; read through ``SnapshotStore`` without ever
/// waiting for the engine.
package struct EngineSnapshot: Sendable {
    /// The last command applied (``EngineCommand/sequence``).
    package var processed: UInt64 = 0
    /// The current item's session.
    package var currentSession: ItemSession?
    /// The current item's session identifier.
    package var current: UUID? { currentSession?.id }
    /// The current item's clock: its item time at any host time.
    package var clock = ClockAnchor.frozen(at: .zero)
    /// Bumped whenever the clock is re-anchored for a reason other than following the audio (start, stop, seek).
    package var epoch: UInt64 = 0
    /// The epoch this snapshot's clock continues without going back although the epoch changed (a stall).
    package var continuesEpoch: UInt64?
    /// Item times of queued items that are not current.
    package var itemTimes: [UUID: CMTime] = [:]
    /// The rate playback was asked to run at.
    package var rate: Float = 0
    /// The time-pitch algorithm (the rate time moves at depends on it).
    package var algorithm = TimePitchAlgorithm.timeDomain
    /// Whether a rate set now starts the clock at once, as of the call: the current item is ready, nothing is
    /// seeking, no start is scheduled or deferred, and the clock is a real or manual one.
    package var startsOnRate = false
    /// Counters the engine thread keeps (presented, dropped, stalls).
    package var statistics = PlaybackStatistics()
    /// The reverse source's counters while playing backwards (engine tests).
    package var reverse: ReverseStatistics?

    /// The item time of `session` at host time `host` (where it starts, for a session the engine has not played).
    package func time(of session: ItemSession, at host: UInt64) -> CMTime {
        current == session.id ? clock.time(at: host) : itemTimes[session.id] ?? session.initialTime
    }
}

/// Counters of a ``ReverseVideoSource``.
package struct ReverseStatistics: Sendable, Equatable {
    package var framesDecoded: Int
    package var passes: Int
    package var maximumHeld: Int
}

/// The latest ``EngineSnapshot``, with what callers asked for and the engine has not applied yet laid over it: a
/// rate set (and the playhead a pause froze) reads back at once, as if the engine had already applied it.
///
/// Thread-safe: one lock, held only to copy a snapshot in or out (never while the engine works).
final class SnapshotStore: @unchecked Sendable {
    /// A rate change posted but possibly not applied yet.
    struct Provisional {
        /// The command that carries it; it stops counting once a published snapshot has processed it.
        var sequence: UInt64
        var rate: Float
        /// The clock as the engine will set it when it applies the command (nil: the published clock stands).
        var clock: ClockAnchor?
    }

    /// Guards `published`, `provisional` and the pending starts: the engine thread publishes, caller threads read. Not
    /// an engine command: it is where commands' effects are read back; a property read never waits for the engine
    /// (DESIGN.md).
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var published = EngineSnapshot()
    /// Guarded by `lock`.
    private var provisional: Provisional?
    /// Where items that are not playing start, posted and possibly not applied yet (the command's sequence and the
    /// time); guarded by `lock`.
    private var provisionalStarts: [UUID: (sequence: UInt64, time: CMTime)] = [:]

    /// Publishes `snapshot` (engine thread); returns its clock when the store re-based it.
    ///
    /// While playback goes on (the clock follows the audio in one epoch, or a stall stops it), time read on any
    /// thread never goes back: a reader may have read the old clock at any host time up to now (`now`, read under
    /// the lock: readers take their host time before they copy a snapshot), so the new clock reads at least what the
    /// old one read now — from now on at the engine's new rate, before now as the old clock did. The engine adopts
    /// the returned clock (``Transport/adopt(_:)``).
    func publish(_ snapshot: EngineSnapshot, now: () -> UInt64) -> ClockAnchor? {
        lock.lock()
        defer { lock.unlock() }
        var snapshot = snapshot
        var rebased: ClockAnchor?
        let old = published.clock
        if snapshot.current == published.current, old.isRunning {
            let host = now()
            let seen = old.time(at: host)
            if snapshot.epoch == published.epoch, snapshot.clock.isRunning, snapshot.clock != old, old.host <= host {
                let new = snapshot.clock
                rebased = ClockAnchor(
                    item: max(seen, new.time(at: host)), host: host, rate: new.rate, rateBefore: old.rate)
                rebased?.limit = new.limit
            } else if snapshot.continuesEpoch == published.epoch, !snapshot.clock.isRunning, seen > snapshot.clock.item
            {
                rebased = .frozen(at: seen)
            }
        }
        if let rebased { snapshot.clock = rebased }
        published = snapshot
        if let p = provisional, snapshot.processed >= p.sequence { provisional = nil }
        if !provisionalStarts.isEmpty {
            provisionalStarts = provisionalStarts.filter { $0.value.sequence > snapshot.processed }
        }
        return rebased
    }

    /// Posts where a session that is not playing starts through `post` (which returns the command's sequence), and
    /// lays that time over the snapshot until the engine has applied it: the time sought reads back at once.
    func postStart(of session: UUID, at time: CMTime, _ post: () -> UInt64) {
        lock.lock()
        defer { lock.unlock() }
        provisionalStarts[session] = (post(), time)
    }

    /// Whether every rate change posted has been applied by the engine (nothing is laid over the snapshot).
    var isSettled: Bool {
        lock.lock()
        defer { lock.unlock() }
        return provisional.map { published.processed >= $0.sequence } ?? true
    }

    /// The snapshot as a reader should see it now.
    var current: EngineSnapshot {
        lock.lock()
        defer { lock.unlock() }
        var s = Self.overlaid(published, provisional)
        for (session, start) in provisionalStarts where start.sequence > s.processed {
            if s.current == session, !s.clock.isRunning {
                s.clock = .frozen(at: start.time)
            } else if s.current != session {
                s.itemTimes[session] = start.time
            }
        }
        return s
    }

    /// Posts a rate change through `post` and records it as provisional, atomically with respect to other rate
    /// changes: `post` gets where a pause (or a new rate) freezes the playhead — computed from what readers see at
    /// `host` — and returns the command's sequence number. Readers then see the clock the engine will set: frozen
    /// there for a pause, and for a new rate on an item that starts at once, running from there as of `host`.
    /// `startsAtOnce` false: the command never starts the clock itself (a scheduled start).
    func postRate(
        _ rate: Float, host: UInt64, startsAtOnce: Bool = true,
        _ post: (_ freeze: EngineCommand.FreezePoint?) -> UInt64
    ) {
        lock.lock()
        defer { lock.unlock() }
        let seen = Self.overlaid(published, provisional)
        var freeze: EngineCommand.FreezePoint?
        var clock: ClockAnchor?
        if seen.current != nil, rate != seen.rate {
            var point = seen.clock.item
            if seen.clock.isRunning {
                point = seen.clock.time(at: host)
                freeze = EngineCommand.FreezePoint(epoch: seen.epoch, time: point)
            }
            clock = .frozen(at: point)
            if rate != 0, startsAtOnce, seen.startsOnRate {
                clock = ClockAnchor(item: point, host: host, rate: Transport.effectiveRate(rate, seen.algorithm))
            }
        } else if let p = provisional, published.processed < p.sequence {
            clock = p.clock  // the last change still stands
        }
        let sequence = post(freeze)
        provisional = Provisional(sequence: sequence, rate: rate, clock: clock)
    }

    private static func overlaid(_ snapshot: EngineSnapshot, _ provisional: Provisional?) -> EngineSnapshot {
        guard let p = provisional, snapshot.processed < p.sequence else { return snapshot }
        var s = snapshot
        s.rate = p.rate
        if let clock = p.clock {
            s.clock = clock
            s.startsOnRate = false  // until the engine says so again
        }
        return s
    }
}
