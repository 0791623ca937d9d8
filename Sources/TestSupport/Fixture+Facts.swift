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
