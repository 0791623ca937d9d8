import Foundation

extension Fixture {
    /// What the file holds; kept in step with `scripts/make-fixtures` (TestSupportTests checks them with ffprobe).
    public var facts: FixtureFacts {
        switch self {
        case .h264AAC:
            return FixtureFacts(
                outcome: .plays, container: Self.mp4, duration: 10,
                video: .h264(frameCount: 300), audio: [.aac],
                metadata: [
                    "title": "OpenAVFoundation Test", "artist": "Fixture Artist", "album": "Fixture Album",
                    "creation_time": "2020-01-02T03:04:05.000000Z",
                ])
        case .hevcMKV:
            return FixtureFacts(
                outcome: .plays, container: Self.matroska, duration: 3,
                video: VideoFacts(
                    codec: "hevc", width: 320, height: 240, frameCount: 90, keyframeInterval: 60,
                    hasBFrames: true),
                audio: [.aac])
        case .vp9OpusWebM:
            return FixtureFacts(
                outcome: .plays, container: Self.matroska, duration: 3,
                video: VideoFacts(
                    codec: "vp9", width: 320, height: 240, frameCount: 90, keyframeInterval: 60,
                    hasBFrames: false),
                audio: [AudioTrackFacts(codec: "opus")])
        case .h264AACTS:
            return FixtureFacts(
                outcome: .plays, container: "mpegts", duration: 3, video: .h264(frameCount: 90), audio: [.aac])
        case .dumpH264FLAC:
            return FixtureFacts(
                outcome: .plays, container: Self.matroska, duration: 4,
                video: VideoFacts(
                    codec: "h264", width: 320, height: 180, frameCount: 120, keyframeInterval: 30,
                    hasBFrames: true),
                audio: [AudioTrackFacts(codec: "flac")])
        case .audioMP3:
            return FixtureFacts(
                outcome: .plays, container: "mp3", duration: 3, video: nil, audio: [AudioTrackFacts(codec: "mp3")],
                metadata: ["title": "OpenAVFoundation Tone", "artist": "Fixture Artist"])
        case .audioFLAC:
            return FixtureFacts(
                outcome: .plays, container: "flac", duration: 3, video: nil, audio: [AudioTrackFacts(codec: "flac")])
        case .audioWAV:
            return FixtureFacts(
                outcome: .plays, container: "wav", duration: 3, video: nil,
                audio: [AudioTrackFacts(codec: "pcm_s16le")])
        case .videoOnly:
            return FixtureFacts(
                outcome: .plays, container: Self.mp4, duration: 3, video: .h264(frameCount: 90), audio: [])
        case .video25AAC:
            return FixtureFacts(
                outcome: .plays, container: Self.mp4, duration: 4,
                video: VideoFacts(
                    codec: "h264", width: 320, height: 240, framesPerSecond: 25, frameCount: 100,
                    keyframeInterval: 60, hasBFrames: true),
                audio: [.aac])
        case .hdr10HEVC:
            return FixtureFacts(
                outcome: .plays, container: Self.mp4, duration: 2,
                video: VideoFacts(
                    codec: "hevc", width: 320, height: 240, pixelFormat: "yuv420p10le", frameCount: 60,
                    keyframeInterval: 60, hasBFrames: false),
                audio: [])
        case .audioOnly:
            return FixtureFacts(outcome: .plays, container: Self.mp4, duration: 3, video: nil, audio: [.aac])
        case .multiAudioSubtitles:
            return FixtureFacts(
                outcome: .plays, container: Self.matroska, duration: 5, video: .h264(frameCount: 150),
                audio: [
                    AudioTrackFacts(codec: "aac", language: "eng", title: "English"),
                    AudioTrackFacts(codec: "aac", tones: [550, 770], language: "fra", title: "Français"),
                ],
                subtitles: [
                    SubtitleTrackFacts(
                        codec: "subrip", language: "eng", title: "English",
                        cues: Self.cues(["Hello 1", "Hello 2", "Hello 3"])),
                    SubtitleTrackFacts(
                        codec: "webvtt", language: "fra", title: "Français",
                        cues: Self.cues(["Bonjour 1", "Bonjour 2", "Bonjour 3"])),
                ])
        case .forcedSubtitles:
            return FixtureFacts(
                outcome: .plays, container: Self.matroska, duration: 5, video: .h264(frameCount: 150),
                audio: [
                    AudioTrackFacts(codec: "aac", language: "eng", title: "English"),
                    AudioTrackFacts(codec: "aac", tones: [550, 770], language: "fra", title: "Français"),
                ],
                subtitles: [
                    SubtitleTrackFacts(
                        codec: "subrip", language: "eng", title: "English",
                        cues: Self.cues(["Hello 1", "Hello 2", "Hello 3"])),
                    SubtitleTrackFacts(
                        codec: "subrip", language: "eng", title: "English (forced)",
                        cues: Self.cues(["Forced eng 1", "Forced eng 2", "Forced eng 3"])),
                    SubtitleTrackFacts(
                        codec: "subrip", language: "fra", title: "Français (forced)",
                        cues: Self.cues(["Forced fra 1", "Forced fra 2", "Forced fra 3"])),
                ])
        case .subtitles:
            var video = VideoFacts.h264(frameCount: 180)
            video.keyframeInterval = 30
            return FixtureFacts(
                outcome: .plays, container: Self.matroska, duration: 6, video: video, audio: [.aac],
                subtitles: [
                    SubtitleTrackFacts(codec: "subrip", language: "eng", title: "SubRip", cues: Self.styledCues(5)),
                    SubtitleTrackFacts(codec: "ass", language: "eng", title: "ASS", cues: Self.styledCues(6)),
                    SubtitleTrackFacts(codec: "webvtt", language: "eng", title: "WebVTT", cues: Self.styledCues(5)),
                ])
        case .subtitlesMovText:
            var video = VideoFacts.h264(frameCount: 180)
            video.keyframeInterval = 30
            return FixtureFacts(
                outcome: .plays, container: Self.mp4, duration: 6, video: video, audio: [.aac],
                subtitles: [
                    SubtitleTrackFacts(codec: "mov_text", language: "eng", title: nil, cues: Self.styledCues(5))
                ])
        case .bitmapSubtitles:
            return FixtureFacts(
                outcome: .plays, container: Self.matroska, duration: 5, video: .h264(frameCount: 150), audio: [],
                subtitles: [
                    SubtitleTrackFacts(codec: "hdmv_pgs_subtitle", language: "eng", title: "PGS", cues: []),
                    SubtitleTrackFacts(codec: "dvd_subtitle", language: "eng", title: "DVD", cues: []),
                    SubtitleTrackFacts(codec: "dvb_subtitle", language: "eng", title: "DVB", cues: []),
                ])
        case .captions608, .captions708:
            var video = VideoFacts.h264(frameCount: 120)
            video.keyframeInterval = 30
            video.hasBFrames = false
            return FixtureFacts(outcome: .plays, container: Self.mp4, duration: 4, video: video, audio: [])
        case .rotated90:
            var video = VideoFacts.h264(frameCount: 90)
            video.rotation = -90
            return FixtureFacts(outcome: .plays, container: Self.mp4, duration: 3, video: video, audio: [.aac])
        case .odd321x241:
            return FixtureFacts(
                outcome: .plays, container: Self.matroska, duration: 2,
                video: VideoFacts(
                    codec: "vp9", width: 321, height: 241, frameCount: 60, keyframeInterval: nil,
                    hasBFrames: false),
                audio: [])
        case .variableFrameRate:
            var video = VideoFacts.h264(frameCount: 100)
            video.timing = .fixtureVariable
            return FixtureFacts(outcome: .plays, container: Self.mp4, duration: 4, video: video, audio: [.aac])
        case .longGOP1080p:
            return FixtureFacts(
                outcome: .plays, container: Self.mp4, duration: 30,
                video: VideoFacts(
                    codec: "h264", width: 1920, height: 1080, frameCount: 900, keyframeInterval: 300,
                    hasBFrames: true),
                audio: [.aac])
        case .truncated, .corruptHeader, .empty, .text:
            return FixtureFacts(outcome: .failsToOpen, container: nil, duration: nil, video: nil, audio: [])
        case .truncatedFaststart:
            var facts = Fixture.h264AAC.facts
            facts.outcome = .endsEarly
            facts.dataEndsAfter = 5.9
            return facts
        case .corruptMiddle:
            var facts = Fixture.h264AAC.facts
            facts.outcome = .decodeErrors
            return facts
        case .unknownCodec:
            return FixtureFacts(
                outcome: .undecodableVideo, container: "avi", duration: 3,
                video: VideoFacts(
                    codec: "unknown", width: 320, height: 240, pixelFormat: nil, frameCount: 90,
                    keyframeInterval: 60, hasBFrames: true),
                audio: [])
        case .demo:
            var video = VideoFacts.h264(frameCount: 240)
            video.width = 640
            video.height = 360
            return FixtureFacts(outcome: .plays, container: Self.mp4, duration: 8, video: video, audio: [.aac])
        case .bPyramidH264:
            return FixtureFacts(
                outcome: .plays, container: Self.mp4, duration: 10,
                video: VideoFacts(
                    codec: "h264", width: 320, height: 240, frameCount: 300, keyframeInterval: 300,
                    hasBFrames: true),
                audio: [])
        case .hevcBPyramid:
            return FixtureFacts(
                outcome: .plays, container: Self.mp4, duration: 4,
                video: VideoFacts(
                    codec: "hevc", width: 320, height: 240, frameCount: 120, keyframeInterval: 120,
                    hasBFrames: true),
                audio: [])
        case .vp9AltRef:
            return FixtureFacts(
                outcome: .plays, container: Self.matroska, duration: 4,
                video: VideoFacts(
                    codec: "vp9", width: 320, height: 240, frameCount: 120, keyframeInterval: 120,
                    hasBFrames: false),
                audio: [])
        }
    }

