import Foundation
import TestSupport
import XCTest

@testable import HLS

/// The `emsg` scanner on boxes made byte by byte (version 0 and 1, both ID3 schemes, 64-bit sizes, damaged sizes)
/// and on the generated `hls/emsg` segments, whole, split and mutated.
final class EmsgID3ScannerTests: XCTestCase {
    // MARK: Boxes

    private func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + body.count)) + Array(type.utf8) + body
    }

    private func be32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
    private func be64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) } }
    private func cString(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }

    private let aom = "https://aomedia.org/emsg/ID3"
    private let apple = "https://developer.apple.com/streaming/emsg-id3"
    private func tag(_ n: Int) -> [UInt8] {
        ID3TagBuilder.tag(frames: [ID3TagBuilder.textFrame("TIT2", "tag \(n)")])
    }

    private func emsg0(_ scheme: String, timescale: UInt32, delta: UInt32, _ payload: [UInt8]) -> [UInt8] {
        box(
            "emsg",
            [0, 0, 0, 0] + cString(scheme) + cString("") + be32(timescale) + be32(delta) + be32(0xFFFF_FFFF)
                + be32(1) + payload)
    }

    private func emsg1(_ scheme: String, timescale: UInt32, time: UInt64, _ payload: [UInt8]) -> [UInt8] {
        box(
            "emsg",
            [1, 0, 0, 0] + be32(timescale) + be64(time) + be32(0xFFFF_FFFF) + be32(1) + cString(scheme)
                + cString("") + payload)
    }

    /// An init section with one track: ID `track`, timescale 15360, movie timescale 1000, and an edit list of an
    /// empty edit of `empty` ms then media from `mediaTime` (ffmpeg's fMP4: 66 ms, 1024).
    private func initSection(track: UInt32 = 1, empty: UInt32 = 66, mediaTime: Int32 = 1024) -> [UInt8] {
        let mvhd = box(
            "mvhd", [0, 0, 0, 0] + be32(0) + be32(0) + be32(1000) + be32(0) + [UInt8](repeating: 0, count: 80))
        let tkhd = box("tkhd", [0, 0, 0, 3] + be32(0) + be32(0) + be32(track) + [UInt8](repeating: 0, count: 68))
        let elst = box(
            "elst",
            [0, 0, 0, 0] + be32(2) + be32(empty) + be32(0xFFFF_FFFF) + be32(0x10000) + be32(0)
                + be32(UInt32(bitPattern: mediaTime)) + be32(0x10000))
        let mdhd = box("mdhd", [0, 0, 0, 0] + be32(0) + be32(0) + be32(15360) + be32(0) + be32(0))
        let trak = box("trak", tkhd + box("edts", elst) + box("mdia", mdhd))
        return box("ftyp", Array("iso5".utf8) + be32(0)) + box("moov", mvhd + trak)
    }

    private func sidx(ept: UInt32, timescale: UInt32 = 15360, track: UInt32 = 1) -> [UInt8] {
        box("sidx", [0, 0, 0, 0] + be32(track) + be32(timescale) + be32(ept) + be32(0) + be32(0))
    }

    private func moof(track: UInt32 = 1, tfdt: UInt64) -> [UInt8] {
        box(
            "moof",
            box("mfhd", [0, 0, 0, 0] + be32(1))
                + box("traf", box("tfhd", [0, 2, 0, 0] + be32(track)) + box("tfdt", [1, 0, 0, 0] + be64(tfdt))))
    }

    private let mdat = [UInt8](repeating: 0, count: 8) + [UInt8](repeating: 0x47, count: 5000)

    /// Scans `segment` after `initBytes`, fed in pieces of `chunk` bytes; the tags found.
    private func scan(
        _ segment: [UInt8], init initBytes: [UInt8]? = nil, chunk: Int = .max, sequence: Int = 0
    ) -> [EmsgID3Scanner.Event] {
        var scanner = EmsgID3Scanner()
        scanner.readInitSection(initBytes ?? initSection())
        scanner.startSegment(discontinuitySequence: sequence, fragmented: true)
        var offset = 0
        while offset < segment.count {
            let end = min(segment.count, offset + min(chunk, segment.count - offset))
            segment[offset..<end].withUnsafeBytes { scanner.consume($0) }
            offset = end
        }
        scanner.finishSegment()
        return scanner.takeEvents()
    }

    /// ffmpeg's edit list (66 ms empty edit, media from 1024/15360): libavformat subtracts 1024 − 1014 = 10 ticks.
    private let shift = 10.0 / 15360

    private var mdatBox: [UInt8] { box("mdat", mdat) }

    // MARK: Tests

    func test_initSection_editListShift_asLibavformatComputesIt() {
        var scanner = EmsgID3Scanner()
        scanner.readInitSection(initSection())
        XCTAssertEqual(scanner.tracks, [1: EmsgID3Scanner.TrackTiming(timescale: 15360, shift: 10)])
        scanner.readInitSection(initSection(track: 7, empty: 0, mediaTime: 2048))
        XCTAssertEqual(scanner.tracks, [7: EmsgID3Scanner.TrackTiming(timescale: 15360, shift: 2048)])
    }

    func test_version0_isRelativeToTheSidxEarliestTime_version1IsAbsolute() {
        let segment =
            box("styp", Array("msdh".utf8) + be32(0)) + emsg0(aom, timescale: 1000, delta: 500, tag(1))
            + emsg1(apple, timescale: 90000, time: 337_500, tag(2)) + sidx(ept: 30720) + moof(tfdt: 30720) + mdatBox
        for chunk in [Int.max, 1, 7, 100] {
            let events = scan(segment, chunk: chunk, sequence: 3)
            XCTAssertEqual(events.map(\.payload), [tag(1), tag(2)], "chunk \(chunk)")
            XCTAssertEqual(events.count, 2)
            guard events.count == 2 else { continue }
            XCTAssertEqual(events[0].seconds, 2.5 - shift, accuracy: 1e-9)
            XCTAssertEqual(events[1].seconds, 3.75 - shift, accuracy: 1e-9)
            XCTAssertEqual(events.map(\.discontinuitySequence), [3, 3])
        }
    }

    func test_withoutSidx_version0IsRelativeToTheFirstTfdt() {
        let segment = emsg0(aom, timescale: 90000, delta: 45000, tag(1)) + moof(tfdt: 15360 * 4) + mdatBox
        let events = scan(segment)
        XCTAssertEqual(events.map(\.payload), [tag(1)])
        XCTAssertEqual(events.first?.seconds ?? 0, 4.5 - shift, accuracy: 1e-9)
    }

    func test_otherSchemes_unknownVersions_andTruncatedFields_areIgnored() {
        var bad = emsg0(aom, timescale: 1000, delta: 0, tag(9))
        bad[8] = 2  // version 2
        let segment =
            emsg0("urn:scte:scte35:2013:bin", timescale: 90000, delta: 0, [0xFC, 0x30])
            + emsg0(aom, timescale: 0, delta: 5, tag(8))  // zero timescale
            + bad
            + box("emsg", [1, 0, 0, 0] + be32(90000) + [0, 0])  // fields overrun the box
            + box("emsg", [0, 0, 0, 0] + Array(aom.utf8))  // scheme without its NUL
            + emsg1(aom, timescale: 90000, time: 90000, tag(1)) + sidx(ept: 0) + mdatBox
        XCTAssertEqual(scan(segment).map(\.payload), [tag(1)])
    }

    func test_largeSizes_andBoxesToTheEnd_areSkipped_damagedSizesStopTheSegmentOnly() {
        // A 64-bit-size `free` box, then a tag, then an mdat whose size is 0 (to the end): what follows is its body.
        let large = be32(1) + Array("free".utf8) + be64(16 + 100) + [UInt8](repeating: 0xAA, count: 100)
        let tail = be32(0) + Array("mdat".utf8) + emsg1(aom, timescale: 1, time: 9, tag(9))
        let segment = large + emsg1(aom, timescale: 1, time: 2, tag(2)) + sidx(ept: 0) + tail
        for chunk in [Int.max, 1, 5] {
            XCTAssertEqual(scan(segment, chunk: chunk).map(\.payload), [tag(2)], "chunk \(chunk)")
        }
        // A size below its header ends the scan of the segment: tags before it stay, none after; the next segment
        // is scanned again.
        var scanner = EmsgID3Scanner()
        scanner.readInitSection(initSection())
        scanner.startSegment(discontinuitySequence: 0, fragmented: true)
        let damaged =
            emsg1(aom, timescale: 1, time: 1, tag(1)) + be32(3) + Array("junk".utf8)
            + emsg1(aom, timescale: 1, time: 5, tag(5))
        damaged.withUnsafeBytes { scanner.consume($0) }
        scanner.startSegment(discontinuitySequence: 0, fragmented: true)
        emsg1(aom, timescale: 1, time: 6, tag(6)).withUnsafeBytes { scanner.consume($0) }
        scanner.finishSegment()
        XCTAssertEqual(scanner.takeEvents().map(\.payload), [tag(1), tag(6)])
        // A box claiming more than the scanner keeps is skipped whole (its bytes are not read as boxes).
        let huge = be32(UInt32(EmsgID3Scanner.maximumKeptBox + 9)) + Array("emsg".utf8)
        XCTAssertEqual(scan(huge + emsg1(aom, timescale: 1, time: 1, tag(1))).count, 0)
    }

    func test_segmentsWithoutInitSection_orNotFragmented_giveNothing() {
        let segment = emsg1(aom, timescale: 1, time: 1, tag(1)) + sidx(ept: 0) + mdatBox
        XCTAssertEqual(scan(segment, init: []).count, 0, "no track timing")
        var scanner = EmsgID3Scanner()
        scanner.readInitSection(initSection())
        scanner.startSegment(discontinuitySequence: 0, fragmented: false)
        segment.withUnsafeBytes { scanner.consume($0) }
        scanner.finishSegment()
        XCTAssertEqual(scanner.takeEvents().count, 0)
    }

    // MARK: The generated segments

    private func fixtureBytes(_ name: String) throws -> [UInt8] {
        let folder = try EmsgID3Fixture.url().deletingLastPathComponent()
        return Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    func test_generatedSegments_giveEveryTagAtItsMediaTime() throws {
        let initBytes = try fixtureBytes("init.mp4")
        var scanner = EmsgID3Scanner()
        scanner.readInitSection(initBytes)
        var events: [EmsgID3Scanner.Event] = []
        for i in 0..<6 {
            scanner.startSegment(discontinuitySequence: 0, fragmented: true)
            let bytes = try fixtureBytes(String(format: "seg_%03d.m4s", i))
            // In the 32 KiB reads libavformat asks for.
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + 32768)
                bytes[offset..<end].withUnsafeBytes { scanner.consume($0) }
                offset = end
            }
            scanner.finishSegment()
            events += scanner.takeEvents()
        }
        let expected = EmsgID3Fixture.events
        XCTAssertEqual(events.count, expected.count)
        for (event, tag) in zip(events, expected) {
            XCTAssertEqual(event.seconds, tag.mediaTime - shift, accuracy: 1e-6, tag.title)
            XCTAssertTrue(event.payload.starts(with: Array("ID3".utf8)))
            XCTAssertNotNil(
                event.payload.firstRange(of: Array(tag.title.utf8)), "\(tag.title) in its tag")
        }
    }

    func test_mutatedAndTruncatedSegments_neverTrap() throws {
        let initBytes = try fixtureBytes("init.mp4")
        let segment = Array(try fixtureBytes("seg_000.m4s").prefix(2000))
        var generator = SplitMix(seed: 20_260_202)
        for round in 0..<400 {
            var bytes = segment
            let cut = Int(generator.next() % UInt64(bytes.count))
            if round % 2 == 0 { bytes.removeLast(bytes.count - cut) }
            for _ in 0..<(1 + Int(generator.next() % 8)) {
                let at = Int(generator.next() % UInt64(max(1, min(bytes.count, 600))))
                if at < bytes.count { bytes[at] = UInt8(truncatingIfNeeded: generator.next()) }
            }
            var damagedInit = initBytes
            let initAt = Int(generator.next() % UInt64(damagedInit.count))
            damagedInit[initAt] = UInt8(truncatingIfNeeded: generator.next())
            if round % 3 == 0 { damagedInit.removeLast(damagedInit.count - initAt) }
            _ = scan(bytes, init: damagedInit, chunk: 1 + Int(generator.next() % 64))
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failing mutation can be replayed.
private struct SplitMix {
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
