import Foundation
import HLS
import XCTest

/// Hostile playlists: URIs that try to leave HTTP, and input that tries to exhaust memory or time.
final class HLSParserSecurityTests: XCTestCase {
    private let server = URL(string: "http://127.0.0.1:8080/hls/ladder/720p/index.m3u8")!
    private let localFile = URL(fileURLWithPath: "/srv/media/ladder/index.m3u8")

    /// A media playlist whose one segment is `uri`.
    private func segment(_ uri: String) -> String {
        "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\n\(uri)\n"
    }

    // MARK: URI schemes

    func testARemotePlaylistCannotNameLocalFilesOrOtherSchemes() {
        for uri in [
            "file:///etc/passwd", "FILE:///etc/passwd", "file://localhost/etc/shadow",
            "data:video/mp2t;base64,R0lGODlhAQABAAAAACw=", "ftp://127.0.0.1/seg.ts", "javascript:alert(1)",
            "gopher://127.0.0.1:25/x", "rtmp://media.example.com/live", "pipe:0", "concat:a.ts|b.ts",
        ] {
            assertRefused(segment(uri), .forbiddenURI, line: 4, mentioning: uri, url: server)
            assertRefused(segment(uri), .forbiddenURI, line: 4, url: remoteURL)  // https too
        }
    }

    /// `../` cannot climb out of the server: the resolved URI is still http on the same host.
    func testRelativePathsThatClimbStayOnTheServer() throws {
        let playlist = try parseMedia(segment("../../../../../../etc/passwd"), url: server)
        let uri = playlist.segments[0].uri
        XCTAssertEqual(uri.scheme, "http")
        XCTAssertEqual(uri.host, "127.0.0.1")
        XCTAssertEqual(uri.port, 8080)
        XCTAssertFalse(uri.isFileURL)
        XCTAssertEqual(uri.standardized.path, "/etc/passwd")
        XCTAssertEqual(uri.standardized.absoluteString, "http://127.0.0.1:8080/etc/passwd")
    }

    /// Every tag that names a URI is checked, not only segment lines.
    func testEveryURIBearingTagIsChecked() {
        let evil = "file:///etc/passwd"
        assertRefused(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n\(evil)\n", .forbiddenURI, line: 3, mentioning: "variant URI",
            url: server)
        assertRefused(
            "#EXTM3U\n#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI=\"\(evil)\"\n", .forbiddenURI, line: 2, url: server)
        assertRefused(
            "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"n\",URI=\"\(evil)\"\n", .forbiddenURI, line: 2,
            mentioning: "rendition URI", url: server)
        assertRefused(
            "#EXTM3U\n#EXT-X-SESSION-DATA:DATA-ID=\"d\",URI=\"\(evil)\"\n", .forbiddenURI, line: 2, url: server)
        assertRefused(
            "#EXTM3U\n#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"\(evil)\"\n", .forbiddenURI, line: 2, url: server)
        assertRefused(
            "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"\(evil)\"\n", .forbiddenURI, line: 2, mentioning: "key URI",
            url: server)
        assertRefused(
            "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"data:text/plain;base64,AAECAwQFBgcICQoLDA0ODw==\"\n",
            .forbiddenURI, line: 2, url: server)
        assertRefused(
            "#EXTM3U\n#EXT-X-MAP:URI=\"\(evil)\"\n", .forbiddenURI, line: 2, mentioning: "#EXT-X-MAP URI",
            url: server)
    }

    /// A playlist read from a local file may name local files and http(s), nothing else.
    func testALocalPlaylistMayNameFilesAndHTTP() throws {
        let playlist = try parseMedia(
            segment("seg0.ts") + "#EXTINF:4,\nfile:///srv/other/seg1.ts\n#EXTINF:4,\nhttps://cdn.example.com/s2.ts\n",
            url: localFile)
        XCTAssertEqual(
            playlist.segments.map(\.uri.absoluteString),
            ["file:///srv/media/ladder/seg0.ts", "file:///srv/other/seg1.ts", "https://cdn.example.com/s2.ts"])
        assertRefused(segment("data:video/mp2t;base64,AAAA"), .forbiddenURI, line: 4, url: localFile)
        assertRefused(segment("ftp://example.com/a.ts"), .forbiddenURI, line: 4, url: localFile)
    }

