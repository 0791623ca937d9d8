import Foundation
import HLS
import XCTest

/// Multivariant playlists: RFC 8216 section 8's examples, what `ffmpeg -f hls -master_pl_name -var_stream_map`
/// writes, and the attribute rules of `#EXT-X-STREAM-INF` and `#EXT-X-MEDIA`.
final class HLSMultivariantPlaylistTests: XCTestCase {
    private let base = URL(string: "http://example.com/presentation/main.m3u8")!

    /// RFC 8216 section 8.4.
    func testMultivariantPlaylist() throws {
        let playlist = try parseMultivariant(
            """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000
            http://example.com/low.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2560000,AVERAGE-BANDWIDTH=2000000
            http://example.com/mid.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=7680000,AVERAGE-BANDWIDTH=6000000
            http://example.com/hi.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS="mp4a.40.5"
            http://example.com/audio-only.m3u8
            """, url: base)
        XCTAssertEqual(playlist.url, base)
        XCTAssertEqual(playlist.variants.map(\.bandwidth), [1_280_000, 2_560_000, 7_680_000, 65000])
        XCTAssertEqual(playlist.variants.map(\.averageBandwidth), [1_000_000, 2_000_000, 6_000_000, nil])
        XCTAssertEqual(
            playlist.variants.map(\.uri.lastPathComponent), ["low.m3u8", "mid.m3u8", "hi.m3u8", "audio-only.m3u8"])
        XCTAssertEqual(playlist.variants[3].codecs, ["mp4a.40.5"])
        XCTAssertEqual(playlist.variants[0].codecs, [])
        XCTAssertEqual(playlist.variants[0].closedCaptions, .unspecified)
        XCTAssertTrue(playlist.variants.allSatisfy { !$0.isIFrameOnly && $0.resolution == nil && $0.audioGroup == nil })
        XCTAssertEqual(playlist.iFrameVariants, [])
        XCTAssertEqual(playlist.renditions, [])
        XCTAssertNil(playlist.version)
    }

    /// RFC 8216 section 8.5: I-frame variants between the variants.
    func testIFrameVariants() throws {
        let playlist = try parseMultivariant(
            """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=1280000
            low/audio-video.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI="low/iframe.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=2560000
            mid/audio-video.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=150000,URI="mid/iframe.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=7680000
            hi/audio-video.m3u8
            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=550000,URI="hi/iframe.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS="mp4a.40.5"
            audio-only.m3u8
            """, url: base)
        XCTAssertEqual(
            playlist.variants.map(\.uri.absoluteString),
            [
                "http://example.com/presentation/low/audio-video.m3u8",
                "http://example.com/presentation/mid/audio-video.m3u8",
                "http://example.com/presentation/hi/audio-video.m3u8",
                "http://example.com/presentation/audio-only.m3u8",
            ])
        XCTAssertEqual(playlist.iFrameVariants.map(\.bandwidth), [86000, 150_000, 550_000])
        XCTAssertEqual(
            playlist.iFrameVariants.map(\.uri.absoluteString),
            ["low", "mid", "hi"].map { "http://example.com/presentation/\($0)/iframe.m3u8" })
        XCTAssertTrue(playlist.iFrameVariants.allSatisfy(\.isIFrameOnly))
    }

    /// RFC 8216 section 8.6: alternative audio (the RFC's line continuations joined).
    func testAlternativeAudio() throws {
        let playlist = try parseMultivariant(
            """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",DEFAULT=YES,AUTOSELECT=YES,LANGUAGE="en",URI="main/english-audio.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Deutsch",DEFAULT=NO,AUTOSELECT=YES,LANGUAGE="de",URI="main/german-audio.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Commentary",DEFAULT=NO,AUTOSELECT=NO,LANGUAGE="en",URI="commentary/audio-only.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS="...",AUDIO="aac"
            low/video-only.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2560000,CODECS="...",AUDIO="aac"
            mid/video-only.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=7680000,CODECS="...",AUDIO="aac"
            hi/video-only.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS="mp4a.40.5",AUDIO="aac"
            main/english-audio.m3u8
            """, url: base)
        XCTAssertEqual(playlist.renditions.map(\.name), ["English", "Deutsch", "Commentary"])
        XCTAssertEqual(playlist.renditions.map(\.language), ["en", "de", "en"])
        XCTAssertEqual(playlist.renditions.map(\.isDefault), [true, false, false])
        XCTAssertEqual(playlist.renditions.map(\.autoselect), [true, true, false])
        XCTAssertTrue(playlist.renditions.allSatisfy { $0.type == .audio && $0.groupID == "aac" && !$0.forced })
        XCTAssertEqual(
            playlist.renditions[1].uri?.absoluteString, "http://example.com/presentation/main/german-audio.m3u8")
        XCTAssertEqual(playlist.variants.map(\.audioGroup), ["aac", "aac", "aac", "aac"])
        XCTAssertEqual(playlist.renditions(ofType: .audio, inGroup: "aac").count, 3)
        XCTAssertEqual(playlist.renditions(ofType: .video, inGroup: "aac"), [])
    }

