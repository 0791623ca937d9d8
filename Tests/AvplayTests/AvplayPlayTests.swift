import Foundation
import TestSupport
import XCTest

/// `avplay FILE` without a terminal: the `--events` JSON stream, help and bad input.
final class AvplayPlayTests: XCTestCase {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs avplay with no terminal on stdin and the dummy audio driver; killed after `timeout` seconds.
    func run(_ arguments: [String], timeout: TimeInterval = 20) throws -> Result {
        let r = try Subprocess.run(
            AvplayInfoTests.binary.path, arguments, changes: ["SDL_AUDIODRIVER": "dummy"], timeout: timeout)
        return Result(status: r.status, stdout: r.stdout, stderr: r.stderr)
    }

    func test_events_readyTimesEndExit() throws {
        let r = try run(["--events", try Fixtures.url(.videoOnly).path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = try r.stdout.split(separator: "\n").map { line in
            try XCTUnwrap(
                JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
        let names = events.compactMap { $0["event"] as? String }
        XCTAssertEqual(names.count, events.count, "every line has an event name")

        let ready = events.first { $0["event"] as? String == "status" && $0["status"] as? String == "readyToPlay" }
        XCTAssertEqual(ready?["file"] as? String, "video_only.mp4", r.stdout)

        // Periodic times every 0.5 s, increasing, covering the 3 s clip.
        let times = events.filter { $0["event"] as? String == "time" }.compactMap { $0["time"] as? Double }
        XCTAssertGreaterThanOrEqual(times.count, 5, r.stdout)
        XCTAssertEqual(times, times.sorted(), "times increase")
        XCTAssertGreaterThanOrEqual(times.last ?? 0, 2.5, r.stdout)

        // The end, then the exit (last line) with status 0; no status line in this mode.
        let end = try XCTUnwrap(names.firstIndex(of: "end"), r.stdout)
        let readyIndex = try XCTUnwrap(names.firstIndex(of: "status"))
        XCTAssertLessThan(readyIndex, end)
        XCTAssertEqual(names.last, "exit")
        XCTAssertEqual(events.last?["code"] as? Int, 0)
        XCTAssertTrue(names.contains("rate"), r.stdout)
        XCTAssertFalse(r.stderr.contains("video_only.mp4"), "no status line with --events: \(r.stderr)")
    }

    func test_events_timedMetadata_oneEventPerID3Tag() throws {
        let r = try run(["--events", "--no-window", try TimedID3Fixture.url().path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = try r.stdout.split(separator: "\n").map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        }
        let metadata = events.filter { $0["event"] as? String == "metadata" }
        let expected = TimedID3Fixture.events
        XCTAssertEqual(
            metadata.compactMap { ($0["items"] as? [String: String])?["id3/TIT2"] }, expected.map(\.title), r.stdout)
        for (event, tag) in zip(metadata, expected) {
            XCTAssertEqual(event["time"] as? Double ?? -1, tag.time.seconds, accuracy: 0.001)
            let items = event["items"] as? [String: String]
            XCTAssertEqual(items?["id3/TXXX"], String(tag.index))
            XCTAssertEqual(items?["id3/PRIV"], tag.privateData.map { String(format: "%02x", $0) }.joined())
        }
    }

    /// An HLS ladder from a loopback server: the variant decisions come as `variant` events, the start first, each
    /// with its reason and bit rate, the later ones with the estimate they were made on.
    func test_events_hlsVariantDecisions() throws {
        let server = try HTTPTestServer(root: try Fixtures.directory())
        defer { server.stop() }
        let r = try run(["--events", server.url(HLSFixture.ts.rawValue).absoluteString], timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = try r.stdout.split(separator: "\n").map { line in
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
        let variants = events.filter { $0["event"] as? String == "variant" }
        let first = try XCTUnwrap(variants.first, r.stdout)
        XCTAssertEqual(first["reason"] as? String, "start")
        XCTAssertEqual(first["bitrate"] as? Double, 580_800)
        XCTAssertEqual(first["size"] as? String, "640x360")
        XCTAssertEqual(first["file"] as? String, "master.m3u8")
        // On the loopback link the estimate carries playback up the ladder.
        let switches = variants.dropFirst()
        XCTAssertFalse(switches.isEmpty, r.stdout)
        for event in switches {
            XCTAssertEqual(event["reason"] as? String, "bandwidthUp", "\(event)")
            XCTAssertGreaterThan(
                event["estimate"] as? Double ?? 0, (event["bitrate"] as? Double ?? 0) / 0.7, "\(event)")
            XCTAssertNotNil(event["buffer"] as? Double, "\(event)")
        }
        XCTAssertEqual(switches.last?["bitrate"] as? Double, 1_790_800)
        let names = events.compactMap { $0["event"] as? String }
        XCTAssertLessThan(try XCTUnwrap(names.lastIndex(of: "variant")), try XCTUnwrap(names.firstIndex(of: "end")))
    }

    func test_events_badInput_errorEventAndExitOne() throws {
        let r = try run(["--events", try Fixtures.url(.text).path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.contains(#""event":"error""#), r.stdout)
        XCTAssertTrue(r.stderr.contains("not a media file"), r.stderr)
    }

    func test_loop_playsTheItemAgain() throws {
        // A 3 s clip looped: read the events as they come until two ends and a third replica's ready status have
        // been seen (however long the machine takes), then stop avplay.
        let process = Process()
        process.executableURL = AvplayInfoTests.binary
        process.arguments = ["--loop", "--events", try Fixtures.url(.videoOnly).path]
        var environment = ProcessInfo.processInfo.environment
        environment["SDL_AUDIODRIVER"] = "dummy"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        var text = ""
        let reader = output.fileHandleForReading
        func seen() -> Bool {
            let lines = text.split(separator: "\n")
            return lines.filter { $0.contains(#""event":"end""#) }.count >= 2
                && lines.contains { $0.contains(#""index":2"#) && $0.contains("readyToPlay") }
        }
        // Reads avplay's events as they come (each read waits for the next); only a hang reaches the hang guard (the
        // loop needs about 7 s of real-time playback).
        Poll.until {
            if seen() { return true }
            let chunk = reader.availableData
            if chunk.isEmpty { return true }  // avplay exited
            text += String(decoding: chunk, as: UTF8.self)
            return seen()
        }
        XCTAssertTrue(seen(), text)
        XCTAssertTrue(process.isRunning, "a looping player keeps playing: \(text)")
    }

    func test_badInputs_exitOneWithTheErrorsDescription() throws {
        let missing = try Fixtures.directory().appendingPathComponent("missing.mp4").path
        for args in [[try Fixtures.url(.text).path], [missing], ["--loop", missing], ["--quiet", missing]] {
            let r = try run(args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("not a media file") || r.stderr.contains("doesn’t exist"), r.stderr)
            XCTAssertFalse(r.stderr.contains("Fatal error"), r.stderr)
        }
    }

    func test_endStopsEarly_andUsageErrors() throws {
        // Measured in media time, from the event log: the player's last reported time is near 1 s, not 10 s.
        let r = try run(["--events", "--no-audio", "--end", "1", try Fixtures.url(.h264AAC).path], timeout: 120)
        XCTAssertEqual(r.status, 0, r.stderr)
        let times = r.stdout.split(separator: "\n").compactMap { line -> Double? in
            guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return nil
            }
            return event["time"] as? Double
        }
        XCTAssertTrue(r.stdout.contains(#""event":"end""#), "--end 1 ends the item: \(r.stdout)")
        XCTAssertLessThanOrEqual(times.max() ?? 0, 1.5, "--end 1 stops a 10 s file early: \(r.stdout)")
        XCTAssertEqual(try run(["--rate", "abc", "x.mp4"]).status, 2)
        XCTAssertEqual(try run(["--bogus", "x.mp4"]).status, 2)
        let help = try run(["--help"])
        XCTAssertEqual(help.status, 0)
        for section in ["Basic options:", "Keys", "--events", "--loop", "(default: 1)"] {
            XCTAssertTrue(help.stdout.contains(section), section)
        }
    }
}
