import FFmpegBridge
import Foundation
import OAVFLocking
import PlaybackEngine

/// Reloads one live media playlist on a thread of its own, on RFC 8216 §6.3.4's schedule (every target duration;
/// half of it after a reload that changed nothing), whether or not the reading thread wants segments: the window and
/// dates stay current while the engine's buffer is full, or while the item is paused and may use the network. While
/// ``HLSReadControl/reloadsSuspended`` (paused without that permission) it reloads nothing.
///
/// It keeps the playlist's timeline with it: where the first listed segment starts in container time moves by the
/// durations of the segments that slid out (``Snapshot/startMicroseconds``). The reading thread adopts a newer
/// snapshot when it runs out of segments (``HLSInput``).
///
/// A playlist that stops updating: once reloads have found it unchanged for longer than
/// ``unchangedLimit`` × its target duration (Apple's players give up after 1.5: "Playlist File unchanged for longer
/// than 1.5 * target duration"), ``failure`` says so and stays set until a reload changes it; the reader, out of
/// segments at the live edge, then fails with it. Time spent with reloads suspended does not count.
///
/// Time: the schedule and the unchanged rule read ``clock`` (the engine's, through `SourceOptions.clock`): on a
/// `.manual` virtual clock a reload is due when a test has moved the clock a target duration, and the clock's move
/// wakes the thread at once. Nothing polls in real time: the thread's waits, and a reader's
/// (``waitForChange(after:unless:)``), are registered with the source's ``HLSReadControl/wakers``, so a suspension
/// lifted, a wake request (a seek) or an interruption wakes them at once; the transfer's own timeout is the HTTP
/// client's.
///
/// Threads: its own ("oavf.hls-reload"); ``snapshot``, ``failure``, ``state``, ``waitForChange(after:unless:)`` and
/// ``stop()`` from any thread.
final class HLSPlaylistRefresher: @unchecked Sendable {
    /// A reloaded playlist with where its first segment starts.
    struct Snapshot {
        var playlist: HLSMediaPlaylist
        var startMicroseconds: Int64
        /// Counts the changed reloads.
        var generation: Int
    }

    private let url: URL
    private let client: HLSHTTPClient
    private let parser: HLSParser
    private let control: HLSReadControl
    private let isInterrupted: () -> Bool
    /// Called on the refresher's thread after a reload changed the playlist.
    private let onChange: (Snapshot) -> Void
    /// What the schedule and the unchanged rule read (immutable).
    let clock: MediaClock
    /// Guards `latest`, `stopped`, `lastFailure`, `changes` and `readerWaits`; signalled when `latest` or
    /// `lastFailure` changes or the refresher stops; the refresher's thread waits on it for its next reload, readers
    /// for a change. Not an engine command: the source's threads run beside the engine and block here.
    private let condition = ConditionLock()
    private var latest: Snapshot
    private var stopped = false
    private var lastFailure: FFmpegError?
    /// Counts what a reader waits for: changes of `latest`, `lastFailure` (set or cleared) and `stopped`.
    private var changes = 0
    /// Counts the waits readers began in ``waitForChange(after:unless:)`` (one per change, wake or interruption
    /// that ended one: a test sees that nothing polls by it).
    private var readerWaits = 0

    /// A refresher of the live playlist at `url`, listed as `playlist` now, whose first segment starts at
    /// `startMicroseconds`; its schedule runs on `clock`. Any thread; nothing runs before ``start()``.
    init(
        url: URL, playlist: HLSMediaPlaylist, startMicroseconds: Int64, client: HLSHTTPClient, parser: HLSParser,
        control: HLSReadControl, clock: MediaClock, isInterrupted: @escaping () -> Bool,
        onChange: @escaping (Snapshot) -> Void
    ) {
        self.url = url
        self.client = client
        self.parser = parser
        self.control = control
        self.clock = clock
        self.isInterrupted = isInterrupted
        self.onChange = onChange
        latest = Snapshot(playlist: playlist, startMicroseconds: startMicroseconds, generation: 0)
    }

    /// Starts reloading (once), the first reload one target duration (of ``clock``) from now: from this call, not
    /// from whenever the new thread first runs, so that a clock moved after it returns moves the schedule. Any
    /// thread.
    func start() {
        let started = clock.nanoseconds
        let thread = Thread { [self] in run(startedAt: started) }
        thread.name = "oavf.hls-reload"
        thread.start()
    }

    /// Ends the thread at once, also from the middle of a transfer (the source's waits are woken). Any thread
    /// holding none of the source's conditions.
    func stop() {
        condition.withLock {
            stopped = true
            changes += 1
        }
        condition.broadcast()
        control.wakeWaiters()
    }

    /// The latest playlist. Any thread.
    var snapshot: Snapshot { condition.withLock { latest } }

    /// Why the last reload failed (nil after a successful one). Any thread.
    var failure: FFmpegError? { condition.withLock { lastFailure } }

    /// The latest playlist, why the last reload failed, and the count of changes to give
    /// ``waitForChange(after:unless:)``, read together. Any thread.
    var state: (snapshot: Snapshot, failure: FFmpegError?, changes: Int) {
        condition.withLock { (latest, lastFailure, changes) }
    }

    /// The waits readers began so far (see `readerWaits`). Any thread.
    var readerWaitCount: Int { condition.withLock { readerWaits } }

