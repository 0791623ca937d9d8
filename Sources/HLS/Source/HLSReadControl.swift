import Foundation
import OAVFLocking

/// What other threads ask of a source's reading thread while it waits for a live playlist to grow: give the thread
/// back at once (a seek is waiting: ``requestWake()``), or reload nothing for now (``reloadsSuspended``: a paused
/// item that may not use the network).
///
/// Thread-safe (one lock).
final class HLSReadControl: @unchecked Sendable {
    /// Guards `wakeRequested` and `suspended`: the engine thread (seek, pause) sets them while the source's reading
    /// thread waits for a playlist to grow. Not an engine command: the reading thread is blocked outside the engine's
    /// loop and cannot read its mailbox.
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var wakeRequested = false
    private var suspended = false

    /// Asks the waiting read to return (``takeWake()`` says so once).
    func requestWake() { lock.withLock { wakeRequested = true } }

    /// Whether a wake was asked for since the last call (and forgets it).
    func takeWake() -> Bool {
        lock.withLock {
            defer { wakeRequested = false }
            return wakeRequested
        }
    }

    /// Forgets a wake asked for (the request it was for is being served).
    func clearWake() { lock.withLock { wakeRequested = false } }

    /// Whether live playlists must not be reloaded now.
    var reloadsSuspended: Bool {
        get { lock.withLock { suspended } }
        set { lock.withLock { suspended = newValue } }
    }
}
