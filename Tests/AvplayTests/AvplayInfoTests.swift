import Foundation
import TestSupport
import XCTest

/// `avplay info` run as a separate process, as a user runs it.
final class AvplayInfoTests: XCTestCase {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The built `avplay`, next to the test bundle.
    static var binary: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("avplay").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("avplay")
    }

    func run(_ arguments: [String], asUser user: String? = nil) throws -> Result {
        let r =
            if let user {
                try Subprocess.run(
                    "/usr/bin/setpriv",
                    ["--reuid=\(user)", "--regid=\(user)", "--clear-groups", Self.binary.path] + arguments)
            } else {
                try Subprocess.run(Self.binary.path, arguments)
            }
        XCTAssertFalse(r.timedOut, "avplay \(arguments) did not exit within a minute")
        return Result(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    func test_json_reportsExactDurationAndTwoTracks() throws {
        let url = try Fixtures.url(.h264AAC)
        let r = try run(["info", "--json", url.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let tracks = try XCTUnwrap(json["tracks"] as? [[String: Any]])
        XCTAssertEqual(tracks.count, 2)
        XCTAssertEqual(tracks.map { $0["mediaType"] as? String }, ["vide", "soun"])
        XCTAssertEqual(tracks.map { $0["codec"] as? String }, ["avc1", "aac "])

        // The duration is a CMTime in a stream's own timescale, equal to ffprobe's
        // duration_ts / time_base for the longest stream.
        let duration = try XCTUnwrap(json["duration"] as? [String: Any])
        let value = try XCTUnwrap(duration["value"] as? Int64)
        let timescale = try XCTUnwrap(duration["timescale"] as? Int32)
        let probe = try ffprobeStreams(url)
        let ends = probe.map { (Int64($0.durationTS) + Int64($0.startPTS), $0.timescale) }
        let longest = try XCTUnwrap(ends.max { Double($0.0) / Double($0.1) < Double($1.0) / Double($1.1) })
        XCTAssertEqual(value, longest.0)
        XCTAssertEqual(timescale, longest.1)
    }

    /// `info` needs neither SDL2 nor libavfilter, which are opened on first use (Sources/CSDL2Loader,
    /// Sources/CFFmpegFilterLoader): the 50 libraries they pull in are not loaded at all (the dynamic loader's trace).
    func test_info_loadsNeitherSDLNorLibavfilter() throws {
        let url = try Fixtures.url(.h264AAC)
        let r = try Subprocess.run("/usr/bin/env", ["LD_DEBUG=files", Self.binary.path, "info", url.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Duration:"))
        XCTAssertTrue(r.stderr.contains("libavcodec.so"), "the dynamic loader's trace lists what it loads")
        XCTAssertFalse(r.stderr.contains("libSDL2"), "SDL2 is loaded only when a device or window is opened")
        XCTAssertFalse(r.stderr.contains("libavfilter"), "libavfilter is loaded only to stretch audio or tone-map")
    }

    func test_text_listsTracksMetadataAndSelection() throws {
        let r = try run(["info", try Fixtures.url(.multiAudioSubtitles).path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("Duration:"))
        XCTAssertTrue(r.stdout.contains("[fra]"))
        XCTAssertTrue(r.stdout.contains("audible: English (default), Français"), r.stdout)
        XCTAssertTrue(r.stdout.contains("legible:"), r.stdout)
    }

    func test_hlsLadder_listsItsVariantsAndRenditions() throws {
        let server = try HTTPTestServer(root: try Fixtures.directory())
        defer { server.stop() }
        let r = try run(["info", server.url(HLSFixture.ts.rawValue).absoluteString])
        XCTAssertEqual(r.status, 0, r.stderr)
        for variant in HLSFixture.ts.facts.variants {
            XCTAssertTrue(
                r.stdout.contains("\(variant.width)×\(variant.height)  \(variant.bandwidth / 1000) kb/s"), r.stdout)
        }
        XCTAssertTrue(r.stdout.contains("audible: English (default), Français"), r.stdout)
    }

    func test_badInputs_exitOneWithTheErrorsDescription() throws {
        let cases: [(String, String)] = [
            (try Fixtures.url(.empty).path, "is empty"),
            (try Fixtures.url(.text).path, "not a media file"),
            (try Fixtures.url(.truncated).path, "damaged"),
            (try Fixtures.directory().appendingPathComponent("missing.mp4").path, "doesn’t exist"),
            (try Fixtures.url(.unknownCodec).path, "no decoder"),
        ]
        for (path, phrase) in cases {
            let r = try run(["info", path])
            XCTAssertEqual(r.status, 1, path)
            XCTAssertTrue(r.stderr.contains(phrase), "\(path): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Fatal error"), r.stderr)
        }
    }

    func test_unreadableFile_reportsPermission() throws {
        guard getuid() == 0 else { throw XCTSkip("AVErrorTests covers this row in-process when not root") }
        guard FileManager.default.fileExists(atPath: "/usr/bin/setpriv") else { throw XCTSkip("no setpriv") }
        let dir = URL(fileURLWithPath: "/tmp/oavf-perm-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        chmod(dir.path, 0o755)
        let copy = dir.appendingPathComponent("unreadable.mp4")
        try FileManager.default.copyItem(at: try Fixtures.url(.videoOnly), to: copy)
        chmod(copy.path, 0)
        // The binary must be reachable by `nobody`: run a copy from the same world-readable folder.
        let r = try run(["info", copy.path], asUser: "65534")  // nobody / nogroup
        if r.stderr.contains("Permission denied") && r.stderr.contains("setpriv") || r.status == 126 || r.status == 127
        {
            throw XCTSkip("cannot execute avplay as nobody here: \(r.stderr)")
        }
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("permission"), r.stderr)
        XCTAssertTrue(r.stderr.contains("unreadable.mp4"), r.stderr)
    }

    func test_usageErrors() throws {
        XCTAssertEqual(try run([]).status, 2)
        XCTAssertEqual(try run(["--help"]).status, 0)
        XCTAssertEqual(try run(["info"]).status, 2)
        XCTAssertEqual(try run(["info", "--bogus", "x"]).status, 2)
    }

    struct Stream {
        var durationTS: Int
        var startPTS: Int
        var timescale: Int32
    }

    func ffprobeStreams(_ url: URL) throws -> [Stream] {
        let data = try Subprocess.run("ffprobe", ["-v", "error", "-show_streams", "-of", "json", url.path]).stdoutData
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let streams = try XCTUnwrap(json["streams"] as? [[String: Any]])
        return try streams.map { s in
            let tb = try XCTUnwrap(s["time_base"] as? String).split(separator: "/")
            return Stream(
                durationTS: try XCTUnwrap(s["duration_ts"] as? Int), startPTS: s["start_pts"] as? Int ?? 0,
                timescale: Int32(tb[1])!)
        }
    }
}
