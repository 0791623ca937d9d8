/// The type of media a track or selection option carries. Raw values are Apple's four-character
/// codes (apps compare them as strings).
public struct AVMediaType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let video = AVMediaType(rawValue: "vide")
    public static let audio = AVMediaType(rawValue: "soun")
    public static let text = AVMediaType(rawValue: "text")
    public static let closedCaption = AVMediaType(rawValue: "clcp")
    public static let subtitle = AVMediaType(rawValue: "sbtl")
    public static let timecode = AVMediaType(rawValue: "tmcd")
    public static let metadata = AVMediaType(rawValue: "meta")
    public static let muxed = AVMediaType(rawValue: "muxx")
    public static let haptic = AVMediaType(rawValue: "hapt")
    public static let depthData = AVMediaType(rawValue: "dpth")
}

/// A characteristic of media (`public.audible`, `public.legible`, …), with Apple's raw values.
public struct AVMediaCharacteristic: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let visual = AVMediaCharacteristic(rawValue: "public.visual")
    public static let audible = AVMediaCharacteristic(rawValue: "public.audible")
    public static let legible = AVMediaCharacteristic(rawValue: "public.legible")
    public static let frameBased = AVMediaCharacteristic(rawValue: "public.frame-based")
    public static let usesWideGamutColorSpace = AVMediaCharacteristic(rawValue: "public.wide-gamut")
    public static let containsHDRVideo = AVMediaCharacteristic(rawValue: "public.contains-hdr-video")
    public static let containsAlphaChannel = AVMediaCharacteristic(rawValue: "public.contains-alpha-channel")
    public static let isMainProgramContent = AVMediaCharacteristic(rawValue: "public.main-program-content")
    public static let isAuxiliaryContent = AVMediaCharacteristic(rawValue: "public.auxiliary-content")
    public static let isOriginalContent = AVMediaCharacteristic(rawValue: "public.original-content")
    public static let containsOnlyForcedSubtitles = AVMediaCharacteristic(rawValue: "public.subtitles.forced-only")
    public static let transcribesSpokenDialogForAccessibility = AVMediaCharacteristic(
        rawValue: "public.accessibility.transcribes-spoken-dialog")
    public static let describesMusicAndSoundForAccessibility = AVMediaCharacteristic(
        rawValue: "public.accessibility.describes-music-and-sound")
    public static let easyToRead = AVMediaCharacteristic(rawValue: "public.easy-to-read")
    public static let describesVideoForAccessibility = AVMediaCharacteristic(
        rawValue: "public.accessibility.describes-video")
    public static let languageTranslation = AVMediaCharacteristic(rawValue: "public.translation")
    public static let dubbedTranslation = AVMediaCharacteristic(rawValue: "public.translation.dubbed")
    public static let voiceOverTranslation = AVMediaCharacteristic(rawValue: "public.translation.voice-over")
}

/// A file type, with Apple's uniform type identifiers as raw values.
public struct AVFileType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let mov = AVFileType(rawValue: "com.apple.quicktime-movie")
    public static let mp4 = AVFileType(rawValue: "public.mpeg-4")
    public static let m4v = AVFileType(rawValue: "com.apple.m4v-video")
    public static let m4a = AVFileType(rawValue: "com.apple.m4a-audio")
    public static let mp3 = AVFileType(rawValue: "public.mp3")
    public static let wav = AVFileType(rawValue: "com.microsoft.waveform-audio")
    public static let aiff = AVFileType(rawValue: "public.aiff-audio")
    public static let caf = AVFileType(rawValue: "com.apple.coreaudio-format")
    public static let ac3 = AVFileType(rawValue: "public.ac3-audio")
    public static let mobile3GPP = AVFileType(rawValue: "public.3gpp")
    public static let AVCI = AVFileType(rawValue: "public.avci")
    public static let heic = AVFileType(rawValue: "public.heic")
    public static let jpg = AVFileType(rawValue: "public.jpeg")
}
