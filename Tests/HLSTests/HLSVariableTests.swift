import Foundation
import HLS
import XCTest

/// `#EXT-X-DEFINE` and `{$name}` substitution (8216bis section 4.3).
final class HLSVariableTests: XCTestCase {
    func testDefinedVariablesAreSubstitutedInURIsQuotedAndHexValues() throws {
        let playlist = try parseMedia(
            """
            #EXTM3U
            #EXT-X-VERSION:8
            #EXT-X-DEFINE:NAME="cdn",VALUE="https://cdn.example.com/v1"
            #EXT-X-DEFINE:NAME="iv-high",VALUE="00000000000000000000000000"
            #EXT-X-TARGETDURATION:4
            #EXT-X-KEY:METHOD=AES-128,URI="{$cdn}/key",IV=0x{$iv-high}000007
            #EXT-X-MAP:URI="{$cdn}/init.mp4"
            #EXTINF:4,
            {$cdn}/seg0.m4s
            #EXTINF:4,
            seg1.m4s?keep={$literal
            """)
        XCTAssertEqual(playlist.segments[0].uri.absoluteString, "https://cdn.example.com/v1/seg0.m4s")
        XCTAssertEqual(playlist.segments[0].key?.uri?.absoluteString, "https://cdn.example.com/v1/key")
        XCTAssertEqual(playlist.segments[0].key?.iv, [UInt8](repeating: 0, count: 15) + [7])
        XCTAssertEqual(playlist.segments[0].map?.uri.absoluteString, "https://cdn.example.com/v1/init.mp4")
        XCTAssertTrue(playlist.segments[1].uri.absoluteString.hasPrefix("https://media.example.com/live/stream/seg1"))
    }

    /// The multivariant playlist's variables reach its media playlists through `IMPORT`; `QUERYPARAM` reads the
    /// playlist URL.
    func testImportAndQueryParameters() throws {
        let multivariant = try parseMultivariant(
            """
            #EXTM3U
            #EXT-X-DEFINE:NAME="auth",VALUE="token=s3cr3t"
            #EXT-X-DEFINE:QUERYPARAM="session"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="English {$session}",URI="audio.m3u8?{$auth}"
            #EXT-X-STREAM-INF:BANDWIDTH=1000000,AUDIO="a"
            video.m3u8?{$auth}&s={$session}
            """, url: URL(string: "https://media.example.com/main.m3u8?session=42&x=1")!)
        XCTAssertEqual(multivariant.definitions, ["auth": "token=s3cr3t", "session": "42"])
        XCTAssertEqual(
            multivariant.variants[0].uri.absoluteString, "https://media.example.com/video.m3u8?token=s3cr3t&s=42")
        XCTAssertEqual(multivariant.renditions[0].name, "English 42")
        XCTAssertEqual(multivariant.renditions[0].uri?.query, "token=s3cr3t")

        let media = try HLSParser().parse(
            "#EXTM3U\n#EXT-X-DEFINE:IMPORT=\"auth\"\n#EXTINF:4,\nseg.ts?{$auth}\n",
            url: multivariant.variants[0].uri, importing: multivariant.definitions)
        guard case .media(let playlist) = media else { return XCTFail("\(media)") }
        XCTAssertEqual(playlist.segments[0].uri.absoluteString, "https://media.example.com/seg.ts?token=s3cr3t")
    }

    /// Without any `#EXT-X-DEFINE` the text is read literally.
    func testPlaylistsWithoutDefinitionsAreLiteral() throws {
        let playlist = try parseMultivariant(
            "#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"{$name}\"\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n")
        XCTAssertEqual(playlist.renditions[0].name, "{$name}")
    }

    func testBadDefinitionsAndReferencesAreRefused() {
        let define = "#EXTM3U\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"1\"\n"
        assertRefused(define + "#EXTINF:1,\n{$b}.ts\n", .invalidTag, line: 4, mentioning: "{$b} is not defined")
        assertRefused(
            define + "#EXT-X-DEFINE:NAME=\"a\",VALUE=\"2\"\n", .invalidAttribute, line: 3, mentioning: "twice")
        assertRefused("#EXTM3U\n#EXT-X-DEFINE:NAME=\"a b\",VALUE=\"1\"\n", .invalidAttribute, line: 2)
        assertRefused("#EXTM3U\n#EXT-X-DEFINE:NAME=\"a\"\n", .invalidAttribute, line: 2, mentioning: "VALUE")
        assertRefused(
            "#EXTM3U\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"1\",IMPORT=\"b\"\n", .invalidAttribute, line: 2,
            mentioning: "exactly one")
        assertRefused("#EXTM3U\n#EXT-X-DEFINE:IMPORT=\"auth\"\n", .invalidAttribute, line: 2, mentioning: "IMPORT")
        assertRefused("#EXTM3U\n#EXT-X-DEFINE:QUERYPARAM=\"token\"\n", .invalidAttribute, line: 2)
        XCTAssertThrowsError(
            try HLSParser().parse(
                "#EXTM3U\n#EXT-X-DEFINE:IMPORT=\"a\"\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n", url: remoteURL,
                importing: ["a": "1"])
        ) { error in
            XCTAssertEqual((error as? HLSPlaylistError)?.code, .invalidTag)
            XCTAssertEqual((error as? HLSPlaylistError)?.line, 2)
        }
    }

    /// A short playlist cannot expand a long value into a huge one: each line and the whole are bounded.
    func testExpansionIsBounded() {
        let value = String(repeating: "v", count: 1000)
        let define = "#EXTM3U\n#EXT-X-DEFINE:NAME=\"x\",VALUE=\"\(value)\"\n#EXT-X-TARGETDURATION:1\n"
        let longLine = String(repeating: "{$x}", count: 300)
        assertRefused(define + "#EXTINF:1,\n\(longLine)\n", .lineTooLong, line: 5, mentioning: "substitution")

        let limits = HLSParserLimits(maxBytes: 10_000)
        let line = String(repeating: "{$x}", count: 5)
        // Each URI line expands to 5 000 bytes; the second passes the 10 000-byte budget.
        let three = (0..<3).map { "#EXTINF:1,\n\(line)\($0).ts\n" }.joined()
        XCTAssertLessThan((define + three).utf8.count, 10_000)
        assertRefused(define + three, .tooLarge, line: 7, mentioning: "substitution", limits: limits)
    }
}