    /// RFC 8216 section 8.7: alternative video angles, one group per variant.
    func testAlternativeVideo() throws {
        var text = "#EXTM3U\n"
        for group in ["low", "mid", "hi"] {
            text += """
                #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="\(group)",NAME="Main",DEFAULT=YES,URI="\(group)/main/audio-video.m3u8"
                #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="\(group)",NAME="Centerfield",DEFAULT=NO,URI="\(group)/centerfield/audio-video.m3u8"
                #EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID="\(group)",NAME="Dugout",DEFAULT=NO,URI="\(group)/dugout/audio-video.m3u8"

                """
        }
        text += """
            #EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS="...",VIDEO="low"
            low/main/audio-video.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2560000,CODECS="...",VIDEO="mid"
            mid/main/audio-video.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=7680000,CODECS="...",VIDEO="hi"
            hi/main/audio-video.m3u8
            """
        let playlist = try parseMultivariant(text, url: base)
        XCTAssertEqual(playlist.renditions.count, 9)
        XCTAssertEqual(playlist.variants.map(\.videoGroup), ["low", "mid", "hi"])
        let mid = playlist.renditions(ofType: .video, inGroup: "mid")
        XCTAssertEqual(mid.map(\.name), ["Main", "Centerfield", "Dugout"])
        XCTAssertEqual(mid.map(\.isDefault), [true, false, false])
        XCTAssertEqual(mid[2].uri?.absoluteString, "http://example.com/presentation/mid/dugout/audio-video.m3u8")
    }

    /// RFC 8216 section 8.8 session data, with a session key and `#EXT-X-START` / `#EXT-X-INDEPENDENT-SEGMENTS`.
    func testSessionDataKeysAndSharedTags() throws {
        let playlist = try parseMultivariant(
            """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES
            #EXT-X-SESSION-DATA:DATA-ID="com.example.lyrics",URI="lyrics.json"
            #EXT-X-SESSION-DATA:DATA-ID="com.example.title",LANGUAGE="en",VALUE="This is an example"
            #EXT-X-SESSION-DATA:DATA-ID="com.example.title",LANGUAGE="es",VALUE="Este es un ejemplo"
            #EXT-X-SESSION-KEY:METHOD=AES-128,URI="https://keys.example.com/k1",IV=0x00000000000000000000000000000001
            #EXT-X-STREAM-INF:BANDWIDTH=500000
            v.m3u8
            """, url: base)
        XCTAssertEqual(playlist.version, 6)
        XCTAssertTrue(playlist.independentSegments)
        XCTAssertEqual(playlist.start, HLSStartPoint(timeOffset: -12.5, precise: true))
        XCTAssertEqual(
            playlist.sessionData,
            [
                HLSSessionData(
                    id: "com.example.lyrics", uri: URL(string: "http://example.com/presentation/lyrics.json")!),
                HLSSessionData(id: "com.example.title", value: "This is an example", language: "en"),
                HLSSessionData(id: "com.example.title", value: "Este es un ejemplo", language: "es"),
            ])
        XCTAssertEqual(playlist.sessionKeys.count, 1)
        XCTAssertEqual(playlist.sessionKeys[0].method, .aes128)
        XCTAssertEqual(playlist.sessionKeys[0].uri?.absoluteString, "https://keys.example.com/k1")
        XCTAssertEqual(playlist.sessionKeys[0].iv, [UInt8](repeating: 0, count: 15) + [1])
    }

