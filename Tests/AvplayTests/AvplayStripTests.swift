import CoreGraphics
import Foundation
import TestSupport
import XCTest

/// `avplay thumbs` in batch mode, run as a separate process: the WebVTT sprites, Jellyfin's trickplay tiles and
/// playlist and Roku's BIF are parsed back and the frame index drawn in each fixture picture is read from every
/// thumbnail; sharding, resuming and a bad file among good ones are checked on the JSON lines and the files left.
final class AvplayStripTests: XCTestCase {
    /// The fixtures' frame rate.
    let fps = 30.0

    struct Line {
        var path: String
        var status: String
        var object: [String: Any]
    }

    private func avplay(
        _ arguments: [String], input: Data? = nil
    ) throws -> (status: Int32, lines: [Line], stderr: String) {
        let r = try Subprocess.run(AvplayInfoTests.binary.path, arguments, input: input)
        XCTAssertFalse(r.timedOut, "avplay \(arguments) did not exit within a minute")
        let lines = r.stdout.split(separator: "\n").map { text -> Line in
            let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
            XCTAssertFalse(object.isEmpty, "not a JSON object: \(text)")
            return Line(
                path: object["path"] as? String ?? "", status: object["status"] as? String ?? "", object: object)
        }
        return (r.status, lines, r.stderr)
    }

    /// A new empty folder, removed after the test.
    private func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("avplay-strips-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Copies of `fixture` at `names` inside `folder` (copies, not links: resume looks at each file's own size and
    /// time).
    private func copies(of fixture: Fixture, _ names: [String], in folder: URL) throws -> [URL] {
        try names.map { name in
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: try Fixtures.url(fixture), to: url)
            return url
        }
    }

    /// The frame index drawn in the `rect` part of `image`.
    private func frameIndex(_ image: CGImage, _ rect: CGRect) -> Int? {
        guard let part = image.cropping(to: rect) else { return nil }
        return FrameIndexReader.read(image: part)?.index
    }

    /// The mean brightness (0…255) of the `rect` part of `image`.
    private func brightness(_ image: CGImage, _ rect: CGRect) -> Double {
        guard let part = image.cropping(to: rect), let data = part.dataProvider?.data as Data? else { return -1 }
        var sum = 0
        for y in 0..<part.height {
            for x in 0..<part.width {
                let p = y * part.bytesPerRow + 4 * x
                sum += Int(data[p]) + Int(data[p + 1]) + Int(data[p + 2])
            }
        }
        return Double(sum) / Double(3 * part.width * part.height)
    }

