import FFmpegBridge
import Foundation
import OAVFLocking
import PlaybackEngine

/// Plays a sound from a file or from memory (AVFAudio's class, brought by `import AVFoundation` as on Apple's
/// systems): play, pause, stop, seek, loop, volume with fades, pan, rate, and level metering.
///
/// Built on the playback engine, as `AVPlayer` is: each player has its own engine (its thread, its audio renderer
/// and SDL device; `SDL_AUDIODRIVER` picks the driver) playing one audio-only item. Every method posts commands to
/// the engine; every read comes from what the engine published. The loops of the sound are one item whose source
/// reads the media again at its end (``numberOfLoops`` = n plays it n + 1 times, -1 until stopped), so a loop joins
/// the next without a gap, in real time too.
///
/// What differs from Apple (see <doc:PortingFromApplePlatforms>):
/// - Initializers open and probe the media (any format FFmpeg reads, the file type hint is not needed) and throw an
///   `NSError` in `AVFoundationErrorDomain` saying what is wrong (Apple's are `NSOSStatusErrorDomain` codes).
/// - ``averagePower(forChannel:)`` and ``peakPower(forChannel:)`` measure what the player rendered since the last
///   ``updateMeters()`` — after ``volume`` and ``pan`` — per output channel: the RMS and the largest sample in dBFS,
///   without Apple's smoothing; -160 when nothing was rendered.
/// - `format` and `settings`, `currentDevice` and `channelAssignments` are not provided.
///
/// Thread-safe: every member may be used from any thread; the delegate is called on the main queue.
open class AVAudioPlayer: NSObject, @unchecked Sendable {
    /// What the initializer probed: how to read the media again, and what it holds.
    struct Media: Sendable {
        /// A path (or the name of the data, for logs).
        var location: String
        /// libavformat's reader of the location, or the in-memory one for data.
        var sourceFactory: MediaSourceFactory
        /// The container index of the audio stream played.
        var audioStream: Int
        /// Container time that is time zero.
        var timeOrigin: CMTime
        /// Seconds; 0 when unknown.
        var duration: TimeInterval
        /// Whether the container's index states the duration (a sound that ends well before it was cut short).
        var durationIsExact: Bool
        var channelCount: Int
        var sampleRate: Int
    }

    /// What the player holds. Owners: the app's values (volume, pan, rate, loops, metering, delegate, where play
    /// starts while no item is queued) are written by the setters; the item (``State/current``, its loop control)
    /// by the setters and by the engine's events on the engine thread, each under `state`'s lock together with the
    /// command it posts, so the engine takes them in the order they were decided. Playback time is never copied
    /// here while an item is queued: it is read from the engine's snapshot.
    struct State {
        var engine: PlayerEngine?
        /// The item playing (or ready to): every loop of the sound on one timeline (``LoopingSource``).
        var current: ItemSession?
        /// How many times ``current`` repeats, and where each play of it begins.
        var loops: LoopControl?
        var isPlaying = false
        /// Where playback starts while no item is queued (seconds).
        var pendingTime: TimeInterval = 0
        var mix = AudioOutputStage.Mix()
        var enableRate = false
        var rate: Float = 1
        var numberOfLoops = 0
        /// Levels of the last ``updateMeters()``: average and peak dBFS per channel.
        var meters: (average: [Float], peak: [Float]) = ([], [])
        weak var delegate: (any AVAudioPlayerDelegate)?
    }

    let media: Media
    /// The player's public values: app threads set and read them, the engine's event delivery updates them. Public
    /// type: it keeps its lock for the values it publishes.
    let state = Locked(State())

    /// The URL the player plays, nil for a player made from data.
    public let url: URL?
    /// The data the player plays, nil for a player made from a URL.
    public let data: Data?

    /// OpenAVFoundation test hook: the clock the next engine runs on (a `VirtualClock` plays without real time).
    /// Set before ``prepareToPlay()``.
    var oavfSourceClock: CMClock?
    /// OpenAVFoundation test hook: the audio sink the next engine uses (a capturing sink with a virtual clock).
    var oavfAudioSinkOverride: (@Sendable () -> (any AudioSink)?)?

    /// A player for the sound file at `url`; throws when it is missing, unreadable, or holds no audio.
    public convenience init(contentsOf url: URL) throws {
        try self.init(contentsOf: url, fileTypeHint: nil)
    }

    /// A player for the sound file at `url`. `utiString` (a file type hint, e.g. `AVFileType.mp3`) is accepted and
    /// not needed: the content is probed.
    public init(contentsOf url: URL, fileTypeHint utiString: String?) throws {
        if let problem = AVError.localFileProblem(url) { throw problem }
        let location = url.mediaLocation
        media = try Self.probe(
            FFmpegSource(location: location), location: location, factory: .ffmpeg,
            failure: { AVError.openFailure(url, $0) }, name: "“\(AVError.displayName(url))”")
        self.url = url
        self.data = nil
        super.init()
    }

    /// A player for a sound held in memory (the bytes of a file in any format FFmpeg reads); throws when the data
    /// is not audio. The data is read in memory: nothing is written to disk.
    public convenience init(data: Data) throws {
        try self.init(data: data, fileTypeHint: nil)
    }

