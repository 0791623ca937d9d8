import Foundation

/// A player of a queue of items, played in order as gaplessly as possible: the next item is
/// prepared while the current one finishes. `actionAtItemEnd` defaults to `.advance`.
open class AVQueuePlayer: AVPlayer, @unchecked Sendable {
    /// A queue player with no items.
    public override init() {
        super.init()
        mutate { $0.actionAtItemEnd = .advance }
    }

    /// Enqueues `items` (traps on a duplicate or an item owned by another player; designated, as Apple's).
    public init(items: [AVPlayerItem]) {
        super.init()
        mutate { $0.actionAtItemEnd = .advance }
        for item in items { insert(item, after: nil) }
    }

    /// A queue of one item made from `URL`.
    public override init(url URL: URL) {
        super.init()
        mutate { $0.actionAtItemEnd = .advance }
        insert(AVPlayerItem(url: URL), after: nil)
    }

    /// A queue of `item` (or an empty queue).
    public override init(playerItem item: AVPlayerItem?) {
        super.init()
        mutate { $0.actionAtItemEnd = .advance }
        if let item { insert(item, after: nil) }
    }

    /// The queue, current item first.
    open func items() -> [AVPlayerItem] { read { $0.items } }

    /// Ends the current item and plays the next.
    open func advanceToNextItem() {
        guard let current = currentItem else { return }
        remove(current)
    }

    /// Whether `item` may be inserted after `afterItem` (false when already queued or owned elsewhere). An item that
    /// left the queue (played out, advanced past, removed) may be inserted again at once, also from the observation
    /// callback that reports its leaving.
    open func canInsert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) -> Bool {
        let items = items()
        if items.contains(where: { $0 === item }) { return false }
        if let owner = item.player, owner !== self { return false }
        if let afterItem, !items.contains(where: { $0 === afterItem }) { return false }
        return true
    }

    /// Inserts `item` after `afterItem` (nil appends). Traps when it cannot be inserted, as Apple raises.
    open func insert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) {
        guard canInsert(item, after: afterItem) else {
            if let owner = item.player, owner !== self {
                apiViolation(
                    "Cannot insert \(item): an AVPlayerItem cannot be associated with more than one instance of "
                        + "AVPlayer (it belongs to \(owner)).")
            }
            if items().contains(where: { $0 === item }) {
                apiViolation("Cannot insert \(item): it is already in this queue.")
            }
            apiViolation("Cannot insert \(item) after \(afterItem.map { "\($0)" } ?? "nil"): that item is not queued.")
        }
        insertQueued(item, after: afterItem)
    }

    /// Inserts `item` after `afterItem`, or at the end when `afterItem` is not queued (any more); does nothing when
    /// `item` is already queued. For AVPlayerLooper, whose replicas may leave the queue on another thread meanwhile.
    func insertQueued(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) {
        changeQueue { items in
            guard !items.contains(where: { $0 === item }) else { return }
            if let afterItem, let i = items.firstIndex(where: { $0 === afterItem }) {
                items.insert(item, at: i + 1)
            } else {
                items.append(item)
            }
        }
        syncEngineQueue()
        refreshWaitingState()
    }

    /// Removes `item`; removing the current item advances to the next. The item keeps its time.
    open func remove(_ item: AVPlayerItem) {
        let left = changeQueue { items in items.removeAll { $0 === item } }
        guard !left.isEmpty else { return }
        syncEngineQueue()
        refreshWaitingState()
    }

    /// Empties the queue; playback stops (`currentItem` becomes nil).
    open func removeAllItems() {
        changeQueue { items in items = [] }
        syncEngineQueue()
        refreshWaitingState()
    }
}
