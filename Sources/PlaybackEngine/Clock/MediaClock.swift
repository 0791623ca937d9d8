import CoreMedia
import OAVFLocking

/// The clock that schedules and timed waits read, shared by the engine and the sources it plays: the host's
/// monotonic clock (``HostClock``, `CLOCK_MONOTONIC`; never the wall clock, which can jump), or a ``VirtualClock``
/// (`AVPlayer.sourceClock`), whose time moves only when the engine (`.untimed`) or a test (`.manual`) moves it.
///
/// A timed wait on it (``wait(on:until:)``, ``sleep(until:wakers:isInterrupted:)``) ends when the clock reaches
/// its deadline — on a virtual clock the ``VirtualClock/advance(by:)`` that moves it there wakes the waiter at once —
/// or when the waiter's condition is signalled (a command, a stop, an interruption: flags that do not guard the
/// condition wake it through ``WaitWakers``). No real-time poll: the clock decides when something is due, a signal
/// when something changed. The deadlines a virtual clock is waited for are listed by its
/// ``VirtualClock/pendingDeadlines``.
///
/// A value: any thread. Equal when both read the host clock or the same virtual clock.
package struct MediaClock: Sendable, Hashable {
    /// The virtual clock read; nil: the host clock.
    package let virtualClock: VirtualClock?

    /// The host's monotonic clock.
    package static let host = MediaClock(nil)

    /// A clock reading `virtualClock`, or the host clock when nil.
    package init(_ virtualClock: VirtualClock?) {
        self.virtualClock = virtualClock
    }

    /// The clock a source's schedules (live reloads, retry back-off) run on under an engine that keeps time with
    /// `engineClock` (``EngineConfiguration/virtualClock``): a `.manual` virtual clock itself, so that a test moves
    /// reloads, back-offs and playback together; the host clock otherwise.
    ///
    /// Why not an `.untimed` clock: it moves only as media is rendered, and media is rendered only after a source
    /// delivered it. A live source waiting on that clock for its next reload would wait for the very media it is to
    /// fetch (the engine, out of media, would wait for the source: a deadlock), and a real server's live window moves
    /// in real time anyway. Under an untimed engine a source therefore schedules in real time: it reloads and retries
    /// as a real-time player would, and playback runs as fast as that delivers.
    package static func forSources(of engineClock: VirtualClock?) -> MediaClock {
        engineClock?.mode == .manual ? MediaClock(engineClock) : .host
    }

    /// Whether the clock is a virtual one.
    package var isVirtual: Bool { virtualClock != nil }

    /// Now, in nanoseconds: monotonic host time, or the virtual clock's time (0 before it is positive).
    package var nanoseconds: UInt64 {
        guard let virtualClock else { return HostClock.now() }
        return Self.nanoseconds(of: virtualClock.time)
    }

    /// Now, in seconds (see ``nanoseconds``).
    package var seconds: Double { Double(nanoseconds) / 1e9 }

    /// The reading `seconds` (clamped at 0) after now.
    package func deadline(after seconds: Double) -> UInt64 {
        nanoseconds &+ Self.nanoseconds(seconds)
    }

    /// `seconds` as nanoseconds, clamped to 0 … about 31 years (a schedule never needs more).
    package static func nanoseconds(_ seconds: Double) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return UInt64(min(seconds, 1e9) * 1e9)
    }

    /// A clock time as nanoseconds (non-numeric and non-positive times: 0).
    static func nanoseconds(of time: CMTime) -> UInt64 {
        guard time.isNumeric, time.value > 0 else { return 0 }
        return UInt64(time.convertScale(1_000_000_000, method: .default).value)
    }

    /// Waits, with `condition` locked (it is unlocked while waiting, as in any condition wait), until this clock
    /// reads `deadline` or until `condition` is signalled, whichever comes first; may also wake spuriously. Returns
    /// whether the deadline has been reached. Callers loop, re-checking what they wait for (with `condition` held, so
    /// that a signal sent after the check is not lost).
    ///
    /// On the host clock the wait is a timed condition wait up to the deadline. On a virtual clock the wait is
    /// registered with the clock (its ``VirtualClock/pendingDeadlines`` lists `deadline` meanwhile) and every
    /// ``VirtualClock/advance(by:)`` wakes it; ``VirtualClock/advance(by:)`` must therefore not be called with
    /// `condition` held. An `.untimed` clock moved by the engine (``VirtualClock/set(_:)``) wakes nobody: there the
    /// wait also ends after `untimedSlice` seconds of real time, so that it sees the move (sources never wait on
    /// one: ``forSources(of:)``).
    ///
    /// No real-time slice otherwise: what else the caller waits for (a command, an interruption, a stop) must signal
    /// `condition` (``WaitWakers`` does it for flags that do not). Any thread holding `condition`.
    @discardableResult
    package func wait(on condition: ConditionLock, until deadline: UInt64) -> Bool {
        guard let virtualClock else {
            let now = HostClock.now()
            guard now < deadline else { return true }
            condition.wait(timeout: Double(deadline - now) / 1e9)
            return HostClock.now() >= deadline
        }
        // The listener takes the lock before it signals: it cannot signal between the check below and the wait,
        // which holds the lock until it sleeps.
        let waitingFor = CMTime(value: Int64(clamping: deadline), timescale: 1_000_000_000)
        let token = virtualClock.addListener(waitingFor: waitingFor) { [condition] in
            condition.lock()
            condition.unlock()
            condition.broadcast()
        }
        defer { virtualClock.removeListener(token) }
        guard nanoseconds < deadline else { return true }
        if virtualClock.mode == .untimed {
            condition.wait(timeout: Self.untimedSlice)
        } else {
            condition.wait()
        }
        return nanoseconds >= deadline
    }

    /// Seconds of real time a wait on an `.untimed` virtual clock lasts at most before it reads the clock again
    /// (the engine moves such a clock without waking anyone); the engine's refresh interval.
    package static let untimedSlice = 0.01

    /// Sleeps until this clock reads `deadline`, unless `isInterrupted` says otherwise first. Returns true at the
    /// deadline, false once interrupted. `isInterrupted` is checked before each wait; whoever sets what it reads
    /// calls `wakers`' ``WaitWakers/wakeAll()``, which ends the wait at once (the sleep registers with it). Any
    /// thread.
    package func sleep(until deadline: UInt64, wakers: WaitWakers, isInterrupted: () -> Bool) -> Bool {
        let condition = ConditionLock()
        return wakers.whileRegistered(condition) {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if isInterrupted() { return false }
                // A reader sleeping (a retry's back-off) waits for input (``WaitWakers/isReaderBlocked``).
                if wakers.blockedForInput({ wait(on: condition, until: deadline) }) { return true }
            }
        }
    }

    package static func == (lhs: MediaClock, rhs: MediaClock) -> Bool {
        lhs.virtualClock === rhs.virtualClock
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(virtualClock.map(ObjectIdentifier.init))
    }
}
