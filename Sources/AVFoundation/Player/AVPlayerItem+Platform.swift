import CoreMedia
import Foundation

/// How a video's picture is scaled or cropped.
public struct AVVideoApertureMode: RawRepresentable, Hashable, Sendable {
    /// The mode's name (Apple's string).
    public let rawValue: String
    /// The mode named `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The pixel aspect ratio and the clean aperture are applied.
    public static let cleanAperture = AVVideoApertureMode(rawValue: "CleanAperture")
    /// The pixel aspect ratio is applied; the picture is not cropped to its clean aperture.
    public static let productionAperture = AVVideoApertureMode(rawValue: "ProductionAperture")
    /// The encoded dimensions are shown: neither the pixel aspect ratio nor the clean aperture is applied.
    public static let encodedPixels = AVVideoApertureMode(rawValue: "EncodedPixels")
}

/// The source channel layouts a player item allows to be spatialized.
public struct AVAudioSpatializationFormats: OptionSet, Sendable {
    /// The formats' bits (Apple's values: mono 1, stereo 2, multichannel 4).
    public let rawValue: UInt
    /// The formats whose bits `rawValue` has.
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Mono and stereo layouts.
    public static let monoAndStereo = AVAudioSpatializationFormats(rawValue: 0x3)
    /// Multichannel layouts.
    public static let multichannel = AVAudioSpatializationFormats(rawValue: 0x4)
    /// Mono, stereo and multichannel layouts.
    public static let monoStereoAndMultichannel = AVAudioSpatializationFormats(rawValue: 0x7)
}

extension AVPlayerItem {
    /// How the picture is scaled or cropped (default `.cleanAperture`): stored. The picture is always shown with its
    /// pixel aspect ratio applied and uncropped (a clean-aperture box is not read), as `.productionAperture` says.
    public var videoApertureMode: AVVideoApertureMode {
        get { read { $0.videoApertureMode } }
        set { mutate { $0.videoApertureMode = newValue } }
    }

    /// The source channel layouts the item allows to be spatialized. As Apple's, it defaults to
    /// `.monoStereoAndMultichannel` for video content and `.multichannel` for audio-only content (taken as video
    /// until the item knows its tracks). Stored: nothing spatializes sound here (it plays as the device's channels
    /// take it). Not key-value observable.
    public var allowedAudioSpatializationFormats: AVAudioSpatializationFormats {
        get {
            let (set, tracks) = read { ($0.allowedAudioSpatializationFormats, $0.tracks) }
            if let set { return set }
            let audioOnly = !tracks.isEmpty && !tracks.contains { $0.assetTrack?.mediaType == .video }
            return audioOnly ? .multichannel : .monoStereoAndMultichannel
        }
        set { mutate { $0.allowedAudioSpatializationFormats = newValue } }
    }

    /// Whether spatialization is allowed: whether ``allowedAudioSpatializationFormats`` allows any layout; setting
    /// false allows none, true the default for video content.
    @available(iOS, deprecated: 18.0, renamed: "allowedAudioSpatializationFormats")
    public var isAudioSpatializationAllowed: Bool {
        get { !allowedAudioSpatializationFormats.isEmpty }
        set { allowedAudioSpatializationFormats = newValue ? .monoStereoAndMultichannel : [] }
    }

    /// Whether per-frame HDR display metadata is applied (default true): stored; pictures are shown as standard
    /// dynamic range here (see `AVPlayer.eligibleForHDRPlayback`).
    public var appliesPerFrameHDRDisplayMetadata: Bool {
        get { read { $0.appliesPerFrameHDRDisplayMetadata } }
        set { mutate { $0.appliesPerFrameHDRDisplayMetadata = newValue } }
    }
}
