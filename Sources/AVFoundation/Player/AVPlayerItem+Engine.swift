import Foundation
import PlaybackEngine

// The item's side of the engine: joining and leaving a player, what to play, readiness, failures, buffering.
extension AVPlayerItem {
    /// The player the item belongs to.
    var player: AVPlayer? { read { $0.player } }
    var session: ItemSession? { read { $0.session } }

    /// Joins `player` (traps if it belongs to another, as Apple raises) and makes the engine session.
    func attach(to player: AVPlayer, audioFormat: AudioFormat) -> ItemSession {
        let session: ItemSession = mutate { s in
            if let owner = s.player, owner !== player {
                apiViolation(
                    "An AVPlayerItem cannot be associated with more than one instance of AVPlayer "
                        + "(\(self) already belongs to \(owner)).")
            }
            s.player = player
            if let existing = s.session { return existing }
            s.attachDate = Date()
            s.sessionReady = false
            let asset = self.asset
            // What the app set travels with the session; later changes reach it as engine commands. Where it starts:
            // the time it kept, or a seek made before it was ever ready (the engine seeks there once it is ready and
            // current; its time is the engine's from now on).
            var start = s.resumeTime.map { ItemSession.Start(time: $0, mode: .exact) }
            if start == nil, let early = s.seekWhenReady {
                start = ItemSession.Start(time: early.time, mode: early.mode)
            }
            s.resumeTime = nil
            s.seekWhenReady = nil
            let settings = ItemSession.Settings(
                forwardEndTime: s.forwardPlaybackEndTime.isNumeric ? s.forwardPlaybackEndTime : nil,
                reverseEndTime: s.reversePlaybackEndTime.isNumeric ? s.reversePlaybackEndTime : nil,
                preservesLiveOffset: s.automaticallyPreservesTimeOffsetFromLive, start: start)
            let stopping = Cancellation()
            let session = ItemSession(audioFormat: audioFormat, settings: settings, stopping: stopping) {
                [weak self] in
                try Self.descriptor(for: asset, item: self, stopping: stopping)
            }
            s.session = session
            return session
        }
        outputsAttached(session: session, engine: player.existingEngine)
        timedMetadataAttached(session: session, engine: player.existingEngine)
        installVideoCompositor(on: session, engine: player.existingEngine)
        return session
    }

    /// Leaves its player: the item keeps its time (``AVPlayerItem/currentTime()``), settings and outputs, and may join
    /// a player again at once (it reloads and continues from that time). Its session is stopped (its threads joined)
    /// by the engine, which owns it — when it takes the queue the item left (every path that detaches posts one) or
    /// when it shuts down — never on the caller's thread.
    func detach() {
        let (session, player) = read { ($0.session, $0.player) }
        // Its time as the engine has it (where it was to start, when the engine had not played it yet).
        let time = session.flatMap { session in player?.existingEngine?.currentTime(of: session) }
        mutate { s in
            s.session = nil
            s.player = nil
            s.sessionReady = false
            if let time, s.resumeTime == nil { s.resumeTime = time }
        }
        outputsDetached()
        timedMetadataDetached(engine: player?.existingEngine)
    }

    /// The item played to its end (forward or in reverse) and leaves the engine: it keeps that end as its time.
    func keepEndTime(reverse: Bool) {
        mutate { s in
            guard s.resumeTime == nil else { return }
            if reverse {
                s.resumeTime = s.reversePlaybackEndTime.isNumeric ? s.reversePlaybackEndTime : .zero
            } else if s.forwardPlaybackEndTime.isNumeric {
                s.resumeTime = s.forwardPlaybackEndTime
            } else if s.duration.isNumeric {
                s.resumeTime = s.duration
            }
        }
    }

