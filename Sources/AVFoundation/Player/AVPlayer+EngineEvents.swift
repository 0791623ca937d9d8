import Foundation
import PlaybackEngine

// What the engine reports, applied to the player and its items (engine thread), and the access-log periods.
extension AVPlayer {
    /// Applies `event`, which the engine emitted as of its command `asOf`. The rate and time control it reports are
    /// what the player publishes, unless the app set a rate by a later command that the engine had not applied yet
    /// then (the engine reports again once it has: the player never decides them from its own copy).
    func handle(_ event: EngineEvent, asOf: UInt64) {
        switch event {
        case .itemReady(let session):
            item(for: session)?.becameReady()
        case .itemFailed(let session, let error):
            item(for: session)?.failed(error)
        case .itemFailedToPlayToEnd(let session, let error):
            guard let item = item(for: session) else { return }
            let avError = item.asset.playbackFailure(error)
            item.failed(avError)
            NotificationCenter.default.post(
                name: AVPlayerItem.failedToPlayToEndTimeNotification, object: item,
                userInfo: [AVPlayerItemFailedToPlayToEndTimeErrorKey: avError as NSError])
        case .itemPlayedToEnd(let session):
            guard let item = item(for: session) else { return }
            item.refreshPlayingVariant()
            noteStopped()
            NotificationCenter.default.post(name: AVPlayerItem.didPlayToEndTimeNotification, object: item)
        case .currentItemChanged(let from, _):
            guard let finished = from.flatMap(item(for:)) else { return }
            // It played to its end: that is its time from now on (the engine no longer holds it).
            finished.keepEndTime(reverse: read { $0.rate } < 0)
            changeQueue { items in items.removeAll { $0 === finished } }
            if let next = currentItem { existingEngine?.setTimePitchAlgorithm(next.playedTimePitchAlgorithm()) }
            for handler in itemLeftQueueHandlers.read { handler(finished) }
            if read({ $0.rate }) != 0 { noteStarted() }
        case .timeControlChanged(let t):
            let current: Bool = mutate { s in
                s.engineTimeControl = (t, asOf)
                return asOf >= s.rateCommand
            }
            if current { applyTimeControl(t) }
        case .rateChanged(let r):
            let current: Bool = mutate { s in
                s.engineRate = (r, asOf)
                return asOf >= s.rateCommand
            }
            if current { applyReportedRate(r) }
        case .timeJumped(let session):
            if let item = item(for: session) {
                NotificationCenter.default.post(name: AVPlayerItem.timeJumpedNotification, object: item)
                item.ownTimebase.followedTimelineChanged(jumped: true)
            }
        case .stalled(let session):
            if let item = item(for: session) {
                mutate { s in if var p = s.playStart { p.stalls += 1; s.playStart = p } }
                item.liveItemStalled(session)
                NotificationCenter.default.post(name: AVPlayerItem.playbackStalledNotification, object: item)
            }
        case .bufferChanged(let session, let b):
            item(for: session)?.bufferChanged(b)
        case .variantChanged(let session):
            item(for: session)?.refreshPlayingVariant()
        case .audioDeviceFailed(let message, let lost):
            // Apple: the player can no longer play (its status is `.failed` for good, with the error).
            let error = AVError(
                lost ? .deviceWasDisconnected : .deviceNotConnected,
                userInfo: [
                    NSLocalizedDescriptionKey: lost ? "The audio device was lost." : "No audio device could be opened.",
                    NSLocalizedFailureReasonErrorKey: message,
                ])
            set([\.status, \.error]) { s in
                s.status = .failed
                s.error = error
            }
            if let item = currentItem {
                item.appendErrorLog(.media(lost ? .deviceWasDisconnected : .deviceNotConnected, message))
            }
        case .audioDeviceUnavailable(let message):
            if let item = currentItem {
                item.appendErrorLog(
                    .media(.mediaServicesWereReset, "No audio device: \(message). Playing without sound."))
            }
        }
    }

    /// A rate the engine set itself (as of the app's latest rate command): published, with its notification.
    func applyReportedRate(_ r: Float) {
        if read({ $0.rate }) != r {
            set(\.rate) { $0.rate = r }
            NotificationCenter.default.post(
                name: Self.rateDidChangeNotification, object: self,
                userInfo: [Self.rateDidChangeReasonKey: RateDidChangeReason.setRateCalled])
        }
        applyTimeControl(r == 0 ? .paused : .playing)
    }

    /// Access log bookkeeping: a playback period starts.
    func noteStarted() {
        mutate { s in
            if s.playStart == nil, let item = s.items.first {
                s.playStart = (Date(), .zero, s.engine?.statistics.framesDropped ?? 0, 0)
                _ = item
            }
        }
    }

    /// The variant `item` plays changed while it plays (HLS): its access-log period ends and another begins.
    func closeAccessLogPeriod(of item: AVPlayerItem) {
        guard read({ $0.playStart != nil && $0.items.first === item }) else { return }
        noteStopped()
        noteStarted()
    }

    /// A playback period ends: append an access-log event to the current item.
    func noteStopped() {
        let (start, item, engine) = mutate {
            s -> ((date: Date, itemTime: CMTime, dropped: Int, stalls: Int)?, AVPlayerItem?, PlayerEngine?) in
            defer { s.playStart = nil }
            return (s.playStart, s.items.first, s.engine)
        }
        guard let start, let item else { return }
        let event = AVPlayerItemAccessLogEvent()
        event.playbackStartDate = start.date
        event.uri = item.asset.loader.url.absoluteString
        event.durationWatched = Date().timeIntervalSince(start.date)
        event.numberOfStalls = start.stalls
        event.numberOfDroppedVideoFrames = (engine?.statistics.framesDropped ?? 0) - start.dropped
        let session = item.read { $0.session }
        event.playbackType =
            item.asset.loader.url.isFileURL ? "FILE" : (session?.isLive == true ? "LIVE" : "VOD")
        event.playbackSessionID = session?.id.uuidString
        if let d = item.asset.loader.loaded, let bitRate = d.bitRate { event.indicatedBitrate = Double(bitRate) }
        if let log = session?.networkLog { item.fillTransfers(of: event, from: log) }
        // HLS: the variant of the period (transfers fetched ahead may belong to the next one), and the estimate that
        // switched to it.
        if let playing = item.read({ $0.variantPlaying }) {
            event.indicatedBitrate = Double(playing.variant.peakBitRate)
            // Its AVERAGE-BANDWIDTH; unknown when the multivariant playlist does not state one.
            event.indicatedAverageBitrate = playing.variant.averageBitRate.map(Double.init) ?? -1
            if playing.decision.from != nil, let estimate = playing.decision.estimatedBitRate {
                event.switchBitrate = estimate
            }
        }
        if let attach = item.read({ $0.attachDate }), let ready = item.read({ $0.readyDate }) {
            event.startupTime = ready.timeIntervalSince(attach)
        }
        // Where the period began (Apple's "c-start-time"), not where it ended.
        if start.itemTime.isNumeric { event.playbackStartOffset = max(0, start.itemTime.seconds) }
        item.mutate { $0.accessLog.append(event) }
        NotificationCenter.default.post(name: AVPlayerItem.newAccessLogEntryNotification, object: item)
    }
}
