import FFmpegBridge
import Foundation

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
/// Threads: its own ("oavf.hls-reload"); ``snapshot``, ``failure``, ``waitForChange(after:timeout:)`` and ``stop()``
/// from any thread.
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
    /// Guards `latest`, `stopped` and `lastFailure`; signalled when `latest` changes or the refresher ends.
    private let condition = NSCondition()
    private var latest: Snapshot
    private var stopped = false
    private var lastFailure: FFmpegError?

    init(
        url: URL, playlist: HLSMediaPlaylist, startMicroseconds: Int64, client: HLSHTTPClient, parser: HLSParser,
        control: HLSReadControl, isInterrupted: @escaping () -> Bool, onChange: @escaping (Snapshot) -> Void
    ) {
        self.url = url
        self.client = client
        self.parser = parser
        self.control = control
        self.isInterrupted = isInterrupted
        self.onChange = onChange
        latest = Snapshot(playlist: playlist, startMicroseconds: startMicroseconds, generation: 0)
    }

    /// Starts reloading (once), the first reload one target duration from now.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "oavf.hls-reload"
        thread.start()
    }

    /// Ends the thread within a polling interval (a transfer under way ends at its next wait).
    func stop() {
        condition.withLock { stopped = true }
        condition.broadcast()
    }

    /// The latest playlist.
    var snapshot: Snapshot { condition.withLock { latest } }

    /// Why the last reload failed (nil after a successful one).
    var failure: FFmpegError? { condition.withLock { lastFailure } }

    /// Waits at most `timeout` seconds for a snapshot newer than `generation`.
    func waitForChange(after generation: Int, timeout: TimeInterval) {
        condition.withLock {
            if latest.generation == generation && !stopped {
                _ = condition.wait(until: Date(timeIntervalSinceNow: timeout))
            }
        }
    }

    private var isStopped: Bool { condition.withLock { stopped } || isInterrupted() }

    /// How many target durations a live playlist may stay unchanged before it counts as stopped.
    static let unchangedLimit = 1.5

    /// How many reloads in a row must find it unchanged (the second after the half target duration the
    /// specification asks for) before it counts as stopped: one late reload on a busy machine is not enough.
    static let unchangedReloadsToGiveUp = 2

    private func run() {
        var lastReload = Date()
        var changed = true
        // Since when reloads have found the playlist unchanged (or reloading resumed), and how many did in a row.
        var unchangedSince = Date()
        var unchangedReloads = 0
        while !isStopped {
            let current = snapshot
            let target = current.playlist.targetDuration
            let due = lastReload.addingTimeInterval(changed ? target : target / 2)
            if control.reloadsSuspended {
                unchangedSince = Date()
                unchangedReloads = 0
                Thread.sleep(forTimeInterval: 0.05)
                continue
            }
            if Date() < due {
                Thread.sleep(forTimeInterval: min(0.05, max(0.005, due.timeIntervalSinceNow)))
                continue
            }
            let reloaded: HLSPlaylist
            do {
                reloaded = try HLSSource.load(
                    url, client: client, parser: parser, isInterrupted: { [self] in isStopped })
            } catch {
                if isStopped { return }
                condition.withLock { lastFailure = error }
                condition.broadcast()
                lastReload = Date()
                changed = false
                continue
            }
            lastReload = Date()
            guard case .media(let playlist) = reloaded else {
                condition.withLock {
                    lastFailure = FFmpegError(
                        code: FFmpegError.invalidData.code,
                        function: "HLS: \(url.absoluteString) became a multivariant playlist")
                }
                condition.broadcast()
                return
            }
            let old = current.playlist
            let listedEnd = old.mediaSequence + old.segments.count
            let reloadedEnd = playlist.mediaSequence + playlist.segments.count
            changed = reloadedEnd != listedEnd || playlist.hasEndList != old.hasEndList
            let unchangedFor = Date().timeIntervalSince(unchangedSince)
            unchangedReloads = changed ? 0 : unchangedReloads + 1
            if changed {
                unchangedSince = Date()
                condition.withLock { lastFailure = nil }
            } else if target > 0, unchangedFor > Self.unchangedLimit * target,
                unchangedReloads >= Self.unchangedReloadsToGiveUp
            {
                condition.withLock {
                    lastFailure = FFmpegError(
                        code: FFmpegError.invalidData.code,
                        function: "HLS: the live playlist \(url.absoluteString) has not changed for "
                            + String(format: "%.1f", unchangedFor) + " s (more than \(Self.unchangedLimit) × its "
                            + "target duration of \(target) s)")
                }
                condition.broadcast()
            } else {
                condition.withLock { lastFailure = nil }
            }
            guard changed else {
                // Date ranges added or updated with no new segment still reach the source's readers.
                if playlist.dateRanges != old.dateRanges {
                    var updated = current
                    updated.playlist.dateRanges = playlist.dateRanges
                    updated.generation += 1
                    condition.withLock { latest = updated }
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
            condition.withLock { latest = next }
            condition.broadcast()
            onChange(next)
            if playlist.hasEndList { return }
        }
    }
}