    func testHTTPURIsNeedAHost() {
        assertRefused(segment("http:///etc/passwd"), .invalidURI, line: 4, url: server)
    }

    // MARK: Size and count limits

    /// A 10 MB line is refused by the line limit, in the scan that precedes parsing: an error on an earlier line
    /// (a repeated #EXT-X-VERSION) is never reached.
    func testATenMegabyteLineIsRefused() {
        let text =
            "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-VERSION:3\n#EXTINF:1,\n"
            + String(repeating: "a", count: 10_000_000) + ".ts\n"
        assertRefused(text, .lineTooLong, line: 5, mentioning: "10000003 bytes")
        XCTAssertThrowsError(try HLSParser().parse(Data(text.utf8), url: remoteURL)) { error in
            XCTAssertEqual((error as? HLSPlaylistError)?.code, .lineTooLong)
            XCTAssertEqual((error as? HLSPlaylistError)?.line, 5)
        }
    }

    /// 300 000 segments are refused by the segment limit (200 000) in the counting scan, before any segment is
    /// built: the repeated #EXT-X-VERSION of line 3 is never reached.
    func testThreeHundredThousandSegmentsAreRefused() {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n"
        text.reserveCapacity(300_000 * 20)
        for index in 0..<300_000 { text += "#EXTINF:2,\n\(index).ts\n" }
        text += "#EXT-X-ENDLIST\n"
        XCTAssertLessThan(text.utf8.count, HLSParserLimits().maxBytes)
        // The 200 001st #EXTINF is on line 4 + 2 * 200 000 + 1.
        assertRefused(text, .tooManyEntries, line: 400_005, mentioning: "more than 200000 segments")
    }

    func testTheSizeLimitIsCheckedBeforeDecoding() {
        let limits = HLSParserLimits(maxBytes: 64)
        let small = segment("a.ts")
        XCTAssertNoThrow(try HLSParser(limits: limits).parse(small, url: server))
        let large = small + String(repeating: "#", count: 64)
        assertRefused(large, .tooLarge, mentioning: "limit of 64", limits: limits)
        // Bytes that are not even UTF-8 are refused for their size first: they are never decoded.
        let garbage = Data(repeating: 0xFF, count: 65)
        XCTAssertThrowsError(try HLSParser(limits: limits).parse(garbage, url: server)) { error in
            XCTAssertEqual((error as? HLSPlaylistError)?.code, .tooLarge)
            XCTAssertNil((error as? HLSPlaylistError)?.line)
        }
        XCTAssertThrowsError(try HLSParser(limits: limits).parse(Data(repeating: 0xFF, count: 64), url: server)) {
            XCTAssertEqual(($0 as? HLSPlaylistError)?.code, .notAPlaylist)
        }
    }