    /// Moves an item that is not playing (in no player, or in one and not ready yet) to `time`, landing as `mode`
    /// says. In no player it is the item's own time until it plays again, and the handler completes `true` at once;
    /// in a player the engine keeps it as where the item starts and completes the handler with the seek it makes there
    /// once the item is ready and current (`false` when a later seek, a change of item or a failure comes first).
    func seekWhileNotPlaying(
        to time: CMTime, mode: SeekMode = .exact, completionHandler: (@Sendable (Bool) -> Void)?
    ) {
        if let (session, engine) = sessionAndEngine() {
            engine.configure(session, .start(ItemSession.Start(time: time, mode: mode), completion: completionHandler))
            return
        }
        mutate { $0.resumeTime = time }
        completionHandler?(true)
    }

    /// Loads the asset (blocking, on the engine's preparation thread) and says what the app chose of its streams
    /// (tracks disabled, the audible selection); the engine chooses the streams from that once its source is open.
    /// `stopping`: cancelled when the item's session stops (the item left its player, the player went away): the wait
    /// for the asset then gives up, and the asset's loading is abandoned when nothing else waits for it
    /// (``AssetLoader/wait(stopping:)``) — a resource loader's delegate that never answers holds no thread.
    static func descriptor(
        for asset: AVAsset, item: AVPlayerItem?, stopping: Cancellation? = nil
    ) throws -> ItemDescriptor {
        let description: AssetDescription
        switch asset.loader.wait(stopping: stopping) {
        case .success(let d): description = d
        case .failure(let e): throw e
        }
        if let error = description.playabilityError { throw error }
        let disabledTracks =
            item?.read { s in Set(s.tracks.filter { !$0.isEnabled }.compactMap { $0.assetTrack?.trackID }) } ?? []
        var preferences = StreamPreferences()
        preferences.disabledStreams = Set(
            description.tracks.filter { disabledTracks.contains($0.trackID) }.map(\.streamIndex))
        if let item, let group = asset.mediaSelectionGroup(forMediaCharacteristic: .audible) {
            // The app's choice, else what the player's selection criteria choose.
            if let selection = item.read({ $0.selection }), let option = selection.selectedMediaOption(in: group) {
                preferences.audioStream = option.streamIndex
            }
            if let option = item.criteriaChoice(in: group) { preferences.audioStream = option.streamIndex }
        }
        let url = description.url
        var descriptor = ItemDescriptor(
            location: url.mediaLocation, streamPreferences: preferences, timeOrigin: description.timeOrigin,
            duration: description.duration)
        // Played as it was probed: the asset's user agent and header fields.
        descriptor.sourceOptions = SourceOptions(assetOptions: asset.loader.options)
        if let item {
            // Which variant of a stream to start with: the item's caps (0 / .zero: none).
            let (peak, resolution) = item.read { ($0.preferredPeakBitRate, $0.preferredMaximumResolution) }
            if let policy = item.read({ $0.variantPolicy }) {
                descriptor.variantPolicy = AppVariantPolicy(policy: policy)
            }
            if peak > 0 { descriptor.sourceOptions.maximumPeakBitRate = peak }
            if resolution.width > 0 && resolution.height > 0 {
                descriptor.sourceOptions.maximumResolution = SourceOptions.PixelSize(
                    width: Int(resolution.width), height: Int(resolution.height))
            }
            descriptor.sourceOptions.liveStartOffset = item.liveStartOffsetOption
            // Whether a stream may start on the variant an earlier item's measurement carries (Apple's default).
            descriptor.sourceOptions.startsOnFirstEligibleVariant = item.read { $0.startsOnFirstEligibleVariant }
        }
        descriptor.sourceFactory = .avFoundation
        descriptor.durationIsExact = description.providesPreciseDurationAndTiming
        if let forward = item?.read({ $0.preferredForwardBufferDuration }), forward > 0 {
            descriptor.forwardBufferDuration = forward
        }
        return descriptor
    }