    /// What `ffmpeg -f hls -hls_segment_type fmp4 -master_pl_name master.m3u8 -cc_stream_map … -var_stream_map
    /// "v:0,agroup:aud,ccgroup:cc v:1,agroup:aud,ccgroup:cc a:0,agroup:aud,language:en,name:English,default:yes
    /// a:1,agroup:aud,language:fr,name:Francais"` (FFmpeg 5.1) writes, blank lines included.
    func testFFmpegMultivariantPlaylist() throws {
        let url = URL(string: "http://127.0.0.1:8080/ladder/master.m3u8")!
        let playlist = try parseMultivariant(
            """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",LANGUAGE="en",INSTREAM-ID="CC1"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_aud",NAME="audio_2",DEFAULT=YES,LANGUAGE="en",URI="out_English.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="group_aud",NAME="audio_3",DEFAULT=NO,LANGUAGE="fr",URI="out_Francais.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=620400,RESOLUTION=320x240,CODECS="avc1.f4000d,mp4a.40.2",AUDIO="group_aud",CLOSED-CAPTIONS="cc"
            out_0.m3u8

            #EXT-X-STREAM-INF:BANDWIDTH=290400,RESOLUTION=160x120,CODECS="avc1.f4000b,mp4a.40.2",AUDIO="group_aud",CLOSED-CAPTIONS="cc"
            out_1.m3u8


            """, url: url)
        XCTAssertEqual(playlist.version, 7)
        XCTAssertEqual(
            playlist.variants,
            [
                HLSVariant(
                    uri: URL(string: "http://127.0.0.1:8080/ladder/out_0.m3u8")!, bandwidth: 620_400,
                    codecs: ["avc1.f4000d", "mp4a.40.2"], resolution: HLSResolution(width: 320, height: 240),
                    audioGroup: "group_aud", closedCaptions: .group("cc")),
                HLSVariant(
                    uri: URL(string: "http://127.0.0.1:8080/ladder/out_1.m3u8")!, bandwidth: 290_400,
                    codecs: ["avc1.f4000b", "mp4a.40.2"], resolution: HLSResolution(width: 160, height: 120),
                    audioGroup: "group_aud", closedCaptions: .group("cc")),
            ])
        XCTAssertEqual(
            playlist.renditions,
            [
                HLSRendition(type: .closedCaptions, groupID: "cc", name: "CC1", language: "en", instreamID: "CC1"),
                HLSRendition(
                    type: .audio, groupID: "group_aud", name: "audio_2", language: "en", isDefault: true,
                    uri: URL(string: "http://127.0.0.1:8080/ladder/out_English.m3u8")!),
                HLSRendition(
                    type: .audio, groupID: "group_aud", name: "audio_3", language: "fr",
                    uri: URL(string: "http://127.0.0.1:8080/ladder/out_Francais.m3u8")!),
            ])
    }

    /// The attributes of a full, Apple-authoring-spec style ladder.
    func testEveryVariantAndRenditionAttribute() throws {
        let playlist = try parseMultivariant(
            """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud1",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,CHANNELS="2",URI="a1/prog_index.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud2",LANGUAGE="en",NAME="English",AUTOSELECT=YES,DEFAULT=YES,CHANNELS="6/JOC",URI="a2/prog_index.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud1",LANGUAGE="en",ASSOC-LANGUAGE="en-US",NAME="Described",AUTOSELECT=YES,CHARACTERISTICS="public.accessibility.describes-video,public.easy-to-read",URI="ad/prog_index.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="sub1",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,URI="s1/en/prog_index.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="sub1",NAME="English (forced)",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=NO,FORCED=YES,URI="s1/en-forced/prog_index.m3u8"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc1",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,INSTREAM-ID="CC1"
            #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=2168183,BANDWIDTH=2177116,CODECS="avc1.640020,mp4a.40.2",RESOLUTION=960x540,FRAME-RATE=60.000,HDCP-LEVEL=NONE,VIDEO-RANGE=SDR,AUDIO="aud1",SUBTITLES="sub1",CLOSED-CAPTIONS="cc1"
            v5/prog_index.m3u8
            #EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=7968416,BANDWIDTH=8001098,CODECS="avc1.64002a,ec-3",RESOLUTION=1920x1080,FRAME-RATE=59.940,HDCP-LEVEL=TYPE-0,AUDIO="aud2",SUBTITLES="sub1",CLOSED-CAPTIONS=NONE
            v9/prog_index.m3u8
            #EXT-X-I-FRAME-STREAM-INF:AVERAGE-BANDWIDTH=186522,BANDWIDTH=187440,CODECS="avc1.64002a",RESOLUTION=1920x1080,HDCP-LEVEL=TYPE-0,URI="v9/iframe_index.m3u8"
            """, url: base)
        let (first, second) = (playlist.variants[0], playlist.variants[1])
        XCTAssertEqual(first.averageBandwidth, 2_168_183)
        XCTAssertEqual(first.frameRate, 60)
        XCTAssertEqual(first.hdcpLevel, "NONE")
        XCTAssertEqual(first.videoRange, "SDR")
        XCTAssertEqual(first.resolution, HLSResolution(width: 960, height: 540))
        XCTAssertEqual(first.subtitlesGroup, "sub1")
        XCTAssertEqual(first.closedCaptions, .group("cc1"))
        XCTAssertEqual(second.closedCaptions, .none)
        XCTAssertEqual(second.frameRate, 59.94)
        XCTAssertEqual(second.codecs, ["avc1.64002a", "ec-3"])
        XCTAssertEqual(playlist.iFrameVariants[0].resolution, HLSResolution(width: 1920, height: 1080))
        XCTAssertEqual(playlist.iFrameVariants[0].hdcpLevel, "TYPE-0")

        let described = playlist.renditions[2]
        XCTAssertEqual(described.associatedLanguage, "en-US")
        XCTAssertEqual(described.characteristics, ["public.accessibility.describes-video", "public.easy-to-read"])
        XCTAssertFalse(described.isDefault)
        XCTAssertEqual(playlist.renditions[1].channels, "6/JOC")
        let subtitles = playlist.renditions(ofType: .subtitles, inGroup: "sub1")
        XCTAssertEqual(subtitles.map(\.forced), [false, true])
        XCTAssertEqual(subtitles.map(\.name), ["English", "English (forced)"])
        let captions = playlist.renditions(ofType: .closedCaptions, inGroup: "cc1")
        XCTAssertEqual(captions.map(\.instreamID), ["CC1"])
        XCTAssertEqual(captions.map(\.uri), [nil])
    }