    private static let mp4 = "mov,mp4,m4a,3gp,3g2,mj2"
    private static let matroska = "matroska,webm"

    /// The cues of `subtitles.mkv` and `subtitles_mov_text.mp4`: cue n (1…5) reads "Cue n at (n − 0.5)" and is shown
    /// from n − 0.5 to n + 0.2 s as written, 21 ms later in the files (the AAC encoder delay shifts every other
    /// stream): from video frame 30n − 15 on. The ASS track's cue 6, "Cue 6 at 4.5", is shown with cue 5.
    public static func styledCues(_ count: Int) -> [SubtitleCue] {
        (1...count).map { n in
            let written = Double(min(n, 5)) - 0.5
            return SubtitleCue(
                start: written + 0.021, end: written + 0.721, text: "Cue \(n) at \(written)")
        }
    }

    /// The captions of `captions_608.mp4`: "CC n AT n.0" from n s to n + 0.4 s (frames 30n to 30n + 12), n = 1…3.
    public static let closedCaptions: [SubtitleCue] = (1...3).map { n in
        SubtitleCue(start: Double(n), end: Double(n) + 0.4, text: "CC \(n) AT \(n).0")
    }

    /// Service 1 of `captions_708.mp4`: "SERVICE1 n AT n.0" from n s to n + 0.4 s (frames 30n to 30n + 12), n = 1…3.
    public static let cea708Service1: [SubtitleCue] = (1...3).map { n in
        SubtitleCue(start: Double(n), end: Double(n) + 0.4, text: "SERVICE1 \(n) AT \(n).0")
    }

