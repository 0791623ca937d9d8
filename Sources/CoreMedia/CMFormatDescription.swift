import CoreVideo

/// A description of media samples: their media type, codec (`mediaSubType`) and, for video,
/// dimensions; for audio, the stream's basic description. As in Apple's CoreMedia, this is a
/// reference type; `CMVideoFormatDescription` and `CMAudioFormatDescription` are aliases of it.
///
/// Differs from Apple: created by the framework from demuxed streams; the `Extensions` dictionary
/// holds only what FFmpeg reports (codec name, profile).
public final class CMFormatDescription: Hashable, @unchecked Sendable {
    /// A four-character media type (`'vide'`, `'soun'`, …).
    public struct MediaType: RawRepresentable, Hashable, Sendable {
        /// The four-character code.
        public let rawValue: FourCharCode
        /// Creates a value from its raw value.
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
        /// Video (``kCMMediaType_Video``).
        public static let video = MediaType(rawValue: kCMMediaType_Video)
        /// Audio (``kCMMediaType_Audio``).
        public static let audio = MediaType(rawValue: kCMMediaType_Audio)
        /// Muxed audio and video (``kCMMediaType_Muxed``).
        public static let muxed = MediaType(rawValue: kCMMediaType_Muxed)
        /// Text (``kCMMediaType_Text``).
        public static let text = MediaType(rawValue: kCMMediaType_Text)
        /// Closed captions (``kCMMediaType_ClosedCaption``).
        public static let closedCaption = MediaType(rawValue: kCMMediaType_ClosedCaption)
        /// Subtitles (``kCMMediaType_Subtitle``).
        public static let subtitle = MediaType(rawValue: kCMMediaType_Subtitle)
        /// Time code (``kCMMediaType_TimeCode``).
        public static let timeCode = MediaType(rawValue: kCMMediaType_TimeCode)
        /// Timed metadata (``kCMMediaType_Metadata``).
        public static let metadata = MediaType(rawValue: kCMMediaType_Metadata)
    }

    /// A four-character codec type (`'avc1'`, `'aac '`, …).
    public struct MediaSubType: RawRepresentable, Hashable, Sendable {
        /// The four-character code.
        public let rawValue: FourCharCode
        /// Creates a value from its raw value.
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
        /// Creates a value from its raw value (the unlabelled form of ``init(rawValue:)``).
        public init(_ rawValue: FourCharCode) { self.rawValue = rawValue }
        /// H.264 (AVC) video (``kCMVideoCodecType_H264``).
        public static let h264 = MediaSubType(rawValue: kCMVideoCodecType_H264)
        /// HEVC (H.265) video (``kCMVideoCodecType_HEVC``).
        public static let hevc = MediaSubType(rawValue: kCMVideoCodecType_HEVC)
        /// MPEG-4 Part 2 video (``kCMVideoCodecType_MPEG4Video``).
        public static let mpeg4Video = MediaSubType(rawValue: kCMVideoCodecType_MPEG4Video)
        /// MPEG-2 video (``kCMVideoCodecType_MPEG2Video``).
        public static let mpeg2Video = MediaSubType(rawValue: kCMVideoCodecType_MPEG2Video)
        /// VP9 video (``kCMVideoCodecType_VP9``).
        public static let vp9 = MediaSubType(rawValue: kCMVideoCodecType_VP9)
        /// AV1 video (``kCMVideoCodecType_AV1``).
        public static let av1 = MediaSubType(rawValue: kCMVideoCodecType_AV1)
        /// JPEG (Motion JPEG) video (``kCMVideoCodecType_JPEG``).
        public static let jpeg = MediaSubType(rawValue: kCMVideoCodecType_JPEG)
        /// AAC audio (``kAudioFormatMPEG4AAC``).
        public static let mpeg4AAC = MediaSubType(rawValue: kAudioFormatMPEG4AAC)
        /// Linear PCM audio (``kAudioFormatLinearPCM``).
        public static let linearPCM = MediaSubType(rawValue: kAudioFormatLinearPCM)
        /// MP3 audio (``kAudioFormatMPEGLayer3``).
        public static let mpegLayer3 = MediaSubType(rawValue: kAudioFormatMPEGLayer3)
        /// FLAC audio (``kAudioFormatFLAC``).
        public static let flac = MediaSubType(rawValue: kAudioFormatFLAC)
        /// Opus audio (``kAudioFormatOpus``).
        public static let opus = MediaSubType(rawValue: kAudioFormatOpus)
        /// AC-3 (Dolby Digital) audio (``kAudioFormatAC3``).
        public static let ac3 = MediaSubType(rawValue: kAudioFormatAC3)
        /// WebVTT subtitles (``kCMTextFormatType_WebVTT``).
        public static let webVTT = MediaSubType(rawValue: kCMTextFormatType_WebVTT)
        /// QuickTime text (``kCMTextFormatType_QTText``).
        public static let qtText = MediaSubType(rawValue: kCMTextFormatType_QTText)
        /// 3GPP timed text (``kCMTextFormatType_3GText``).
        public static let text3G = MediaSubType(rawValue: kCMTextFormatType_3GText)
    }

