/// The type of media a track or selection option carries. Raw values are Apple's four-character
/// codes (apps compare them as strings).
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    /// The string Apple's framework uses for this value.
    public let rawValue: String
    /// Creates a value from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a value from its raw value (the unlabelled form of ``init(rawValue:)``).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Video (`vide`).
    public static let video = AVMediaType(rawValue: "vide")
    /// Audio (`soun`).
    public static let audio = AVMediaType(rawValue: "soun")
    /// Text (`text`).
    public static let text = AVMediaType(rawValue: "text")
    /// Closed captions (`clcp`).
    public static let closedCaption = AVMediaType(rawValue: "clcp")
    /// Subtitles (`sbtl`).
    public static let subtitle = AVMediaType(rawValue: "sbtl")
    /// Time code (`tmcd`).
    public static let timecode = AVMediaType(rawValue: "tmcd")
    /// Timed metadata (`meta`).
    public static let metadata = AVMediaType(rawValue: "meta")
    /// Muxed audio and video (`muxx`).
    public static let muxed = AVMediaType(rawValue: "muxx")
    /// Haptics (`hapt`).
    public static let haptic = AVMediaType(rawValue: "hapt")
    /// Depth data (`dpth`).
    public static let depthData = AVMediaType(rawValue: "dpth")
}

/// A characteristic of media (`public.audible`, `public.legible`, …), with Apple's raw values.
public struct AVMediaCharacteristic: RawRepresentable, Hashable, Sendable {
    /// The string Apple's framework uses for this value.
    public let rawValue: String
    /// Creates a value from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a value from its raw value (the unlabelled form of ``init(rawValue:)``).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Visual media: video, pictures (`public.visual`).
    public static let visual = AVMediaCharacteristic(rawValue: "public.visual")
    /// Audible media (`public.audible`).
    public static let audible = AVMediaCharacteristic(rawValue: "public.audible")
    /// Legible media: subtitles, captions (`public.legible`).
    public static let legible = AVMediaCharacteristic(rawValue: "public.legible")
    /// Media made of frames (`public.frame-based`).
    public static let frameBased = AVMediaCharacteristic(rawValue: "public.frame-based")
    /// Video in a wide-gamut colour space (`public.wide-gamut`).
    public static let usesWideGamutColorSpace = AVMediaCharacteristic(rawValue: "public.wide-gamut")
    /// HDR video (`public.contains-hdr-video`).
    public static let containsHDRVideo = AVMediaCharacteristic(rawValue: "public.contains-hdr-video")
    /// Video with an alpha channel (`public.contains-alpha-channel`).
    public static let containsAlphaChannel = AVMediaCharacteristic(rawValue: "public.contains-alpha-channel")
    /// The main program content (`public.main-program-content`).
    public static let isMainProgramContent = AVMediaCharacteristic(rawValue: "public.main-program-content")
    /// Auxiliary content (`public.auxiliary-content`).
    public static let isAuxiliaryContent = AVMediaCharacteristic(rawValue: "public.auxiliary-content")
    /// Content in its original language (`public.original-content`).
    public static let isOriginalContent = AVMediaCharacteristic(rawValue: "public.original-content")
    /// Subtitles that are only forced ones (`public.subtitles.forced-only`).
    public static let containsOnlyForcedSubtitles = AVMediaCharacteristic(rawValue: "public.subtitles.forced-only")
    /// Transcribes spoken dialog, for accessibility (SDH subtitles).
    public static let transcribesSpokenDialogForAccessibility = AVMediaCharacteristic(
        rawValue: "public.accessibility.transcribes-spoken-dialog")
    /// Describes music and sound, for accessibility.
    public static let describesMusicAndSoundForAccessibility = AVMediaCharacteristic(
        rawValue: "public.accessibility.describes-music-and-sound")
    /// Easy-to-read text (`public.easy-to-read`).
    public static let easyToRead = AVMediaCharacteristic(rawValue: "public.easy-to-read")
    /// Describes the video, for accessibility (audio description).
    public static let describesVideoForAccessibility = AVMediaCharacteristic(
        rawValue: "public.accessibility.describes-video")
    /// A translation of the original language (`public.translation`).
    public static let languageTranslation = AVMediaCharacteristic(rawValue: "public.translation")
    /// A dubbed translation (`public.translation.dubbed`).
    public static let dubbedTranslation = AVMediaCharacteristic(rawValue: "public.translation.dubbed")
    /// A voice-over translation (`public.translation.voice-over`).
    public static let voiceOverTranslation = AVMediaCharacteristic(rawValue: "public.translation.voice-over")
}

/// A file type, with Apple's uniform type identifiers as raw values.
public struct AVFileType: RawRepresentable, Hashable, Sendable {
    /// The string Apple's framework uses for this value.
    public let rawValue: String
    /// Creates a value from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a value from its raw value (the unlabelled form of ``init(rawValue:)``).
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// QuickTime movie files (`com.apple.quicktime-movie`).
    public static let mov = AVFileType(rawValue: "com.apple.quicktime-movie")
    /// MPEG-4 files (`public.mpeg-4`).
    public static let mp4 = AVFileType(rawValue: "public.mpeg-4")
    /// iTunes video files (`com.apple.m4v-video`).
    public static let m4v = AVFileType(rawValue: "com.apple.m4v-video")
    /// Apple MPEG-4 audio files (`com.apple.m4a-audio`).
    public static let m4a = AVFileType(rawValue: "com.apple.m4a-audio")
    /// MP3 audio files (`public.mp3`).
    public static let mp3 = AVFileType(rawValue: "public.mp3")
    /// WAVE audio files (`com.microsoft.waveform-audio`).
    public static let wav = AVFileType(rawValue: "com.microsoft.waveform-audio")
    /// AIFF audio files (`public.aiff-audio`).
    public static let aiff = AVFileType(rawValue: "public.aiff-audio")
    /// Core Audio Format files (`com.apple.coreaudio-format`).
    public static let caf = AVFileType(rawValue: "com.apple.coreaudio-format")
    /// AC-3 audio files (`public.ac3-audio`).
    public static let ac3 = AVFileType(rawValue: "public.ac3-audio")
    /// 3GPP files (`public.3gpp`).
    public static let mobile3GPP = AVFileType(rawValue: "public.3gpp")
    /// AVC-Intra files (`public.avci`).
    public static let AVCI = AVFileType(rawValue: "public.avci")
    /// HEIC image files (`public.heic`).
    public static let heic = AVFileType(rawValue: "public.heic")
    /// JPEG image files (`public.jpeg`).
    public static let jpg = AVFileType(rawValue: "public.jpeg")
}
