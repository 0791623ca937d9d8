import Foundation
import PlaybackEngine

// How far behind the live edge a live item plays: the offset the app configures (where playback starts, and where a
// seek to positive infinity lands), the one recommended from what the stream and the network showed, and whether a
// stall's lost ground is made up. The edge is the end of `seekableTimeRanges` (the playlist's window).
extension AVPlayerItem {
    /// The configured offset as a source option: where a live stream starts (nil: not set).
    var liveStartOffsetOption: Double? {
        read { $0.configuredTimeOffsetFromLive.isNumeric ? $0.configuredTimeOffsetFromLive.seconds : nil }
    }

    /// Where a seek to `.positiveInfinity` lands in a live `window` (item time): the configured offset before its end.
    func liveEdgeSeekTime(in window: CMTimeRange) -> CMTime {
        let offset = configuredTimeOffsetFromLive
        guard offset.isNumeric else { return window.end }
        return max(window.start, window.end - offset)
    }

    /// A live item became ready: its recommended offset is three target durations.
    func liveItemBecameReady(_ session: ItemSession) {
        guard session.isLive, let target = session.liveTargetDuration else { return }
        updateRecommendedLiveOffset(CMTime(seconds: 3 * target, preferredTimescale: 1000), session: session)
    }

    /// A live item stalled: recommend one target duration more. (With ``automaticallyPreservesTimeOffsetFromLive``
    /// the engine seeks forward when the stall ends, before it presents anything: see `EngineCore.endStall`.)
    func liveItemStalled(_ session: ItemSession) {
        guard session.isLive, let window = session.seekableRange, let target = session.liveTargetDuration else {
            return
        }
        let raised = read { $0.recommendedTimeOffsetFromLive } + CMTime(seconds: target, preferredTimescale: 1000)
        updateRecommendedLiveOffset(min(raised, window.duration), session: session)
    }

    private func updateRecommendedLiveOffset(_ offset: CMTime, session: ItemSession) {
        let changed: Bool = set(\.recommendedTimeOffsetFromLive) { s in
            guard s.recommendedTimeOffsetFromLive != offset else { return false }
            s.recommendedTimeOffsetFromLive = offset
            return true
        }
        if changed {
            NotificationCenter.default.post(name: Self.recommendedTimeOffsetFromLiveDidChangeNotification, object: self)
        }
    }

    /// Tells the source whether it may reload its playlists: not while the player is paused, unless
    /// ``canUseNetworkResourcesForLiveStreamingWhilePaused``.
    func updateLiveNetworkUse() {
        guard let (session, engine) = sessionAndEngine() else { return }
        let paused = player.map { $0.currentItem !== self || $0.rate == 0 } ?? true
        engine.configure(session, .liveReloadsSuspended(paused && !canUseNetworkResourcesForLiveStreamingWhilePaused))
    }
}