    /// The four-character media type (video, audio, …).
    public let mediaType: MediaType
    /// The four-character codec type (H.264, AAC, …).
    public let mediaSubType: MediaSubType
    /// Encoded dimensions for video; zero otherwise.
    public let dimensions: CMVideoDimensions
    /// The audio stream description, for audio.
    public let audioStreamBasicDescription: AudioStreamBasicDescription?
    /// Extra facts by key (our keys: "CodecName", "CodecLongName", "Profile", "ChannelLayout").
    public let extensions: [String: String]

    /// Storage the C-style `CMAudioFormatDescriptionGetStreamBasicDescription` can point into.
    private let asbdStorage: UnsafeMutablePointer<AudioStreamBasicDescription>?

    package init(
        mediaType: MediaType, mediaSubType: MediaSubType, dimensions: CMVideoDimensions = CMVideoDimensions(),
        audioStreamBasicDescription: AudioStreamBasicDescription? = nil, extensions: [String: String] = [:]
    ) {
        self.mediaType = mediaType
        self.mediaSubType = mediaSubType
        self.dimensions = dimensions
        self.audioStreamBasicDescription = audioStreamBasicDescription
        self.extensions = extensions
        if let asbd = audioStreamBasicDescription {
            asbdStorage = .allocate(capacity: 1)
            asbdStorage!.initialize(to: asbd)
        } else {
            asbdStorage = nil
        }
    }

    deinit {
        asbdStorage?.deallocate()
    }

    /// Whether two descriptions have the same media type, codec, dimensions, audio format and extensions.
    public static func == (lhs: CMFormatDescription, rhs: CMFormatDescription) -> Bool {
        lhs.mediaType == rhs.mediaType && lhs.mediaSubType == rhs.mediaSubType && lhs.dimensions == rhs.dimensions
            && lhs.audioStreamBasicDescription == rhs.audioStreamBasicDescription && lhs.extensions == rhs.extensions
    }

    /// Hashes the media type and codec type.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(mediaType)
        hasher.combine(mediaSubType)
    }

    fileprivate var asbdPointer: UnsafePointer<AudioStreamBasicDescription>? { asbdStorage.map { UnsafePointer($0) } }
}

/// A format description of video (Apple's name).
public typealias CMVideoFormatDescription = CMFormatDescription
/// A format description of audio (Apple's name).
public typealias CMAudioFormatDescription = CMFormatDescription
/// A four-character media type (`'vide'`, `'soun'`, …).
public typealias CMMediaType = FourCharCode
/// A four-character video codec type (`'avc1'`, …).
public typealias CMVideoCodecType = FourCharCode
/// A four-character audio format (`'aac '`, …).
public typealias AudioFormatID = UInt32
/// Flags of an audio format.
public typealias AudioFormatFlags = UInt32

/// Video dimensions in pixels.
public struct CMVideoDimensions: Hashable, Sendable {
    /// The width, in pixels.
    public var width: Int32
    /// The height, in pixels.
    public var height: Int32
    /// Zero dimensions.
    public init() { self.init(width: 0, height: 0) }
    /// Dimensions of a width and a height, in pixels.
    public init(width: Int32, height: Int32) {
        self.width = width
        self.height = height
    }
}

/// Core Audio's description of an audio stream (from CoreAudioTypes on Apple's systems).
public struct AudioStreamBasicDescription: Hashable, Sendable {
    /// Frames per second of the audio.
    public var mSampleRate: Float64
    /// The audio format (`kAudioFormatMPEG4AAC`, …).
    public var mFormatID: AudioFormatID
    /// Flags of the format.
    public var mFormatFlags: AudioFormatFlags
    /// Bytes per packet (0 for variable-size packets).
    public var mBytesPerPacket: UInt32
    /// Frames per packet.
    public var mFramesPerPacket: UInt32
    /// Bytes per frame (0 for compressed formats).
    public var mBytesPerFrame: UInt32
    /// Channels per frame.
    public var mChannelsPerFrame: UInt32
    /// Bits per channel (0 for compressed formats).
    public var mBitsPerChannel: UInt32
    /// Unused; 0.
    public var mReserved: UInt32
    /// A description with every field 0.
    public init() {
        self.init(
            mSampleRate: 0, mFormatID: 0, mFormatFlags: 0, mBytesPerPacket: 0, mFramesPerPacket: 0,
            mBytesPerFrame: 0, mChannelsPerFrame: 0, mBitsPerChannel: 0, mReserved: 0)
    }
    /// A description with every field given.
    public init(
        mSampleRate: Float64, mFormatID: AudioFormatID, mFormatFlags: AudioFormatFlags, mBytesPerPacket: UInt32,
        mFramesPerPacket: UInt32, mBytesPerFrame: UInt32, mChannelsPerFrame: UInt32, mBitsPerChannel: UInt32,
        mReserved: UInt32
    ) {
        self.mSampleRate = mSampleRate
        self.mFormatID = mFormatID
        self.mFormatFlags = mFormatFlags
        self.mBytesPerPacket = mBytesPerPacket
        self.mFramesPerPacket = mFramesPerPacket
        self.mBytesPerFrame = mBytesPerFrame
        self.mChannelsPerFrame = mChannelsPerFrame
        self.mBitsPerChannel = mBitsPerChannel
        self.mReserved = mReserved
    }
}