    /// The item's tracks for its current session, made once per session: the objects ``tracks`` publishes when the
    /// item becomes ready, also to an output that names one before that is on the main queue (a metadata group
    /// delivered as playback starts). Any thread.
    func sessionTracks() -> [AVPlayerItemTrack] {
        let session = read { $0.session }
        let key = session.map(ObjectIdentifier.init)
        if let made = read({ $0.sessionTracks }), made.session == key { return made.tracks }
        let playedIndices = Set([session?.descriptor.videoStream, session?.descriptor.audioStream].compactMap { $0 })
        let tracks = asset.tracks.map { track in
            AVPlayerItemTrack(
                assetTrack: track,
                enabled: playedIndices.contains(track.streamIndex)
                    || (track.mediaType != .audio && track.mediaType != .video),
                item: self)
        }
        return mutate { s in
            if let made = s.sessionTracks, made.session == key { return made.tracks }
            s.sessionTracks = (key, tracks)
            return tracks
        }
    }

    /// The engine prepared the item: publish what it is.
    func becameReady() {
        guard case .success(let d) = asset.loader.wait() else { return }
        let session = read { $0.session }
        let items = sessionTracks()
        var size = CGSize.zero
        if let video = d.tracks.first(where: { $0.streamIndex == session?.descriptor.videoStream }) {
            var natural = video.naturalSize
            // A stream's variant was chosen for this item (its caps): its size, not the one the asset's probe saw.
            if !d.variants.isEmpty, let played = session?.playedVideoSize {
                natural = CGSize(width: played.width, height: played.height)
            }
            let shown = CGRect(origin: .zero, size: natural).applying(video.preferredTransform)
            size = CGSize(width: abs(shown.width), height: abs(shown.height))
        }
        // What the source can seek, in item time; a file's whole duration.
        let seekable =
            (session?.seekableRange).map { range in
                [
                    NSValue(
                        timeRange: CMTimeRange(
                            start: max(range.start, .zero), end: d.duration.isNumeric ? d.duration : range.end))
                ]
            } ?? []
        let hasVideo = session?.hasVideo ?? false
        let now = Date()
        set(
            [
                \.duration, \.presentationSize, \.tracks, \.seekableTimeRanges, \.canPlayFastForward,
                \.canPlaySlowForward, \.canPlayReverse, \.canPlaySlowReverse, \.canPlayFastReverse,
                \.canStepForward, \.canStepBackward,
            ]
        ) { s in
            s.sessionReady = true
            s.duration = d.duration
            s.presentationSize = size
            s.tracks = items
            s.seekableTimeRanges = seekable
            s.canPlayFastForward = hasVideo
            s.canPlaySlowForward = true
            // Reverse play decodes backwards from a second input (video a GOP stretch at a time, audio in half-second
            // stretches): media that can be seeked.
            let reverse = (hasVideo || session?.hasAudio == true) && !seekable.isEmpty
            s.canPlayReverse = reverse
            s.canPlaySlowReverse = reverse
            s.canPlayFastReverse = reverse
            s.canStepForward = hasVideo
            s.canStepBackward = hasVideo && !seekable.isEmpty
        }
        // The caps and policy set since the item's source was made; the variant it starts on.
        applyVariantSettings()
        if let control = session?.variantControl {
            let start = session.map { $0.containerTime(.zero).convertScale(1_000_000, method: .default).value } ?? 0
            mutate { $0.variantPlaying = control.period(atMicroseconds: start) }
        }
        // The selection is what plays before anyone sees the item ready.
        applyMediaSelectionCriteria(becomingReady: true)
        if let session { liveItemBecameReady(session) }
        updateLiveNetworkUse()
        set(\.status) { s in
            s.readyDate = now
            s.status = .readyToPlay
        }
        applyAudioMix()
    }

    /// The item failed (preparing or playing).
    func failed(_ error: any Error) {
        let avError = asset.playbackFailure(error)
        let alreadyFailed = read { $0.status == .failed }
        if alreadyFailed { return }
        appendErrorLog(avError)
        set([\.status, \.error]) { s in
            s.error = avError
            s.status = .failed
        }
    }

