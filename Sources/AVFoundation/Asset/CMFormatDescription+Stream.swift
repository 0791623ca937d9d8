import CoreMedia
import PlaybackEngine

extension CMFormatDescription {
    /// FFmpeg codec names → Apple's codec four-character codes.
    private static let subTypes: [String: FourCharCode] = [
        "h264": kCMVideoCodecType_H264, "hevc": kCMVideoCodecType_HEVC, "mpeg4": kCMVideoCodecType_MPEG4Video,
        "mpeg2video": kCMVideoCodecType_MPEG2Video, "vp9": kCMVideoCodecType_VP9, "av1": kCMVideoCodecType_AV1,
        "mjpeg": kCMVideoCodecType_JPEG, "vp8": FourCC.value("vp08"), "prores": FourCC.value("apcn"),
        "aac": kAudioFormatMPEG4AAC, "mp3": kAudioFormatMPEGLayer3, "flac": kAudioFormatFLAC, "opus": kAudioFormatOpus,
        "ac3": kAudioFormatAC3, "eac3": FourCC.value("ec-3"), "alac": FourCC.value("alac"),
        "vorbis": FourCC.value("vorb"), "mp2": FourCC.value(".mp2"),
        "webvtt": kCMTextFormatType_WebVTT, "subrip": FourCC.value("text"), "mov_text": kCMTextFormatType_3GText,
        "ass": FourCC.value("ass "), "ssa": FourCC.value("ssa "),
    ]

    /// Describes a demuxed stream (the engine's description of it) the way Apple's format descriptions do.
    convenience init(stream s: StreamDescription, mediaType: AVMediaType) {
        var subType: FourCharCode = 0
        if s.codecName.hasPrefix("pcm_") {
            subType = kAudioFormatLinearPCM
        } else if let known = Self.subTypes[s.codecName] {
            subType = known
        } else {
            subType = s.codecTag  // whatever the container called it
        }
        var extensions = ["CodecName": s.codecName, "CodecLongName": s.codecLongName]
        if let p = s.profileName { extensions["Profile"] = p }
        if let l = s.channelLayoutName { extensions["ChannelLayout"] = l }
        var asbd: AudioStreamBasicDescription? = nil
        if s.kind == .audio {
            asbd = AudioStreamBasicDescription(
                mSampleRate: Float64(s.sampleRate), mFormatID: subType, mFormatFlags: 0, mBytesPerPacket: 0,
                mFramesPerPacket: 0, mBytesPerFrame: 0, mChannelsPerFrame: UInt32(max(0, s.channelCount)),
                mBitsPerChannel: 0, mReserved: 0)
        }
        self.init(
            mediaType: MediaType(rawValue: FourCC.value(mediaType.rawValue)),
            mediaSubType: MediaSubType(rawValue: subType),
            dimensions: CMVideoDimensions(width: Int32(s.width), height: Int32(s.height)),
            audioStreamBasicDescription: asbd, extensions: extensions)
    }
}