    func testEveryCountLimitAcceptsItsLimitAndRefusesOneMore() throws {
        func variants(_ count: Int) -> String {
            "#EXTM3U\n" + (0..<count).map { "#EXT-X-STREAM-INF:BANDWIDTH=\($0 + 1)\nv\($0).m3u8\n" }.joined()
        }
        func renditions(_ count: Int) -> String {
            "#EXTM3U\n" + (0..<count).map { "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"n\($0)\"\n" }.joined()
        }
        func dateRanges(_ count: Int) -> String {
            "#EXTM3U\n"
                + (0..<count).map { "#EXT-X-DATERANGE:ID=\"d\($0)\",START-DATE=\"2024-01-01T00:00:00Z\"\n" }.joined()
        }
        func sessionEntries(_ count: Int) -> String {
            "#EXTM3U\n#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"k\"\n"
                + (1..<count).map { "#EXT-X-SESSION-DATA:DATA-ID=\"d\($0)\",VALUE=\"v\"\n" }.joined()
        }
        func segments(_ count: Int) -> String {
            "#EXTM3U\n" + (0..<count).map { "#EXTINF:1,\n\($0).ts\n" }.joined()
        }
        let limits = HLSParserLimits(
            maxSegments: 3, maxVariants: 3, maxRenditions: 3, maxDateRanges: 3, maxSessionEntries: 3)
        for (make, noun) in [
            (segments, "segments"), (variants, "variants"), (renditions, "renditions"),
            (dateRanges, "date ranges"), (sessionEntries, "session entries"),
        ] as [((Int) -> String, String)] {
            XCTAssertNoThrow(try HLSParser(limits: limits).parse(make(3), url: server), noun)
            assertRefused(make(4), .tooManyEntries, mentioning: "more than 3 \(noun)", limits: limits)
        }
        // I-frame variants count with the variants.
        assertRefused(
            variants(3) + "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=1,URI=\"i.m3u8\"\n", .tooManyEntries, line: 8,
            limits: limits)
    }

    /// Tags the counting scan does not see (indented) are still counted while parsing.
    func testTheReaderEnforcesTheCountsToo() {
        let limits = HLSParserLimits(maxSegments: 2)
        assertRefused(
            "#EXTM3U\n  #EXTINF:1,\na.ts\n  #EXTINF:1,\nb.ts\n  #EXTINF:1,\nc.ts\n", .tooManyEntries, line: 7,
            limits: limits)
    }

    func testTheDurationLimit() {
        let limits = HLSParserLimits(maxSegmentDuration: 60)
        XCTAssertNoThrow(try HLSParser(limits: limits).parse("#EXTM3U\n#EXTINF:60,\na.ts\n", url: server))
        assertRefused("#EXTM3U\n#EXTINF:60.001,\na.ts\n", .invalidDuration, line: 2, limits: limits)
        assertRefused("#EXTM3U\n#EXT-X-TARGETDURATION:61\n", .invalidDuration, line: 2, limits: limits)
    }

    func testDefaultLimits() {
        let limits = HLSParserLimits()
        XCTAssertEqual(limits.maxBytes, 16 * 1024 * 1024)
        XCTAssertEqual(limits.maxLineLength, 256 * 1024)
        XCTAssertEqual(limits.maxSegments, 200_000)
        XCTAssertEqual(limits.maxSegmentDuration, 86_400)
        XCTAssertEqual(limits.maxVariants, 1_024)
        XCTAssertEqual(limits.maxRenditions, 1_024)
    }

    /// Binary junk and truncated text fail with a parse error, never a crash.
    func testJunkNeverCrashes() {
        var generator = SplitMix64(seed: 0x5EED)
        let valid = Array(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-KEY:METHOD=AES-128,URI="k",IV=0x01
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="10@0"
            #EXT-X-PROGRAM-DATE-TIME:2024-01-01T00:00:00Z
            #EXT-X-DATERANGE:ID="a",START-DATE="2024-01-01T00:00:00Z",X-A="1"
            #EXT-X-BYTERANGE:5@0
            #EXTINF:4,t
            a.ts
            #EXT-X-ENDLIST
            """.utf8)
        var outcomes = [String: Int]()
        for _ in 0..<2000 {
            var bytes = valid
            for _ in 0..<(1 + Int(generator.next() % 4)) {
                let index = Int(generator.next() % UInt64(bytes.count))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1))))
            do {
                _ = try HLSParser().parse(Data(bytes), url: server)
                outcomes["parsed", default: 0] += 1
            } catch {
                outcomes["\(error.code)", default: 0] += 1
            }
        }
        XCTAssertEqual(outcomes.values.reduce(0, +), 2000)
        XCTAssertGreaterThan(outcomes["parsed"] ?? 0, 0)
        XCTAssertGreaterThan(outcomes.count, 3, "\(outcomes)")
    }
}

/// A small deterministic generator (SplitMix64) so the junk test is the same on every run.
private struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
