import CoreMedia
import Foundation

/// What the engine needs to play one item: where it is and which streams to play.
package struct ItemDescriptor: Sendable {
    /// A path or URL the item's ``MediaSource`` reads.
    package var location: String
    /// How to open a network input (timeouts, reconnection, user agent, headers).
    package var sourceOptions = SourceOptions()
    /// Further demuxer/protocol options, as they are.
    package var options: [String: String]
    /// Makes the source that reads ``location``.
    package var sourceFactory = MediaSourceFactory.ffmpeg
    /// Container stream index of the video to present, if any (chosen from ``streamPreferences`` when set).
    package var videoStream: Int?
    /// Container stream index of the audio to play, if any (chosen from ``streamPreferences`` when set).
    package var audioStream: Int?
    /// When set, the engine chooses ``videoStream`` and ``audioStream`` itself once the source is open
    /// (``StreamChooser``).
    package var streamPreferences: StreamPreferences?
    /// Container time that is item time zero (see `AssetDescription.timeOrigin`).
    package var timeOrigin: CMTime
    /// The item's duration (item time), `.indefinite` when unknown.
    package var duration: CMTime
    /// Whether the container's index states the duration (not an estimate): media that ends well
    /// before it was cut short, and playback fails to play to its end.
    package var durationIsExact: Bool = false
    /// Seconds to read ahead of the playhead (`preferredForwardBufferDuration`); nil lets the engine choose.
    package var forwardBufferDuration: Double?
    /// The app's variant policy for a streamed source with variants (HLS), handed to the source before it reads;
    /// nil: the source's own.
    package var variantPolicy: (any VariantPolicy)?

    package init(
        location: String, options: [String: String] = [:], videoStream: Int?, audioStream: Int?,
        timeOrigin: CMTime = .zero, duration: CMTime
    ) {
        self.location = location
        self.options = options
        self.videoStream = videoStream
        self.audioStream = audioStream
        self.timeOrigin = timeOrigin
        self.duration = duration
    }

    /// An item whose streams the engine chooses under `preferences` once its source is open.
    package init(
        location: String, options: [String: String] = [:], streamPreferences: StreamPreferences,
        timeOrigin: CMTime = .zero, duration: CMTime
    ) {
        self.init(
            location: location, options: options, videoStream: nil, audioStream: nil, timeOrigin: timeOrigin,
            duration: duration)
        self.streamPreferences = streamPreferences
    }
}

/// Why the engine waits instead of playing (Apple's `AVPlayer.WaitingReason` values).
package enum WaitReason: Sendable, Equatable {
    case toMinimizeStalls
    case evaluatingBufferingRate
    case noItemToPlay
}

/// The engine's `AVPlayer.TimeControlStatus`.
package enum TimeControl: Sendable, Equatable {
    case paused
    case waiting(WaitReason)
    case playing
}

/// Buffering state of an item, as `AVPlayerItem` publishes it.
package struct BufferState: Sendable, Equatable {
    /// Item-time range from the playhead to the end of what is demuxed.
    package var loaded: CMTimeRange?
    package var isEmpty: Bool
    package var isFull: Bool
    package var isLikelyToKeepUp: Bool
    /// A live stream's seekable window in item time (it moves as the playlist is reloaded); nil otherwise.
    package var liveWindow: CMTimeRange?

    package init(
        loaded: CMTimeRange?, isEmpty: Bool, isFull: Bool, isLikelyToKeepUp: Bool, liveWindow: CMTimeRange? = nil
    ) {
        self.loaded = loaded
        self.isEmpty = isEmpty
        self.isFull = isFull
        self.isLikelyToKeepUp = isLikelyToKeepUp
        self.liveWindow = liveWindow
    }

    package static let initial = BufferState(loaded: nil, isEmpty: true, isFull: false, isLikelyToKeepUp: false)
}

/// Counters for logs and tests.
package struct PlaybackStatistics: Sendable, Equatable {
    package var framesPresented = 0
    package var framesDropped = 0
    package var audioFramesRendered = 0
    package var audioUnderruns = 0
    package var stalls = 0
    package var decodeErrors = 0
    /// Pictures the current item's video decoder delivered (pictures skipped at high rates are not decoded).
    package var videoFramesDecoded = 0
    package init() {}
}

/// What the engine tells its owner. Delivered on the engine thread, never under an engine lock.
/// Receives the engine's events on the engine thread: the event, and the sequence number of the last command the
/// engine had applied when it happened (``PlayerEngine`` returns a rate command's number when posting it). A report
/// as of an earlier command than one the owner has posted since is stale: the engine had not seen that command yet,
/// and reports again once it has.
package typealias EngineEventHandler = @Sendable (_ event: EngineEvent, _ asOf: UInt64) -> Void

package enum EngineEvent: Sendable {
    /// The session opened and its first frames are decoded.
    case itemReady(ItemSession)
    /// The session could not be prepared.
    case itemFailed(ItemSession, any Error)
    /// Playback reached the item's end (or its forward end time).
    case itemPlayedToEnd(ItemSession)
    /// Playback could not continue (an unrecoverable read error).
    case itemFailedToPlayToEnd(ItemSession, any Error)
    /// The engine moved on to the next session of its queue (or to none).
    case currentItemChanged(from: ItemSession?, to: ItemSession?)
    case timeControlChanged(TimeControl)
    /// The engine set the rate itself (to 0 at an item's end with `.pause`).
    case rateChanged(Float)
    case timeJumped(ItemSession)
    case stalled(ItemSession)
    case bufferChanged(ItemSession, BufferState)
    /// The playhead entered the period of another variant of a streamed source (HLS adaptive bitrate).
    case variantChanged(ItemSession)
    /// The machine has no sound system: playback continues on the system clock, without sound.
    case audioDeviceUnavailable(String)
    /// The audio device failed to open (`lost` false) or was lost and could not be reopened: the player can no
    /// longer play.
    case audioDeviceFailed(String, lost: Bool)
}

/// What happens when an item ends (Apple's `AVPlayer.ActionAtItemEnd`).
package enum EndAction: Sendable, Equatable {
    case advance, pause, none
}

/// How a seek lands (Apple's tolerances).
package enum SeekMode: Sendable, Equatable {
    /// Zero tolerances: the frame whose display interval contains the target; time = target.
    case exact
    /// Infinite tolerances: the keyframe at or before the target, without decoding to it.
    case fast
    /// A window `[target − before, target + after]`: a keyframe inside it if there is one, else exact.
    case window(before: CMTime, after: CMTime)
}
