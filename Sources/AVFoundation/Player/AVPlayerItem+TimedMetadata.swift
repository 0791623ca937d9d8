import Foundation
import PlaybackEngine

// `timedMetadata`: the item's own follower of its timed metadata (what a metadata output without a filter gets).
extension AVPlayerItem {
    /// The item joined a player: its feed follows `session` on `engine`.
    /// Its collectors follow the session too.
    func timedMetadataAttached(session: ItemSession, engine: PlayerEngine?) {
        timedMetadataFeed.setSession(session)
        engine?.addPlayheadSink(timedMetadataFeed)
        for collector in mediaDataCollectors { collector.bindingChanged(session: session, engine: engine) }
    }

    /// The item left its player.
    func timedMetadataDetached(engine: PlayerEngine?) {
        engine?.removePlayheadSink(timedMetadataFeed)
        timedMetadataFeed.setSession(nil)
        for collector in mediaDataCollectors { collector.bindingChanged(session: nil, engine: nil) }
    }
}

/// Publishes each group the item's feed delivers as ``AVPlayerItem/timedMetadata`` (on the main queue, where Apple
/// posts its key-value changes).
final class ItemTimedMetadata: TimedMetadataFeedOwner, @unchecked Sendable {
    weak var item: AVPlayerItem?
    init(_ item: AVPlayerItem) { self.item = item }

    var feedAdvanceInterval: TimeInterval { 0 }

    func feedDelivered(_ sample: TimedMetadataSample, session: ItemSession) {
        let items = UncheckedItems(items: AVMetadataItem.items(for: sample))
        DispatchQueue.main.async { [weak item] in
            guard let item, item.session === session else { return }
            item.set(\.timedMetadata) { $0.timedMetadata = items.items }
        }
    }

    func feedFlushed() {}

    /// A seek to before the first tag: nothing is in effect any more.
    func feedStartedWithNothingInEffect(session: ItemSession) {
        DispatchQueue.main.async { [weak item] in
            guard let item, item.session === session, item.timedMetadata != nil else { return }
            item.set(\.timedMetadata) { $0.timedMetadata = nil }
        }
    }
}

/// Immutable metadata items handed to the main queue.
private struct UncheckedItems: @unchecked Sendable {
    let items: [AVMetadataItem]
}
