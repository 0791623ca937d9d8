import CoreMedia
import FFmpegBridge
import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import HLS

/// The HLS source read directly (as the engine's demux thread reads it), against the generated ladder on a loopback
/// server: packet counts per stream, seeks, renditions.
final class HLSSourceTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    /// Reads `source` to its end; the packet count per stream.
    private func readAll(_ source: HLSSource) throws -> [Int: Int] {
        var counts: [Int: Int] = [:]
        let packet = Packet()
        while try source.read(into: packet) == .packet {
            counts[packet.streamIndex, default: 0] += 1
        }
        return counts
    }

    func test_mediaPlaylists_readEveryPacket_TSAndFragmentedMP4() throws {
        for path in ["hls/ts/360p.m3u8", "hls/fmp4/360p.m3u8", "hls/vod.m3u8"] {
            let source = HLSSource(url: server.url(path))
            try source.open()
            let video = try XCTUnwrap(source.info.streams.first { $0.kind == .video }, path)
            let counts = try readAll(source)
            let frames =
                path == "hls/vod.m3u8" ? HLSFixture.vod.facts.video.frameCount : HLSFixture.ts.facts.video.frameCount
            XCTAssertEqual(counts[video.index], frames, path)
        }
    }

    func test_multivariant_readsTheVariantAndItsRenditions_interleaved() throws {
        for fixture in [HLSFixture.ts, .fmp4] {
            let source = HLSSource(url: server.url(fixture.rawValue))
            try source.open()
            // The subtitle rendition (TS ladder only) is the last stream; the source itself never reads it.
            let subtitles: [StreamKind] = fixture == .ts ? [.subtitle] : []
            XCTAssertEqual(source.info.streams.map(\.kind), [.video, .audio, .audio] + subtitles, "\(fixture)")
            source.setDiscard(keepingStreams: [0, 1])
            let counts = try readAll(source)
            XCTAssertEqual(counts[0], fixture.facts.video.frameCount, "\(fixture)")
            XCTAssertGreaterThan(counts[1] ?? 0, 0, "\(fixture)")
            XCTAssertNil(counts[2], "\(fixture)")
        }
    }
}

extension HLSSourceTests {
    /// Opening the ladder fetches the default audio rendition (it describes the group) and nothing of the other;
    /// keeping the other's stream opens it at the next read, and its packets are read in the place of the default's.
    func test_audioRendition_isOpenedWhenItsStreamIsKept() throws {
        for fixture in [HLSFixture.ts, .fmp4] {
            let folder = "/" + fixture.folder
            let french = { self.server.requestLog.map(\.path).filter { $0.hasPrefix(folder + "/fra") } }
            let source = HLSSource(url: server.url(fixture.rawValue))
            try source.open()
            XCTAssertEqual(french(), [], "\(fixture)")
            XCTAssertEqual(source.info.streams[2].kind, .audio, "\(fixture)")
            XCTAssertEqual(source.info.streams[2].language, "fra", "\(fixture)")
            XCTAssertEqual(source.kind(ofStream: 2), .audio, "\(fixture)")
            XCTAssertEqual(try source.codecParameters(stream: 2).codecName, "aac", "\(fixture)")
            XCTAssertEqual(french(), [], "\(fixture): described without a request")
            source.setDiscard(keepingStreams: [0, 2])
            XCTAssertEqual(french(), [], "\(fixture): opened by the next read (or seek)")
            let counts = try readAll(source)
            XCTAssertEqual(counts[0], fixture.facts.video.frameCount, "\(fixture)")
            XCTAssertGreaterThan(counts[2] ?? 0, 0, "\(fixture)")
            XCTAssertNil(counts[1], "\(fixture)")
            XCTAssertEqual(french().first, folder + "/fra.m3u8", "\(fixture)")
            let segments = french().filter { !$0.hasSuffix(".m3u8") && !$0.hasSuffix("_init.mp4") }
            XCTAssertEqual(segments.count, fixture.facts.audioRenditions[1].segmentCount, "\(fixture): \(segments)")
            XCTAssertEqual(Set(french()).count, french().count, "\(fixture): each request once")
        }
    }

    /// After a seek the next video packet is the keyframe starting the segment that holds the target, in TS (same
    /// demuxer, position reset) and fragmented MP4 (a new demuxer on the init section and that segment).
    func test_seek_continuesAtTheKeyframeOfTheSegmentHoldingTheTarget() throws {
        for path in ["hls/fmp4/360p.m3u8", "hls/ts/360p.m3u8"] {
            let source = HLSSource(url: server.url(path))
            try source.open()
            let start = try XCTUnwrap(source.info.startTimeMicroseconds)
            let timeBase = try XCTUnwrap(source.timeBase(ofStream: 0))
            let packet = Packet()
            for _ in 0..<10 { _ = try source.read(into: packet) }
            for target in [5.0, 1.0, 11.9, 0.0] {
                try source.seek(toMicroseconds: start + Int64(target * 1e6))
                XCTAssertEqual(try source.read(into: packet), .packet)
                XCTAssertTrue(packet.isKeyframe, "\(path) at \(target)")
                let seconds =
                    CMTime(ffmpeg: try XCTUnwrap(packet.pts), timeBase: timeBase).seconds - Double(start) / 1e6
                let segmentStart = (target / 2).rounded(.down) * 2
                XCTAssertEqual(seconds, segmentStart, accuracy: 0.1, "\(path) at \(target)")
            }
        }
    }

