import CoreVideo
import Foundation
import OAVFLocking

/// A status code, as Apple's `OSStatus` (`MacTypes.h`): 0 for success, negative for errors.
public typealias OSStatus = Int32

/// A timeline under application control: its time moves at `rate` relative to a source clock (Apple's
/// `CMTimebase`). Rate 0 holds the time; rate 1 follows the clock; rate −1 runs backwards.
///
/// Linux design:
/// - A class rather than a Core Foundation type; the C-style functions (`CMTimebaseGetTime(_:)`, …) and the Swift
///   members (`time`, `rate`, `setTime(_:)`, `setRate(_:)`) are both here.
/// - `AVPlayerItem.timebase` is a read-only timebase that follows the item's playback; setting its time or rate
///   fails with `kCMTimebaseError_ReadOnly`, as on Apple's systems where the player owns it.
/// - Notifications: `kCMTimebaseNotification_TimeJumped` (on `setTime`, and when a player's timeline jumps) and
///   `kCMTimebaseNotification_EffectiveRateChanged` (when the rate changes) are posted on `NotificationCenter.default`
///   with the timebase as the object, on the thread that made the change; `userInfo[kCMTimebaseNotificationKey_EventTime]`
///   is the timebase's time then (a `CMTime`).
/// - Timers: dispatch timer sources (`CMTimebaseAddTimerDispatchSource`, `CMTimebaseSetTimerDispatchSourceNextFireTime`)
///   fire once when the timebase's time reaches their fire time, rescheduled whenever its time or rate changes.
///   Run-loop timers (`CMTimebaseAddTimer` with a `CFRunLoopTimer`) and source timebases are not provided.
/// - Thread-safe: every member may be called from any thread.
open class CMTimebase: @unchecked Sendable {
    /// Guards the anchor and rate below: the app sets them on any thread, every thread reads the time. Public type: it
    /// keeps its lock for the timeline it publishes; no engine here.
    private let lock = ConditionLock()
    /// The clock time moves against; nil for a timebase that follows a player.
    public let sourceClock: CMClock?
    /// Reads a followed timeline (time and rate) for a player's timebase.
    private let follow: (@Sendable () -> (time: CMTime, rate: Double))?
    // Guarded by `lock`: the timebase's time was `anchorTime` when the source clock read `anchorSource`.
    private var anchorTime = CMTime.zero
    private var anchorSource = CMTime.zero
    private var storedRate: Float64 = 0
    /// Guarded by `lock`: the dispatch timers and when each fires (nil: not scheduled, or fired).
    private var timers: [ObjectIdentifier: TimerEntry] = [:]
    /// Guarded by `lock`: the effective rate last announced (a followed timeline's changes are announced by its owner).
    private var announcedRate: Float64 = 0
    /// Guarded by `lock`: the virtual clock listener re-evaluating timers as the clock moves.
    private var clockListener: UInt64?

    /// One dispatch timer source of the timebase.
    private struct TimerEntry {
        let source: any DispatchSourceTimer
        /// The timebase time it fires at.
        var fireTime: CMTime?
        /// Host (dispatch) time it was scheduled for, while scheduled on the host clock.
        var deadline: DispatchTime?
    }

    /// A timebase on `sourceClock`, at time 0 and rate 0 (Apple: `CMTimebase(sourceClock:)`).
    public init(sourceClock: CMClock) throws {
        self.sourceClock = sourceClock
        follow = nil
        anchorSource = sourceClock.time
    }

    /// A read-only timebase that reports what `read` returns (a player item's playback).
    package init(following read: @escaping @Sendable () -> (time: CMTime, rate: Double)) {
        sourceClock = nil
        follow = read
    }

    /// The timebase's current time.
    public var time: CMTime {
        if let follow { return follow().time }
        guard let sourceClock else { return .invalid }
        let now = sourceClock.time
        return lock.withLock {
            guard storedRate != 0, now.isNumeric, anchorSource.isNumeric else { return anchorTime }
            return anchorTime + CMTimeMultiplyByFloat64(now - anchorSource, multiplier: storedRate)
        }
    }

    /// The rate relative to the source clock.
    public var rate: Float64 {
        if let follow { return follow().rate }
        return lock.withLock { storedRate }
    }

    /// The rate relative to the ultimate source clock (the same as ``rate``: timebases here have no source timebase).
    public var effectiveRate: Float64 { rate }

    /// Sets the current time (the rate is kept). Throws for a player's timebase, which is read-only.
    public func setTime(_ time: CMTime) throws {
        guard let sourceClock, follow == nil else { throw CMTimebase.error(kCMTimebaseError_ReadOnly) }
        guard time.isNumeric else { throw CMTimebase.error(kCMTimebaseError_InvalidParameter) }
        let now = sourceClock.time
        lock.withLock {
            anchorTime = time
            anchorSource = now
        }
        post(kCMTimebaseNotification_TimeJumped)
        rescheduleTimers()
    }

