import Foundation
import TestSupport
import XCTest

@testable import PlaybackEngine

/// QuickTime timed-metadata key tables (`mebx`), read from a file's `moov`, and samples decoded with them: hand-made
/// values of each well-known type, the fixture's track, and damaged bytes that never trap.
final class MetadataKeyTableTests: XCTestCase {
    private func box(_ type: UInt32, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + body.count)
        return be(size) + be(type) + body
    }

    private func be(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)]
    }

    func test_values_ofEachWellKnownType() {
        typealias V = MetadataKeyTable.Value
        XCTAssertEqual(MetadataKeyTable.value(Array("héllo".utf8), type: 1), V.string("héllo"))
        XCTAssertEqual(MetadataKeyTable.value([0, 0x68, 0, 0x69], type: 2), V.string("hi"))
        XCTAssertEqual(MetadataKeyTable.value([0xFF], type: 65), V.integer(-1))
        XCTAssertEqual(MetadataKeyTable.value([0xFF, 0xFE], type: 66), V.integer(-2))
        XCTAssertEqual(MetadataKeyTable.value([0, 0, 1, 0], type: 67), V.integer(256))
        XCTAssertEqual(MetadataKeyTable.value([0x80, 0, 0, 0, 0, 0, 0, 0], type: 74), V.integer(Int64.min))
        XCTAssertEqual(MetadataKeyTable.value([0xFF, 0xFF], type: 76), V.integer(65535))
        XCTAssertEqual(MetadataKeyTable.value([0xFF, 0xFF, 0xFF], type: 21), V.integer(-1))
        XCTAssertEqual(MetadataKeyTable.value([0x01, 0x00, 0x00], type: 22), V.integer(65536))
        XCTAssertEqual(MetadataKeyTable.value([0x3F, 0xC0, 0, 0], type: 23), V.float(1.5))
        XCTAssertEqual(MetadataKeyTable.value([0x40, 0x04, 0, 0, 0, 0, 0, 0], type: 24), V.float(2.5))
        // Lengths that do not fit the type, unknown types, and no type: the bytes.
        XCTAssertEqual(MetadataKeyTable.value([1, 2, 3], type: 67), V.data([1, 2, 3]))
        XCTAssertEqual(
            MetadataKeyTable.value(Array(repeating: 0xFF, count: 8), type: 78), V.data(Array(repeating: 0xFF, count: 8))
        )
        XCTAssertEqual(MetadataKeyTable.value([9], type: 13), V.data([9]))
        XCTAssertEqual(MetadataKeyTable.value([9], type: nil), V.data([9]))
    }

    func test_aSample_isDecodedWithItsKeys_unknownKeysSkipped() {
        let title = MetadataKeyTable.Key(namespace: "mdta", name: "a.title", dataType: 1)
        let count = MetadataKeyTable.Key(namespace: "mdta", name: "a.count", dataType: 67)
        let table = MetadataKeyTable(keys: [1: title, 2: count])
        let sample = box(2, [0, 0, 0, 7]) + box(9, [1, 2]) + box(1, Array("x".utf8)) + [0, 0, 0]
        let values = table.decode(sample)
        XCTAssertEqual(values.map(\.key), [count, title])
        XCTAssertEqual(values.map(\.value), [.integer(7), .string("x")])
        XCTAssertTrue(table.decode([]).isEmpty)
        XCTAssertTrue(table.decode([0, 0, 0, 4, 0, 0, 0, 1]).isEmpty, "a box shorter than its header")
    }

    func test_theFixturesTrack_hasItsKeyTable() throws {
        let tables = MetadataKeyTable.tables(inFileAt: try TimedMetadataTrackFixture.url().path)
        XCTAssertEqual(Array(tables.keys), [TimedMetadataTrackFixture.trackID])
        let table = try XCTUnwrap(tables[TimedMetadataTrackFixture.trackID])
        XCTAssertEqual(
            table.keys.sorted { $0.key < $1.key }.map {
                [$0.value.namespace, $0.value.name, "\($0.value.dataType ?? 0)"]
            },
            TimedMetadataTrackFixture.keys.map { ["mdta", $0.name, "\($0.dataType)"] })
        XCTAssertTrue(MetadataKeyTable.tables(inFileAt: try Fixtures.url(.h264AAC).path).isEmpty)
        XCTAssertTrue(MetadataKeyTable.tables(inFileAt: "/nonexistent/file.mp4").isEmpty)
    }

    /// Damaged copies of the fixture (the moov's bytes flipped, zeroed, cut) give a table or none, never a trap;
    /// random samples decode to at most their boxes.
    func test_damagedInput_neverTraps() throws {
        let original = try Data(contentsOf: try TimedMetadataTrackFixture.url())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-mebx-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for seed in UInt64(1)...60 {
            let mutant = MediaMutator.mutate(original, seed: seed)
            let url = folder.appendingPathComponent("m\(seed).mp4")
            try mutant.data.write(to: url)
            let tables = MetadataKeyTable.tables(inFileAt: url.path)
            XCTAssertLessThanOrEqual(tables.count, 1, mutant.description)
        }
        var generator = SystemRandomNumberGenerator()
        let table = MetadataKeyTable(keys: [1: .init(namespace: "mdta", name: "k", dataType: 67)])
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in UInt8.random(in: 0...255) }
            XCTAssertLessThanOrEqual(table.decode(bytes).count, bytes.count / 8)
        }
    }
}