    func testStreamInfWithoutItsURIIsRefused() {
        assertRefused(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n", .missingURI, line: 2, mentioning: "no URI line")
        assertRefused(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n# comment\n\n#EXT-X-STREAM-INF:BANDWIDTH=2\nb.m3u8\n",
            .missingURI, line: 2, mentioning: "#EXT-X-STREAM-INF at line 5")
        assertRefused("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8\nb.m3u8\n", .invalidTag, line: 4)
        // Comments, blank lines and unknown tags may sit between the tag and its URI.
        XCTAssertEqual(
            try parseMultivariant("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-NEW:A=1\n# c\n\na.m3u8\n")
                .variants.map(\.uri.lastPathComponent), ["a.m3u8"])
    }

    func testBadVariantAttributesAreRefused() {
        for (attributes, mentioning) in [
            ("RESOLUTION=1x1", "BANDWIDTH is missing"), ("BANDWIDTH=-1", "BANDWIDTH=-1"),
            ("BANDWIDTH=fast", "BANDWIDTH=fast"), ("BANDWIDTH=1.5", "BANDWIDTH=1.5"),
            ("BANDWIDTH=99999999999999999999", "BANDWIDTH"), ("BANDWIDTH=1,RESOLUTION=wide", "RESOLUTION"),
            ("BANDWIDTH=1,CODECS=avc1", "CODECS"), ("BANDWIDTH=1,CLOSED-CAPTIONS=MAYBE", "CLOSED-CAPTIONS"),
            ("BANDWIDTH=1,FRAME-RATE=-30", "FRAME-RATE"), ("BANDWIDTH=1,AUDIO=aac", "AUDIO"),
        ] {
            assertRefused(
                "#EXTM3U\n#EXT-X-STREAM-INF:\(attributes)\nv.m3u8\n", .invalidAttribute, line: 2, mentioning: mentioning
            )
        }
        assertRefused("#EXTM3U\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1\n", .invalidAttribute, line: 2, mentioning: "URI")
    }

    func testBadRenditionsAreRefused() {
        for (attributes, mentioning) in [
            (#"GROUP-ID="a",NAME="n""#, "TYPE is missing"), (#"TYPE=AUDIO,NAME="n""#, "GROUP-ID is missing"),
            (#"TYPE=AUDIO,GROUP-ID="a""#, "NAME is missing"), (#"TYPE=TEXT,GROUP-ID="a",NAME="n""#, "TYPE=TEXT"),
            (#"TYPE=SUBTITLES,GROUP-ID="s",NAME="n""#, "URI is missing"),
            (#"TYPE=CLOSED-CAPTIONS,GROUP-ID="c",NAME="n""#, "INSTREAM-ID is missing"),
            (#"TYPE=CLOSED-CAPTIONS,GROUP-ID="c",NAME="n",INSTREAM-ID="CC1",URI="x""#, "must not have a URI"),
            (#"TYPE=AUDIO,GROUP-ID="a",NAME="n",DEFAULT=MAYBE"#, "DEFAULT=MAYBE"),
        ] {
            assertRefused("#EXTM3U\n#EXT-X-MEDIA:\(attributes)\n", .invalidAttribute, line: 2, mentioning: mentioning)
        }
        assertRefused(
            #"#EXTM3U\#n#EXT-X-SESSION-DATA:DATA-ID="d",VALUE="v",URI="u.json"\#n"#, .invalidAttribute, line: 2,
            mentioning: "exactly one of VALUE and URI")
        assertRefused(
            "#EXTM3U\n#EXT-X-SESSION-KEY:METHOD=NONE\n", .invalidAttribute, line: 2, mentioning: "must not be NONE")
    }
}