    /// Waits until something changed since ``state`` said `changes` (a reload changed the playlist, a failure was
    /// set or cleared, the refresher stopped), or until `wakeCondition` holds — the caller's flags: an interruption, a
    /// wake request. Whoever sets those calls the source's ``HLSReadControl/wakeWaiters()`` (or a method that does),
    /// which ends the wait at once: no timeout, no poll. `wakeCondition` is called with the refresher's lock held.
    /// Any thread.
    func waitForChange(after changes: Int, unless wakeCondition: () -> Bool) {
        control.wakers.whileRegistered(condition) {
            condition.withLock {
                readerWaits += 1
                while self.changes == changes && !wakeCondition() {
                    control.wakers.blockedForInput { condition.wait() }
                }
            }
        }
    }

    /// Sets `lastFailure` (with the refresher's lock held), counting a change when it is set or cleared.
    private func setFailure(_ failure: FFmpegError?) {
        if (lastFailure == nil) != (failure == nil) { changes += 1 }
        lastFailure = failure
    }

    /// Whether ``stop()`` was called or the source is interrupted. Any thread.
    private var isStopped: Bool { condition.withLock { stopped } || isInterrupted() }

    /// How many target durations a live playlist may stay unchanged before it counts as stopped.
    static let unchangedLimit = 1.5

    /// How many reloads in a row must find it unchanged (the second after the half target duration the
    /// specification asks for) before it counts as stopped: one late reload on a busy machine is not enough.
    static let unchangedReloadsToGiveUp = 2

    /// The refresher's thread: reloads when due on ``clock`` (from `started`, its reading when ``start()`` was
    /// called) until stopped, interrupted, or the playlist ends.
    private func run(startedAt started: UInt64) {
        // Suspension lifted, interruption: the source's wakers wake the waits below.
        let token = control.wakers.register(condition)
        defer { control.wakers.unregister(token) }
        var lastReload = started
        var changed = true
        // Since when reloads have found the playlist unchanged (or reloading resumed), and how many did in a row.
        var unchangedSince = started
        var unchangedReloads = 0
        while !isStopped {
            let current = snapshot
            let target = current.playlist.targetDuration
            if control.reloadsSuspended {
                // Until the suspension is lifted (its setter wakes this wait), the source interrupted or stopped.
                condition.withLock {
                    while !stopped && control.reloadsSuspended && !isInterrupted() { condition.wait() }
                }
                // Time spent suspended does not count as unchanged.
                unchangedSince = clock.nanoseconds
                unchangedReloads = 0
                continue
            }
            let due = lastReload &+ MediaClock.nanoseconds(changed ? target : target / 2)
            let isDue = condition.withLock {
                !stopped && !isInterrupted() && !control.reloadsSuspended && clock.wait(on: condition, until: due)
            }
            guard isDue else { continue }
            let reloaded: HLSPlaylist
            do {
                reloaded = try HLSSource.load(
                    url, client: client, parser: parser, isInterrupted: { [self] in isStopped })
            } catch {
                if isStopped { return }
                condition.withLock { setFailure(error) }
                condition.broadcast()
                lastReload = clock.nanoseconds
                changed = false
                continue
            }
            lastReload = clock.nanoseconds
            guard case .media(let playlist) = reloaded else {
                condition.withLock {
                    setFailure(
                        FFmpegError(
                            code: FFmpegError.invalidData.code,
                            function: "HLS: \(url.absoluteString) became a multivariant playlist"))
                }
                condition.broadcast()
                return
            }
            let old = current.playlist
            let listedEnd = old.mediaSequence + old.segments.count
            let reloadedEnd = playlist.mediaSequence + playlist.segments.count
            changed = reloadedEnd != listedEnd || playlist.hasEndList != old.hasEndList
            let unchangedFor = Double(lastReload &- min(unchangedSince, lastReload)) / 1e9
            unchangedReloads = changed ? 0 : unchangedReloads + 1
            if changed {
                unchangedSince = lastReload
                condition.withLock { setFailure(nil) }
            } else if target > 0, unchangedFor > Self.unchangedLimit * target,
                unchangedReloads >= Self.unchangedReloadsToGiveUp
            {
                condition.withLock {
                    setFailure(
                        FFmpegError(
                            code: FFmpegError.invalidData.code,
                            function: "HLS: the live playlist \(url.absoluteString) has not changed for "
                                + String(format: "%.1f", unchangedFor) + " s (more than \(Self.unchangedLimit) × "
                                + "its target duration of \(target) s)"))
                }
                condition.broadcast()
            } else {
                condition.withLock { setFailure(nil) }
            }
            guard changed else {
                // Date ranges added or updated with no new segment still reach the source's readers.
                if playlist.dateRanges != old.dateRanges {
                    var updated = current
                    updated.playlist.dateRanges = playlist.dateRanges
                    updated.generation += 1
                    condition.withLock {
                        latest = updated
                        changes += 1
                    }
                    condition.broadcast()
                    onChange(updated)
                }
                continue
            }
            let removed = min(old.segments.count, max(0, playlist.mediaSequence - old.mediaSequence))
            let next = Snapshot(
                playlist: playlist,
                startMicroseconds: current.startMicroseconds
                    + Int64((old.startOffset(ofSegment: removed) * 1e6).rounded()),
                generation: current.generation + 1)
            condition.withLock {
                latest = next
                changes += 1
            }
            condition.broadcast()
            onChange(next)
            if playlist.hasEndList { return }
        }
    }
}