    /// A player for a sound held in memory; `utiString` is accepted and not needed (the content is probed).
    public init(data: Data, fileTypeHint utiString: String?) throws {
        let bytes = [UInt8](data)
        let name = "data (\(bytes.count) bytes)"
        guard !bytes.isEmpty else {
            throw AVError.media(.fileFormatNotRecognized, "The data is empty: it holds no sound.")
        }
        media = try Self.probe(
            FFmpegSource(memory: bytes, name: name), location: name, factory: .memory(bytes),
            failure: { error in
                AVError.media(
                    .fileFormatNotRecognized, "The data is not a sound file in a format that can be read.",
                    reason: error.message, ffmpeg: error)
            }, name: "The data")
        self.url = nil
        self.data = data
        super.init()
    }

    /// Opens `source`, finds its audio and reads what it holds; the source is closed again.
    private static func probe(
        _ source: FFmpegSource, location: String, factory: MediaSourceFactory,
        failure: (FFmpegError) -> AVError, name: String
    ) throws -> Media {
        do {
            try source.open()
        } catch {
            throw failure(error)
        }
        let info = source.info
        guard
            let stream = info.streams.first(where: { $0.kind == .audio && !$0.disposition.contains(.attachedPicture) })
        else {
            throw AVError.media(
                .fileFormatNotRecognized, "\(name) contains no sound.",
                reason: "The \(info.formatLongName) input has no audio track.")
        }
        guard stream.hasDecoder else {
            throw AVError.media(
                .decoderNotFound, "\(name) is in a sound format that can't be decoded (\(stream.codecName)).",
                ffmpeg: MediaProbe.decoderNotFound)
        }
        let origin = max(0, info.startTimeMicroseconds ?? 0)
        var duration = info.durationMicroseconds.map { Double($0) / 1_000_000 } ?? 0
        if duration <= 0, let d = stream.duration, let base = stream.timeBase.nonZero {
            duration = Double(d) * base.doubleValue
        }
        return Media(
            location: location, sourceFactory: factory, audioStream: stream.index,
            timeOrigin: CMTime(value: origin, timescale: 1_000_000), duration: max(0, duration),
            durationIsExact: info.durationMicroseconds != nil && !info.durationFromBitrate,
            channelCount: stream.channelCount, sampleRate: stream.sampleRate)
    }

    deinit {
        let engine = state.withLock { s in
            let e = s.engine
            s.engine = nil
            return e
        }
        engine?.shutdown()
    }

    // MARK: Playing

    /// Readies playback: opens the audio device and starts reading and decoding the sound, so ``play()`` starts at
    /// once. Called by ``play()`` when needed. True when the player can play.
    @discardableResult
    open func prepareToPlay() -> Bool {
        let engine = engineCreatingIfNeeded()
        state.withLock { s in queueItem(&s, engine: engine) }
        return true
    }

    /// Plays from ``currentTime`` (from the start after the sound finished, from where it stopped after ``pause()``
    /// or ``stop()``). True when playback starts.
    @discardableResult
    open func play() -> Bool {
        startPlaying(atHost: nil)
    }

    /// Plays from ``currentTime`` at `time`, a time of the device's clock (``deviceCurrentTime``); a time already
    /// past starts at once. Several players started with the same `time` play in step.
    @discardableResult
    open func play(atTime time: TimeInterval) -> Bool {
        guard time.isFinite else { return false }
        return startPlaying(atHost: UInt64(max(0, time) * 1_000_000_000))
    }

    private func startPlaying(atHost host: UInt64?) -> Bool {
        let engine = engineCreatingIfNeeded()
        state.withLock { s in
            queueItem(&s, engine: engine)
            s.isPlaying = true
            let rate = s.enableRate ? s.rate : 1
            if let host {
                engine.setRate(rate, time: nil, atHost: host)
            } else {
                engine.setRate(rate)
            }
        }
        return true
    }

    /// Pauses; ``play()`` continues from here. The device and the decoded sound stay ready.
    open func pause() {
        state.withLock { s in
            s.isPlaying = false
            s.engine?.setRate(0)
        }
    }

    /// Stops playback and undoes ``prepareToPlay()``: the audio device is released and nothing stays decoded. Does
    /// not reset ``currentTime``: ``play()`` continues from where it stopped.
    open func stop() {
        let engine: PlayerEngine? = state.withLock { s in
            s.pendingTime = playTime(s)
            s.isPlaying = false
            s.current = nil
            s.loops = nil
            s.meters = ([], [])
            let engine = s.engine
            s.engine = nil
            return engine
        }
        // Joins the engine thread: never under the lock its events take.
        engine?.shutdown()
    }

    /// Whether the player is playing: true from ``play()`` until ``pause()``, ``stop()`` or the end of the sound.
    open var isPlaying: Bool { state.withLock { $0.isPlaying } }

    // MARK: Time

    /// The sound's length in seconds.
    open var duration: TimeInterval { media.duration }

