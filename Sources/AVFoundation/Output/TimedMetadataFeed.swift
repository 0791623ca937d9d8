import Foundation
import OAVFLocking
import PlaybackEngine

/// What a ``TimedMetadataFeed`` hands its owner (a metadata output, or the item for `timedMetadata`).
protocol TimedMetadataFeedOwner: AnyObject, Sendable {
    /// How far ahead of the playhead samples are due, in seconds of playback (0: at their time).
    var feedAdvanceInterval: TimeInterval { get }
    /// `sample` came into effect as playback passed its time (called under the feed's lock, in order: queue the
    /// work, do not call back into the feed).
    func feedDelivered(_ sample: TimedMetadataSample, session: ItemSession)
    /// The sequence was interrupted (a seek, another item): what was delivered is no longer in effect.
    func feedFlushed()
    /// A sequence started at a time where no sample is in effect (under the feed's lock).
    func feedStartedWithNothingInEffect(session: ItemSession)
}

extension TimedMetadataFeedOwner {
    func feedStartedWithNothingInEffect(session: ItemSession) {}
}

/// Follows the playhead of one item session through its timed metadata (``ItemSession/timedMetadata``) and hands
/// every sample over once, in order, as playback passes its time: a playhead sink on the item's engine (the
/// legible output's ``LegibleOutputFeed`` does the same for subtitle cues).
///
/// Forwards, each sample whose time lies between two playheads comes, however short the step; at the start of a
/// sequence (the first playhead, or after a seek) the sample in effect there comes first. Backwards, passing a
/// sample's time brings the one before it back into effect. Samples found after the playhead passed their time (a
/// reader still behind) still come, in order.
///
/// The engine thread calls in with no engine lock held; the work is a short lock-protected comparison.
final class TimedMetadataFeed: PlayheadSink, @unchecked Sendable {
    /// Set once, before the feed is registered anywhere (an adapter holding its real owner weakly).
    var owner: (any TimedMetadataFeedOwner)?

    /// Guards every `var` below; deliveries are handed to the owner under it, so they keep their order. Engine thread
    /// (playhead steps) and the metadata reader. Not an engine command: a playhead sink called on the engine thread,
    /// which must not wait for its own mailbox.
    private let lock = ConditionLock()
    /// The session followed.
    private var session: ItemSession?
    /// Whether the followed session's store has an observer of this feed.
    private var observing = false
    /// The playhead target (with the advance interval) where the sequence started; nil before it starts.
    private var sequenceStart: CMTime?
    /// The target last compared.
    private var last: CMTime?
    /// The time of the sample delivered last in this sequence (nil: none yet).
    private var cursor: CMTime?
    /// The playhead and rate last followed, to compare again when the store learns of more samples.
    private var lastPlayhead: (time: CMTime, rate: Float)?

    /// Follows `newSession` (nil: nothing) from a new sequence.
    func setSession(_ newSession: ItemSession?) {
        lock.withLock {
            guard session !== newSession else { return }
            session = newSession
            observing = false
            lastPlayhead = nil
            restart()
        }
    }

    /// Starts a new sequence. Under `lock`.
    private func restart() {
        sequenceStart = nil
        last = nil
        cursor = nil
    }

    // MARK: Engine thread

    func playheadMoved(to itemTime: CMTime, rate: Float, session from: ItemSession) {
        compare(at: itemTime, rate: rate, session: from, replaying: false)
    }

    /// Compares at a playhead: the engine's (`replaying` false), or the last one again when the store changed —
    /// skipped when the engine has moved on since it was read, so that an older playhead never steps back.
    private func compare(at itemTime: CMTime, rate: Float, session from: ItemSession, replaying: Bool) {
        guard let owner else { return }
        let advance = owner.feedAdvanceInterval * Double(abs(rate))
        let ahead = CMTime(seconds: advance, preferredTimescale: 1_000_000_000)
        let target = rate < 0 ? itemTime - ahead : itemTime + ahead
        lock.withLock {
            guard from === session else { return }
            if replaying, let now = lastPlayhead, now.time != itemTime || now.rate != rate { return }
            let store = from.timedMetadata
            if !observing {
                observing = true
                store.addObserver { [weak self, weak from] in
                    guard let self, let from else { return }
                    self.storeChanged(session: from)
                }
            }
            lastPlayhead = (itemTime, rate)
            var delivered: [TimedMetadataSample] = []
            if let previous = last, let start = sequenceStart, rate >= 0 || target >= previous {
                // Forwards (or standing): every sample after the last delivered, up to the target; of those at or
                // before the sequence start only the one in effect there.
                var passed = store.samples(after: cursor ?? .negativeInfinity, through: max(target, previous))
                if cursor == nil, let lastBefore = passed.lastIndex(where: { $0.time <= start }) {
                    passed.removeFirst(lastBefore)
                }
                delivered = passed
                // The frontier delivered stays where it was when the target steps back while playing forwards
                // (a smaller advance after a rate change, a playhead reported a little earlier): the samples up
                // to it are delivered already, and a cursor past the new target asked for an inverted range.
                last = max(target, previous)
            } else if let previous = last {
                // Backwards: each sample passed brings the one before it back.
                for s in store.samples(before: previous, downTo: target) {
                    if let before = store.sample(justBefore: s.time) { delivered.append(before) }
                }
                last = target
            } else {
                sequenceStart = target
                last = target
                if let inEffect = store.sample(at: target) {
                    delivered = [inEffect]
                } else {
                    owner.feedStartedWithNothingInEffect(session: from)
                }
            }
            for s in delivered {
                cursor = s.time
                owner.feedDelivered(s, session: from)
            }
        }
    }

    /// The store learned of more samples: compares again at the last playhead (on the reader's thread).
    private func storeChanged(session: ItemSession) {
        let playhead = lock.withLock { session === self.session ? lastPlayhead : nil }
        guard let playhead else { return }
        compare(at: playhead.time, rate: playhead.rate, session: session, replaying: true)
    }

    func flush(session current: ItemSession?) {
        lock.withLock {
            let started = sequenceStart != nil
            restart()
            if started { owner?.feedFlushed() }
        }
    }
}
