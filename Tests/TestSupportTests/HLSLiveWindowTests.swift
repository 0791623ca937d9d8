import CoreMedia
import Foundation
import OAVFLocking
import TestSupport
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HLSLiveWindow's renderings, compared as whole texts.
final class HLSLiveWindowTests: XCTestCase {
    /// Four segments (the third 1.5 s), dated from 2020-01-02T03:04:05Z, as ffmpeg writes a VOD.
    private let vod = """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-TARGETDURATION:2
        #EXT-X-MEDIA-SEQUENCE:0
        #EXT-X-PLAYLIST-TYPE:VOD
        #EXTINF:2.000000,
        #EXT-X-PROGRAM-DATE-TIME:2020-01-02T03:04:05.000+0000
        a0.ts
        #EXTINF:2.000000,
        #EXT-X-PROGRAM-DATE-TIME:2020-01-02T03:04:07.000+0000
        a1.ts
        #EXTINF:1.500000,
        a2.ts
        #EXTINF:2.000000,
        a3.ts
        #EXT-X-ENDLIST

        """

    /// `vod` without its dates.
    private var undatedVOD: String {
        vod.split(separator: "\n").filter { !$0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME") }.joined(separator: "\n")
    }

    func test_parsesSegmentsAndTheFirstDate() throws {
        let live = try HLSLiveWindow(vodPlaylist: vod)
        XCTAssertEqual(live.segments.map(\.uri), ["a0.ts", "a1.ts", "a2.ts", "a3.ts"])
        XCTAssertEqual(live.segments.map(\.duration), [2, 2, 1.5, 2])
        XCTAssertEqual(live.firstProgramDate, Date(timeIntervalSince1970: 1_577_934_245))
        XCTAssertEqual(live.targetDuration, 2)
        XCTAssertEqual(live.carriedTags, [])
    }

    func test_sliding_showsTheLatestSegments_thenEndList() throws {
        let live = try HLSLiveWindow(vodPlaylist: vod, window: .sliding(segments: 3))
        XCTAssertEqual(live.publishedCount, 3)
        XCTAssertEqual(
            live.playlist(),
            """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-DISCONTINUITY-SEQUENCE:0
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T03:04:05.000Z
            #EXTINF:2.000000,
            a0.ts
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T03:04:07.000Z
            #EXTINF:2.000000,
            a1.ts
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T03:04:09.000Z
            #EXTINF:1.500000,
            a2.ts

            """)
        XCTAssertFalse(live.hasEnded)
        live.advance(segments: 1)
        let ended = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:1
            #EXT-X-DISCONTINUITY-SEQUENCE:0
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T03:04:07.000Z
            #EXTINF:2.000000,
            a1.ts
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T03:04:09.000Z
            #EXTINF:1.500000,
            a2.ts
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T03:04:10.500Z
            #EXTINF:2.000000,
            a3.ts
            #EXT-X-ENDLIST

            """
        XCTAssertEqual(live.playlist(), ended)
        XCTAssertTrue(live.hasEnded)
        live.advance(segments: 5)
        XCTAssertEqual(live.playlist(), ended, "nothing past the end")
        XCTAssertEqual(live.publishedCount, 4)
    }

    func test_event_keepsEverySegmentFromTheStart() throws {
        let live = try HLSLiveWindow(vodPlaylist: undatedVOD, window: .event)
        XCTAssertEqual(
            live.playlist(),
            """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-DISCONTINUITY-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:EVENT
            #EXTINF:2.000000,
            a0.ts

            """)
        live.advance(segments: 2)
        XCTAssertEqual(segmentURIs(live.playlist()), ["a0.ts", "a1.ts", "a2.ts"])
        XCTAssertFalse(live.playlist().contains("#EXT-X-ENDLIST"))
        live.advance()
        XCTAssertEqual(segmentURIs(live.playlist()), ["a0.ts", "a1.ts", "a2.ts", "a3.ts"])
        XCTAssertTrue(live.playlist().hasSuffix("a3.ts\n#EXT-X-ENDLIST\n"))
        XCTAssertTrue(live.playlist().contains("#EXT-X-MEDIA-SEQUENCE:0\n"))
    }

    func test_loop_repeatsAfterADiscontinuity_andCountsTheOnesThatSlideOut() throws {
        let live = try HLSLiveWindow(vodPlaylist: vod, window: .sliding(segments: 2), atEnd: .loop)
        live.advance(segments: 3)
        XCTAssertEqual(
            live.playlist(),
            """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:3
            #EXT-X-DISCONTINUITY-SEQUENCE:0
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T03:04:10.500Z
            #EXTINF:2.000000,
            a3.ts
            #EXT-X-DISCONTINUITY
            #EXT-X-PROGRAM-DATE-TIME:2020-01-02T03:04:12.500Z
            #EXTINF:2.000000,
            a0.ts

            """)
        live.advance()
        XCTAssertTrue(live.playlist().contains("#EXT-X-MEDIA-SEQUENCE:4\n#EXT-X-DISCONTINUITY-SEQUENCE:0\n"))
        XCTAssertEqual(segmentURIs(live.playlist()), ["a0.ts", "a1.ts"])
        live.advance()
        XCTAssertTrue(live.playlist().contains("#EXT-X-MEDIA-SEQUENCE:5\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n"))
        XCTAssertFalse(live.playlist().contains("#EXT-X-DISCONTINUITY\n"))
        // Two loops later: two more discontinuities have slid out; dates keep counting.
        live.advance(segments: 8)
        let text = live.playlist()
        XCTAssertTrue(text.contains("#EXT-X-MEDIA-SEQUENCE:13\n#EXT-X-DISCONTINUITY-SEQUENCE:3\n"), text)
        XCTAssertEqual(segmentURIs(text), ["a1.ts", "a2.ts"])
        XCTAssertTrue(
            text.contains("#EXT-X-PROGRAM-DATE-TIME:2020-01-02T03:04:29.500Z\n#EXTINF:2.000000,\na1.ts"), text)
        XCTAssertFalse(live.hasEnded)
    }

    func test_stall_staysLiveWithoutNewSegments() throws {
        let live = try HLSLiveWindow(vodPlaylist: undatedVOD, window: .sliding(segments: 3), atEnd: .stall)
        live.advance(segments: 10)
        let text = live.playlist()
        XCTAssertEqual(segmentURIs(text), ["a1.ts", "a2.ts", "a3.ts"])
        XCTAssertFalse(text.contains("#EXT-X-ENDLIST"))
        XCTAssertFalse(text.contains("PROGRAM-DATE-TIME"))
        XCTAssertFalse(live.hasEnded)
        live.advance()
        XCTAssertEqual(live.playlist(), text)
    }

    func test_realTime_publishesASegmentOnceItsDurationHasPassed() throws {
        let clock = TestClock()
        let live = try HLSLiveWindow(
            vodPlaylist: vod, window: .sliding(segments: 3), initialSegments: 1,
            advance: .realTime(now: { clock.now }))
        XCTAssertEqual(live.publishedCount, 1)
        clock.move(1.999)
        XCTAssertEqual(live.publishedCount, 1)
        clock.move(0.001)
        XCTAssertEqual(live.publishedCount, 2, "a1 recorded after its 2 s")
        clock.move(1.5)
        XCTAssertEqual(live.publishedCount, 3, "a2 is 1.5 s")
        live.advance()
        XCTAssertEqual(live.publishedCount, 4, "advance adds to the clock's")
        XCTAssertTrue(live.hasEnded)
        clock.move(100)
        XCTAssertEqual(live.publishedCount, 4)
    }

    /// `.clock`: the same schedule on a `CMClock`'s time (a manual `VirtualClock`, which a player may share), from
    /// the clock's reading when the window was made.
    func test_clock_publishesASegmentOnceItsDurationHasPassedOnTheClock() throws {
        let clock = VirtualClock(mode: .manual, start: CMTime(value: 5, timescale: 1))
        let live = try HLSLiveWindow(
            vodPlaylist: vod, window: .sliding(segments: 3), initialSegments: 1, advance: .clock(clock))
        XCTAssertEqual(live.publishedCount, 1)
        clock.advance(by: CMTime(value: 1999, timescale: 1000))
        XCTAssertEqual(live.publishedCount, 1)
        clock.advance(by: CMTime(value: 1, timescale: 1000))
        XCTAssertEqual(live.publishedCount, 2, "a1 recorded after its 2 s")
        clock.advance(by: CMTime(value: 3, timescale: 2))
        XCTAssertEqual(live.publishedCount, 3, "a2 is 1.5 s")
        XCTAssertEqual(segmentURIs(live.playlist()), ["a0.ts", "a1.ts", "a2.ts"])
    }

    func test_fixturePlaylists_keepDatesMapsAndKeys() throws {
        let folder = try Fixtures.directory()
        let ts = try HLSLiveWindow(contentsOf: folder.appendingPathComponent("hls/ts/360p.m3u8"))
        XCTAssertEqual(ts.segments.count, HLSFixture.ts.facts.videoSegmentCount)
        XCTAssertEqual(ts.firstProgramDate, HLSFixture.ts.facts.firstProgramDate)
        XCTAssertEqual(ts.carriedTags, ["#EXT-X-INDEPENDENT-SEGMENTS"])
        XCTAssertEqual(ts.targetDuration, HLSFixture.ts.facts.targetDuration)

        let fmp4 = try HLSLiveWindow(contentsOf: folder.appendingPathComponent("hls/fmp4/360p.m3u8"))
        XCTAssertEqual(fmp4.carriedTags, ["#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-MAP:URI=\"360p_init.mp4\""])
        XCTAssertTrue(fmp4.playlist().contains("#EXT-X-VERSION:6\n"))
        XCTAssertNil(fmp4.firstProgramDate)

        let aes = try HLSLiveWindow(contentsOf: folder.appendingPathComponent(HLSFixture.aes.rawValue))
        XCTAssertEqual(aes.carriedTags.count, 1)
        XCTAssertTrue(aes.carriedTags[0].hasPrefix("#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\",IV=0x"))

        let audio = try HLSLiveWindow(contentsOf: folder.appendingPathComponent("hls/ts/eng.m3u8"))
        XCTAssertEqual(audio.segments.count, 7)
        XCTAssertEqual(audio.targetDuration, 2)
    }

    func test_refusesWhatIsNotAVODMediaPlaylist() throws {
        XCTAssertThrowsError(try HLSLiveWindow(vodPlaylist: "hello")) {
            XCTAssertEqual($0 as? HLSLiveWindow.ParseError, .notAPlaylist)
        }
        XCTAssertThrowsError(try HLSLiveWindow(vodPlaylist: "#EXTM3U\n#EXT-X-ENDLIST\n")) {
            XCTAssertEqual($0 as? HLSLiveWindow.ParseError, .noSegments)
        }
        let master = try String(
            contentsOf: try Fixtures.directory().appendingPathComponent(HLSFixture.ts.rawValue), encoding: .utf8)
        XCTAssertThrowsError(try HLSLiveWindow(vodPlaylist: master)) {
            XCTAssertEqual($0 as? HLSLiveWindow.ParseError, .multivariant)
        }
    }

    /// Served from the fixture folder: each request sees the window of the moment, and its relative URIs resolve.
    func test_servedByTheTestServer() throws {
        let server = try HTTPTestServer(root: try Fixtures.directory())
        defer { server.stop() }
        let live = try HLSLiveWindow(
            contentsOf: try Fixtures.directory().appendingPathComponent("hls/ts/540p.m3u8"),
            window: .sliding(segments: 2))
        live.serve(on: server, at: "/hls/ts/live_540p.m3u8")
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let url = server.url("hls/ts/live_540p.m3u8")
        let first = try get(url, session)
        XCTAssertEqual(first.type, "application/vnd.apple.mpegurl")
        XCTAssertEqual(segmentURIs(first.text), ["540p_000.ts", "540p_001.ts"])
        live.advance()
        let second = try get(url, session)
        XCTAssertEqual(second.text, live.playlist())
        XCTAssertEqual(segmentURIs(second.text), ["540p_001.ts", "540p_002.ts"])
        let segment = try get(try XCTUnwrap(URL(string: "540p_002.ts", relativeTo: url)), session)
        XCTAssertEqual(segment.type, "video/mp2t")
        XCTAssertEqual(
            server.requestLog.map(\.path), ["/hls/ts/live_540p.m3u8", "/hls/ts/live_540p.m3u8", "/hls/ts/540p_002.ts"])
    }

    /// A whole ladder made live under another folder: the same multivariant playlist, every media playlist live
    /// with one "now", segment URIs pointing back at the VOD set.
    func test_ladder_servesEveryMediaPlaylistLive_withOneNow() throws {
        let server = try HTTPTestServer(root: try Fixtures.directory())
        defer { server.stop() }
        let ladder = try HLSLiveLadder(.ts, window: .sliding(segments: 2))
        XCTAssertEqual(
            ladder.windows.keys.sorted(),
            ["360p.m3u8", "540p.m3u8", "720p.m3u8", "eng.m3u8", "fra.m3u8", "subs_eng.m3u8"])
        ladder.serve(on: server, at: "/live/ts/")
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        let master = try get(server.url("live/ts/master.m3u8"), session)
        XCTAssertEqual(master.text, try String(contentsOf: try Fixtures.url(HLSFixture.ts), encoding: .utf8))
        let variantURL = try XCTUnwrap(URL(string: "720p.m3u8", relativeTo: server.url("live/ts/master.m3u8")))
        var variant = try get(variantURL, session)
        XCTAssertEqual(segmentURIs(variant.text), ["/hls/ts/720p_000.ts", "/hls/ts/720p_001.ts"])
        ladder.advance()
        variant = try get(variantURL, session)
        XCTAssertEqual(segmentURIs(variant.text), ["/hls/ts/720p_001.ts", "/hls/ts/720p_002.ts"])
        let french = try get(server.url("live/ts/fra.m3u8"), session)
        XCTAssertEqual(segmentURIs(french.text), ["/hls/ts/fra_001.ts", "/hls/ts/fra_002.ts"])
        XCTAssertTrue(french.text.contains("#EXT-X-MEDIA-SEQUENCE:1\n"))
        let segmentURL = try XCTUnwrap(URL(string: segmentURIs(variant.text)[1], relativeTo: variantURL))
        XCTAssertEqual(try get(segmentURL, session).type, "video/mp2t")
        XCTAssertEqual(server.requestLog.last?.status, 200)
    }

    // MARK: Helpers

    private func segmentURIs(_ playlist: String) -> [String] {
        playlist.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    private func get(_ url: URL, _ session: URLSession) throws -> (text: String, type: String?) {
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        session.dataTask(with: url) { data, response, _ in
            box.set(data ?? Data(), (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type"))
            done.signal()
        }.resume()
        XCTAssertEqual(done.wait(timeout: .now() + Awaitable<Void>.hangGuard), .success)
        let (data, type) = box.get()
        return (String(decoding: data, as: UTF8.self), type)
    }

    private final class Box: @unchecked Sendable {
        private let lock = ConditionLock()
        private var data = Data()
        private var type: String?
        func set(_ d: Data, _ t: String?) { lock.withLock { (data, type) = (d, t) } }
        func get() -> (Data, String?) { lock.withLock { (data, type) } }
    }
}

/// A clock a test moves by hand.
final class TestClock: @unchecked Sendable {
    private let lock = ConditionLock()
    private var current = Date(timeIntervalSince1970: 1_000_000)
    var now: Date { lock.withLock { current } }
    func move(_ seconds: TimeInterval) { lock.withLock { current += seconds } }
}