    /// Sets the rate; the time goes on from where it is. Throws for a player's timebase, which is read-only.
    public func setRate(_ rate: Float64) throws {
        guard let sourceClock, follow == nil else { throw CMTimebase.error(kCMTimebaseError_ReadOnly) }
        guard rate.isFinite else { throw CMTimebase.error(kCMTimebaseError_InvalidParameter) }
        let current = time
        let now = sourceClock.time
        let changed: Bool = lock.withLock {
            anchorTime = current
            anchorSource = now
            defer { storedRate = rate }
            return storedRate != rate
        }
        if changed { post(kCMTimebaseNotification_EffectiveRateChanged) }
        rescheduleTimers()
    }

    deinit {
        if let clockListener, let clock = sourceClock as? VirtualClock { clock.removeListener(clockListener) }
    }

    // MARK: Notifications

    /// Posts `name` with the timebase's time.
    private func post(_ name: String) {
        NotificationCenter.default.post(
            name: Notification.Name(name), object: self, userInfo: [kCMTimebaseNotificationKey_EventTime: time])
    }

    /// The followed timeline changed (its owner calls this): posts `kCMTimebaseNotification_TimeJumped` when it
    /// `jumped`, `kCMTimebaseNotification_EffectiveRateChanged` when its rate differs from the last announced, and
    /// reschedules the timers.
    package func followedTimelineChanged(jumped: Bool) {
        let rate = self.rate
        let rateChanged: Bool = lock.withLock {
            defer { announcedRate = rate }
            return announcedRate != rate
        }
        if rateChanged { post(kCMTimebaseNotification_EffectiveRateChanged) }
        if jumped { post(kCMTimebaseNotification_TimeJumped) }
        if rateChanged || jumped { rescheduleTimers() }
    }

    // MARK: Timers

    /// Adds a dispatch timer source the timebase schedules (not scheduled until a next fire time is set).
    public func addTimer(_ timerSource: any DispatchSourceTimer) {
        lock.withLock {
            let id = ObjectIdentifier(timerSource as AnyObject)
            if timers[id] == nil { timers[id] = TimerEntry(source: timerSource) }
            if clockListener == nil, let clock = sourceClock as? VirtualClock {
                clockListener = clock.addListener { [weak self] in self?.rescheduleTimers() }
            }
        }
    }

    /// Removes a timer source; it is set to fire in the far future.
    public func removeTimer(_ timerSource: any DispatchSourceTimer) {
        let removed = lock.withLock { timers.removeValue(forKey: ObjectIdentifier(timerSource as AnyObject)) }
        removed?.source.schedule(deadline: .distantFuture)
    }

    /// Makes `timerSource` fire once when the timebase's time reaches `fireTime` (at any rate in that direction).
    /// Throws for a timer that was not added.
    public func setTimerNextFireTime(_ timerSource: any DispatchSourceTimer, fireTime: CMTime) throws {
        guard fireTime.isNumeric else { throw CMTimebase.error(kCMTimebaseError_InvalidParameter) }
        let known: Bool = lock.withLock {
            let id = ObjectIdentifier(timerSource as AnyObject)
            guard timers[id] != nil else { return false }
            timers[id]?.fireTime = fireTime
            timers[id]?.deadline = nil
            return true
        }
        guard known else { throw CMTimebase.error(kCMTimebaseError_TimerIntervalTooShort) }
        rescheduleTimers()
    }

    /// Makes `timerSource` fire now.
    public func setTimerToFireImmediately(_ timerSource: any DispatchSourceTimer) throws {
        let known: Bool = lock.withLock {
            let id = ObjectIdentifier(timerSource as AnyObject)
            timers[id]?.fireTime = nil
            return timers[id] != nil
        }
        guard known else { throw CMTimebase.error(kCMTimebaseError_TimerIntervalTooShort) }
        timerSource.schedule(deadline: .now())
    }

    /// Schedules every timer against the current time and rate: a fire time already reached fires now (once); on
    /// the host clock a later one is a dispatch deadline; at rate 0, or on a virtual clock (re-evaluated when the
    /// clock advances), it waits.
    private func rescheduleTimers() {
        let (now, rate) = (time, self.rate)
        let onHostClock = !(sourceClock is VirtualClock)
        var actions: [(any DispatchSourceTimer, DispatchTime)] = []
        lock.withLock {
            for (id, entry) in timers {
                guard let fireTime = entry.fireTime else { continue }
                if let deadline = entry.deadline, DispatchTime.now() >= deadline {
                    // Fired by its deadline already.
                    timers[id]?.fireTime = nil
                    timers[id]?.deadline = nil
                    continue
                }
                let reached = rate > 0 ? now >= fireTime : rate < 0 ? now <= fireTime : now == fireTime
                if reached {
                    timers[id]?.fireTime = nil
                    timers[id]?.deadline = nil
                    actions.append((entry.source, .now()))
                } else if rate != 0, onHostClock, now.isNumeric {
                    let seconds = max(0, (fireTime - now).seconds / rate)
                    let deadline = DispatchTime.now() + .nanoseconds(Int(min(seconds, 1e9) * 1e9))
                    timers[id]?.deadline = deadline
                    actions.append((entry.source, deadline))
                } else {
                    timers[id]?.deadline = nil
                    actions.append((entry.source, .distantFuture))
                }
            }
        }
        for (source, deadline) in actions { source.schedule(deadline: deadline) }
    }

