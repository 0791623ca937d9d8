import Foundation

/// **OpenAVFoundation extension, not Apple's.** A clock whose time moves only when the playback
/// engine (``Mode-swift.enum/untimed``) or the caller (``Mode-swift.enum/manual``) moves it.
///
/// Assign one to `AVPlayer.sourceClock` to run the same engine without real time:
/// - `.untimed`: playback runs as fast as decoding allows — every video frame is presented, none is
///   dropped, every audio sample is rendered (to a non-real-time sink), and a 30 s clip plays in well
///   under a second. Tests and frame export use this.
/// - `.manual`: time stands still until ``advance(by:)``; the engine then presents what became due.
///   Tests of time observers use this to step playback exactly.
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
    private let lock = NSLock()
    /// Guarded by `lock`: the clock's current time (nanosecond timescale) and change listeners.
    private var now: CMTime
    private var listeners: [UInt64: @Sendable () -> Void] = [:]
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
        callbacks = Array(listeners.values)
        lock.unlock()
        for c in callbacks { c() }
    }

    /// Sets the time (the engine, in `.untimed` mode). Time never moves backwards.
    package func set(_ t: CMTime) {
        lock.lock()
        if t > now { now = t.convertScale(1_000_000_000, method: .default) }
        lock.unlock()
    }

    /// Calls `listener` after every ``advance(by:)``; returns a token for ``removeListener(_:)``.
    package func addListener(_ listener: @escaping @Sendable () -> Void) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        nextListener += 1
        listeners[nextListener] = listener
        return nextListener
    }

    package func removeListener(_ token: UInt64) {
        lock.lock()
        listeners[token] = nil
        lock.unlock()
    }

    /// A virtual clock never drifts against another virtual clock; against the host clock it does.
    public override func mightDrift(relativeTo otherClock: CMClock) -> Bool {
        !(otherClock === self)
    }
}
