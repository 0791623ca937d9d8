import Foundation
import OAVFLocking
import PlaybackEngine

/// A track of a player item: whether the item presents it, and its current frame rate.
open class AVPlayerItemTrack: NSObject, @unchecked Sendable {
    /// The asset track behind it (not key-value observable).
    public let assetTrack: AVAssetTrack?
    /// Guards `enabled` and `item`: the app sets `isEnabled` on any thread. Public type: it keeps its lock for the
    /// value it publishes; the item posts the change to the engine.
    private let lock = ConditionLock()
    private var enabled: Bool
    private weak var item: AVPlayerItem?

    init(assetTrack: AVAssetTrack, enabled: Bool, item: AVPlayerItem) {
        self.assetTrack = assetTrack
        self.enabled = enabled
        self.item = item
        super.init()
    }

    /// Whether the item presents this track. Disabling the audio track silences it; disabling the
    /// video track stops decoding it; enabling another audio track plays it instead. Takes effect at
    /// once during playback, continuing from the same time.
    open var isEnabled: Bool {
        get {
            lock.lock()
            defer { lock.unlock() }
            return enabled
        }
        set {
            lock.lock()
            let changed = enabled != newValue
            enabled = newValue
            lock.unlock()
            guard changed, let item else { return }
            if newValue, assetTrack?.mediaType == .audio {
                // One audio track plays at a time: enabling one disables the others.
                for other in item.tracks where other !== self && other.assetTrack?.mediaType == .audio {
                    other.setEnabledSilently(false)
                }
                if let group = item.asset.mediaSelectionGroup(forMediaCharacteristic: .audible),
                    let option = group.options.first(where: { $0.trackID == assetTrack?.trackID })
                {
                    item.select(option, in: group)
                    return
                }
            }
            item.applyPlayedStreams()
        }
    }

    func setEnabledSilently(_ value: Bool) {
        lock.lock()
        enabled = value
        lock.unlock()
    }

    /// The video frame rate being played (0 when not playing or not video).
    open var currentVideoFrameRate: Float {
        guard let track = assetTrack, track.mediaType == .video, isEnabled,
            let player = item?.player, player.rate != 0, player.currentItem === item
        else { return 0 }
        return track.nominalFrameRate * abs(player.rate)
    }

    /// Field mode for interlaced video (stored; deinterlacing is automatic).
    open var videoFieldMode: String?
}

/// Apple's `AVPlayerItemTrackVideoFieldModeDeinterlaceFields`.
public let AVPlayerItemTrackVideoFieldModeDeinterlaceFields = "AVPlayerItemTrackVideoFieldModeDeinterlaceFields"

/// The time-pitch algorithm for audio at rates other than 1 (Apple's raw values).
public struct AVAudioTimePitchAlgorithm: RawRepresentable, Hashable, Sendable {
    /// The string Apple's framework uses for this value.
    public let rawValue: String
    /// Creates a value from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a value from its raw value (the unlabelled form of ``init(rawValue:)``).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Modest quality, low cost; suits voice. Rates 1/32…32.
    public static let timeDomain = AVAudioTimePitchAlgorithm(rawValue: "TimeDomain")
    /// Highest quality, most cost; suits music. Rates 1/32…32.
    public static let spectral = AVAudioTimePitchAlgorithm(rawValue: "Spectral")
    /// No pitch correction: pitch follows the rate. Rates 1/32…32.
    public static let varispeed = AVAudioTimePitchAlgorithm(rawValue: "Varispeed")
    /// Deprecated by Apple: snaps rates to {0.5, 0.666667, 0.8, 1.0, 1.25, 1.5, 2.0}.
    public static let lowQualityZeroLatency = AVAudioTimePitchAlgorithm(rawValue: "LowQualityZeroLatency")
}

/// Collects media data (date-range metadata of streams); abstract, as Apple's (see
/// ``AVPlayerItemMetadataCollector``).
open class AVPlayerItemMediaDataCollector: NSObject, @unchecked Sendable {
    /// Subclasses follow `session` on `engine` from here (nil: the item left its player, or the collector its
    /// item). Any thread, no lock held.
    func bindingChanged(session: ItemSession?, engine: PlayerEngine?) {}
}
