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
        public let rawValue: FourCharCode
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
        public static let video = MediaType(rawValue: kCMMediaType_Video)
        public static let audio = MediaType(rawValue: kCMMediaType_Audio)
        public static let muxed = MediaType(rawValue: kCMMediaType_Muxed)
        public static let text = MediaType(rawValue: kCMMediaType_Text)
        public static let closedCaption = MediaType(rawValue: kCMMediaType_ClosedCaption)
        public static let subtitle = MediaType(rawValue: kCMMediaType_Subtitle)
        public static let timeCode = MediaType(rawValue: kCMMediaType_TimeCode)
        public static let metadata = MediaType(rawValue: kCMMediaType_Metadata)
    }

    /// A four-character codec type (`'avc1'`, `'aac '`, …).
    public struct MediaSubType: RawRepresentable, Hashable, Sendable {
        public let rawValue: FourCharCode
        public init(rawValue: FourCharCode) { self.rawValue = rawValue }
        public init(_ rawValue: FourCharCode) { self.rawValue = rawValue }
        public static let h264 = MediaSubType(rawValue: kCMVideoCodecType_H264)
        public static let hevc = MediaSubType(rawValue: kCMVideoCodecType_HEVC)
        public static let mpeg4Video = MediaSubType(rawValue: kCMVideoCodecType_MPEG4Video)
        public static let mpeg2Video = MediaSubType(rawValue: kCMVideoCodecType_MPEG2Video)
        public static let vp9 = MediaSubType(rawValue: kCMVideoCodecType_VP9)
        public static let av1 = MediaSubType(rawValue: kCMVideoCodecType_AV1)
        public static let jpeg = MediaSubType(rawValue: kCMVideoCodecType_JPEG)
        public static let mpeg4AAC = MediaSubType(rawValue: kAudioFormatMPEG4AAC)
        public static let linearPCM = MediaSubType(rawValue: kAudioFormatLinearPCM)
        public static let mpegLayer3 = MediaSubType(rawValue: kAudioFormatMPEGLayer3)
        public static let flac = MediaSubType(rawValue: kAudioFormatFLAC)
        public static let opus = MediaSubType(rawValue: kAudioFormatOpus)
        public static let ac3 = MediaSubType(rawValue: kAudioFormatAC3)
        public static let webVTT = MediaSubType(rawValue: kCMTextFormatType_WebVTT)
        public static let qtText = MediaSubType(rawValue: kCMTextFormatType_QTText)
        public static let text3G = MediaSubType(rawValue: kCMTextFormatType_3GText)
    }

    public let mediaType: MediaType
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

    public static func == (lhs: CMFormatDescription, rhs: CMFormatDescription) -> Bool {
        lhs.mediaType == rhs.mediaType && lhs.mediaSubType == rhs.mediaSubType && lhs.dimensions == rhs.dimensions
            && lhs.audioStreamBasicDescription == rhs.audioStreamBasicDescription && lhs.extensions == rhs.extensions
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(mediaType)
        hasher.combine(mediaSubType)
    }

    fileprivate var asbdPointer: UnsafePointer<AudioStreamBasicDescription>? { asbdStorage.map { UnsafePointer($0) } }
}

public typealias CMVideoFormatDescription = CMFormatDescription
public typealias CMAudioFormatDescription = CMFormatDescription
public typealias CMMediaType = FourCharCode
public typealias CMVideoCodecType = FourCharCode
public typealias AudioFormatID = UInt32
public typealias AudioFormatFlags = UInt32

/// Video dimensions in pixels.
public struct CMVideoDimensions: Hashable, Sendable {
    public var width: Int32
    public var height: Int32
    public init() { self.init(width: 0, height: 0) }
    public init(width: Int32, height: Int32) {
        self.width = width
        self.height = height
    }
}

/// Core Audio's description of an audio stream (from CoreAudioTypes on Apple's systems).
public struct AudioStreamBasicDescription: Hashable, Sendable {
    public var mSampleRate: Float64
    public var mFormatID: AudioFormatID
    public var mFormatFlags: AudioFormatFlags
    public var mBytesPerPacket: UInt32
    public var mFramesPerPacket: UInt32
    public var mBytesPerFrame: UInt32
    public var mChannelsPerFrame: UInt32
    public var mBitsPerChannel: UInt32
    public var mReserved: UInt32
    public init() {
        self.init(
            mSampleRate: 0, mFormatID: 0, mFormatFlags: 0, mBytesPerPacket: 0, mFramesPerPacket: 0,
            mBytesPerFrame: 0, mChannelsPerFrame: 0, mBitsPerChannel: 0, mReserved: 0)
    }
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

public let kCMMediaType_Video: CMMediaType = fourCC("vide")
public let kCMMediaType_Audio: CMMediaType = fourCC("soun")
public let kCMMediaType_Muxed: CMMediaType = fourCC("muxx")
public let kCMMediaType_Text: CMMediaType = fourCC("text")
public let kCMMediaType_ClosedCaption: CMMediaType = fourCC("clcp")
public let kCMMediaType_Subtitle: CMMediaType = fourCC("sbtl")
public let kCMMediaType_TimeCode: CMMediaType = fourCC("tmcd")
public let kCMMediaType_Metadata: CMMediaType = fourCC("meta")

public let kCMVideoCodecType_H264: CMVideoCodecType = fourCC("avc1")
public let kCMVideoCodecType_HEVC: CMVideoCodecType = fourCC("hvc1")
public let kCMVideoCodecType_MPEG4Video: CMVideoCodecType = fourCC("mp4v")
public let kCMVideoCodecType_MPEG2Video: CMVideoCodecType = fourCC("mp2v")
public let kCMVideoCodecType_VP9: CMVideoCodecType = fourCC("vp09")
public let kCMVideoCodecType_AV1: CMVideoCodecType = fourCC("av01")
public let kCMVideoCodecType_JPEG: CMVideoCodecType = fourCC("jpeg")
public let kAudioFormatLinearPCM: AudioFormatID = fourCC("lpcm")
public let kAudioFormatMPEG4AAC: AudioFormatID = fourCC("aac ")
public let kAudioFormatMPEGLayer3: AudioFormatID = fourCC(".mp3")
public let kAudioFormatFLAC: AudioFormatID = fourCC("flac")
public let kAudioFormatOpus: AudioFormatID = fourCC("opus")
public let kAudioFormatAC3: AudioFormatID = fourCC("ac-3")
public let kCMTextFormatType_WebVTT: FourCharCode = fourCC("wvtt")
public let kCMTextFormatType_QTText: FourCharCode = fourCC("text")
public let kCMTextFormatType_3GText: FourCharCode = fourCC("tx3g")

public func CMFormatDescriptionGetMediaType(_ desc: CMFormatDescription) -> CMMediaType { desc.mediaType.rawValue }
public func CMFormatDescriptionGetMediaSubType(_ desc: CMFormatDescription) -> FourCharCode {
    desc.mediaSubType.rawValue
}
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
