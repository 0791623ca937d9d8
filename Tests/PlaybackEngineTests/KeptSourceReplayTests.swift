import FFmpegBridge
import Foundation
import PlaybackEngine
import TestSupport
import XCTest

/// A local source that an asset's description read from (its closed-caption probe reads the first packets) and kept
/// for playback reads exactly as a source opened for playback would: every packet from the first, then the rest.
final class KeptSourceReplayTests: XCTestCase {
    /// One packet as read: enough to tell any two apart.
    private struct Read: Equatable {
        var stream: Int
        var pts: Int64?
        var dts: Int64?
        var size: Int
        var isKeyframe: Bool
        var checksum: UInt64
    }

    func test_keptSource_readsFromTheStart_asAFreshOne() throws {
        for fixture: Fixture in [.h264AAC, .h264AACTS, .multiAudioSubtitles] {
            let url = try Fixtures.url(fixture)
            let kept = try keptSource(url)
            XCTAssertGreaterThan(kept.bytesRead, 0, "\(fixture): the description read from it")
            let fresh = FFmpegSource(url: url)
            try fresh.open()
            let expected = try readAll(fresh)
            XCTAssertGreaterThan(expected.count, 200, "\(fixture)")
            try assertSame(readAll(kept), expected, "\(fixture): the same packets, from the first")
        }
    }

    /// Streams discarded after the description read are left out of what is read again (a fresh source still gives
    /// the packets libavformat buffered while probing, of every stream; then only those of the streams kept).
    func test_keptSource_skipsDiscardedStreams_inWhatItReadsAgain() throws {
        let url = try Fixtures.url(.h264AAC)
        let kept = try keptSource(url)
        let audio = try XCTUnwrap(kept.info.streams.firstIndex { $0.kind == .audio })
        kept.setDiscard(keepingStreams: [audio])
        let fresh = FFmpegSource(url: url)
        try fresh.open()
        fresh.setDiscard(keepingStreams: [audio])
        let expected = try readAll(fresh).filter { $0.stream == audio }
        XCTAssertGreaterThan(expected.count, 400)
        let reads = try readAll(kept)
        XCTAssertEqual(Set(reads.map(\.stream)), [audio])
        assertSame(reads, expected, "the audio packets, from the first")
    }

    /// A seek forgets the packets kept: reading goes on from the seek, as for a fresh source.
    func test_keptSource_seek_forgetsWhatWasKept() throws {
        let url = try Fixtures.url(.h264AAC)
        let kept = try keptSource(url)
        try kept.seek(toMicroseconds: 4_000_000)
        let fresh = FFmpegSource(url: url)
        try fresh.open()
        try fresh.seek(toMicroseconds: 4_000_000)
        let expected = try readAll(fresh)
        XCTAssertGreaterThan(expected.first?.pts ?? 0, 0)
        try assertSame(readAll(kept), expected, "from the seek")
    }

    private func assertSame(_ reads: [Read], _ expected: [Read], _ message: String, line: UInt = #line) {
        XCTAssertEqual(reads.count, expected.count, message, line: line)
        if let i = zip(reads, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            XCTFail("\(message): packet \(i) is \(reads[i]), not \(expected[i])", line: line)
        }
    }

    private func keptSource(_ url: URL) throws -> FFmpegSource {
        var kept: (any MediaSource)?
        _ = try MediaProbe.describe(url: url, options: SourceOptions(), cancellation: Cancellation()) { kept = $0 }
        return try XCTUnwrap(kept as? FFmpegSource, "a local libavformat source is kept")
    }

    private func readAll(_ source: FFmpegSource) throws -> [Read] {
        let packet = Packet()
        var reads: [Read] = []
        while case .packet = try source.read(into: packet) {
            let checksum = packet.withData { data in
                data.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
            }
            reads.append(
                Read(
                    stream: packet.streamIndex, pts: packet.pts, dts: packet.dts, size: packet.size,
                    isKeyframe: packet.isKeyframe, checksum: checksum))
            packet.unref()
        }
        return reads
    }
}