    /// The subtitle rendition's own source reads its segments' cues in order, on the variant's MPEG-TS clock (each
    /// segment's X-TIMESTAMP-MAP), and fetches nothing else.
    func test_subtitleSource_readsTheRenditionsCues_onTheVariantsClock() throws {
        let source = HLSSource(url: server.url(HLSFixture.ts.rawValue))
        try source.open()
        let index = try XCTUnwrap(source.info.streams.firstIndex { $0.kind == .subtitle })
        XCTAssertEqual(source.kind(ofStream: index), .subtitle)
        XCTAssertEqual(try source.codecParameters(stream: index).codecName, "webvtt")
        XCTAssertNil(source.makeSubtitleSource(stream: 0), "the variant's video is not read twice")
        let before = server.requestLog.count
        let subtitles = try XCTUnwrap(source.makeSubtitleSource(stream: index))
        try subtitles.open()
        let timeBase = try XCTUnwrap(subtitles.timeBase(ofStream: index))
        let packet = Packet()
        var starts: [Double] = []
        while case .packet = try subtitles.read(into: packet) {
            XCTAssertEqual(packet.streamIndex, index)
            starts.append(CMTime(ffmpeg: try XCTUnwrap(packet.pts), timeBase: timeBase).seconds)
        }
        // The first picture's MPEG-TS time, 132000 / 90000 s, is the cues' zero.
        let zero = 132_000.0 / 90_000
        let expected = HLSFixture.ts.facts.subtitleRenditions[0].cues.map { zero + $0.start }
        XCTAssertEqual(starts.count, expected.count)
        for (got, want) in zip(starts, expected) { XCTAssertEqual(got, want, accuracy: 1e-6) }
        let paths = server.requestLog.dropFirst(before).map(\.path)
        XCTAssertTrue(paths.allSatisfy { $0.contains("subs_eng") }, "\(paths)")
    }

    func test_webVTTTimestampMap_givesTheSegmentsOffset() {
        func offset(_ header: String) -> Int64 {
            HLSSubtitleRendition.timestampOffset(ofSegment: Data((header + "\n\n00:01.000 --> 00:02.000\nx\n").utf8))
        }
        XCTAssertEqual(offset("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000"), 10_000_000)
        XCTAssertEqual(offset("WEBVTT\nX-TIMESTAMP-MAP=LOCAL:00:00:02.500,MPEGTS:900000"), 7_500_000)
        XCTAssertEqual(offset("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:90000,LOCAL:01:00.000"), 1_000_000 - 60_000_000)
        XCTAssertEqual(offset("WEBVTT"), 0, "no map: cue time 0 is MPEG-TS time 0")
        XCTAssertEqual(offset("WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:abc,LOCAL:00:00.000"), 0, "malformed")
        XCTAssertEqual(offset("WEBVTT\n\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00.000"), 0, "not in the header")
    }
}

extension HLSSourceTests {
    /// A live (event) ladder's WebVTT rendition is reloaded like the media playlists: the cues of the segments a
    /// reload adds are read after those listed when it was selected, each once, until `EXT-X-ENDLIST` ends the
    /// reading.
    func test_liveSubtitleRendition_isReloaded_andTheCuesOfLaterSegmentsAreRead() throws {
        let live = try HLSLiveLadder(.ts, window: .event, initialSegments: 2, atEnd: .endList)
        live.serve(on: server, at: "/live/ts")
        let source = HLSSource(url: server.url("live/ts/master.m3u8"))
        try source.open()
        XCTAssertTrue(source.isLive)
        let index = try XCTUnwrap(source.info.streams.firstIndex { $0.kind == .subtitle })
        let reader = SubtitleTrackReader(
            source: try XCTUnwrap(source.makeSubtitleSource(stream: index)), streamIndex: index, timeOrigin: .zero)
        defer { reader.stop() }
        reader.start()
        let cues = HLSFixture.ts.facts.subtitleRenditions[0].cues
        /// The cues read so far: which fixture cue each is (by its text), in start order.
        func read() -> [Int] {
            reader.store.allCues.compactMap { cue -> Int? in
                guard case .ass(let line) = cue.regions.first else { return nil }
                return cues.indices.first { line.contains(cues[$0].text) }
            }
        }
        func wait(for count: Int) {
            XCTAssertTrue(reader.store.wait { read().count >= count }, "\(count) cues read")
        }
        wait(for: 2)
        XCTAssertEqual(read(), [0, 1], "what the playlist listed when it was selected")
        XCTAssertFalse(reader.store.isComplete, "a live rendition waits for more")
        live.advance(segments: 2)
        wait(for: 4)
        XCTAssertEqual(read(), [0, 1, 2, 3], "the cues of the segments a reload added")
        live.advance(segments: 2)
        XCTAssertTrue(reader.store.waitUntilComplete(), "the reader finished")
        XCTAssertTrue(reader.store.isComplete, "EXT-X-ENDLIST ends the reading")
        XCTAssertNil(reader.store.failure)
        XCTAssertEqual(read(), Array(cues.indices), "every cue once")
        // Each segment fetched once.
        let segments = server.requestLog.map(\.path).filter { $0.hasSuffix(".vtt") }
        XCTAssertEqual(segments.sorted(), (0..<cues.count).map { String(format: "/hls/ts/subs_eng_%03d.vtt", $0) })
        XCTAssertGreaterThan(server.requests(for: "/live/ts/subs_eng.m3u8").count, 1, "reloaded")
    }
}
