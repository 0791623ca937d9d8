import Foundation
import OAVFLocking
import PlaybackEngine

/// What one ``AVPlayerItemLegibleOutput`` has delivered: a playhead sink on the item's engine that compares what
/// the selected subtitle stream shows at each new playhead with what it delivered last, and hands every change over
/// in order.
///
/// Between two playheads it walks every cue start and end passed (forwards or backwards), so a cue shorter than an
/// engine step still comes, and each comes once. The engine thread calls in with no engine lock held; the work is a
/// short lock-protected comparison, the delegate calls go to the delegate queue.
final class LegibleOutputFeed: PlayheadSink, @unchecked Sendable {
    /// Set once by the output's initializer, before the feed is registered with an engine.
    var owner: WeakLegibleOutput?

    /// Guards every `var` below. Deliveries are handed to the output (which queues them for its delegate) under it, so
    /// that those the engine thread and the subtitle reader decide keep their order; nobody takes this lock while
    /// holding the item's or the output's. Engine thread and the subtitle reader's thread. Not an engine command: a
    /// playhead sink called on the engine thread, which must not wait for its own mailbox.
    private let lock = ConditionLock()
    /// The session followed (the item's, while it belongs to a player).
    private var session: ItemSession?
    /// The cue store followed (the selected subtitle stream's); a new one starts a new sequence.
    private var store: SubtitleCueStore?
    /// The store's styles, parsed once its header is known.
    private var script: ASSScript?
    /// The playhead (with the advance interval) last compared; nil at the start of a sequence.
    private var last: CMTime?
    /// The cues delivered last (what the client shows).
    private var shown: [SubtitleCue] = []
    /// Whether the sequence delivered anything or followed a playhead (a flush of nothing is not reported).
    private var started = false
    /// The playhead and rate last followed, to compare again when the store learns of more cues.
    private var lastPlayhead: (time: CMTime, rate: Float)?

    /// Follows `newSession` (nil: nothing) from a new sequence.
    func setSession(_ newSession: ItemSession?) {
        lock.withLock {
            guard session !== newSession else { return }
            session = newSession
            store = nil
            script = nil
            restart()
        }
    }

    /// Starts a new sequence. Under `lock`.
    private func restart() {
        last = nil
        shown = []
        started = false
    }

    // MARK: Engine thread

    func playheadMoved(to itemTime: CMTime, rate: Float, session from: ItemSession) {
        compare(at: itemTime, rate: rate, session: from, replaying: false)
    }

    /// Compares at a playhead: the engine's (`replaying` false), or the last one again when the store changed —
    /// skipped when the engine has moved on since it was read, so that an older playhead never steps back.
    private func compare(at itemTime: CMTime, rate: Float, session from: ItemSession, replaying: Bool) {
        guard let output = owner?.output else { return }
        let advance = output.advanceIntervalForDelegateInvocation * Double(abs(rate))
        let ahead = CMTime(seconds: advance, preferredTimescale: 1_000_000_000)
        let target = rate < 0 ? itemTime - ahead : itemTime + ahead
        var flushed = false
        var deliveries: [(cues: [SubtitleCue], time: CMTime)] = []
        lock.withLock {
            guard from === session else { return }
            if replaying, let now = lastPlayhead, now.time != itemTime || now.rate != rate { return }
            let current = from.subtitleCues
            if current !== store {
                flushed = started && !shown.isEmpty
                store = current
                self.script = nil
                restart()
                // Cues decoded after the playhead passed them (the reader still going while paused) still come.
                current?.addObserver { [weak self, weak from, weak current] in
                    guard let self, let from, let current else { return }
                    self.storeChanged(current, session: from)
                }
            }
            guard let store else { return }
            if self.script == nil, store.assHeader != nil || store.isComplete {
                self.script = store.assHeader.map(ASSScript.init(header:)) ?? ASSScript()
            }
            started = true
            func show(_ cues: [SubtitleCue], at t: CMTime) {
                guard cues != shown else { return }
                shown = cues
                deliveries.append((cues, t))
            }
            if let previous = last {
                if target > previous {
                    for t in store.changes(after: previous, through: target) { show(store.shown(at: t), at: t) }
                } else if target < previous {
                    for t in store.changes(before: previous, downTo: target) {
                        show(store.shown(justBefore: t), at: t)
                    }
                }
            }
            // The start of a sequence, and cues decoded after their time passed.
            show(rate < 0 ? store.shown(justBefore: target) : store.shown(at: target), at: target)
            last = target
            lastPlayhead = (itemTime, rate)
            let script = self.script ?? ASSScript()
            if flushed { output.notifySequenceWasFlushed() }
            for d in deliveries { output.deliver(d.cues, script: script, at: d.time) }
        }
    }

    /// The store followed learned of more cues (or finished): compares again at the last playhead, on the reader's
    /// thread.
    private func storeChanged(_ changed: SubtitleCueStore, session: ItemSession) {
        let playhead: (time: CMTime, rate: Float)? = lock.withLock {
            changed === store ? lastPlayhead : nil
        }
        guard let playhead else { return }
        compare(at: playhead.time, rate: playhead.rate, session: session, replaying: true)
    }

    func flush(session current: ItemSession?) {
        lock.withLock {
            defer { restart() }
            if started { owner?.output?.notifySequenceWasFlushed() }
        }
    }
}
