import Foundation
import OAVFLocking

/// Loops an item on an `AVQueuePlayer` by keeping replicas of it in the queue (Apple's design):
/// when a replica finishes and leaves the queue, it is re-inserted at the end, so the next loop is
/// already prepared when the current one ends.
///
/// Replicas are `copy()`s of the template; outputs and collectors on the template are not copied.
/// A time range loops that part of the item (each replica starts at `range.start` and ends at
/// `range.end` through `forwardPlaybackEndTime`).
open class AVPlayerLooper: NSObject, @unchecked Sendable {
    /// Apple's raw values; `.failed` and `.cancelled` are terminal.
    public enum Status: Int, Sendable {
        /// The looper is preparing.
        case unknown = 0
        /// The looper is looping.
        case ready = 1
        /// The looper failed; see ``AVPlayerLooper/error``.
        case failed = 2
        /// Looping was cancelled (`disableLooping()`).
        case cancelled = 3
    }

    /// Where the replicas go relative to items already in the queue (Apple's raw values).
    public enum ItemOrdering: Int, Sendable {
        /// The looping items go before items already in the player's queue.
        case loopingItemsPrecedeExistingItems = 0
        /// The looping items go after items already in the player's queue.
        case loopingItemsFollowExistingItems = 1
    }

    /// Replicas kept in the queue (Apple uses at least 3).
    static let replicaCount = 3

    /// Guards the looper's status, error and loop count, and its replicas: the queue player's notifications (engine
    /// event delivery) and app threads. Public type: it keeps its lock for the values it publishes.
    private let lock = ConditionLock()
    let observationHub = ObservationHub<AVPlayerLooper>()
    // Guarded by `lock`.
    private var _status = Status.unknown
    private var _error: (any Error)?
    private var _loopCount = 0
    private var looping = true
    private weak var player: AVQueuePlayer?
    private let originalAction: AVPlayer.ActionAtItemEnd

    /// The replicas (do not change their time, selection or end time).
    public let loopingPlayerItems: [AVPlayerItem]
    let timeRange: CMTimeRange

    /// Loops the whole template item on the queue player.
    public convenience init(player: AVQueuePlayer, templateItem itemToLoop: AVPlayerItem) {
        self.init(player: player, templateItem: itemToLoop, timeRange: .invalid)
    }

    /// Loops a time range of the template item on the queue player.
    public convenience init(
        player: AVQueuePlayer, templateItem itemToLoop: AVPlayerItem, timeRange loopRange: CMTimeRange
    ) {
        self.init(
            player: player, templateItem: itemToLoop, timeRange: loopRange,
            existingItemsOrdering: .loopingItemsPrecedeExistingItems)
    }

    /// Creates the replicas and inserts them. Blocks until the template's duration is loaded
    /// (load it first to avoid that). Traps when the duration is zero or the range is empty or
    /// outside the item, as Apple raises.
    public init(
        player: AVQueuePlayer, templateItem itemToLoop: AVPlayerItem, timeRange loopRange: CMTimeRange,
        existingItemsOrdering itemOrdering: ItemOrdering
    ) {
        let duration = itemToLoop.asset.duration
        var range = loopRange
        if duration.isNumeric && duration == .zero { apiViolation("AVPlayerLooper: the item's duration is zero.") }
        if range.isValid && !range.isIndefinite {
            if range.duration == .zero { apiViolation("AVPlayerLooper: the time range is empty.") }
            if duration.isNumeric && (range.start < .zero || range.end > duration) {
                apiViolation("AVPlayerLooper: the time range is not inside the item.")
            }
        } else {
            range = CMTimeRange(start: .zero, duration: duration.isNumeric ? duration : .positiveInfinity)
        }
        self.timeRange = range
        self.player = player
        self.originalAction = player.actionAtItemEnd
        var replicas: [AVPlayerItem] = []
        for _ in 0..<Self.replicaCount {
            let replica = itemToLoop.copy() as! AVPlayerItem
            if range.end.isNumeric && duration.isNumeric && range.end < duration {
                replica.forwardPlaybackEndTime = range.end
            }
            if range.start > .zero { replica.mutate { $0.resumeTime = range.start } }
            replicas.append(replica)
        }
        loopingPlayerItems = replicas
        super.init()
        player.actionAtItemEnd = .advance
        let existing = player.items()
        var after: AVPlayerItem? = itemOrdering == .loopingItemsFollowExistingItems ? existing.last : nil
        if itemOrdering == .loopingItemsPrecedeExistingItems {
            // Insert before the existing items: rebuild the queue with the replicas first.
            for item in existing { player.remove(item) }
            for r in replicas { player.insert(r, after: after); after = r }
            for item in existing { player.insert(item, after: after); after = item }
        } else {
            for r in replicas { player.insert(r, after: after); after = r }
        }
        player.addItemLeftQueueHandler { [weak self] item in self?.replicaLeft(item) }
        lock.lock()
        _status = .ready
        lock.unlock()
    }

    /// Whether the looper is looping, failed or cancelled.
    open var status: Status {
        observationHub.access(self, keyPath: \.status)
        lock.lock()
        defer { lock.unlock() }
        return _status
    }

    /// The error that made the looper fail, if any.
    open var error: (any Error)? {
        observationHub.access(self, keyPath: \.error)
        lock.lock()
        defer { lock.unlock() }
        return _error
    }

    /// Completed loops (starts at 0).
    open var loopCount: Int {
        observationHub.access(self, keyPath: \.loopCount)
        lock.lock()
        defer { lock.unlock() }
        return _loopCount
    }

    /// Stops looping: the replica playing now plays to its end and playback of the replicas stops there (the other
    /// replicas leave the queue; items that followed them still play). ``loopCount`` stops counting; the player's
    /// `actionAtItemEnd` is restored. Status becomes `.cancelled`.
    open func disableLooping() {
        let wasLooping: Bool = observationHub.withMutation(of: self, keyPaths: [\.status]) {
            lock.lock()
            defer { lock.unlock() }
            let was = looping
            looping = false
            if _status == .ready { _status = .cancelled }
            return was
        }
        guard wasLooping, let player else { return }
        for item in player.items().dropFirst() where loopingPlayerItems.contains(where: { $0 === item }) {
            player.remove(item)
        }
        player.actionAtItemEnd = originalAction
    }

    /// A replica finished and left the queue: count the loop and put it back at the end, at the range's start.
    private func replicaLeft(_ item: AVPlayerItem) {
        guard loopingPlayerItems.contains(where: { $0 === item }) else { return }
        if item.status == .failed {
            observationHub.withMutation(of: self, keyPaths: [\.status, \.error]) {
                lock.lock()
                _status = .failed
                _error = item.error
                looping = false
                lock.unlock()
            }
            return
        }
        guard (lock.withLock { looping }) else { return }
        let keep: Bool = observationHub.withMutation(of: self, keyPaths: [\.loopCount]) {
            lock.lock()
            defer { lock.unlock() }
            guard looping else { return false }
            _loopCount += 1
            return true
        }
        guard keep, let player else { return }
        item.seek(to: timeRange.start, toleranceBefore: .zero, toleranceAfter: .zero, completionHandler: nil)
        let queued = player.items()
        let lastReplica = queued.last { r in loopingPlayerItems.contains { $0 === r } }
        player.insertQueued(item, after: lastReplica)
        // Looping was disabled meanwhile (on another thread): `disableLooping()` may have looked at the queue before
        // the replica was back in it.
        if !(lock.withLock { looping }) { player.remove(item) }
    }
}
