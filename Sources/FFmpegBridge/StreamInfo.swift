import CFFmpeg

/// The kind of data a stream carries (`AVMediaType`).
public enum StreamKind: String, Sendable {
    case video, audio, subtitle, data, attachment, unknown

    init(_ t: AVMediaType) {
        switch t {
        case AVMEDIA_TYPE_VIDEO: self = .video
        case AVMEDIA_TYPE_AUDIO: self = .audio
        case AVMEDIA_TYPE_SUBTITLE: self = .subtitle
        case AVMEDIA_TYPE_DATA: self = .data
        case AVMEDIA_TYPE_ATTACHMENT: self = .attachment
        default: self = .unknown
        }
    }
}

/// An immutable description of one demuxed stream, read from `AVStream` / `AVCodecParameters`.
///
/// Times are in the stream's own ``timeBase`` so that nothing is rounded on the way up; the public
/// layer turns them into `CMTime` with the stream's timescale.
public struct StreamInfo: Sendable {
    /// Index in the container's stream array.
    public var index: Int
    /// The container's own identifier for the stream (MP4 track ID, MPEG-TS PID, …); 0 if none.
    public var containerID: Int32
    public var kind: StreamKind
    /// `AVCodecID` raw value; 0 (`AV_CODEC_ID_NONE`) when the container names a codec FFmpeg does not know.
    public var codecID: UInt32
    /// FFmpeg's short codec name ("h264", "aac"), or "none".
    public var codecName: String
    public var codecLongName: String
    /// The container's four-character code tag (0 when the container has none).
    public var codecTag: UInt32
    /// FFmpeg's profile name for the codec ("High", "LC"), if known.
    public var profileName: String?
    /// Whether this FFmpeg build has a decoder for the codec.
    public var hasDecoder: Bool
    public var timeBase: Rational
    /// First presentation timestamp in ``timeBase`` units, if known.
    public var startTime: Int64?
    /// Duration in ``timeBase`` units, if known.
    public var duration: Int64?
    /// Number of frames (samples), if the container says.
    public var frameCount: Int64?
    /// Bits per second, if known.
    public var bitRate: Int64?
    /// Bits per second estimated from the container (size / duration) when the stream does not say.
    public var disposition: Disposition
    public var metadata: [String: String]

    // Video
    public var width: Int
    public var height: Int
    public var sampleAspectRatio: Rational?
    public var averageFrameRate: Rational?
    public var realFrameRate: Rational?
    public var pixelFormatName: String?
    /// Display rotation in degrees counter-clockwise (`av_display_rotation_get`), 0 when none.
    public var rotationDegrees: Double
    /// Whether the display matrix mirrors the picture horizontally.
    public var isMirrored: Bool
    /// Whether the codec reorders frames (B-frames): `video_delay > 0`.
    public var hasReordering: Bool

    // Audio
    public var sampleRate: Int
    public var channelCount: Int
    public var channelLayoutName: String?
    public var sampleFormatName: String?

    public var language: String? { metadata["language"] }
    public var title: String? { metadata["title"] }

