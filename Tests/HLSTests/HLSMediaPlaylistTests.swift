import Foundation
import HLS
import XCTest

/// Media playlists: RFC 8216 section 8's examples, what `ffmpeg -f hls` writes, and the timing helpers.
final class HLSMediaPlaylistTests: XCTestCase {
    /// RFC 8216 section 8.1.
    func testSimpleMediaPlaylist() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:10
            #EXT-X-VERSION:3
            #EXTINF:9.009,
            http://media.example.com/first.ts
            #EXTINF:9.009,
            http://media.example.com/second.ts
            #EXTINF:3.003,
            http://media.example.com/third.ts
            #EXT-X-ENDLIST
            """)
        XCTAssertEqual(playlist.version, 3)
        XCTAssertEqual(playlist.targetDuration, 10)
        XCTAssertFalse(playlist.targetDurationIsDerived)
        XCTAssertEqual(playlist.mediaSequence, 0)
        XCTAssertTrue(playlist.hasEndList)
        XCTAssertFalse(playlist.isLive)
        XCTAssertNil(playlist.playlistType)
        XCTAssertEqual(
            playlist.segments.map(\.uri.absoluteString),
            [
                "http://media.example.com/first.ts", "http://media.example.com/second.ts",
                "http://media.example.com/third.ts",
            ])
        XCTAssertEqual(playlist.segments.map(\.duration), [9.009, 9.009, 3.003])
        XCTAssertEqual(playlist.segments.map(\.sequenceNumber), [0, 1, 2])
        XCTAssertEqual(playlist.segments.map(\.title), [nil, nil, nil])
        XCTAssertEqual(playlist.duration, 21.021, accuracy: 1e-9)
        XCTAssertEqual(playlist.dateRanges, [])
    }

    /// RFC 8216 section 8.2: a live playlist whose window has slid to sequence 2680.
    func testLivePlaylistWithSlidingWindow() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:8
            #EXT-X-MEDIA-SEQUENCE:2680

            #EXTINF:7.975,
            https://priv.example.com/fileSequence2680.ts
            #EXTINF:7.941,
            https://priv.example.com/fileSequence2681.ts
            #EXTINF:7.975,
            https://priv.example.com/fileSequence2682.ts
            """
        let playlist = try parseMedia(text)
        XCTAssertTrue(playlist.isLive)
        XCTAssertFalse(playlist.hasEndList)
        XCTAssertEqual(playlist.targetDuration, 8)
        XCTAssertEqual(playlist.mediaSequence, 2680)
        XCTAssertEqual(playlist.segments.map(\.sequenceNumber), [2680, 2681, 2682])
        XCTAssertEqual(playlist.segments.last?.uri.lastPathComponent, "fileSequence2682.ts")