    /// Service 2 of `captions_708.mp4`: "SERVICE2 n AT n.5" from n + 0.5 s to n + 0.9 s (frames 30n + 15 to 30n + 27).
    public static let cea708Service2: [SubtitleCue] = (1...3).map { n in
        SubtitleCue(start: Double(n) + 0.5, end: Double(n) + 0.9, text: "SERVICE2 \(n) AT \(n).5")
    }

    /// The three cues both subtitle tracks share: 0.5–1.5 s, 2–3 s, 3.5–4.5 s.
    private static func cues(_ texts: [String]) -> [SubtitleCue] {
        zip([0.5, 2.0, 3.5], texts).map { SubtitleCue(start: $0, end: $0 + 1, text: $1) }
    }
}

extension VideoFacts {
    /// The small files' H.264: 320x240, 30 fps, 2 s GOPs, 2 B-frames.
    fileprivate static func h264(frameCount: Int) -> VideoFacts {
        VideoFacts(
            codec: "h264", width: 320, height: 240, frameCount: frameCount, keyframeInterval: 60,
            hasBFrames: true)
    }
}

extension AudioTrackFacts {
    /// Stereo 48 kHz AAC, 440 / 660 Hz.
    fileprivate static let aac = AudioTrackFacts(codec: "aac")
}

