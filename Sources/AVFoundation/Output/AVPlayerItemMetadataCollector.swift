import Foundation
import OAVFLocking
import PlaybackEngine

/// Collects the date ranges of an HTTP Live Streaming item (`EXT-X-DATERANGE`) as ``AVDateRangeMetadataGroup``s and
/// hands them to a delegate whenever they change (Apple's `AVPlayerItemMetadataCollector`):
///
///     let collector = AVPlayerItemMetadataCollector(identifiers: nil, classifyingLabels: ["com.example.ad"])
///     collector.setDelegate(self, queue: .main)
///     item.add(collector)
///     // metadataCollector(_:didCollect:indexesOfNewGroups:indexesOfModifiedGroups:) as playlists announce ranges
///
/// Each call carries every range collected so far, sorted by start date (then `ID`), with the indexes of those new
/// since the last call and of those whose attributes changed (a live playlist's reload adding an `END-DATE`, say);
/// in the first call every index is new. Ranges that slide out of a live playlist are kept. A range whose `CLASS`
/// is not among `classifyingLabels` is left out; items whose identifier is not among `identifiers` are left out of
/// their group (nil: no filter).
///
/// The collector looks at the item's playlist whenever a reload changes its date ranges (also while playback is
/// paused or waits at a live edge) and as playback moves, and calls the delegate on its queue.
///
/// Differs from Apple: with no delegate queue the delegate is called on the main queue.
///
/// Thread-safe: every member may be called from any thread.
open class AVPlayerItemMetadataCollector: AVPlayerItemMediaDataCollector, @unchecked Sendable {
    /// The identifiers kept (nil: all).
    let identifiers: Set<String>?
    /// The classes kept (nil: all).
    let classifyingLabels: Set<String>?
    private let feed = DateRangeFeed()

    /// Guards every `var` below. The app sets the delegate on any thread; the feed hands changes over from the engine
    /// thread. Public type: it keeps its lock for what it publishes.
    private let lock = ConditionLock()
    private weak var pushDelegate: (any AVPlayerItemMetadataCollectorPushDelegate)?
    private var queue: DispatchQueue?
    /// The engine the feed is registered with.
    private var engine: PlayerEngine?

    /// A collector of the date ranges whose `CLASS` is among `classifyingLabels`, with the items whose identifiers
    /// are among `identifiers` (nil: every one), as Apple's `init(identifiers:classifyingLabels:)`.
    public init(identifiers: [String]?, classifyingLabels: [String]?) {
        self.identifiers = identifiers.map(Set.init)
        self.classifyingLabels = classifyingLabels.map(Set.init)
        super.init()
        feed.owner = WeakMetadataCollector(self)
    }

    /// A collector of every date range.
    public convenience override init() {
        self.init(identifiers: nil, classifyingLabels: nil)
    }

    /// The delegate, held weakly, as Apple's `delegate`.
    open var delegate: (any AVPlayerItemMetadataCollectorPushDelegate)? { lock.withLock { pushDelegate } }

    /// The queue the delegate is called on, as Apple's `delegateQueue`.
    open var delegateQueue: DispatchQueue? { lock.withLock { queue } }

    /// Sets the delegate (held weakly) and its queue, as Apple's `setDelegate(_:queue:)`. A nil queue means the main
    /// queue here. Use a serial queue: calls are made in order.
    open func setDelegate(
        _ delegate: (any AVPlayerItemMetadataCollectorPushDelegate)?, queue delegateQueue: DispatchQueue?
    ) {
        lock.withLock {
            pushDelegate = delegate
            queue = delegateQueue
        }
    }

    // MARK: Engine side

    override func bindingChanged(session: ItemSession?, engine newEngine: PlayerEngine?) {
        let old: PlayerEngine? = lock.withLock {
            defer { engine = newEngine }
            return engine
        }
        if let old, old !== newEngine { old.removePlayheadSink(feed) }
        feed.setSession(session)
        newEngine?.addPlayheadSink(feed)
    }

    /// The groups for `ranges` (filtered) and which are new or modified.
    func deliver(_ ranges: [DateRangeDescription], new: Set<String>, modified: Set<String>) {
        var groups: [AVDateRangeMetadataGroup] = []
        var newIndexes = IndexSet()
        var modifiedIndexes = IndexSet()
        for range in ranges {
            if let labels = classifyingLabels, !labels.contains(range.classAttribute ?? "") { continue }
            let all = AVDateRangeMetadataGroup(range)
            let items = all.items.filter { item in
                identifiers.map { set in item.identifier.map { set.contains($0.rawValue) } ?? false } ?? true
            }
            if new.contains(range.id) { newIndexes.insert(groups.count) }
            if modified.contains(range.id) { modifiedIndexes.insert(groups.count) }
            groups.append(
                AVDateRangeMetadataGroup(
                    items: items, start: range.startDate, end: range.endDate, classifyingLabel: range.classAttribute,
                    uniqueID: range.id))
        }
        guard !newIndexes.isEmpty || !modifiedIndexes.isEmpty else { return }
        let (delegate, queue) = lock.withLock { (pushDelegate, self.queue) }
        guard let delegate else { return }
        let work = UncheckedCollectorDelivery(
            delegate: delegate, collector: self, groups: groups, new: newIndexes, modified: modifiedIndexes)
        (queue ?? .main).async { work.run() }
    }
}

