import CoreMedia
import FFmpegBridge
import Foundation
import TestSupport
import XCTest

@testable import PlaybackEngine

/// The timed-ID3 fixture holds what it says (checked with ffprobe), and the metadata reader finds every tag at its
/// time with its frames.
final class TimedMetadataReaderTests: XCTestCase {
    func test_fixture_hasATimedID3StreamWithOnePacketPerEvent() throws {
        let url = try TimedID3Fixture.url()
        let report = try ProbeReport.probe(url)
        let data = report.streams(ofType: "data")
        XCTAssertEqual(data.map(\.codecName), ["timed_id3"])
        XCTAssertEqual(report.streams(ofType: "video").count, 1)
        XCTAssertEqual(report.streams(ofType: "audio").count, 1)
        let origin = report.format.startTime ?? 0
        let times = try ProbeReport.packetTimes(url, stream: "d:0").map { Double($0.pts) / 90_000 - origin }
        XCTAssertEqual(times.count, TimedID3Fixture.events.count)
        for (t, e) in zip(times, TimedID3Fixture.events) { XCTAssertEqual(t, e.time.seconds, accuracy: 0.001) }
    }

    func test_reader_findsEveryTagAtItsTime_withItsFrames() throws {
        let url = try TimedID3Fixture.url()
        let source = FFmpegSource(url: url)
        try source.open()
        let indices = Set(source.info.streams.filter { TimedMetadataReader.reads($0) }.map(\.index))
        XCTAssertEqual(indices.count, 1)
        let origin = CMTime(value: source.info.startTimeMicroseconds ?? 0, timescale: 1_000_000)
        let store = TimedMetadataStore()
        let reader = TimedMetadataReader(
            source: FFmpegSource(url: url), streamIndices: indices, timeOrigin: origin, store: store)
        reader.start()
        XCTAssertTrue(store.waitUntilComplete(), "the reader finished")
        reader.stop()
        XCTAssertTrue(store.isComplete)
        let samples = store.allSamples
        XCTAssertEqual(samples.count, TimedID3Fixture.events.count)
        guard samples.count == TimedID3Fixture.events.count else { return }
        for (sample, event) in zip(samples, TimedID3Fixture.events) {
            XCTAssertEqual(sample.time.seconds, event.time.seconds, accuracy: 0.001)
            guard case .id3(let frames) = sample.payload else { return XCTFail("not ID3") }
            XCTAssertEqual(frames.map(\.id), ["TIT2", "TXXX", "PRIV"])
            XCTAssertEqual(frames[0].text, event.title)
            XCTAssertEqual(frames[1].info, "index")
            XCTAssertEqual(frames[1].text, String(event.index))
            XCTAssertEqual(frames[2].info, TimedID3Fixture.Event.privateOwner)
            XCTAssertEqual(frames[2].data, event.privateData)
        }
        // What is in effect between tags, forwards and backwards.
        XCTAssertNil(store.sample(at: CMTime(value: 499, timescale: 1000)))
        XCTAssertEqual(store.sample(at: CMTime(value: 1200, timescale: 1000))?.time.seconds ?? 0, 1.0, accuracy: 0.001)
        XCTAssertEqual(store.sample(justBefore: samples[2].time)?.time, samples[1].time)
        XCTAssertEqual(
            store.samples(after: samples[0].time, through: samples[2].time).map(\.time),
            [
                samples[1].time, samples[2].time,
            ])
    }

    func test_id3Parser_readsV23UTF16AndLatin1_andSurvivesDamage() {
        // v2.3 tag: TIT2 in UTF-16 with BOM, TPE1 in Latin-1.
        let utf16: [UInt8] = [1, 0xff, 0xfe] + Array("Hé".utf16).flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] }
        let latin1: [UInt8] = [0, 0x43, 0x61, 0x66, 0xe9]
        func frame23(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + [0, 0, 0, UInt8(body.count), 0, 0] + body
        }
        let body = frame23("TIT2", utf16) + frame23("TPE1", latin1)
        let tag = Array("ID3".utf8) + [3, 0, 0] + ID3TagBuilder.syncSafe(body.count) + body
        let frames = ID3Tag.frames(tag)
        XCTAssertEqual(frames.map(\.id), ["TIT2", "TPE1"])
        XCTAssertEqual(frames.map(\.text), ["Hé", "Café"])
        // Every truncation of a good tag parses to a prefix of its frames, and never traps.
        let good = TimedID3Fixture.tag(for: TimedID3Fixture.events[0])
        let all = ID3Tag.frames(good)
        XCTAssertEqual(all.count, 3)
        for n in 0..<good.count {
            let prefix = ID3Tag.frames(Array(good[..<n]))
            XCTAssertEqual(prefix, Array(all.prefix(prefix.count)))
        }
        XCTAssertEqual(ID3Tag.frames(Array("not a tag at all".utf8)), [])
    }

    func test_icyFields_inOrder_quotesKept_garbageIgnored() {
        let fields = ItemSession.icyFields("StreamTitle='Artist - It's a title';StreamUrl='http://example.com/';\0\0")
        XCTAssertEqual(fields.map(\.key), ["StreamTitle", "StreamUrl"])
        XCTAssertEqual(fields.map(\.value), ["Artist - It's a title", "http://example.com/"])
        XCTAssertEqual(ItemSession.icyFields("StreamTitle='unterminated").map(\.value), ["unterminated"])
        XCTAssertTrue(ItemSession.icyFields("no fields here").isEmpty)
        XCTAssertTrue(ItemSession.icyFields("").isEmpty)
    }

    func test_id3Parser_damagedTags_neverTrap_andKeepTheirShape() {
        // SplitMix64, so every machine damages the same bytes.
        var state: UInt64 = 0x1D3
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let good = TimedID3Fixture.tag(for: TimedID3Fixture.events[2])
        var parsed = 0
        for round in 0..<3000 {
            var bytes = good
            if round % 3 == 0 {
                // Random bytes behind a plausible header.
                bytes = Array(good.prefix(10)) + (0..<Int(next() % 200)).map { _ in UInt8(truncatingIfNeeded: next()) }
            } else {
                for _ in 0..<(1 + Int(next() % 6)) {
                    bytes[Int(next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: next())
                }
            }
            for frame in ID3Tag.frames(bytes) {
                parsed += 1
                XCTAssertTrue((3...4).contains(frame.id.count), frame.id)
                XCTAssertTrue(frame.id.allSatisfy { $0.isUppercase || $0.isNumber }, frame.id)
                XCTAssertLessThanOrEqual(frame.data.count, bytes.count)
            }
            _ = ItemSession.icyFields(String(decoding: bytes, as: UTF8.self))
        }
        XCTAssertGreaterThan(parsed, 1000, "most damaged copies still hold frames")
    }
}
