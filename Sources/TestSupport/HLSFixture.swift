import Foundation

/// An HTTP Live Streaming set of the generated test media, under `hls/` in the fixture folder; the raw value is the
/// path of its entry playlist. Serve the fixture folder with `HTTPTestServer` and open `server.url(rawValue)`.
///
/// A separate list from `Fixture`: these are folders of playlists and segments, not single media files, and the
/// tests that walk every `Fixture` (probing, decoding each track) do not apply to them. `facts` says what each holds
/// (checked against ffprobe by `HLSFixturesTests`).
///
/// Common to all: H.264 High at 30 fps with the frame-index strip (`FrameIndexReader`), 2 B-frames, closed GOPs of
/// 60 frames, so every 2 s segment starts with a keyframe, aligned across variants; AAC-LC stereo 48 kHz tones
/// (English and muxed audio 440 / 660 Hz, French 550 / 770 Hz).
public enum HLSFixture: String, CaseIterable, Sendable {
    /// One media playlist: 10 s of 320x240 H.264 + AAC (440 / 660 Hz) muxed in five 2 s MPEG-TS segments
    /// (`vod_000.ts` …), no dates. The simplest stream.
    case vod = "hls/vod.m3u8"
    /// A multivariant playlist over three MPEG-TS variants, 12 s in six 2 s segments each: 640x360 (400 kb/s),
    /// 960x540 (800 kb/s), 1280x720 (1500 kb/s), video only; an audio group `group_aud` with English (default)
    /// and French renditions; a subtitle group `subs` with one English WebVTT rendition (one cue per segment);
    /// EXT-X-PROGRAM-DATE-TIME from 2020-01-02T03:04:05.000Z on every media playlist but the subtitles'.
    case ts = "hls/ts/master.m3u8"
    /// `ts`'s 360p and 540p variants and audio group in fragmented MP4 (EXT-X-MAP init sections `<name>_init.mp4`,
    /// `.m4s` segments); no dates, no subtitles.
    case fmp4 = "hls/fmp4/master.m3u8"
    /// `vod`'s stream with AES-128-encrypted segments (`seg_000.ts` …): `EXT-X-KEY:METHOD=AES-128,URI="key.bin"`
    /// with an explicit IV; the key is `hls/aes/key.bin`.
    case aes = "hls/aes/index.m3u8"

    /// Options for `ffmpeg` / `ffprobe` before a local HLS fixture input (`ProbeReport`, `ReferenceDecoder`): the HLS
    /// demuxer refuses local files whose extension is not a media one, such as `aes`'s `key.bin`, unless told.
    public static let ffmpegInputOptions = ["-allowed_extensions", "ALL"]

    /// The folder the entry playlist lies in (relative to the fixture folder), where its URIs resolve.
    public var folder: String {
        (rawValue as NSString).deletingLastPathComponent
    }
}

extension Fixtures {
    /// The URL of `fixture`'s entry playlist inside `directory()`; throws if the set cannot be produced or lacks it.
    public static func url(_ fixture: HLSFixture) throws(FixtureError) -> URL {
        let url = try directory().appendingPathComponent(fixture.rawValue)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw FixtureError.missingFile(fixture.rawValue, in: url.deletingLastPathComponent())
        }
        return url
    }
}

/// What an `HLSFixture` holds, as `scripts/make-fixtures` makes it.
public struct HLSFacts: Sendable {
    /// The segments' container.
    public enum SegmentFormat: Sendable, Equatable {
        /// MPEG-TS (`.ts`), timestamps from 1.4 s (ffmpeg's muxer delay).
        case mpegTS
        /// Fragmented MP4 (`.m4s` after an EXT-X-MAP init section), timestamps from 0.
        case fragmentedMP4
    }

    /// The segments' container.
    public var segmentFormat: SegmentFormat
    /// Whether the entry playlist is multivariant (`EXT-X-STREAM-INF`) rather than a media playlist.
    public var isMultivariant: Bool
    /// The nominal duration in seconds.
    public var duration: Double
    /// `EXT-X-TARGETDURATION`.
    public var targetDuration: Int
    /// Every video segment's `EXTINF` (the last one too: the durations divide evenly).
    public var segmentDuration: Double
    /// The video every variant carries: frame count, rate and GOP (the same in each) and, for a media playlist,
    /// its size (for a multivariant playlist, the first variant's).
    public var video: VideoFacts
    /// The variants in playlist order (empty for a media playlist).
    public var variants: [HLSVariantFacts]
    /// The alternate audio renditions (`EXT-X-MEDIA:TYPE=AUDIO`) in playlist order.
    public var audioRenditions: [HLSRenditionFacts]
    /// The subtitle renditions (`EXT-X-MEDIA:TYPE=SUBTITLES`) in playlist order.
    public var subtitleRenditions: [HLSSubtitleRenditionFacts]
    /// The audio muxed into the video segments, if any.
    public var muxedAudio: AudioTrackFacts?
    /// The EXT-X-PROGRAM-DATE-TIME of every media playlist's first segment (later ones follow by the `EXTINF`s
    /// before them); `nil` when the playlists carry none. ffmpeg writes the wall clock; the script restates it.
    public var firstProgramDate: Date?
    /// The encryption, if the segments are encrypted.
    public var key: HLSKeyFacts?

