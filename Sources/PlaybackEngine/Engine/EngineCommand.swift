import CoreMedia

/// A request to the engine: a value posted to its ``EngineMailbox`` from any thread and applied on the engine thread
/// in the order posted (Media3's `ExoPlayerImplInternal` messages). Each carries the host time it was asked at, so
/// the engine applies it as of that moment however late it gets to it (a `play()` counts from the call, a pause
/// freezes the playhead where the caller saw it).
struct EngineCommand: Sendable {
    /// Position in the mailbox's order (1, 2, …); snapshots say up to which one they reflect.
    let sequence: UInt64
    /// Host time when it was posted (monotonic nanoseconds, or the virtual clock's time).
    let host: UInt64
    /// What to do.
    let action: Action

    /// Where a pause froze the playhead as the caller saw it: valid while the clock's ``epoch`` is unchanged.
    struct FreezePoint: Sendable {
        /// ``Transport/epoch`` of the snapshot the caller read.
        var epoch: UInt64
        /// The item time the caller read.
        var time: CMTime
    }

    /// What a command asks for.
    enum Action: Sendable {
        /// The play queue; the first item is current.
        case setQueue([ItemSession])
        /// `AVPlayer.rate`; a pause carries where the caller saw the playhead.
        case setRate(Float, freeze: FreezePoint?)
        /// `setRate(_:time:atHostTime:)`: an exact seek first when `itemTime` is given, the start held until `host`.
        case setScheduledRate(Float, itemTime: CMTime?, startHost: UInt64?, freeze: FreezePoint?)
        case setTimePitchAlgorithm(TimePitchAlgorithm)
        case setAutomaticallyWaitsToMinimizeStalling(Bool)
        case setEndAction(EndAction)
        case setVolume(Float, muted: Bool)
        /// The renderer's output stage: gain with a fade, pan, metering (`AVAudioPlayer`).
        case setOutputMix(AudioOutputStage.Mix)
        case addVideoSink(any VideoFrameSink)
        case removeVideoSink(ObjectIdentifier)
        case addPlayheadSink(any PlayheadSink)
        case removePlayheadSink(ObjectIdentifier)
        case addPeriodicObserver(token: UInt64, interval: CMTime, handler: @Sendable (CMTime) -> Void)
        case addBoundaryObserver(token: UInt64, times: [CMTime], handler: @Sendable () -> Void)
        case removeObserver(token: UInt64)
        case seek(ItemSession, to: CMTime, mode: SeekMode, completion: (@Sendable (Bool) -> Void)?)
        case cancelPendingSeeks(ItemSession)
        /// Something the app set on an item (``ItemSession/Setting``).
        case configure(ItemSession, ItemSession.Setting)
        case setStreams(ItemSession, video: Int?, audio: Int?)
        case step(ItemSession, count: Int)
        /// `AVPlayer.preroll(atRate:)`: completes `true` once the current item is primed at its time, `false` when
        /// interrupted (see ``EngineCore/settlePrerolls()``).
        case preroll(@Sendable (Bool) -> Void)
        /// `AVPlayer.cancelPendingPrerolls()`: pending prerolls complete `false`.
        case cancelPrerolls
        /// Completes `true` once every command posted before it is applied and what their iteration told is
        /// delivered (``PlayerEngine/barrier(_:)``).
        case barrier(@Sendable (Bool) -> Void)
        /// A preparation thread finished (`error` nil: ready).
        case prepared(ItemSession, error: (any Error)?)
        /// Reading the item failed for good after it was ready.
        case readFailed(ItemSession, any Error)

        /// The completion of a seek or preroll command (called `false` when the engine stops before applying it).
        var completion: (@Sendable (Bool) -> Void)? {
            switch self {
            case .seek(_, _, _, let completion): return completion
            case .preroll(let completion): return completion
            case .barrier(let completion): return completion
            case .configure(_, .start(_, let completion)): return completion
            default: return nil
            }
        }
    }
}
