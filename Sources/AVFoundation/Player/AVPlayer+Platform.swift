import CoreMedia
import Foundation

/// Policies for audiovisual playback when the app goes to the background.
public enum AVPlayerAudiovisualBackgroundPlaybackPolicy: Int, Sendable {
    /// The system decides whether playback continues.
    case automatic = 1
    /// Playback pauses.
    case pauses = 2
    /// Playback continues if possible.
    case continuesIfPossible = 3

    /// The policy with Apple's raw value (1…3); nil for another value.
    public init?(rawValue: Int) {
        switch rawValue {
        case 1: self = .automatic
        case 2: self = .pauses
        case 3: self = .continuesIfPossible
        default: return nil
        }
    }
}

extension AVPlayer {
    /// How playback of audiovisual media continues when the app goes to the background (default `.automatic`):
    /// stored. A Linux process has no background state that pauses players, so playback always continues, as with
    /// `.continuesIfPossible`.
    public var audiovisualBackgroundPlaybackPolicy: AVPlayerAudiovisualBackgroundPlaybackPolicy {
        get { read { $0.audiovisualBackgroundPlaybackPolicy } }
        set { mutate { $0.audiovisualBackgroundPlaybackPolicy = newValue } }
    }

    /// The GPU the app prefers video decoding on (Apple: a Metal device's `registryID`; default 0, none): stored.
    /// Decoding here is FFmpeg's, on the CPU.
    public var preferredVideoDecoderGPURegistryID: UInt64 {
        get { read { $0.preferredVideoDecoderGPURegistryID } }
        set { mutate { $0.preferredVideoDecoderGPURegistryID = newValue } }
    }

    /// The clock the player's timebase follows: the old name of ``sourceClock`` (the same property).
    @available(iOS, deprecated: 18.0, renamed: "sourceClock")
    public var masterClock: CMClock? {
        get { sourceClock }
        set { sourceClock = newValue }
    }

    /// Whether the display can show HDR video: false. The window (an SDL surface) and the pixel-buffer outputs are
    /// standard dynamic range here; HDR streams play, tone-mapped by nothing, as their pixels are.
    public class var eligibleForHDRPlayback: Bool { false }

    /// Posted when ``eligibleForHDRPlayback`` changes: never here (it does not change).
    public static let eligibleForHDRPlaybackDidChangeNotification = NSNotification.Name(
        "AVPlayerEligibleForHDRPlaybackDidChangeNotification")

    /// HDR modes a display may support (deprecated by Apple in favour of ``eligibleForHDRPlayback``).
    public struct HDRMode: OptionSet, Sendable {
        /// The modes' bits (Apple's values).
        public let rawValue: Int
        /// The modes whose bits `rawValue` has.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Hybrid Log-Gamma.
        public static let hlg = HDRMode(rawValue: 0x1)
        /// HDR10.
        public static let hdr10 = HDRMode(rawValue: 0x2)
        /// Dolby Vision.
        public static let dolbyVision = HDRMode(rawValue: 0x4)
    }

    /// The HDR modes the display supports: none (see ``eligibleForHDRPlayback``).
    @available(iOS, deprecated: 100000, message: "Use eligibleForHDRPlayback instead")
    public class var availableHDRModes: HDRMode { [] }

    /// Posted when ``availableHDRModes`` changes: never here.
    @available(iOS, deprecated: 100000, message: "Use eligibleForHDRPlaybackDidChangeNotification instead")
    public static let availableHDRModesDidChangeNotification = NSNotification.Name(
        "AVPlayerAvailableHDRModesDidChangeNotification")
}