    /// The number of video segments of each variant (or of the media playlist).
    public var videoSegmentCount: Int { Int((duration / segmentDuration).rounded(.up)) }

    public init(
        segmentFormat: SegmentFormat, isMultivariant: Bool, duration: Double, targetDuration: Int = 2,
        segmentDuration: Double = 2, video: VideoFacts, variants: [HLSVariantFacts] = [],
        audioRenditions: [HLSRenditionFacts] = [], subtitleRenditions: [HLSSubtitleRenditionFacts] = [],
        muxedAudio: AudioTrackFacts? = nil, firstProgramDate: Date? = nil, key: HLSKeyFacts? = nil
    ) {
        self.segmentFormat = segmentFormat
        self.isMultivariant = isMultivariant
        self.duration = duration
        self.targetDuration = targetDuration
        self.segmentDuration = segmentDuration
        self.video = video
        self.variants = variants
        self.audioRenditions = audioRenditions
        self.subtitleRenditions = subtitleRenditions
        self.muxedAudio = muxedAudio
        self.firstProgramDate = firstProgramDate
        self.key = key
    }
}

/// One variant (`EXT-X-STREAM-INF`) of a multivariant playlist.
public struct HLSVariantFacts: Sendable, Equatable {
    /// Its media playlist's URI, relative to the multivariant playlist (`"540p.m3u8"`).
    public var playlist: String
    public var width: Int
    public var height: Int
    /// The `BANDWIDTH` attribute in bits per second (ffmpeg's: the video's peak rate plus the audio group's).
    public var bandwidth: Int
    /// The video's target (and peak) rate in bits per second, as x264 was asked.
    public var videoBitRate: Int
    /// The `CODECS` attribute.
    public var codecs: String
    /// The EXT-X-MAP init section's URI (fragmented MP4 only).
    public var initSection: String?

    public init(
        playlist: String, width: Int, height: Int, bandwidth: Int, videoBitRate: Int, codecs: String,
        initSection: String? = nil
    ) {
        self.playlist = playlist
        self.width = width
        self.height = height
        self.bandwidth = bandwidth
        self.videoBitRate = videoBitRate
        self.codecs = codecs
        self.initSection = initSection
    }
}

/// An alternate audio rendition (`EXT-X-MEDIA:TYPE=AUDIO`).
public struct HLSRenditionFacts: Sendable {
    /// `GROUP-ID`.
    public var groupID: String
    /// `NAME`.
    public var name: String
    /// `LANGUAGE` (ISO 639-2, as the generator wrote it).
    public var language: String
    /// `DEFAULT=YES`.
    public var isDefault: Bool
    /// `AUTOSELECT=YES`.
    public var autoselect: Bool
    /// Its media playlist's URI, relative to the multivariant playlist.
    public var playlist: String
    /// Its media playlist's segment count (audio segments end on AAC frames, so their `EXTINF`s are near 2 s, and a
    /// last short one holds the encoder's tail).
    public var segmentCount: Int
    /// The sound.
    public var audio: AudioTrackFacts
    /// The EXT-X-MAP init section's URI (fragmented MP4 only).
    public var initSection: String?

    public init(
        groupID: String, name: String, language: String, isDefault: Bool, autoselect: Bool, playlist: String,
        segmentCount: Int, audio: AudioTrackFacts, initSection: String? = nil
    ) {
        self.groupID = groupID
        self.name = name
        self.language = language
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.playlist = playlist
        self.segmentCount = segmentCount
        self.audio = audio
        self.initSection = initSection
    }
}

/// A subtitle rendition (`EXT-X-MEDIA:TYPE=SUBTITLES`), WebVTT segments written by the script.
public struct HLSSubtitleRenditionFacts: Sendable {
    public var groupID: String
    public var name: String
    public var language: String
    public var isDefault: Bool
    public var autoselect: Bool
    public var isForced: Bool
    /// Its media playlist's URI, relative to the multivariant playlist.
    public var playlist: String
    /// One `.vtt` segment per 2 s; segment i holds cue i.
    public var segmentCount: Int
    /// The cues, in seconds from the first video frame (each segment's `X-TIMESTAMP-MAP` maps its local 0 to the
    /// first video frame's MPEG-TS time).
    public var cues: [SubtitleCue]

    public init(
        groupID: String, name: String, language: String, isDefault: Bool, autoselect: Bool, isForced: Bool,
        playlist: String, segmentCount: Int, cues: [SubtitleCue]
    ) {
        self.groupID = groupID
        self.name = name
        self.language = language
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.isForced = isForced
        self.playlist = playlist
        self.segmentCount = segmentCount
        self.cues = cues
    }
}

/// The encryption of an `HLSFixture`.
public struct HLSKeyFacts: Sendable, Equatable {
    /// `METHOD`: `"AES-128"`.
    public var method: String
    /// `URI`, relative to the media playlist.
    public var uri: String
    /// The 16 key bytes (the content of the key file).
    public var key: [UInt8]
    /// The 16 IV bytes the playlist states.
    public var iv: [UInt8]

    public init(method: String, uri: String, key: [UInt8], iv: [UInt8]) {
        self.method = method
        self.uri = uri
        self.key = key
        self.iv = iv
    }
}