    /// The playback position in seconds from the start of the sound (of the loop playing); while stopped, where
    /// ``play()`` starts. Setting it moves playback there (clamped to 0…``duration``), playing or not.
    open var currentTime: TimeInterval {
        get {
            state.withLock { playTime($0) }
        }
        set {
            guard newValue.isFinite else { return }
            let time = clamp(newValue)
            state.withLock { s in
                guard let engine = s.engine, let current = s.current, let loops = s.loops else {
                    s.pendingTime = time
                    return
                }
                // Within the play under way: its start on the item's timeline, plus the time asked for.
                let now = engine.currentTime(of: current)
                let pass = loops.pass(containing: containerMicros(now))
                let target =
                    itemTime(containerMicros: pass.start) + CMTime(seconds: time, preferredTimescale: 1_000_000)
                // An ordinary exact seek once the item is ready; where it starts while it prepares.
                engine.configure(current, .start(ItemSession.Start(time: target, mode: .exact), completion: nil))
            }
        }
    }

    /// The time of the audio device's clock in seconds, for ``play(atTime:)``: the host's monotonic clock (a
    /// virtual clock's time when the player runs on one); it moves whether or not the player plays.
    open var deviceCurrentTime: TimeInterval {
        let clock = state.withLock { $0.engine?.configuration.virtualClock } ?? (oavfSourceClock as? VirtualClock)
        return Double(MediaClock(clock).nanoseconds) / 1_000_000_000
    }

    /// The position in the play under way (seconds): the item's time less the start of the play it is in.
    func playTime(_ s: State) -> TimeInterval {
        guard let engine = s.engine, let current = s.current, let loops = s.loops else { return s.pendingTime }
        let t = engine.currentTime(of: current)
        guard t.isNumeric else { return s.pendingTime }
        let micros = containerMicros(t)
        let pass = loops.pass(containing: micros)
        return clamp(Double(micros - pass.start) / 1_000_000)
    }

    /// Container microseconds of an item time.
    func containerMicros(_ itemTime: CMTime) -> Int64 {
        (itemTime + media.timeOrigin).convertScale(1_000_000, method: .roundTowardNegativeInfinity).value
    }

    /// The item time of a container time in microseconds.
    func itemTime(containerMicros micros: Int64) -> CMTime {
        CMTime(value: micros, timescale: 1_000_000) - media.timeOrigin
    }

    func clamp(_ seconds: Double) -> Double {
        guard seconds.isFinite else { return 0 }
        return media.duration > 0 ? min(max(0, seconds), media.duration) : max(0, seconds)
    }

    // MARK: Sound

    /// The number of channels of the sound.
    open var numberOfChannels: Int { media.channelCount }

    /// The playback gain, 0…1 (linear; default 1). Setting it changes the gain at once (a 10 ms ramp, no click).
    open var volume: Float {
        get { state.withLock { $0.mix.volume } }
        set { setVolume(newValue, fadeDuration: 0) }
    }

    /// Moves ``volume`` to `volume` linearly over `duration` seconds of playback.
    open func setVolume(_ volume: Float, fadeDuration duration: TimeInterval) {
        let v = volume.isNaN ? 0 : min(max(volume, 0), 1)
        changeMix { mix in
            mix.volume = v
            mix.fadeDuration = duration.isFinite ? max(0, duration) : 0
        }
    }

    /// The stereo position, -1 (left) … 0 (centre, default) … 1 (right): the other channel is attenuated linearly.
    open var pan: Float {
        get { state.withLock { $0.mix.pan } }
        set {
            let p = newValue.isNaN ? 0 : min(max(newValue, -1), 1)
            changeMix { $0.pan = p }
        }
    }

    /// Whether ``rate`` applies (default false); set it before ``prepareToPlay()``, as on Apple's systems.
    open var enableRate: Bool {
        get { state.withLock { $0.enableRate } }
        set {
            state.withLock { s in
                s.enableRate = newValue
                if s.isPlaying { s.engine?.setRate(newValue ? s.rate : 1) }
            }
        }
    }

    /// The playback rate, 0.5…2 (default 1), pitch kept; only with ``enableRate``.
    open var rate: Float {
        get { state.withLock { $0.rate } }
        set {
            guard newValue.isFinite else { return }
            let r = min(max(newValue, 0.5), 2)
            state.withLock { s in
                s.rate = r
                if s.isPlaying && s.enableRate { s.engine?.setRate(r) }
            }
        }
    }

    /// How many times the sound repeats after its first play: 0 (default) plays it once, n plays it n + 1 times, a
    /// negative value loops until ``stop()``. Changing it while playing counts the plays already made, from the end
    /// of the play being read (the engine reads about a second ahead: in a sound's last second, or for a sound
    /// shorter than that, the next play); raising it from 0 while playing applies from the next ``play()``.
    open var numberOfLoops: Int {
        get { state.withLock { $0.numberOfLoops } }
        set {
            state.withLock { s in
                s.numberOfLoops = newValue
                s.loops?.numberOfLoops = newValue
            }
        }
    }

    // MARK: Delegate

    /// The delegate told of the end of playback and of decoding errors (held weakly), on the main queue.
    open var delegate: (any AVAudioPlayerDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }
}