    func bufferChanged(_ b: BufferState) {
        let ranges = b.loaded.map { [NSValue(timeRange: $0)] } ?? []
        set([\.loadedTimeRanges, \.isPlaybackBufferEmpty, \.isPlaybackBufferFull, \.isPlaybackLikelyToKeepUp]) { s in
            s.loadedTimeRanges = ranges
            s.isPlaybackBufferEmpty = b.isEmpty
            s.isPlaybackBufferFull = b.isFull
            s.isPlaybackLikelyToKeepUp = b.isLikelyToKeepUp
        }
        refreshLiveWindow()
        logFailedRequests()
    }

    /// Fills `event` with what the source measured of the transfers made since the previous event (HLS): see
    /// ``AVPlayerItemAccessLogEvent/fill(fromTransfers:mainStreams:mainPackets:)``. Nothing measured is left at
    /// Apple's "unknown" (negative).
    func fillTransfers(of event: AVPlayerItemAccessLogEvent, from log: NetworkLog) {
        let packets = log.mainPacketBytes
        let (period, mainPackets): ([NetworkLog.Transfer], NetworkLog.PacketBytes) = mutate { s in
            s.follow(log)
            let (new, cursor) = log.transfers(after: s.loggedTransfers)
            let counted = NetworkLog.PacketBytes(
                all: packets.all - s.loggedMainPackets.all, audio: packets.audio - s.loggedMainPackets.audio)
            s.loggedTransfers = cursor
            s.loggedMainPackets = packets
            return (Array(new), counted)
        }
        event.fill(fromTransfers: period, mainStreams: log.mainStreams, mainPackets: mainPackets)
    }

    /// Turns the source's failed requests (HLS) not yet logged into error-log events, and announces them.
    func logFailedRequests() {
        guard let session = read({ $0.session }), let log = session.networkLog else { return }
        let failures = log.failedRequests
        let fresh: [AVPlayerItemErrorLogEvent] = mutate { s in
            s.follow(log)
            guard failures.count > s.loggedFailures else { return [] }
            let new = failures[s.loggedFailures...].map { f in
                AVPlayerItemErrorLogEvent(
                    date: f.date, uri: f.uri, serverAddress: f.serverAddress,
                    playbackSessionID: session.id.uuidString, errorStatusCode: f.statusCode, errorDomain: f.domain,
                    errorComment: f.comment, allHTTPResponseHeaderFields: f.responseHeaders)
            }
            s.loggedFailures = failures.count
            for event in new { s.errorLog.append(event) }
            return Array(new)
        }
        guard !fresh.isEmpty else { return }
        NotificationCenter.default.post(name: AVPlayerItem.newErrorLogEntryNotification, object: self)
    }

    /// A live stream's seekable window moves as its playlist is reloaded: publish where it is now.
    func refreshLiveWindow() {
        guard let session = read({ $0.session }), session.isLive, let window = session.seekableRange else { return }
        let ranges = [NSValue(timeRange: CMTimeRange(start: max(window.start, .zero), end: window.end))]
        guard read({ $0.seekableTimeRanges }) != ranges else { return }
        set([\.seekableTimeRanges]) { s in s.seekableTimeRanges = ranges }
    }

    func appendErrorLog(_ error: AVError) {
        let ns = error as NSError
        let event = AVPlayerItemErrorLogEvent(
            date: Date(), uri: (asset as? AVURLAsset)?.url.absoluteString, serverAddress: nil, playbackSessionID: nil,
            errorStatusCode: ns.code, errorDomain: ns.domain, errorComment: ns.localizedDescription)
        mutate { $0.errorLog.append(event) }
        NotificationCenter.default.post(name: AVPlayerItem.newErrorLogEntryNotification, object: self)
    }
}

extension AVPlayerItem.State {
    /// Counts from the start of `log` when it is not the log counted so far (the source of a new session).
    mutating func follow(_ log: NetworkLog) {
        guard loggedNetworkLog !== log else { return }
        loggedNetworkLog = log
        loggedFailures = 0
        loggedTransfers = 0
        loggedMainPackets = NetworkLog.PacketBytes()
    }
}
