import Foundation
import Synchronization

/// A source of time: a piece of hardware or software that measures the passage of time.
///
/// Clocks are read-only: they cannot be stopped or started, and their time cannot be set. The primary function is
/// `time` (`CMClockGetTime(_:)`), which tells what time it is now. The host time clock (`hostTimeClock`,
/// `CMClockGetHostTimeClock()`) is the system's monotonic clock.
///
/// Linux design:
/// - Host time is `CLOCK_MONOTONIC` (it does not advance while the machine sleeps, like `mach_absolute_time`).
///   "System units" are nanoseconds and host times are `CMTime`s with timescale 1_000_000_000.
/// - Unlike Apple's (a Core Foundation type), this class is `open` with a public initializer, so the playback engine
///   and tests can supply their own clocks — an audio-device clock, or a virtual clock that tests advance by hand
///   (those come with the engine and `TestSupport`). A subclass overrides `time` (and, if it can drift from host
///   time, `mightDrift(relativeTo:)`). The base class reads host time.
/// - Thread safety: every member may be called from any thread; subclasses must keep `time` thread-safe.
open class CMClock: @unchecked Sendable {
    /// Set by `invalidate()`; read by `time` on any thread. One flag, so an `Atomic`, not a lock.
    private let invalidated = Atomic<Bool>(false)

    /// Creates a clock that reads host time. Linux addition for subclasses: Apple's clocks come only from
    /// functions such as `CMClockGetHostTimeClock()`.
    public init() {}

    /// The host time clock: the singleton clock that reflects host time (Apple: `CMClock.hostTimeClock`).
    public static let hostTimeClock = CMClock()

    /// The clock's current time (Apple: `CMClock.time`, `CMClockGetTime(_:)`).
    ///
    /// The base class returns host time in nanoseconds (timescale 1_000_000_000), or `.invalid` once the clock has
    /// been invalidated. Subclasses override this to provide another time source.
    open var time: CMTime {
        guard !invalidated.load(ordering: .acquiring) else { return .invalid }
        return CMClockMakeHostTimeFromSystemUnits(currentHostTimeNanoseconds())
    }

    /// Makes the clock stop functioning: afterwards the base class's `time` is `.invalid`
    /// (Apple: `CMClock.invalidate()`, `CMClockInvalidate(_:)`). The host time clock ignores this.
    open func invalidate() {
        guard self !== CMClock.hostTimeClock else { return }
        invalidated.store(true, ordering: .releasing)
    }

    /// Whether this clock might drift relative to another (Apple: `CMClock.mightDrift(relativeTo:)`).
    ///
    /// The base class answers false for the same clock or two clocks that both read host time through this base
    /// implementation, true otherwise. Subclasses with their own time source should override it.
    open func mightDrift(relativeTo otherClock: CMClock) -> Bool {
        if self === otherClock { return false }
        return !(readsHostTime && otherClock.readsHostTime)
    }

    /// Converts a host time from a `CMTime` to system units, nanoseconds here
    /// (Apple: `CMClock.convertHostTimeToSystemUnits(_:)`, `CMClockConvertHostTimeToSystemUnits(_:)`).
    ///
    /// A scale conversion, not a clock conversion, rounded half away from zero. Non-numeric and negative times give
    /// 0; times beyond `UInt64.max` nanoseconds give `UInt64.max`.
    public static func convertHostTimeToSystemUnits(_ hostTime: CMTime) -> UInt64 {
        guard hostTime.kind == .numeric, hostTime.value > 0 else { return 0 }
        let (nanoseconds, _) = roundedQuotient(
            Int128(hostTime.value) * Int128(nanosecondsPerSecond), Int128(hostTime.timescale), method: .default,
            increasingPrecision: false)
        return UInt64(clamping: nanoseconds)
    }

    /// Converts a host time from system units (nanoseconds here) to a `CMTime` with timescale 1_000_000_000
    /// (Apple: `CMClock.convertSystemUnitsToHostTime(_:)`, `CMClockMakeHostTimeFromSystemUnits(_:)`).
    public static func convertSystemUnitsToHostTime(_ systemUnits: UInt64) -> CMTime {
        .fitting(
            numerator: Int128(systemUnits), denominator: Int128(nanosecondsPerSecond), timescale: nanosecondsPerSecond,
            epoch: 0, rounded: false)
    }

    /// Whether this clock's time is the base class's host time (its type does not override `time`).
    private var readsHostTime: Bool {
        type(of: self) == CMClock.self
    }
}

/// Host time's timescale: system units are nanoseconds.
private let nanosecondsPerSecond: Int32 = 1_000_000_000

/// Reads `CLOCK_MONOTONIC` in nanoseconds.
private func currentHostTimeNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

// MARK: - C-style functions

/// Returns the host time clock, the singleton clock that reflects host time (`CMClock.hostTimeClock`).
public func CMClockGetHostTimeClock() -> CMClock {
    CMClock.hostTimeClock
}

/// Returns the current time from a clock (`clock.time`).
public func CMClockGetTime(_ clock: CMClock) -> CMTime {
    clock.time
}

/// Makes a clock stop functioning (`clock.invalidate()`).
public func CMClockInvalidate(_ clock: CMClock) {
    clock.invalidate()
}

/// Returns whether two clocks might drift relative to each other (`clock.mightDrift(relativeTo: otherClock)`).
public func CMClockMightDrift(_ clock: CMClock, _ otherClock: CMClock) -> Bool {
    clock.mightDrift(relativeTo: otherClock)
}

/// Converts a host time from a `CMTime` to system units (nanoseconds here); see
/// `CMClock.convertHostTimeToSystemUnits(_:)`.
public func CMClockConvertHostTimeToSystemUnits(_ hostTime: CMTime) -> UInt64 {
    CMClock.convertHostTimeToSystemUnits(hostTime)
}

/// Converts a host time from system units (nanoseconds here) to a `CMTime`; see
/// `CMClock.convertSystemUnitsToHostTime(_:)`.
public func CMClockMakeHostTimeFromSystemUnits(_ hostTime: UInt64) -> CMTime {
    CMClock.convertSystemUnitsToHostTime(hostTime)
}
