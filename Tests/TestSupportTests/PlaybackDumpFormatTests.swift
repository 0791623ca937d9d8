import CoreMedia
import Foundation
import TestSupport
import XCTest

/// The playback-dump text format, its hash, the golden-file check and its diff.
final class PlaybackDumpFormatTests: XCTestCase {
    func testFNV1a64KnownValues() {
        func digest(_ text: String) -> String {
            var hash = FNV1a64()
            hash.combine(bytes: Array(text.utf8))
            return hash.hexDigest
        }
        // The reference values of the FNV specification's test suite.
        XCTAssertEqual(digest(""), "cbf29ce484222325")
        XCTAssertEqual(digest("a"), "af63dc4c8601ec8c")
        XCTAssertEqual(digest("foobar"), "85944171f73967e8")

        // Floats hash as their little-endian bit patterns.
        var floats = FNV1a64()
        floats.combine([Float(1), -0.0])
        var bytes = FNV1a64()
        bytes.combine(bytes: [0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x80])
        XCTAssertEqual(floats, bytes)
    }

    func testTextHasOneLinePerEntryAndRechunksAudio() {
        var dump = PlaybackDump(scenario: "two pictures", notes: ["made by hand"])
        dump.addPicture(item: "A", time: CMTime(value: 33, timescale: 1000), frameIndex: 1)
        dump.addPicture(item: "B", time: .zero, frameIndex: nil)
        dump.setAudio([Float](repeating: 0.25, count: 2 * 10), sampleRate: 48_000, channelCount: 2, chunkFrames: 4)
        dump.footer = ["end A 33/1000"]
        var whole = FNV1a64()
        whole.combine([Float](repeating: 0.25, count: 8))
        var tail = FNV1a64()
        tail.combine([Float](repeating: 0.25, count: 4))
        XCTAssertEqual(
            dump.lines,
            [
                "# playback dump: two pictures", "# made by hand", "pictures: 2", "picture A 33/1000 frame 1",
                "picture B 0/1 frame ?",
                "audio: 48000 Hz, 2 channels, 10 frames in chunks of 4, FNV-1a 64 of the Float bit patterns",
                "audio 0+4 \(whole.hexDigest)", "audio 4+4 \(whole.hexDigest)", "audio 8+2 \(tail.hexDigest)",
                "end A 33/1000",
            ])
        XCTAssertEqual(dump.text, dump.lines.joined(separator: "\n") + "\n")

        dump.setAudio([0, 0, 0], sampleRate: 48_000, channelCount: 1, chunkFrames: 2, detail: .positionsOnly)
        XCTAssertEqual(dump.audioChunks.map(\.hash), [nil, nil])
        XCTAssertTrue(dump.lines.contains("audio 2+1"))
        XCTAssertEqual(PlaybackDump(scenario: "silent").lines.last, "audio: none")
    }

    func testUnifiedDiffShowsChangesWithContext() throws {
        let expected = (1...20).map { "line \($0)" }
        var actual = expected
        actual[9] = "line ten"
        actual.remove(at: 15)
        let diff = try XCTUnwrap(LineDiff.unified(expected: expected, actual: actual, context: 2))
        XCTAssertEqual(
            diff.split(separator: "\n").map(String.init),
            [
                "--- expected", "+++ actual", "@@ -8,5 +8,5 @@", " line 8", " line 9", "-line 10", "+line ten",
                " line 11", " line 12", "@@ -14,5 +14,4 @@", " line 14", " line 15", "-line 16", " line 17",
                " line 18",
            ])
        XCTAssertNil(LineDiff.unified(expected: expected, actual: expected))
        let long = try XCTUnwrap(LineDiff.unified(expected: [], actual: (1...100).map(String.init), maximumLines: 5))
        XCTAssertTrue(long.hasSuffix("… 96 more diff lines not shown"), long)
    }

    func testGoldenFileMismatchSaysHowToRegenerate() throws {
        guard !GoldenFile.isUpdating else { throw XCTSkip("\(GoldenFile.updateVariable) is set") }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-golden-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("x.dump")
        let missing = try XCTUnwrap(GoldenFile.verify("a\n", file: file, regenerate: "make golden"))
        XCTAssertTrue(missing.contains("missing") && missing.contains("make golden"), missing)

        try "a\nb\nc\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertNil(GoldenFile.verify("a\nb\nc\n", file: file, regenerate: "make golden"))
        let message = try XCTUnwrap(GoldenFile.verify("a\nB\nc\n", file: file, regenerate: "make golden"))
        XCTAssertTrue(message.contains("-b\n+B"), message)
        XCTAssertTrue(message.contains("`make golden`"), message)
    }
}
