import CoreMedia
import Foundation

/// What the engine knows of one queued item (one value per item instead of parallel sets).
///
/// Phase transitions (engine thread only):
/// - `idle → preparing` when the item is current, or next in the queue while the current one was read to its end;
/// - `preparing → ready | failed` when preparation finishes;
/// - `ready → ended(reverse:)` at the item's end (or its reverse end), `ended → ready` when playback goes on in
///   the other direction or a seek moves the playhead;
/// - `ready | ended → failed` when reading fails for good (for the current item, once what was read has played:
///   ``deferredReadFailure``).
struct ItemState {
    /// Where the item is in its life.
    enum Phase: Equatable {
        /// Queued; nothing opened yet.
        case idle
        /// Being opened and probed on a preparation thread.
        case preparing
        /// Playable: its first frames are decoded.
        case ready
        /// Played to its end; `reverse` when it ended playing backwards (at its reverse end).
        case ended(reverse: Bool)
        /// Could not be prepared, or reading failed for good.
        case failed
    }

    /// The item's pipeline.
    let session: ItemSession
    /// See ``Phase``.
    var phase: Phase = .idle
    /// Whether the picture at the playhead was shown since the item became ready or last landed a seek.
    var hasShownFirstFrame = false
    /// The engine iteration in which the item became ready (prerolls wait for a later one).
    var readyIteration: UInt64 = 0
    /// The buffering state last published for the item.
    var publishedBuffer: BufferState?
    /// The variant period of the playhead when last published (HLS).
    var publishedVariantPeriod: VariantPeriod?
    /// A live item that stalls with ``ItemSession/preservesLiveOffset``: its offset from the live edge when the stall
    /// began, and the seek generation then (a seek made during the stall takes precedence).
    var liveStall: (offset: CMTime, seekGeneration: Int)?
    /// Reading failed for good while the item was current and playable: what was read before plays out first (ffplay
    /// and mpv treat a read error as the end of the input), then the item fails with this error
    /// (``EngineCore/readFailed(_:error:asOf:)``). A command that must read again (a seek, a change of streams,
    /// playing backwards) fails the item at once.
    var deferredReadFailure: (any Error)?

    /// Whether the item is playable (ready or ended).
    var isPlayable: Bool {
        switch phase {
        case .ready, .ended: return true
        case .idle, .preparing, .failed: return false
        }
    }

    /// Whether the item ended (in either direction).
    var hasEnded: Bool {
        if case .ended = phase { return true }
        return false
    }
}

/// The play queue and each item's state; the first item is current. Engine thread only.
final class ItemQueue {
    /// The items in play order.
    private(set) var items: [ItemState] = []
    /// Item times of items that are not current (the playhead of the current one is the transport's), kept while
    /// they are queued.
    private(set) var times: [UUID: CMTime] = [:]

    /// The current item, if any.
    var current: ItemState? { items.first }
    /// The current item's session.
    var currentSession: ItemSession? { items.first?.session }

    /// Whether `session` is the current item.
    func isCurrent(_ session: ItemSession) -> Bool { items.first?.session === session }

    /// The state of `session`, if queued.
    func state(of session: ItemSession) -> ItemState? {
        items.first { $0.session === session }
    }

    /// Changes the state of `session` when it is queued.
    func update(_ session: ItemSession, _ change: (inout ItemState) -> Void) {
        guard let i = items.firstIndex(where: { $0.session === session }) else { return }
        change(&items[i])
    }

    /// Changes the current item's state.
    func updateCurrent(_ change: (inout ItemState) -> Void) {
        guard !items.isEmpty else { return }
        change(&items[0])
    }

    /// Replaces the queue with `sessions`, keeping the state of items that stay; returns the sessions that left.
    func replace(with sessions: [ItemSession]) -> [ItemSession] {
        let old = items
        items = sessions.map { s in old.first { $0.session === s } ?? ItemState(session: s) }
        let gone = old.filter { o in !sessions.contains { $0 === o.session } }.map(\.session)
        for s in gone { times[s.id] = nil }
        return gone
    }

    /// Removes the current item; returns it.
    func removeCurrent() -> ItemSession? {
        guard !items.isEmpty else { return nil }
        let old = items.removeFirst()
        times[old.session.id] = nil
        return old.session
    }

    /// Records the item time of `session` for readers while it is not current.
    func setTime(_ time: CMTime, of session: ItemSession) {
        times[session.id] = time
    }
}