private func fourCC(_ s: StaticString) -> FourCharCode {
    var v: FourCharCode = 0
    s.withUTF8Buffer { for b in $0 { v = v << 8 | FourCharCode(b) } }
    return v
}

/// The media type code of video (`'vide'`).
public let kCMMediaType_Video: CMMediaType = fourCC("vide")
/// The media type code of audio (`'soun'`).
public let kCMMediaType_Audio: CMMediaType = fourCC("soun")
/// The media type code of muxed audio and video (`'muxx'`).
public let kCMMediaType_Muxed: CMMediaType = fourCC("muxx")
/// The media type code of text (`'text'`).
public let kCMMediaType_Text: CMMediaType = fourCC("text")
/// The media type code of closed captions (`'clcp'`).
public let kCMMediaType_ClosedCaption: CMMediaType = fourCC("clcp")
/// The media type code of subtitles (`'sbtl'`).
public let kCMMediaType_Subtitle: CMMediaType = fourCC("sbtl")
/// The media type code of time code (`'tmcd'`).
public let kCMMediaType_TimeCode: CMMediaType = fourCC("tmcd")
/// The media type code of timed metadata (`'meta'`).
public let kCMMediaType_Metadata: CMMediaType = fourCC("meta")

/// The format code of H.264 (AVC) video (`'avc1'`).
public let kCMVideoCodecType_H264: CMVideoCodecType = fourCC("avc1")
/// The format code of HEVC (H.265) video (`'hvc1'`).
public let kCMVideoCodecType_HEVC: CMVideoCodecType = fourCC("hvc1")
/// The format code of MPEG-4 Part 2 video (`'mp4v'`).
public let kCMVideoCodecType_MPEG4Video: CMVideoCodecType = fourCC("mp4v")
/// The format code of MPEG-2 video (`'mp2v'`).
public let kCMVideoCodecType_MPEG2Video: CMVideoCodecType = fourCC("mp2v")
/// The format code of VP9 video (`'vp09'`).
public let kCMVideoCodecType_VP9: CMVideoCodecType = fourCC("vp09")
/// The format code of AV1 video (`'av01'`).
public let kCMVideoCodecType_AV1: CMVideoCodecType = fourCC("av01")
/// The format code of JPEG (Motion JPEG) video (`'jpeg'`).
public let kCMVideoCodecType_JPEG: CMVideoCodecType = fourCC("jpeg")
/// The format code of linear PCM audio (`'lpcm'`).
public let kAudioFormatLinearPCM: AudioFormatID = fourCC("lpcm")
/// The format code of AAC audio (`'aac '`).
public let kAudioFormatMPEG4AAC: AudioFormatID = fourCC("aac ")
/// The format code of MP3 audio (`'.mp3'`).
public let kAudioFormatMPEGLayer3: AudioFormatID = fourCC(".mp3")
/// The format code of FLAC audio (`'flac'`).
public let kAudioFormatFLAC: AudioFormatID = fourCC("flac")
/// The format code of Opus audio (`'opus'`).
public let kAudioFormatOpus: AudioFormatID = fourCC("opus")
/// The format code of AC-3 (Dolby Digital) audio (`'ac-3'`).
public let kAudioFormatAC3: AudioFormatID = fourCC("ac-3")
/// The format code of WebVTT subtitles (`'wvtt'`).
public let kCMTextFormatType_WebVTT: FourCharCode = fourCC("wvtt")
/// The format code of QuickTime text (`'text'`).
public let kCMTextFormatType_QTText: FourCharCode = fourCC("text")
/// The format code of 3GPP timed text (`'tx3g'`).
public let kCMTextFormatType_3GText: FourCharCode = fourCC("tx3g")

/// The media type of a format description, as Apple's `CMFormatDescriptionGetMediaType`.
public func CMFormatDescriptionGetMediaType(_ desc: CMFormatDescription) -> CMMediaType { desc.mediaType.rawValue }
/// The codec type of a format description, as Apple's `CMFormatDescriptionGetMediaSubType`.
public func CMFormatDescriptionGetMediaSubType(_ desc: CMFormatDescription) -> FourCharCode {
    desc.mediaSubType.rawValue
}
/// The dimensions of a video format description, as Apple's `CMVideoFormatDescriptionGetDimensions`.
public func CMVideoFormatDescriptionGetDimensions(_ videoDesc: CMVideoFormatDescription) -> CMVideoDimensions {
    videoDesc.dimensions
}
/// Points into storage owned by `desc`; valid while `desc` lives (as Apple documents).
public func CMAudioFormatDescriptionGetStreamBasicDescription(
    _ desc: CMAudioFormatDescription
)
    -> UnsafePointer<AudioStreamBasicDescription>?
{
    desc.asbdPointer
}
