import Foundation
import PlaybackEngine

extension AVPlayerItem {
    /// Seeks to `time`, landing on a nearby sync sample (fast). The handler gets `true` when the
    /// seek completed, `false` when a later seek, `cancelPendingSeeks()` or an item change
    /// interrupted it, or when `time` is outside `seekableTimeRanges` (the playhead then stays).
    /// Traps for an invalid or indefinite time, as Apple raises.
    public func seek(to time: CMTime, completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        seek(
            to: time, toleranceBefore: .positiveInfinity, toleranceAfter: .positiveInfinity,
            completionHandler: completionHandler)
    }

    /// Seeks within `[time − toleranceBefore, time + toleranceAfter]`; zero tolerances are frame-exact.
    public func seek(
        to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime,
        completionHandler: (@Sendable (Bool) -> Void)? = nil
    ) {
        guard time.isValid, !time.isIndefinite else {
            apiViolation("Seeking to an invalid or indefinite time is not allowed.")
        }
        guard toleranceBefore.isValid, toleranceAfter.isValid, toleranceBefore >= .zero, toleranceAfter >= .zero else {
            apiViolation("Seek tolerances must be valid and non-negative.")
        }
        let mode: SeekMode
        if toleranceBefore == .zero && toleranceAfter == .zero {
            mode = .exact
        } else if toleranceBefore.isPositiveInfinity && toleranceAfter.isPositiveInfinity {
            mode = .fast
        } else {
            mode = .window(before: toleranceBefore, after: toleranceAfter)
        }
        if status == .failed {
            completionHandler?(false)
            return
        }
        if status == .readyToPlay, sessionAndEngine() == nil || !read({ $0.sessionReady }) {
            // Ready once but not playing now (removed, finished, or queued again and loading): the item moves its
            // own time, or where it starts when it plays again.
            let inside = seekableTimeRanges.map(\.timeRangeValue).contains { $0.containsTime(time) || $0.end == time }
            guard inside else {
                completionHandler?(false)
                return
            }
            seekWhileNotPlaying(to: time, mode: mode, completionHandler: completionHandler)
            return
        }
        guard let (session, engine) = sessionAndEngine(), status == .readyToPlay else {
            if sessionAndEngine() != nil {
                // In a player and not ready yet: performed once it is (Apple's behaviour; a later seek supersedes it),
                // completing then.
                seekWhileNotPlaying(to: time, mode: mode, completionHandler: completionHandler)
                return
            }
            // In no player and never ready: a seek without a handler is kept and made where the item starts when it
            // joins one (the latest wins); one with a handler completes `false` at once.
            if completionHandler == nil, status == .unknown { mutate { $0.seekWhenReady = (time, mode) } }
            completionHandler?(false)
            return
        }
        var time = time
        let seekable = seekableTimeRanges.map(\.timeRangeValue)
        let inside = seekable.contains { $0.containsTime(time) || $0.end == time }
        if !inside, session.isLive, let window = session.seekableRange {
            // A live window moves on: a seek behind it lands at its start, one past the live edge at the edge, one to
            // positive infinity at the configured offset from the edge.
            time = time.isPositiveInfinity ? liveEdgeSeekTime(in: window) : min(max(time, window.start), window.end)
        } else if !inside {
            completionHandler?(false)
            return
        }
        // A time change interrupts a preroll (the engine's resume seeks do not: they are part of priming the item).
        if let player, player.currentItem === self { engine.cancelPrerolls() }
        engine.seek(session, to: time, mode: mode, completion: completionHandler)
    }

    /// Moves the current time by `stepCount` video frames (negative: backward) while paused; a
    /// playing item pauses first. Backward steps decode from the previous keyframe. Clamped at the ends.
    public func step(byCount stepCount: Int) {
        guard canStepForward || canStepBackward, let (session, engine) = sessionAndEngine() else { return }
        engine.step(session, by: stepCount)
    }

