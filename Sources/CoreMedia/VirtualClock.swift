import Foundation
import OAVFLocking

/// **OpenAVFoundation extension, not Apple's.** A clock whose time moves only when the playback
/// engine (``Mode-swift.enum/untimed``) or the caller (``Mode-swift.enum/manual``) moves it.
///
/// Assign one to `AVPlayer.sourceClock` to run the same engine without real time:
/// - `.untimed`: playback runs as fast as decoding allows — every video frame is presented, none is
///   dropped, every audio sample is rendered (to a non-real-time sink), and a 30 s clip plays in well
///   under a second. Tests and frame export use this.
/// - `.manual`: time stands still until ``advance(by:)``; the engine then presents what became due.
///   Tests of time observers use this to step playback exactly. An HTTP Live Streaming item's schedules run on it
///   too (live playlist reloads, the unchanged-playlist limit, the segment retry back-off); under `.untimed` they
///   keep real time. Network timeouts are always real time, and so are transfer timings unless a test's network
///   transport carries the item's requests on this clock. A network item on a `.manual` clock plays no further than
///   its media has arrived: moved past that, it stalls (`.waitingToPlayAtSpecifiedRate`) as in real time.
///
/// Thread-safe.
public final class VirtualClock: CMClock, @unchecked Sendable {
    /// How the clock moves.
    public enum Mode: Sendable, Equatable {
        /// The engine moves time as fast as the media can be decoded.
        case untimed
        /// Time moves only through ``VirtualClock/advance(by:)``.
        case manual
    }

    /// How the clock moves: by the engine (`.untimed`) or by ``advance(by:)`` (`.manual`).
    public let mode: Mode
    /// Guards `now`, `listeners` and the tokens: the engine thread (or the test) moves the clock, any thread reads it
    /// and waits on it. Not an engine command: the clock is what the engine's waits read, below the engine.
    private let lock = ConditionLock()
    /// Guarded by `lock`: the clock's current time (nanosecond timescale).
    private var now: CMTime
    /// Guarded by `lock`: what ``advance(by:)`` calls, by token, with the time each waits for (nil: any move).
    private var listeners: [UInt64: (call: @Sendable () -> Void, deadline: CMTime?)] = [:]
    /// Guarded by `lock`: the last token handed out.
    private var nextListener: UInt64 = 0

    /// Creates a clock at `start` (default zero).
    public init(mode: Mode, start: CMTime = .zero) {
        self.mode = mode
        self.now = start.convertScale(1_000_000_000, method: .default)
        super.init()
    }

    public override var time: CMTime {
        lock.lock()
        defer { lock.unlock() }
        return now
    }

    /// Moves time forward by `interval` (ignored when not positive) and wakes the engine.
    public func advance(by interval: CMTime) {
        guard interval.isNumeric, interval > .zero else { return }
        let callbacks: [@Sendable () -> Void]
        lock.lock()
        now = (now + interval).convertScale(1_000_000_000, method: .default)
        callbacks = listeners.values.map(\.call)
        lock.unlock()
        for c in callbacks { c() }
    }

    /// Sets the time (the engine, in `.untimed` mode). Time never moves backwards.
    package func set(_ t: CMTime) {
        lock.lock()
        if t > now { now = t.convertScale(1_000_000_000, method: .default) }
        lock.unlock()
    }

    /// Calls `listener` after every ``advance(by:)`` (on the advancing thread, no lock held; not after
    /// ``set(_:)``); returns a token for ``removeListener(_:)``. `deadline`: the time the listener's owner waits for
    /// (a timed wait on this clock), listed by ``pendingDeadlines`` while the listener stays. Any thread.
    package func addListener(waitingFor deadline: CMTime? = nil, _ listener: @escaping @Sendable () -> Void) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        nextListener += 1
        listeners[nextListener] = (listener, deadline)
        return nextListener
    }

    /// Removes the listener `token` names (a call under way may still finish). Any thread.
    package func removeListener(_ token: UInt64) {
        lock.lock()
        listeners[token] = nil
        lock.unlock()
    }

    /// The times that timed waits on this clock wait for now (the deadlines of its listeners), earliest first: what
    /// a test advances the clock to, and how it knows a waiting thread reached its wait (Media3's `FakeClock` keeps
    /// its pending wake-ups the same way). Any thread.
    package var pendingDeadlines: [CMTime] {
        lock.lock()
        defer { lock.unlock() }
        return listeners.values.compactMap(\.deadline).sorted()
    }

    /// A virtual clock never drifts against another virtual clock; against the host clock it does.
    public override func mightDrift(relativeTo otherClock: CMClock) -> Bool {
        !(otherClock === self)
    }
}