extension HLSFixture {
    /// What the set holds; kept in step with `scripts/make-fixtures` (`HLSFixturesTests` checks them with ffprobe).
    public var facts: HLSFacts {
        switch self {
        case .vod:
            return HLSFacts(
                segmentFormat: .mpegTS, isMultivariant: false, duration: 10, video: .h264(frameCount: 300),
                muxedAudio: .aac)
        case .ts:
            return HLSFacts(
                segmentFormat: .mpegTS, isMultivariant: true, duration: 12, video: Self.ladderVideo,
                variants: Self.ladder(count: 3, initSections: false), audioRenditions: Self.renditions(fmp4: false),
                subtitleRenditions: [
                    HLSSubtitleRenditionFacts(
                        groupID: "subs", name: "English", language: "eng", isDefault: true, autoselect: true,
                        isForced: false, playlist: "subs_eng.m3u8", segmentCount: 6,
                        cues: (0..<6).map { i in
                            SubtitleCue(
                                start: 2.0 * Double(i) + 0.5, end: 2.0 * Double(i) + 1.5,
                                text: "Cue \(i) at \(2 * i).5 s")
                        })
                ],
                // 2020-01-02T03:04:05.000Z
                firstProgramDate: Date(timeIntervalSince1970: 1_577_934_245))
        case .fmp4:
            return HLSFacts(
                segmentFormat: .fragmentedMP4, isMultivariant: true, duration: 12, video: Self.ladderVideo,
                variants: Self.ladder(count: 2, initSections: true), audioRenditions: Self.renditions(fmp4: true))
        case .aes:
            return HLSFacts(
                segmentFormat: .mpegTS, isMultivariant: false, duration: 10, video: .h264(frameCount: 300),
                muxedAudio: .aac,
                key: HLSKeyFacts(
                    method: "AES-128", uri: "key.bin", key: Array(0...15), iv: Array((0...15).reversed())))
        }
    }

    /// The ladders' video: 12 s at 30 fps, 2 s GOPs, 2 B-frames; the first variant's size.
    private static let ladderVideo = VideoFacts(
        codec: "h264", width: 640, height: 360, frameCount: 360, keyframeInterval: 60, hasBFrames: true)

    /// The first `count` rungs: 360p 400 kb/s, 540p 800 kb/s, 720p 1500 kb/s (BANDWIDTH adds the audio group's
    /// 180.8 kb/s, ffmpeg's estimate for 128 kb/s AAC in its container).
    private static func ladder(count: Int, initSections: Bool) -> [HLSVariantFacts] {
        let rungs = [
            HLSVariantFacts(
                playlist: "360p.m3u8", width: 640, height: 360, bandwidth: 580_800, videoBitRate: 400_000,
                codecs: "avc1.64001e,mp4a.40.2"),
            HLSVariantFacts(
                playlist: "540p.m3u8", width: 960, height: 540, bandwidth: 1_020_800, videoBitRate: 800_000,
                codecs: "avc1.64001f,mp4a.40.2"),
            HLSVariantFacts(
                playlist: "720p.m3u8", width: 1280, height: 720, bandwidth: 1_790_800, videoBitRate: 1_500_000,
                codecs: "avc1.64001f,mp4a.40.2"),
        ]
        return rungs.prefix(count).map { rung in
            var rung = rung
            if initSections { rung.initSection = rung.playlist.replacingOccurrences(of: ".m3u8", with: "_init.mp4") }
            return rung
        }
    }

    /// The audio group `group_aud`: English (default, 440 / 660 Hz) and French (550 / 770 Hz), seven segments each.
    private static func renditions(fmp4: Bool) -> [HLSRenditionFacts] {
        [
            HLSRenditionFacts(
                groupID: "group_aud", name: "English", language: "eng", isDefault: true, autoselect: true,
                playlist: "eng.m3u8", segmentCount: 7, audio: .aac, initSection: fmp4 ? "eng_init.mp4" : nil),
            HLSRenditionFacts(
                groupID: "group_aud", name: "Français", language: "fra", isDefault: false, autoselect: true,
                playlist: "fra.m3u8", segmentCount: 7, audio: AudioTrackFacts(codec: "aac", tones: [550, 770]),
                initSection: fmp4 ? "fra_init.mp4" : nil),
        ]
    }
}