    public struct Disposition: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let `default` = Disposition(rawValue: AV_DISPOSITION_DEFAULT)
        public static let forced = Disposition(rawValue: AV_DISPOSITION_FORCED)
        public static let hearingImpaired = Disposition(rawValue: AV_DISPOSITION_HEARING_IMPAIRED)
        public static let visualImpaired = Disposition(rawValue: AV_DISPOSITION_VISUAL_IMPAIRED)
        public static let attachedPicture = Disposition(rawValue: AV_DISPOSITION_ATTACHED_PIC)
        public static let comment = Disposition(rawValue: AV_DISPOSITION_COMMENT)
        public static let descriptions = Disposition(rawValue: AV_DISPOSITION_DESCRIPTIONS)
        public static let captions = Disposition(rawValue: AV_DISPOSITION_CAPTIONS)
    }

    init(_ stream: UnsafeMutablePointer<AVStream>) {
        let s = stream.pointee
        let par = s.codecpar.pointee
        let noPTS = Rational.noPTS
        index = Int(s.index)
        containerID = s.id
        kind = StreamKind(par.codec_type)
        codecID = par.codec_id.rawValue
        codecName = String(cString: avcodec_get_name(par.codec_id))
        if let d = avcodec_descriptor_get(par.codec_id), let long = d.pointee.long_name {
            codecLongName = String(cString: long)
        } else {
            codecLongName = codecName
        }
        codecTag = par.codec_tag
        profileName = avcodec_profile_name(par.codec_id, par.profile).map { String(cString: $0) }
        hasDecoder = par.codec_id != AV_CODEC_ID_NONE && avcodec_find_decoder(par.codec_id) != nil
        timeBase = Rational(s.time_base)
        startTime = s.start_time == noPTS ? nil : s.start_time
        duration = (s.duration == noPTS || s.duration <= 0) ? nil : s.duration
        frameCount = s.nb_frames > 0 ? s.nb_frames : nil
        bitRate = par.bit_rate > 0 ? par.bit_rate : nil
        disposition = Disposition(rawValue: s.disposition)
        metadata = Dictionary(avDictionary: s.metadata)

        width = Int(par.width)
        height = Int(par.height)
        let sar = s.sample_aspect_ratio.num != 0 ? s.sample_aspect_ratio : par.sample_aspect_ratio
        sampleAspectRatio = Rational(sar).nonZero
        averageFrameRate = Rational(s.avg_frame_rate).nonZero
        realFrameRate = Rational(s.r_frame_rate).nonZero
        pixelFormatName = nil
        sampleFormatName = nil
        if kind == .video, par.format >= 0, let name = av_get_pix_fmt_name(AVPixelFormat(rawValue: par.format)) {
            pixelFormatName = String(cString: name)
        }
        if kind == .audio, par.format >= 0, let name = av_get_sample_fmt_name(AVSampleFormat(rawValue: par.format)) {
            sampleFormatName = String(cString: name)
        }
        hasReordering = par.video_delay > 0

        var rotation = 0.0
        var mirrored = false
        var size: Int = 0
        if let matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 9 * 4 {
            matrix.withMemoryRebound(to: Int32.self, capacity: 9) { m in
                let r = av_display_rotation_get(m)
                if r.isFinite { rotation = r == 0 ? 0 : r }  // normalise -0
                // A negative determinant of the 2x2 part means a mirror.
                let det = Int64(m[0]) * Int64(m[4]) - Int64(m[1]) * Int64(m[3])
                mirrored = det < 0
            }
        }
        rotationDegrees = rotation
        isMirrored = mirrored

        sampleRate = Int(par.sample_rate)
        channelCount = Int(par.ch_layout.nb_channels)
        if kind == .audio, par.ch_layout.nb_channels > 0 {
            var buf = [CChar](repeating: 0, count: 128)
            var layout = par.ch_layout
            if av_channel_layout_describe(&layout, &buf, buf.count) > 0 {
                channelLayoutName = String(
                    decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            } else {
                channelLayoutName = nil
            }
        } else {
            channelLayoutName = nil
        }
    }
}

/// A container-level chapter.
public struct ChapterInfo: Sendable {
    public var timeBase: Rational
    public var start: Int64
    public var end: Int64
    public var metadata: [String: String]
}

/// Everything the demuxer knows about an input after probing.
public struct MediaInfo: Sendable {
    /// The demuxer's short name list ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", …).
    public var formatName: String
    public var formatLongName: String
    /// Container duration in microseconds (`AV_TIME_BASE`), if known.
    public var durationMicroseconds: Int64?
    /// Container start time in microseconds, if known.
    public var startTimeMicroseconds: Int64?
    public var bitRate: Int64?
    /// Whether libavformat estimated the duration from the bit rate (imprecise) rather than from timestamps.
    public var durationFromBitrate: Bool
    /// Size of the input in bytes, if the I/O layer knows it.
    public var byteSize: Int64?
    public var metadata: [String: String]
    public var streams: [StreamInfo]
    public var chapters: [ChapterInfo]
}

extension Dictionary where Key == String, Value == String {
    /// Copies an `AVDictionary` (keys lower-cased, as FFmpeg's lookups are case-insensitive).
    init(avDictionary dict: OpaquePointer?) {
        self.init()
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let e = av_dict_get(dict, "", entry, AV_DICT_IGNORE_SUFFIX) {
            if let k = e.pointee.key, let v = e.pointee.value {
                self[String(cString: k).lowercased()] = String(cString: v)
            }
            entry = e
        }
    }
}
