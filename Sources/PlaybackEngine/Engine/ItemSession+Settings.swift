import CoreMedia

// What the app set on an item that playback reads: given at creation, then changed only by engine commands.
extension ItemSession {
    /// What the app set on the item that playback reads (`forwardPlaybackEndTime`, `reversePlaybackEndTime`,
    /// `automaticallyPreservesTimeOffsetFromLive`). Engine thread only: given at creation, changed by
    /// ``PlayerEngine/configure(_:_:)``, which the engine applies between two steps.
    package struct Settings: Sendable {
        /// Where forward playback ends (item time); nil: at the item's end.
        package var forwardEndTime: CMTime?
        /// Where playback at a negative rate ends (item time); nil: at zero.
        package var reverseEndTime: CMTime?
        /// Whether the end of a stall of a live item seeks to the offset from the live edge it had when the stall
        /// began.
        package var preservesLiveOffset = false
        /// Where the item starts when it becomes the current item and ready — the time it kept when it left a
        /// player, or a seek asked for before it was ready — and how it lands there; nil: at zero. The engine seeks
        /// there before anything is presented, and forgets it.
        package var start: Start?

        package init(
            forwardEndTime: CMTime? = nil, reverseEndTime: CMTime? = nil, preservesLiveOffset: Bool = false,
            start: Start? = nil
        ) {
            self.forwardEndTime = forwardEndTime
            self.reverseEndTime = reverseEndTime
            self.preservesLiveOffset = preservesLiveOffset
            self.start = start
        }
    }

    /// A time to start at, and how to land there (``Settings/start``).
    package struct Start: Sendable {
        package var time: CMTime
        package var mode: SeekMode

        package init(time: CMTime, mode: SeekMode) {
            self.time = time
            self.mode = mode
        }
    }

    /// A change of what the app set, posted as a command (``PlayerEngine/configure(_:_:)``) and applied by the
    /// engine thread (``apply(_:)``): no caller thread writes a session.
    package enum Setting: Sendable {
        case forwardEndTime(CMTime?)
        case reverseEndTime(CMTime?)
        case preservesLiveOffset(Bool)
        /// Read-ahead near this many seconds (nil: the engine's default limits).
        case forwardBufferDuration(Double?)
        /// The played audio track's volume over time (nil: unity).
        case volumeCurve(VolumeCurve?)
        /// The composer of presented pictures (nil: as decoded).
        case videoCompositor((@Sendable (VideoFrame, CMTime) -> VideoFrame?)?)
        /// Whether a live source stops reloading its playlists (paused without network use).
        case liveReloadsSuspended(Bool)
        /// The subtitle stream decoded (the legible selection; nil: none), or with `closedCaptions` the video stream
        /// whose captions of `captionService` are (``ItemSession/selectSubtitleStream(_:closedCaptions:captionService:)``).
        case subtitleStream(Int?, closedCaptions: Bool, captionService: ClosedCaptionService?)
        /// The caps on a streamed source's variants and an app's policy (nil: the source's default), which the
        /// source reads before each segment (``VariantControl/apply(caps:policy:)``).
        case variantSettings(VariantCaps, policy: (any VariantPolicy)?)
        /// A seek asked for before the item is ready (or while it is queued): where it starts (``Settings/start``);
        /// the completion is called when that seek completes, or `false` when superseded. Applied by the engine
        /// (``EngineCore/setStart(_:_:completion:)``): on a ready current item it is an ordinary seek.
        case start(Start, completion: (@Sendable (Bool) -> Void)?)
    }

    /// Applies a setting. Engine thread only: the engine's ``EngineCore/apply(_:)`` calls it for a
    /// ``PlayerEngine/configure(_:_:)`` command.
    func apply(_ setting: Setting) {
        EngineThread.assertCurrent()
        switch setting {
        case .forwardEndTime(let time): settings.forwardEndTime = time
        case .reverseEndTime(let time): settings.reverseEndTime = time
        case .preservesLiveOffset(let preserves): settings.preservesLiveOffset = preserves
        case .forwardBufferDuration(let seconds): setForwardBufferDuration(seconds)
        case .volumeCurve(let curve): lock.withLock { _volumeCurve = curve.flatMap { $0.isUnity ? nil : $0 } }
        case .videoCompositor(let compose): lock.withLock { _videoCompositor = compose }
        case .liveReloadsSuspended(let suspended): openedSource?.setLiveReloadsSuspended(suspended)
        case .variantSettings(let caps, let policy): variantControl?.apply(caps: caps, policy: policy)
        case .subtitleStream(let index, let closedCaptions, let service):
            selectSubtitleStream(index, closedCaptions: closedCaptions, captionService: service)
        case .start(let start, _): settings.start = start
        }
    }

    /// Takes the start time and its completions (engine thread, when the item becomes current and ready).
    func takeStart() -> (Start, [@Sendable (Bool) -> Void])? {
        EngineThread.assertCurrent()
        guard let start = settings.start else { return nil }
        settings.start = nil
        defer { startCompletions = [] }
        return (start, startCompletions)
    }

    /// Where forward playback ends (`forwardPlaybackEndTime`, item time); nil: at the item's end. Engine thread.
    package var forwardEndTime: CMTime? { settings.forwardEndTime }

    /// Where playback at a negative rate ends (`reversePlaybackEndTime`, item time); nil: at zero. Engine thread.
    package var reverseEndTime: CMTime? { settings.reverseEndTime }

    /// `automaticallyPreservesTimeOffsetFromLive`. Engine thread.
    package var preservesLiveOffset: Bool { settings.preservesLiveOffset }

    /// The played audio track's volume over time (AVAudioMix); nil for unity. Read by the audio renderer on the
    /// device thread. Guarded by `lock` — the device thread is not the engine's and must never wait for it, so it
    /// reads under the lock what the engine thread wrote (``apply(_:)``).
    package var volumeCurve: VolumeCurve? { lock.withLock { _volumeCurve } }

    /// Composes each presented picture (AVVideoComposition) before the video sinks get it, given the frame and its
    /// item time; a nil result drops the picture; nil presents pictures as decoded. Guarded by `lock`: written by the
    /// engine thread (``apply(_:)``), read by it and by the facade's tests.
    package var videoCompositor: (@Sendable (VideoFrame, CMTime) -> VideoFrame?)? { lock.withLock { _videoCompositor } }
}
