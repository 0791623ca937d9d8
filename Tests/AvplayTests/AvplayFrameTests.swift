import Foundation
import TestSupport
import XCTest

/// `avplay frame`, `avplay thumbs` and `avplay decode-bench` run as separate processes; the PNG files they write are
/// decoded with the ffmpeg CLI and the frame index drawn in each fixture picture is read back.
final class AvplayFrameTests: XCTestCase {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The fixtures' frame rate.
    let fps = 30.0

    private func run(_ executable: URL, _ arguments: [String]) throws -> Result {
        let r = try Subprocess.run(executable.path, arguments)
        XCTAssertFalse(r.timedOut, "\(executable.lastPathComponent) \(arguments) did not exit within a minute")
        return Result(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    private func avplay(_ arguments: [String]) throws -> Result {
        try run(AvplayInfoTests.binary, arguments)
    }

    private func temporaryPNG(_ name: String = #function) -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "avplay-\(safe)-\(UUID().uuidString).png")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// The size in a PNG file's IHDR chunk.
    private func pngSize(_ url: URL) throws -> (width: Int, height: Int) {
        let data = try Data(contentsOf: url)
        XCTAssertEqual(Array(data.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "PNG signature")
        guard data.count >= 24 else { throw CocoaError(.fileReadCorruptFile) }
        let be = { (o: Int) in data[o..<o + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    /// The pixels of `png` (or of the `crop` rectangle of it) as 8-bit gray, decoded by the ffmpeg CLI, with their
    /// width and height.
    private func gray(_ png: URL, crop: (w: Int, h: Int, x: Int, y: Int)? = nil) throws -> (Data, Int, Int) {
        let size = try pngSize(png)
        var arguments = ["ffmpeg", "-v", "error", "-nostdin", "-i", png.path]
        if let crop { arguments += ["-vf", "crop=\(crop.w):\(crop.h):\(crop.x):\(crop.y)"] }
        arguments += ["-f", "rawvideo", "-pix_fmt", "gray", "-"]
        let r = try Subprocess.run(arguments[0], Array(arguments.dropFirst()))
        let data = r.stdoutData
        XCTAssertEqual(r.status, 0, "ffmpeg \(arguments): \(r.stderr)")
        let (width, height) = crop.map { ($0.w, $0.h) } ?? size
        XCTAssertEqual(data.count, width * height, "raw gray size")
        return (data, width, height)
    }

    /// The frame index drawn in `png` (or in the `crop` rectangle of it).
    private func frameIndex(_ png: URL, crop: (w: Int, h: Int, x: Int, y: Int)? = nil) throws -> Int? {
        let (data, width, height) = try gray(png, crop: crop)
        guard data.count == width * height else { return nil }
        return data.withUnsafeBytes { (luma: UnsafeRawBufferPointer) in
            FrameIndexReader.read(luma: luma, width: width, height: height, bytesPerRow: width)?.index
        }
    }

    func test_exactFrame_at3_3_isFrame99_andFastSeekLandsOnTheKeyframe() throws {
        let input = try Fixtures.url(.h264AAC).path
        let exact = temporaryPNG()
        var r = try avplay(["frame", input, "--at", "3.3", "--exact", "-o", exact.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("0:03.300"), r.stdout)
        XCTAssertEqual(try pngSize(exact).width, 320)
        XCTAssertEqual(try pngSize(exact).height, 240)
        XCTAssertEqual(try frameIndex(exact), 99)

        // A fast seek lands on the keyframe before 3.3 s (GOP of 60 frames: 2 s).
        let fast = temporaryPNG()
        r = try avplay(["frame", input, "--at", "3.3", "-o", fast.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("0:02.000"), r.stdout)
        XCTAssertEqual(try frameIndex(fast), 60)
    }

    func test_size_scalesThePicture_andKeepsTheFrame() throws {
        let png = temporaryPNG()
        let r = try avplay([
            "frame", try Fixtures.url(.h264AAC).path, "--at=3.3", "--exact", "--size", "160x120", "-o", png.path,
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let size = try pngSize(png)
        XCTAssertEqual(size.width, 160)
        XCTAssertEqual(size.height, 120)
        XCTAssertEqual(try frameIndex(png), 99)
    }

    func test_badInputs_exitOneWithTheErrorsDescription_andWriteNothing() throws {
        let cases: [(String, String)] = [
            (try Fixtures.url(.text).path, "not a media file"),
            (try Fixtures.directory().appendingPathComponent("missing.mp4").path, "doesn’t exist"),
            (try Fixtures.url(.audioOnly).path, "has no video"),
        ]
        for (input, message) in cases {
            let png = temporaryPNG()
            let r = try avplay(["frame", input, "--at", "1", "-o", png.path])
            XCTAssertEqual(r.status, 1, "\(input): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(message), "\(input): \(r.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: png.path))
            let t = try avplay(["thumbs", input, "--count", "2", "-o", png.path])
            XCTAssertEqual(t.status, 1, "\(input): \(t.stderr)")
            XCTAssertTrue(t.stderr.contains(message), "\(input): \(t.stderr)")
        }
        // Usage errors exit 2.
        XCTAssertEqual(try avplay(["frame", try Fixtures.url(.h264AAC).path, "-o", "/tmp/x.png"]).status, 2)
        XCTAssertEqual(try avplay(["frame", "x.mp4", "--at", "1", "--size", "160", "-o", "x.png"]).status, 2)
        XCTAssertEqual(try avplay(["thumbs", "x.mp4", "-o", "x.png"]).status, 2)
        // A time after the end.
        let late = try avplay(["frame", try Fixtures.url(.h264AAC).path, "--at", "99", "-o", temporaryPNG().path])
        XCTAssertEqual(late.status, 1)
        XCTAssertTrue(late.stderr.contains("after the end"), late.stderr)
    }

    func test_thumbs_count4_makesAGridWhoseCellsHoldTheFramesAtTheirTimes() throws {
        let png = temporaryPNG()
        let r = try avplay([
            "thumbs", try Fixtures.url(.h264AAC).path, "--count", "4", "--width", "160", "-o", png.path,
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        // 2 x 2 cells of 160 x 120 pictures over 20-pixel labels, 4 pixels apart and from the edges.
        let (gap, label, w, h) = (4, 20, 160, 120)
        let size = try pngSize(png)
        XCTAssertEqual(size.width, 2 * w + 3 * gap)
        XCTAssertEqual(size.height, 2 * (h + label) + 3 * gap)
        // The 10 s clip: pictures at 0, 2.5, 5 and 7.5 s.
        let times = [0.0, 2.5, 5.0, 7.5]
        for (i, t) in times.enumerated() {
            let x = gap + (i % 2) * (w + gap)
            let y = gap + (i / 2) * (h + label + gap)
            XCTAssertEqual(
                try frameIndex(png, crop: (w, h, x, y)), Int((t * fps).rounded(.down)), "cell \(i) at \(t) s")
            XCTAssertTrue(r.stdout.contains("\(i): at "), r.stdout)
        }
        // The label strip under a picture: dark background with white text.
        let (strip, _, _) = try gray(png, crop: (w, label, gap, gap + h))
        let white = strip.filter { $0 > 200 }.count
        let dark = strip.filter { $0 < 64 }.count
        XCTAssertGreaterThan(white, 100, "text")
        XCTAssertGreaterThan(dark, strip.count / 2, "background")
        XCTAssertEqual(white + dark, strip.count, "only text and background")
    }

    func test_thumbs_every_takesOnePictureEveryTSeconds() throws {
        let png = temporaryPNG()
        let r = try avplay(["thumbs", try Fixtures.url(.h264AAC).path, "--every", "3", "--width", "64", "-o", png.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        // 0, 3, 6, 9 s: four pictures of 64 x 48 in 2 x 2 cells.
        XCTAssertTrue(r.stdout.contains("4 pictures, 2x2 grid"), r.stdout)
        let size = try pngSize(png)
        XCTAssertEqual(size.width, 2 * 64 + 3 * 4)
        XCTAssertEqual(size.height, 2 * (48 + 20) + 3 * 4)
        XCTAssertEqual(try frameIndex(png, crop: (64, 48, 4 + 68, 4 + 72)), 270)
    }

    func test_decodeBench_takesEveryPictureAsBGRA() throws {
        let r = try avplay(["decode-bench", try Fixtures.url(.h264AAC).path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("300 frames 320x240 BGRA"), r.stdout)
    }

    func test_readBench_readsEveryPictureAndSample() throws {
        let video = try avplay(["read-bench", try Fixtures.url(.h264AAC).path])
        XCTAssertEqual(video.status, 0, video.stderr)
        XCTAssertTrue(video.stdout.hasPrefix("300 frames 320x240 BGRA in "), video.stdout)
        let audio = try avplay(["read-bench", try Fixtures.url(.audioWAV).path, "--audio"])
        XCTAssertEqual(audio.status, 0, audio.stderr)
        XCTAssertTrue(audio.stdout.hasPrefix("144000 audio frames 48000 Hz 2 ch s16 in "), audio.stdout)
        XCTAssertEqual(try avplay(["read-bench", try Fixtures.url(.audioWAV).path]).status, 1, "no video")
    }

    func test_seekBench_timesEachExactSeek_andChecksThePicture() throws {
        let r = try avplay(["seek-bench", try Fixtures.url(.h264AAC).path, "--targets", "3.3,0.5,7.25"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 4, r.stdout)
        XCTAssertTrue(lines[0].hasPrefix("seek 1 to 3.300 s: picture at 0:03.300 in "), r.stdout)
        XCTAssertTrue(lines[1].hasPrefix("seek 2 to 0.500 s: picture at 0:00.500 in "), r.stdout)
        XCTAssertTrue(lines[2].hasPrefix("seek 3 to 7.250 s: picture at 0:07.233 in "), r.stdout)
        XCTAssertTrue(lines[3].hasPrefix("3 exact seeks: median "), r.stdout)
        XCTAssertEqual(try avplay(["seek-bench", try Fixtures.url(.h264AAC).path]).status, 2)
        XCTAssertEqual(try avplay(["seek-bench", try Fixtures.url(.h264AAC).path, "--targets", "1,x"]).status, 2)
        XCTAssertEqual(
            try avplay(["seek-bench", try Fixtures.url(.h264AAC).path, "--targets", "99"]).status, 1)
    }

    func test_help_mentionsFrameAndThumbs() throws {
        let r = try avplay(["--help"])
        XCTAssertTrue(r.stdout.contains("avplay frame FILE"), r.stdout)
        XCTAssertTrue(r.stdout.contains("avplay thumbs FILE"), r.stdout)
    }
}