    /// An `NSOSStatusErrorDomain` error with `status`.
    static func error(_ status: OSStatus) -> NSError {
        NSError(domain: NSOSStatusErrorDomain, code: Int(status))
    }
}

/// A required parameter was missing.
public let kCMTimebaseError_MissingRequiredParameter: OSStatus = -12748
/// A parameter was not valid.
public let kCMTimebaseError_InvalidParameter: OSStatus = -12749
/// Memory could not be allocated.
public let kCMTimebaseError_AllocationFailed: OSStatus = -12750
/// The timebase is read-only (a player's).
public let kCMTimebaseError_ReadOnly: OSStatus = -12757

/// The timer is not scheduled on this timebase.
public let kCMTimebaseError_TimerIntervalTooShort: OSStatus = -12753

/// Posted (object: the timebase) when its effective rate changed (Apple's `CFString` constant, as a `String`).
public let kCMTimebaseNotification_EffectiveRateChanged = "CMTimebaseEffectiveRateChanged"
/// Posted (object: the timebase) when its time jumped (set, or a player seeked).
public let kCMTimebaseNotification_TimeJumped = "CMTimebaseTimeJumped"
/// `userInfo` key of the timebase notifications: the timebase's time when the event happened (a `CMTime`).
public let kCMTimebaseNotificationKey_EventTime = "EventTime"

/// Adds a dispatch timer source to `timebase` (Apple's C function).
public func CMTimebaseAddTimerDispatchSource(_ timebase: CMTimebase, timerSource: any DispatchSourceTimer) -> OSStatus {
    timebase.addTimer(timerSource)
    return 0
}

/// Removes a dispatch timer source from `timebase`.
public func CMTimebaseRemoveTimerDispatchSource(
    _ timebase: CMTimebase, timerSource: any DispatchSourceTimer
)
    -> OSStatus
{
    timebase.removeTimer(timerSource)
    return 0
}

/// Makes the timer fire once when `timebase`'s time reaches `fireTime`; `flags` is unused (0), as on Apple's.
public func CMTimebaseSetTimerDispatchSourceNextFireTime(
    _ timebase: CMTimebase, timerSource: any DispatchSourceTimer, fireTime: CMTime, flags: UInt32
) -> OSStatus {
    status { try timebase.setTimerNextFireTime(timerSource, fireTime: fireTime) }
}

/// Makes the timer fire now.
public func CMTimebaseSetTimerDispatchSourceToFireImmediately(
    _ timebase: CMTimebase, timerSource: any DispatchSourceTimer
) -> OSStatus {
    status { try timebase.setTimerToFireImmediately(timerSource) }
}

/// Creates a timebase on `sourceClock` (Apple's C function; `allocator` is ignored).
public func CMTimebaseCreateWithSourceClock(
    allocator: CFAllocator?, sourceClock: CMClock, timebaseOut: UnsafeMutablePointer<CMTimebase?>
) -> OSStatus {
    timebaseOut.pointee = try? CMTimebase(sourceClock: sourceClock)
    return timebaseOut.pointee == nil ? kCMTimebaseError_AllocationFailed : 0
}

/// The timebase's current time.
public func CMTimebaseGetTime(_ timebase: CMTimebase) -> CMTime { timebase.time }

/// The timebase's rate.
public func CMTimebaseGetRate(_ timebase: CMTimebase) -> Float64 { timebase.rate }

/// The timebase's rate relative to its ultimate source clock.
public func CMTimebaseGetEffectiveRate(_ timebase: CMTimebase) -> Float64 { timebase.effectiveRate }

/// Sets the timebase's time; 0 or an error status.
public func CMTimebaseSetTime(_ timebase: CMTimebase, time: CMTime) -> OSStatus {
    status { try timebase.setTime(time) }
}

/// Sets the timebase's rate; 0 or an error status.
public func CMTimebaseSetRate(_ timebase: CMTimebase, rate: Float64) -> OSStatus {
    status { try timebase.setRate(rate) }
}

/// 0, or the code of the `NSOSStatusErrorDomain` error `body` throws.
private func status(_ body: () throws -> Void) -> OSStatus {
    do {
        try body()
        return 0
    } catch {
        return OSStatus(truncatingIfNeeded: (error as NSError).code)
    }
}
