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
            XCTAssertEqual(source.info.streams.map(\.kind), [.video, .audio, .audio], "\(fixture)")
            source.setDiscard(keepingStreams: [0, 1])
            let counts = try readAll(source)
            XCTAssertEqual(counts[0], fixture.facts.video.frameCount, "\(fixture)")
            XCTAssertGreaterThan(counts[1] ?? 0, 0, "\(fixture)")
            XCTAssertNil(counts[2], "\(fixture)")
        }
    }
}

extension HLSSourceTests {
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
}
