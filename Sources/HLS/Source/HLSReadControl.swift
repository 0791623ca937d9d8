import Foundation
import OAVFLocking
import PlaybackEngine

/// What other threads ask of one HLS source's waits (its reading thread waiting for a live playlist to grow, the
/// reload threads, the transfers' body reads, the retry back-off; the subtitle sources made from it share it): give
/// the reading thread back at once (a seek is waiting: ``requestWake()``), reload nothing for now
/// (``reloadsSuspended``: a paused item that may not use the network), look at your interruption
/// (``wakeWaiters()``: a source interrupted, a refresher stopped).
///
/// Every such request wakes the waits at once: each registers the condition it sleeps on with ``wakers`` and checks
/// these flags with it held, and a request sets its flag, then calls ``WaitWakers/wakeAll()``. No wait polls.
///
/// Thread-safe. The flags are one `Locked` value, not an engine command: the engine thread and the demux thread set
/// them (a seek's wake, a pause's suspension) and the source's own threads read them while they wait, which is what
/// lets a command reach a thread blocked inside a read.
final class HLSReadControl: Sendable {
    private struct Flags {
        var wakeRequested = false
        var suspended = false
    }
    /// The requests; read by the waits with their own condition held (this lock is taken inside theirs, never the
    /// other way round).
    private let flags = Locked(Flags())
    /// The conditions the source's waits sleep on now (its HTTP client's: the transfers' body reads register there).
    let wakers: WaitWakers

    /// A control whose requests wake the waits registered with `wakers`.
    init(wakers: WaitWakers = WaitWakers()) {
        self.wakers = wakers
    }

    /// Asks the waiting read to return (``takeWake()`` says so once); wakes it at once.
    func requestWake() {
        flags.withLock { $0.wakeRequested = true }
        wakers.wakeAll()
    }

    /// Whether a wake was asked for since the last call (and forgets it).
    func takeWake() -> Bool {
        flags.withLock { flags in
            defer { flags.wakeRequested = false }
            return flags.wakeRequested
        }
    }

    /// Whether a wake was asked for and not taken yet (a wait's check; it does not forget it).
    var isWakeRequested: Bool { flags.withLock { $0.wakeRequested } }

    /// Forgets a wake asked for (the request it was for is being served).
    func clearWake() { flags.withLock { $0.wakeRequested = false } }

    /// Whether live playlists must not be reloaded now; a change wakes the reload threads at once.
    var reloadsSuspended: Bool {
        get { flags.withLock { $0.suspended } }
        set {
            let changed = flags.withLock { flags in
                defer { flags.suspended = newValue }
                return flags.suspended != newValue
            }
            if changed { wakers.wakeAll() }
        }
    }

    /// Wakes every wait of the source so that it looks at its interruption (set it first). Any thread holding none
    /// of the source's conditions.
    func wakeWaiters() { wakers.wakeAll() }
}
