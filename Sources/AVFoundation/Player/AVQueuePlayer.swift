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

    /// Whether `item` may be inserted after `afterItem` (false when already queued or owned elsewhere).
    open func canInsert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) -> Bool {
        let items = items()
        if items.contains(where: { $0 === item }) { return false }
        if let owner = item.player, owner !== self { return false }
        if let afterItem, !items.contains(where: { $0 === afterItem }) { return false }
        return true
    }

    /// Inserts `item` after `afterItem` (nil appends). Traps when it cannot be inserted.
    open func insert(_ item: AVPlayerItem, after afterItem: AVPlayerItem?) {
        guard canInsert(item, after: afterItem) else {
            apiViolation("Cannot insert \(item): it is already in a queue or belongs to another player.")
        }
        set(\.currentItem) { s in
            if let afterItem, let i = s.items.firstIndex(where: { $0 === afterItem }) {
                s.items.insert(item, at: i + 1)
            } else {
                s.items.append(item)
            }
        }
        syncEngineQueue()
        refreshWaitingState()
    }

    /// Removes `item`; removing the current item advances to the next.
    open func remove(_ item: AVPlayerItem) {
        let removed: Bool = set(\.currentItem) { s in
            guard let i = s.items.firstIndex(where: { $0 === item }) else { return false }
            s.items.remove(at: i)
            return true
        }
        guard removed else { return }
        item.detach()
        syncEngineQueue()
        refreshWaitingState()
    }

    /// Empties the queue; playback stops (`currentItem` becomes nil).
    open func removeAllItems() {
        let removed: [AVPlayerItem] = set(\.currentItem) { s in
            defer { s.items = [] }
            return s.items
        }
        for item in removed { item.detach() }
        syncEngineQueue()
        refreshWaitingState()
    }
}