        // The next reload: the window slides by one segment.
        let reloaded = try parseMedia(
            text.replacingOccurrences(of: "SEQUENCE:2680", with: "SEQUENCE:2681")
                .replacingOccurrences(of: "#EXTINF:7.975,\nhttps://priv.example.com/fileSequence2680.ts\n", with: "")
                + "\n#EXTINF:7.950,\nhttps://priv.example.com/fileSequence2683.ts\n")
        XCTAssertEqual(reloaded.segments.map(\.sequenceNumber), [2681, 2682, 2683])
        XCTAssertEqual(reloaded.segments.map(\.uri.lastPathComponent).first, "fileSequence2681.ts")
    }

    /// What `ffmpeg -f hls -hls_time 4 -hls_playlist_type vod` (FFmpeg 5.1) writes.
    func testFFmpegVODPlaylist() throws {
        let url = URL(string: "http://127.0.0.1:8080/ladder/360p/out.m3u8")!
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXTINF:4.000000,
            out0.ts
            #EXTINF:4.000000,
            out1.ts
            #EXTINF:1.000000,
            out2.ts
            #EXT-X-ENDLIST

            """, url: url)
        XCTAssertEqual(playlist.url, url)
        XCTAssertEqual(playlist.playlistType, .vod)
        XCTAssertFalse(playlist.isLive)
        XCTAssertEqual(
            playlist.segments.map(\.uri.absoluteString),
            (0..<3).map { "http://127.0.0.1:8080/ladder/360p/out\($0).ts" })
        XCTAssertEqual(playlist.duration, 9)
        XCTAssertEqual(playlist.segments.map(\.discontinuitySequence), [0, 0, 0])
        XCTAssertTrue(playlist.segments.allSatisfy { !$0.isDiscontinuity && !$0.isGap && $0.key == nil })
    }

    /// `ffmpeg -f hls -hls_list_size 3 -hls_flags delete_segments` mid-stream: a live window, no ENDLIST; an
    /// `EVENT` playlist is live until its ENDLIST too.
    func testLiveAndEventPlaylists() throws {
        let live = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:17
            #EXTINF:2.000000,
            live17.ts
            #EXTINF:2.000000,
            live18.ts
            #EXTINF:2.000000,
            live19.ts
            """)
        XCTAssertTrue(live.isLive)
        XCTAssertEqual(live.segments.map(\.sequenceNumber), [17, 18, 19])

        let event = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXTINF:2,\na.ts\n"
        XCTAssertTrue(try parseMedia(event).isLive)
        XCTAssertEqual(try parseMedia(event).playlistType, .event)
        XCTAssertFalse(try parseMedia(event + "#EXT-X-ENDLIST\n").isLive)
    }

    func testDiscontinuitiesNumberTheirSegments() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-DISCONTINUITY-SEQUENCE:4
            #EXTINF:6,Main programme
            main0.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:5.5,Advert
            ad0.ts
            #EXTINF:4.5,
            ad1.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:6,
            main1.ts
            #EXT-X-ENDLIST
            """)
        XCTAssertEqual(playlist.discontinuitySequence, 4)
        XCTAssertEqual(playlist.segments.map(\.isDiscontinuity), [false, true, false, true])
        XCTAssertEqual(playlist.segments.map(\.discontinuitySequence), [4, 5, 5, 6])
        XCTAssertEqual(playlist.segments.map(\.sequenceNumber), [100, 101, 102, 103])
        XCTAssertEqual(playlist.segments.map(\.title), ["Main programme", "Advert", nil, nil])
    }

    func testSegmentIndexAndStartOffsets() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            a.ts
            #EXTINF:2.5,
            b.ts
            #EXTINF:0,
            empty.ts
            #EXTINF:3.5,
            c.ts
            #EXT-X-ENDLIST
            """)
        XCTAssertEqual((0...4).map { playlist.startOffset(ofSegment: $0) }, [0, 4, 6.5, 6.5, 10])
        XCTAssertEqual(playlist.duration, 10)
        XCTAssertEqual(playlist.segmentIndex(containing: 0), 0)
        XCTAssertEqual(playlist.segmentIndex(containing: 3.999), 0)
        XCTAssertEqual(playlist.segmentIndex(containing: 4), 1)
        XCTAssertEqual(playlist.segmentIndex(containing: 6.4), 1)
        XCTAssertEqual(playlist.segmentIndex(containing: 6.5), 3)  // the empty segment holds no time
        XCTAssertEqual(playlist.segmentIndex(containing: 9.9), 3)
        XCTAssertEqual(playlist.segmentIndex(containing: -5), 0)  // before the start: the first
        XCTAssertEqual(playlist.segmentIndex(containing: 10), 3)  // at or after the end: the last
        XCTAssertEqual(playlist.segmentIndex(containing: .infinity), 3)
        XCTAssertNil(playlist.segmentIndex(containing: .nan))

        let empty = try parseMedia("#EXTM3U\n#EXT-X-TARGETDURATION:4\n")
        XCTAssertNil(empty.segmentIndex(containing: 0))
        XCTAssertEqual(empty.duration, 0)
        XCTAssertEqual(empty.startOffset(ofSegment: 0), 0)
        XCTAssertTrue(empty.isLive)
    }

    /// Every segment's offset is the sum of the durations before it, for a long playlist too (checked against a
    /// sum computed here).
    func testStartOffsetsOfALongPlaylistAreCumulative() throws {
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:7\n"
        var expected = [0.0]
        for index in 0..<1000 {
            let duration = Double(index % 7) + 0.25
            text += "#EXTINF:\(duration),\ns\(index).ts\n"
            expected.append(expected.last! + duration)
        }
        let playlist = try parseMedia(text + "#EXT-X-ENDLIST\n")
        XCTAssertEqual(playlist.segments.count, 1000)
        XCTAssertEqual((0...1000).map { playlist.startOffset(ofSegment: $0) }, expected)
        for index in stride(from: 0, to: 1000, by: 37) {
            XCTAssertEqual(playlist.segmentIndex(containing: expected[index] + 0.1), index)
        }
    }

    func testCRLFBlankLinesCommentsAndUnknownTags() throws {
        let playlist = try parseMedia(
            "#EXTM3U\r\n#EXT-X-TARGETDURATION:6\r\n\r\n# a comment\r\n#EXT-X-FUTURE-TAG:A=1\r\n"
                + "#EXT-X-PART-INF:PART-TARGET=1.0\r\n#EXTINF:5.005,Title, with comma\r\n  seg0.ts \r\n#EXT-X-ENDLIST\r\n"
        )
        XCTAssertEqual(playlist.segments.count, 1)
        XCTAssertEqual(playlist.segments[0].uri.absoluteString, "https://media.example.com/live/stream/seg0.ts")
        XCTAssertEqual(playlist.segments[0].title, "Title, with comma")
        XCTAssertEqual(playlist.segments[0].duration, 5.005)
        XCTAssertTrue(playlist.hasEndList)
    }

    func testRelativeURIsResolveAgainstThePlaylistURL() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            seg.ts?token=a%20b
            #EXTINF:4,
            ../other/seg.ts
            #EXTINF:4,
            /root.ts
            #EXTINF:4,
            //cdn.example.net/x.ts
            #EXTINF:4,
            http://plain.example.org/y.ts
            """)
        XCTAssertEqual(
            playlist.segments.map(\.uri.absoluteString),
            [
                "https://media.example.com/live/stream/seg.ts?token=a%20b",
                "https://media.example.com/live/other/seg.ts",
                "https://media.example.com/root.ts",
                "https://cdn.example.net/x.ts",
                "http://plain.example.org/y.ts",
            ])
    }

    /// The RFC requires `#EXT-X-TARGETDURATION`; without it the longest segment, rounded up, stands in.
    func testMissingTargetDurationIsDerived() throws {
        let playlist = try parseMedia("#EXTM3U\n#EXTINF:4.2,\na.ts\n#EXTINF:6.01,\nb.ts\n#EXT-X-ENDLIST\n")
        XCTAssertEqual(playlist.targetDuration, 7)
        XCTAssertTrue(playlist.targetDurationIsDerived)
        XCTAssertEqual(try parseMedia("#EXTM3U\n").targetDuration, 1)
    }

    func testBadDurationsAreRefused() {
        assertRefused("#EXTM3U\n#EXTINF:-1,\na.ts\n", .invalidDuration, line: 2, mentioning: "negative")
        assertRefused("#EXTM3U\n#EXTINF:abc,\na.ts\n", .invalidDuration, line: 2, mentioning: "#EXTINF:abc")
        assertRefused("#EXTM3U\n#EXTINF:nan,\na.ts\n", .invalidDuration, line: 2)
        assertRefused("#EXTM3U\n#EXTINF:inf,\na.ts\n", .invalidDuration, line: 2)
        assertRefused("#EXTM3U\n#EXTINF:1e308,\na.ts\n", .invalidDuration, line: 2)
        assertRefused("#EXTM3U\n#EXTINF:,\na.ts\n", .invalidDuration, line: 2)
        assertRefused("#EXTM3U\n\n#EXTINF:86401,\na.ts\n", .invalidDuration, line: 3, mentioning: "limit")
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:-10\n", .invalidDuration, line: 2, mentioning: "negative")
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:99999999\n", .invalidDuration, line: 2)
    }

    func testMisplacedOrRepeatedTagsAreRefused() {
        assertRefused("#EXTM3U\na.ts\n", .invalidTag, line: 2, mentioning: "follows no #EXTINF")
        assertRefused("#EXTM3U\n#EXTINF:1,\n#EXTINF:2,\na.ts\n", .invalidTag, line: 3)
        assertRefused("#EXTM3U\n#EXTINF:1,\na.ts\n#EXTINF:2,\n", .missingURI, line: 4, mentioning: "#EXTINF")
        assertRefused("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-VERSION:3\n", .invalidTag, line: 3)
        assertRefused("#EXTM3U\n#EXT-X-VERSION:three\n", .invalidTag, line: 2)
        assertRefused("#EXTM3U\n#EXTINF:1,\na.ts\n#EXT-X-MEDIA-SEQUENCE:5\n", .invalidTag, line: 4)
        assertRefused("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:-5\n", .invalidTag, line: 2)
        assertRefused("#EXTM3U\n#EXT-X-PLAYLIST-TYPE:LIVE\n", .invalidTag, line: 2, mentioning: "LIVE")
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-TARGETDURATION:5\n", .invalidTag, line: 3)
        assertRefused(
            "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:\(Int.max)\n#EXTINF:1,\na.ts\n#EXTINF:1,\nb.ts\n", .invalidTag, line: 6,
            mentioning: "overflows")
    }

    func testTheFirstLineMustBeEXTM3U() {
        assertRefused("#EXTINF:1,\na.ts\n", .notAPlaylist, line: 1)
        assertRefused("", .notAPlaylist)
        assertRefused("\n#EXTM3U\n", .notAPlaylist, line: 1)
        assertRefused("<html><body>404</body></html>", .notAPlaylist)
        XCTAssertNoThrow(try parseMedia("#EXTM3U \r\n#EXT-X-TARGETDURATION:1\n"))
    }

    /// A playlist is a media or a multivariant playlist; the first tag of one kind decides, and a tag of the other
    /// kind after it is refused (RFC 8216 section 4.1), in either order.
    func testMixingMediaAndMultivariantTagsIsRefused() {
        assertRefused(
            "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n",
            .mixedPlaylist, line: 5, mentioning: "#EXT-X-TARGETDURATION at line 2")
        assertRefused(
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n#EXTINF:4,\na.ts\n", .mixedPlaylist,
            line: 5, mentioning: "#EXT-X-STREAM-INF at line 3")
    }

    func testByteOrderMarkAndDataInput() throws {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n"
        let plain = try HLSParser().parse(Data(text.utf8), url: remoteURL)
        let withBOM = try HLSParser().parse(Data([0xEF, 0xBB, 0xBF] + Array(text.utf8)), url: remoteURL)
        XCTAssertEqual(plain, withBOM)
        XCTAssertEqual(try HLSParser().parse("\u{FEFF}" + text, url: remoteURL), plain)
        guard case .media(let media) = plain else { return XCTFail("\(plain)") }
        XCTAssertEqual(media.segments.count, 1)

        XCTAssertThrowsError(try HLSParser().parse(Data([0x23, 0x45, 0xFF, 0xFE, 0x0A]), url: remoteURL)) { error in
            XCTAssertEqual((error as? HLSPlaylistError)?.code, .notAPlaylist)
            XCTAssertTrue("\(error)".contains("UTF-8"), "\(error)")
        }
    }
}