    /// A BIF file's images: their timestamps (× the multiplier: milliseconds) and JPEG bytes, after checking the
    /// header, the reserved bytes and the index's end entry.
    private func parseBIF(_ url: URL) throws -> (multiplier: UInt32, images: [(timestamp: UInt32, jpeg: Data)]) {
        let data = try Data(contentsOf: url)
        XCTAssertEqual(Array(data.prefix(8)), [0x89, 0x42, 0x49, 0x46, 0x0D, 0x0A, 0x1A, 0x0A], "BIF magic")
        func u32(_ at: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[at + $1]) << (8 * $1) } }
        XCTAssertEqual(u32(8), 0, "version 0")
        let count = Int(u32(12))
        XCTAssertTrue(data[20..<64].allSatisfy { $0 == 0 }, "reserved bytes are zero")
        var images: [(UInt32, Data)] = []
        for i in 0..<count {
            let entry = 64 + 8 * i
            let (start, end) = (Int(u32(entry + 4)), Int(u32(entry + 12)))
            XCTAssertLessThan(start, end, "image \(i) has bytes")
            images.append((u32(entry), data[start..<end]))
        }
        XCTAssertEqual(u32(64 + 8 * count), 0xFFFF_FFFF, "end-of-index entry")
        XCTAssertEqual(Int(u32(64 + 8 * count + 4)), data.count, "the end entry's offset is the file's size")
        XCTAssertEqual(Int(u32(68)), 64 + 8 * (count + 1), "the first image follows the index")
        return (u32(16), images)
    }

    /// Decodes JPEG bytes with FFmpeg (through a file).
    private func decode(_ jpeg: Data) throws -> CGImage? {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("avplay-bif-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: url) }
        try jpeg.write(to: url)
        return StillImageFileDecoder.decode(url)
    }

    func test_strips_vttJellyfinAndBIF_parseBack_andEveryThumbnailShowsItsFrame() throws {
        let out = try folder()
        let input = try Fixtures.url(.h264AAC).path
        // 10 s at one picture a second: 10 thumbnails of 160 x 120, 4 x 2 per sheet: a full sheet and one of 2.
        let r = try avplay([
            "thumbs", input, "--every", "1", "--width", "160", "--tiles", "4x2", "-d", out.path,
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.lines.count, 1)
        XCTAssertEqual(r.lines.first?.status, "ok", "\(r.lines.first?.object ?? [:])")
        XCTAssertEqual(r.lines.first?.object["images"] as? Int, 10)
        let stem = "h264_aac"

        // WebVTT: a cue a second pointing into the sprite sheets; the last sheet stops after its one used row.
        let sprites = out.appendingPathComponent("\(stem).sprites")
        let vtt = try String(contentsOf: sprites.appendingPathComponent("thumbnails.vtt"), encoding: .utf8)
        XCTAssertTrue(vtt.hasPrefix("WEBVTT\n\n"), vtt)
        let cues = vtt.components(separatedBy: "\n\n").dropFirst().map { $0.split(separator: "\n").map(String.init) }
        XCTAssertEqual(cues.count, 10, vtt)
        let fragment = try NSRegularExpression(pattern: #"^(\d+)\.jpg#xywh=(\d+),(\d+),(\d+),(\d+)$"#)
        for (i, cue) in cues.enumerated() {
            XCTAssertEqual(cue.count, 2, "\(cue)")
            let start = String(format: "00:00:%02d.000", i)
            let end = String(format: "00:00:%02d.000", i + 1)
            XCTAssertEqual(cue[0], "\(start) --> \(end)")
            let m = try XCTUnwrap(fragment.firstMatch(in: cue[1], range: NSRange(cue[1].startIndex..., in: cue[1])))
            let n = (1...5).map { Int((cue[1] as NSString).substring(with: m.range(at: $0)))! }
            XCTAssertEqual(n[0], i / 8)
            XCTAssertEqual([n[1], n[2], n[3], n[4]], [(i % 4) * 160, (i % 8 / 4) * 120, 160, 120], cue[1])
            let sheet = try XCTUnwrap(StillImageFileDecoder.decode(sprites.appendingPathComponent("\(n[0]).jpg")))
            XCTAssertEqual(sheet.width, 640)
            XCTAssertEqual(sheet.height, n[0] == 0 ? 240 : 120, "the last sheet has one row")
            XCTAssertEqual(
                frameIndex(sheet, CGRect(x: n[1], y: n[2], width: n[3], height: n[4])), Int(Double(i) * fps),
                "thumbnail \(i)")
        }

        // Jellyfin: full 4 x 2 grids (the last padded with black), and the image playlist it serves for them.
        let trickplay = out.appendingPathComponent("\(stem).trickplay")
        let tiles = trickplay.appendingPathComponent("160 - 4x2")
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: tiles.path).sorted(), ["0.jpg", "1.jpg"],
            "only the tiles (Jellyfin imports every file of the folder as a tile)")
        for t in 0..<2 {
            let tile = try XCTUnwrap(StillImageFileDecoder.decode(tiles.appendingPathComponent("\(t).jpg")))
            XCTAssertEqual([tile.width, tile.height], [640, 240])
            for slot in 0..<8 {
                let rect = CGRect(x: (slot % 4) * 160, y: (slot / 4) * 120, width: 160, height: 120)
                let i = t * 8 + slot
                if i < 10 {
                    XCTAssertEqual(frameIndex(tile, rect), Int(Double(i) * fps), "tile \(t) cell \(slot)")
                } else {
                    XCTAssertLessThan(brightness(tile, rect), 8, "tile \(t) cell \(slot) is black")
                }
            }
        }
        let playlist = try String(contentsOf: trickplay.appendingPathComponent("160 - 4x2.m3u8"), encoding: .utf8)
        XCTAssertEqual(
            playlist,
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:8
            #EXT-X-VERSION:7
            #EXT-X-MEDIA-SEQUENCE:1
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-IMAGES-ONLY
            #EXTINF:8,
            #EXT-X-TILES:RESOLUTION=160x120,LAYOUT=4x2,DURATION=1
            160%20-%204x2/0.jpg
            #EXTINF:2,
            #EXT-X-TILES:RESOLUTION=160x120,LAYOUT=4x2,DURATION=1
            160%20-%204x2/1.jpg
            #EXT-X-ENDLIST

            """)

        // BIF: an image a second, timestamps 0 … 9 × 1000 ms, each the picture at its time.
        let bif = try parseBIF(out.appendingPathComponent("\(stem)-160-1.bif"))
        XCTAssertEqual(bif.multiplier, 1000)
        XCTAssertEqual(bif.images.map(\.timestamp), Array(0..<10))
        for (i, image) in bif.images.enumerated() {
            let picture = try XCTUnwrap(try decode(image.jpeg), "BIF image \(i) is a JPEG")
            XCTAssertEqual([picture.width, picture.height], [160, 120])
            XCTAssertEqual(
                FrameIndexReader.read(image: picture)?.index, Int(Double(i) * fps), "BIF image \(i)")
        }

        // The done record lists the outputs; nothing is left in the staging folder.
        let record = try XCTUnwrap(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: out.appendingPathComponent("\(stem).avplay-thumbs.json")))
                as? [String: Any])
        XCTAssertEqual((record["outputs"] as? [String])?.count, 4, "\(record)")
        XCTAssertEqual(r.lines.first?.object["outputs"] as? [String], record["outputs"] as? [String])
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: out.appendingPathComponent(".\(stem).avplay-partial").path))
    }

    func test_keyframes_thumbnailsAreTheKeyframesAtOrBeforeTheirTimes() throws {
        let out = try folder()
        let r = try avplay([
            "thumbs", try Fixtures.url(.h264AAC).path, "--formats", "bif", "--every", "3", "--width", "64",
            "--keyframes",
            "-d", out.path,
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        // Keyframes every 2 s (60 frames): 0, 3, 6, 9 s are answered by the ones at 0, 2, 6 and 8 s.
        let bif = try parseBIF(out.appendingPathComponent("h264_aac-64-3.bif"))
        XCTAssertEqual(bif.multiplier, 3000)
        XCTAssertEqual(bif.images.map(\.timestamp), [0, 1, 2, 3])
        let indices = try bif.images.map { try decode($0.jpeg).flatMap { FrameIndexReader.read(image: $0)?.index } }
        XCTAssertEqual(indices, [0, 60, 180, 240])
    }

    func test_shards_takeEveryFileExactlyOnce() throws {
        // 200 listed names (they need not exist for a dry run): three shards are disjoint and cover them all.
        let names = (0..<200).map { "/library/show \($0 / 20)/episode \($0).mkv" }
        let list = Data(names.joined(separator: "\n").utf8)
        var seen: [String: Int] = [:]
        for shard in 0..<3 {
            let r = try avplay(
                ["thumbs", "--files-from", "-", "-d", "/nonexistent", "--shard", "\(shard)/3", "--dry-run"],
                input: list)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertGreaterThan(r.lines.count, 30, "shard \(shard) has a share")
            for line in r.lines {
                XCTAssertEqual(line.status, "pending")
                XCTAssertNil(seen[line.path], "\(line.path) in shards \(seen[line.path] ?? -1) and \(shard)")
                seen[line.path] = shard
            }
        }
        XCTAssertEqual(Set(seen.keys), Set(names))
        // The same split on real files: two shards of a folder make each file's strip once between them.
        let media = try folder()
        let files = try copies(of: .videoOnly, (0..<6).map { "season \($0 / 3)/e\($0).mp4" }, in: media)
        var made: [String] = []
        for shard in 0..<2 {
            let r = try avplay([
                "thumbs", media.path, "--formats", "bif", "--every", "1", "--width", "32", "--shard", "\(shard)/2",
            ])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.lines.allSatisfy { $0.status == "ok" }, "\(r.lines.map(\.object))")
            made += r.lines.map(\.path)
        }
        XCTAssertEqual(made.sorted(), files.map(\.path).sorted())
        for file in files {
            let bif = file.deletingLastPathComponent().appendingPathComponent(
                file.deletingPathExtension().lastPathComponent + "-32-1.bif")
            XCTAssertEqual(try parseBIF(bif).images.count, 3, "next to \(file.lastPathComponent)")
        }
        // A usage error: the index must be below the count.
        XCTAssertEqual(try avplay(["thumbs", media.path, "--shard", "2/2"]).status, 2)
    }

    func test_resume_skipsDoneFiles_andRedoesHalfWrittenOnes() throws {
        let media = try folder()
        let out = try folder()
        let files = try copies(of: .videoOnly, ["a.mp4", "b.mp4", "c.mp4"], in: media)
        let arguments = ["thumbs", media.path, "--formats", "vtt,bif", "--every", "5", "--width", "32", "-d", out.path]
        var r = try avplay(arguments + ["--jobs", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.lines.map(\.status), ["ok", "ok", "ok"])

        // b as a run killed half-way leaves it: no record, a truncated BIF, a staging folder with a stray file.
        try FileManager.default.removeItem(at: out.appendingPathComponent("b.avplay-thumbs.json"))
        let bBIF = out.appendingPathComponent("b-32-5.bif")
        try Data(try Data(contentsOf: bBIF).prefix(100)).write(to: bBIF)
        let staging = out.appendingPathComponent(".b.avplay-partial")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try Data("half".utf8).write(to: staging.appendingPathComponent("strip.bif"))
        // c's source changed since its strip was made.
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: files[2].path)

        r = try avplay(arguments + ["--resume", "--dry-run"])
        XCTAssertEqual(r.lines.map(\.status), ["skipped", "pending", "pending"], "dry run")
        r = try avplay(arguments + ["--resume"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.lines.map(\.path), files.map(\.path))
        XCTAssertEqual(r.lines.map(\.status), ["skipped", "ok", "ok"])
        XCTAssertEqual(try parseBIF(bBIF).images.count, 1, "b's BIF made again whole")
        XCTAssertFalse(FileManager.default.fileExists(atPath: staging.path), "staging removed")

        // Everything is done now; other settings make every file again.
        r = try avplay(arguments + ["--resume"])
        XCTAssertEqual(r.lines.map(\.status), ["skipped", "skipped", "skipped"])
        r = try avplay(arguments.map { $0 == "5" ? "2" : $0 } + ["--resume"])
        XCTAssertEqual(r.lines.map(\.status), ["ok", "ok", "ok"])
        // A deleted output undoes "done".
        try FileManager.default.removeItem(at: out.appendingPathComponent("a.sprites"))
        r = try avplay(arguments.map { $0 == "5" ? "2" : $0 } + ["--resume"])
        XCTAssertEqual(r.lines.map(\.status), ["ok", "skipped", "skipped"])
    }

    func test_badFile_getsItsErrorLine_andTheExitStatusSaysSome_orAllFailed() throws {
        let media = try folder()
        _ = try copies(of: .videoOnly, ["1 good.mp4", "3 good.mp4"], in: media)
        _ = try copies(of: .text, ["2 bad.mp4"], in: media)
        _ = try copies(of: .audioOnly, ["4 sound.m4a"], in: media)
        let sound = media.appendingPathComponent("4 sound.m4a").path
        var r = try avplay(["thumbs", media.path, sound, "--formats", "bif", "--every", "5", "--jobs", "2"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let byName = Dictionary(
            uniqueKeysWithValues: r.lines.map { (URL(fileURLWithPath: $0.path).lastPathComponent, $0) })
        XCTAssertEqual(
            Set(byName.keys), ["1 good.mp4", "2 bad.mp4", "3 good.mp4", "4 sound.m4a"], "m4a listed by name")
        XCTAssertEqual(byName["1 good.mp4"]?.status, "ok")
        XCTAssertEqual(byName["3 good.mp4"]?.status, "ok")
        XCTAssertEqual(byName["2 bad.mp4"]?.status, "failed")
        XCTAssertTrue((byName["2 bad.mp4"]?.object["error"] as? String ?? "").contains("not a media file"))
        XCTAssertEqual(byName["4 sound.m4a"]?.status, "failed")
        XCTAssertTrue((byName["4 sound.m4a"]?.object["error"] as? String ?? "").contains("has no video"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: media.appendingPathComponent("2 bad-320-5.bif").path))
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: media.appendingPathComponent(".2 bad.avplay-partial").path))

        // Only bad files: 3. A usage error: 2. Two inputs writing the same outputs: 2, nothing done.
        r = try avplay(["thumbs", media.appendingPathComponent("2 bad.mp4").path, sound, "--formats", "bif"])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertEqual(r.lines.map(\.status), ["failed", "failed"])
        XCTAssertEqual(try avplay(["thumbs", media.path, "--formats", "gif"]).status, 2)
        let twin = try folder()
        _ = try copies(of: .videoOnly, ["x/1 good.mp4"], in: twin)
        r = try avplay([
            "thumbs", media.appendingPathComponent("1 good.mp4").path, twin.appendingPathComponent("x/1 good.mp4").path,
            "-d", twin.path, "--formats", "bif",
        ])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("would write the same outputs"), r.stderr)
        XCTAssertTrue(r.lines.isEmpty)
    }
}