/// What a metadata collector hands its delegate, as Apple's `AVPlayerItemMetadataCollectorPushDelegate`.
///
/// Differs from Apple: refines `AnyObject` rather than `NSObjectProtocol`, so plain Swift classes can adopt it.
public protocol AVPlayerItemMetadataCollectorPushDelegate: AnyObject {
    /// Every date range collected so far (`metadataGroups`), with the indexes of the new ones and of those whose
    /// attributes changed since the last call.
    func metadataCollector(
        _ metadataCollector: AVPlayerItemMetadataCollector, didCollect metadataGroups: [AVDateRangeMetadataGroup],
        indexesOfNewGroups: IndexSet, indexesOfModifiedGroups: IndexSet)
}

/// A delegate call handed to the delegate queue (the delegate need not be `Sendable`; it is only used there).
private struct UncheckedCollectorDelivery: @unchecked Sendable {
    let delegate: any AVPlayerItemMetadataCollectorPushDelegate
    let collector: AVPlayerItemMetadataCollector
    let groups: [AVDateRangeMetadataGroup]
    let new: IndexSet
    let modified: IndexSet

    func run() {
        delegate.metadataCollector(
            collector, didCollect: groups, indexesOfNewGroups: new, indexesOfModifiedGroups: modified)
    }
}

/// The feed's weak reference to its collector.
final class WeakMetadataCollector: @unchecked Sendable {
    weak var collector: AVPlayerItemMetadataCollector?
    init(_ collector: AVPlayerItemMetadataCollector) { self.collector = collector }
}

/// Watches an item session's date ranges (``ItemSession/dateRanges``) at every playback step and whenever the source
/// reports a change, and hands each change to its collector: every range seen so far, sorted by start date then ID, with the IDs new or modified.
///
/// The engine thread calls in with no engine lock held; comparing the playlist's ranges with the last ones is
/// cheap (an array comparison) when nothing changed.
final class DateRangeFeed: PlayheadSink, @unchecked Sendable {
    /// Set once, before the feed is registered anywhere.
    var owner: WeakMetadataCollector?

    /// Guards every `var` below; deliveries are handed over under it, so they keep their order. Engine thread (playhead
    /// steps) and the source's threads (changes). Not an engine command: it is a playhead sink called on the engine
    /// thread, which must not wait for its own mailbox.
    private let lock = ConditionLock()
    private var session: ItemSession?
    /// The ranges the playlist listed last.
    private var lastListed: [DateRangeDescription] = []
    /// Every range seen, by ID (the latest version).
    private var known: [String: DateRangeDescription] = [:]

    /// Follows `newSession` (nil: nothing), collecting anew; also told of its playlist's changes while playback
    /// waits (a paused or stalled live stream still reloads).
    func setSession(_ newSession: ItemSession?) {
        let changed: Bool = lock.withLock {
            guard session !== newSession else { return false }
            session = newSession
            lastListed = []
            known = [:]
            return true
        }
        guard changed, let newSession else { return }
        newSession.addDateRangesObserver { [weak self, weak newSession] in
            guard let self, let newSession else { return }
            self.collect(from: newSession)
        }
    }

    func playheadMoved(to itemTime: CMTime, rate: Float, session from: ItemSession) {
        collect(from: from)
    }

    /// Compares `from`'s date ranges with the last ones and hands a change to the collector (engine thread, or the
    /// source's reading thread).
    private func collect(from: ItemSession) {
        guard let collector = owner?.collector else { return }
        lock.withLock {
            guard from === session else { return }
            let listed = from.dateRanges
            guard listed != lastListed else { return }
            lastListed = listed
            var new = Set<String>()
            var modified = Set<String>()
            for range in listed {
                if let old = known[range.id] {
                    if old != range { modified.insert(range.id) }
                } else {
                    new.insert(range.id)
                }
                known[range.id] = range
            }
            guard !new.isEmpty || !modified.isEmpty else { return }
            let all = known.values.sorted { ($0.startDate, $0.id) < ($1.startDate, $1.id) }
            collector.deliver(all, new: new, modified: modified)
        }
    }

    func flush(session current: ItemSession?) {}
}