    /// The date of the current time for media with a date mapping (HLS `EXT-X-PROGRAM-DATE-TIME`); nil for
    /// files and streams without one.
    public func currentDate() -> Date? {
        read { $0.session }?.date(atItemTime: currentTime())
    }

    /// Seeks to a date of date-mapped media (exactly, as Apple's date seeks land) and returns whether the seek was
    /// started; without a date mapping (files, streams without program date time) nothing is started, the handler
    /// completes `false` and the result is `false`.
    @discardableResult
    public func seek(to date: Date, completionHandler: (@Sendable (Bool) -> Void)? = nil) -> Bool {
        guard status == .readyToPlay, let time = read({ $0.session })?.itemTime(showing: date) else {
            completionHandler?(false)
            return false
        }
        seek(to: time, toleranceBefore: .zero, toleranceAfter: .zero, completionHandler: completionHandler)
        return true
    }

    /// Seeks near a time (fast) and returns whether the seek completed.
    public func seek(to time: CMTime) async -> Bool {
        await withCheckedContinuation { c in seek(to: time) { c.resume(returning: $0) } }
    }

    /// Seeks within the tolerances and returns whether the seek completed.
    public func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime) async -> Bool {
        await withCheckedContinuation { c in
            seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter) { c.resume(returning: $0) }
        }
    }

    /// Completes pending seeks with `false`.
    public func cancelPendingSeeks() {
        if let (session, engine) = sessionAndEngine() { engine.cancelPendingSeeks(session) }
    }
}

extension AVPlayer {
    /// The current item's date; nil without a date mapping.
    public func currentDate() -> Date? { currentItem?.currentDate() }

    /// Seeks to a date; completes `false` for media without a date mapping (and with no item).
    public func seek(to date: Date, completionHandler: @escaping @Sendable (Bool) -> Void) {
        guard let item = currentItem else {
            completionHandler(false)
            return
        }
        item.seek(to: date, completionHandler: completionHandler)
    }

    /// Seeks the current item to a date and returns whether the seek completed (false without a date mapping).
    public func seek(to date: Date) async -> Bool {
        await withCheckedContinuation { c in seek(to: date) { c.resume(returning: $0) } }
    }

    /// Seeks to a date; does nothing for media without a date mapping (files).
    public func seek(to date: Date) {
        currentItem?.seek(to: date, completionHandler: nil)
    }

    /// Seeks the current item near `time` (fast); before the item is ready, once it is.
    public func seek(to time: CMTime) {
        currentItem?.seek(to: time, completionHandler: nil)
    }

    /// Seeks the current item; with no item the handler runs at once with `false`.
    public func seek(to time: CMTime, completionHandler: @escaping @Sendable (Bool) -> Void) {
        guard let item = currentItem else {
            completionHandler(false)
            return
        }
        item.seek(to: time, completionHandler: completionHandler)
    }

    /// Seeks the current item within the tolerances; before the item is ready, once it is.
    public func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime) {
        currentItem?.seek(
            to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter, completionHandler: nil)
    }

    /// Seeks the current item within the tolerances; with no item the handler runs at once with `false`.
    public func seek(
        to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime,
        completionHandler: @escaping @Sendable (Bool) -> Void
    ) {
        guard let item = currentItem else {
            completionHandler(false)
            return
        }
        item.seek(
            to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter,
            completionHandler: completionHandler)
    }

    /// Seeks the current item near a time (fast) and returns whether the seek completed.
    public func seek(to time: CMTime) async -> Bool {
        await withCheckedContinuation { c in seek(to: time) { c.resume(returning: $0) } }
    }

    /// Seeks the current item within the tolerances and returns whether the seek completed.
    public func seek(to time: CMTime, toleranceBefore: CMTime, toleranceAfter: CMTime) async -> Bool {
        await withCheckedContinuation { c in
            seek(to: time, toleranceBefore: toleranceBefore, toleranceAfter: toleranceAfter) { c.resume(returning: $0) }
        }
    }
}
