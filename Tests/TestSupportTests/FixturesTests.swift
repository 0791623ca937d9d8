import Foundation
import TestSupport
import XCTest

/// Checks the generated fixture set against `Fixture.facts`, with ffprobe as the independent reference.
final class FixturesTests: XCTestCase {
    func testEveryFixtureExists() throws {
        for fixture in Fixture.allCases {
            let url = try Fixtures.url(fixture)
            let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
            if fixture == .empty {
                XCTAssertEqual(size, 0)
            } else {
                XCTAssertGreaterThan(size, 0, fixture.rawValue)
            }
        }
        XCTAssertNotNil(Fixtures.repositoryRoot)
    }

    func testScriptPrintsTheSameFolderWhenCached() throws {
        guard ProcessInfo.processInfo.environment[Fixtures.folderVariable] == nil else {
            throw XCTSkip("\(Fixtures.folderVariable) overrides the script")
        }
        let folder = try Fixtures.directory()
        let script = try XCTUnwrap(Fixtures.script)
        func run(_ arguments: [String]) throws -> String {
            let r = try Subprocess.run("/bin/bash", [script.path] + arguments, timeout: 900)
            XCTAssertEqual(r.status, 0, r.stderr)
            let text = r.stdout
            return text
        }
        XCTAssertEqual(try run([]), folder.path + "\n", "a cached run prints only the folder")
        XCTAssertEqual(try run(["--demo"]), folder.appendingPathComponent("demo.mp4").path + "\n")
        let current = folder.deletingLastPathComponent().appendingPathComponent("current")
        XCTAssertEqual(
            try FileManager.default.destinationOfSymbolicLink(atPath: current.path),
            folder.lastPathComponent)
    }

    /// Every openable fixture's streams match its facts; the others make ffprobe fail.
    func testStreamLayoutMatchesFacts() throws {
        for fixture in Fixture.allCases {
            let facts = fixture.facts
            let url = try Fixtures.url(fixture)
            guard facts.outcome != .failsToOpen else {
                XCTAssertThrowsError(try ProbeReport.probe(url), "\(fixture.rawValue) should not open")
                continue
            }
            let report = try ProbeReport.probe(url)
            let name = fixture.rawValue
            XCTAssertEqual(report.format.formatName, facts.container, name)
            if let duration = facts.duration {
                XCTAssertEqual(try XCTUnwrap(report.format.duration, name), duration, accuracy: 0.05, name)
            }
            for (key, value) in facts.metadata {
                XCTAssertEqual(report.format.tags[key], value, "\(name) tag \(key)")
            }

            let videos = report.streams(ofType: "video")
            if let video = facts.video {
                XCTAssertEqual(videos.count, 1, name)
                let stream = try XCTUnwrap(videos.first)
                XCTAssertEqual(stream.codecName ?? "unknown", video.codec, name)
                XCTAssertEqual(stream.width, video.width, name)
                XCTAssertEqual(stream.height, video.height, name)
                XCTAssertEqual(stream.pixelFormat ?? "unknown", video.pixelFormat ?? "unknown", name)
                XCTAssertEqual(stream.rotation ?? 0, video.rotation, name)
                if let frames = stream.frameCount {
                    XCTAssertEqual(frames, video.frameCount, name)
                }
            } else {
                XCTAssertEqual(videos.count, 0, name)
            }

            let audios = report.streams(ofType: "audio")
            XCTAssertEqual(audios.count, facts.audio.count, name)
            for (stream, track) in zip(audios, facts.audio) {
                XCTAssertEqual(stream.codecName, track.codec, name)
                XCTAssertEqual(stream.sampleRate, track.sampleRate, name)
                XCTAssertEqual(stream.channels, track.channelCount, name)
                // MP4 writes "und" for an unset language; the other containers leave it out.
                let unset = facts.container == "mov,mp4,m4a,3gp,3g2,mj2" ? "und" : nil
                XCTAssertEqual(stream.tags["language"], track.language ?? unset, name)
                XCTAssertEqual(stream.tags["title"], track.title, name)
            }

            let subtitles = report.streams(ofType: "subtitle")
            XCTAssertEqual(subtitles.count, facts.subtitles.count, name)
            for (stream, track) in zip(subtitles, facts.subtitles) {
                XCTAssertEqual(stream.codecName, track.codec, name)
                XCTAssertEqual(stream.tags["language"], track.language, name)
                XCTAssertEqual(stream.tags["title"], track.title, name)
            }
        }
    }

    /// The reference file's exact time bases and durations, which the CMTime mapping tests rely on.
    func testReferenceFileTimingIsExact() throws {
        let report = try ProbeReport.probe(try Fixtures.url(.h264AAC))
        let video = try XCTUnwrap(report.streams(ofType: "video").first)
        let audio = try XCTUnwrap(report.streams(ofType: "audio").first)
        XCTAssertEqual(video.timeBase, "1/15360")
        XCTAssertEqual(video.durationTS, 153_600)
        XCTAssertEqual(video.averageFrameRate, "30/1")
        XCTAssertEqual(audio.timeBase, "1/48000")
        XCTAssertEqual(audio.durationTS, 480_000)
    }

    /// Keyframes fall every `keyframeInterval` frames, and packet times follow `presentationTimes`.
    func testKeyframesAndPresentationTimes() throws {
        for fixture in [
            Fixture.h264AAC, .variableFrameRate, .hevcMKV, .vp9OpusWebM, .multiAudioSubtitles, .dumpH264FLAC,
        ] {
            let video = try XCTUnwrap(fixture.facts.video)
            let report = try ProbeReport.probe(try Fixtures.url(fixture))
            let timeBase = try XCTUnwrap(report.streams(ofType: "video").first?.timeBase)
            let ticksPerSecond = try XCTUnwrap(Double(timeBase.split(separator: "/")[1]))
            let packets = try ProbeReport.packetTimes(try Fixtures.url(fixture))
            XCTAssertEqual(packets.count, video.frameCount, fixture.rawValue)
            let first = try XCTUnwrap(packets.first).pts
            let seconds = packets.map { Double($0.pts - first) / ticksPerSecond }
            for (index, (measured, expected)) in zip(seconds, video.presentationTimes).enumerated() {
                XCTAssertEqual(measured, expected, accuracy: 0.0015, "\(fixture.rawValue) frame \(index)")
            }
            let keyframes = packets.indices.filter { packets[$0].isKeyframe }
            let interval = video.keyframeInterval ?? video.frameCount
            XCTAssertEqual(keyframes, Array(stride(from: 0, to: video.frameCount, by: interval)), fixture.rawValue)
        }
    }

    func testDamagedCopiesDeriveFromTheReferenceFile() throws {
        let reference = try Data(contentsOf: try Fixtures.url(.h264AAC))
        let truncated = try Data(contentsOf: try Fixtures.url(.truncated))
        XCTAssertEqual(truncated, reference.prefix(reference.count / 2))

        let corrupt = try Data(contentsOf: try Fixtures.url(.corruptMiddle))
        XCTAssertEqual(corrupt.count, reference.count)
        let changed = (0..<reference.count).filter { corrupt[$0] != reference[$0] }
        XCTAssertGreaterThan(changed.count, 7_000)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(changed.first), reference.count / 2)
        XCTAssertLessThan(try XCTUnwrap(changed.last), reference.count / 2 + 8_192)

        // The faststart copies begin with ftyp then moov.
        let header = try Data(contentsOf: try Fixtures.url(.truncatedFaststart)).prefix(40)
        XCTAssertEqual(String(decoding: header[36..<40], as: UTF8.self), "moov")
        let broken = try Data(contentsOf: try Fixtures.url(.corruptHeader)).prefix(40)
        XCTAssertNotEqual(String(decoding: broken[36..<40], as: UTF8.self), "moov")

        let text = try String(contentsOf: try Fixtures.url(.text), encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("This is not a movie."))
    }

    /// The rotated file carries an iPhone-portrait matrix, translation included, in its video tkhd.
    func testRotatedFileMatrix() throws {
        let data = try Data(contentsOf: try Fixtures.url(.rotated90))
        let tkhd = try XCTUnwrap(data.firstRange(of: Data("tkhd".utf8))).lowerBound
        let matrixStart = tkhd + 44
        let words = (0..<9).map { word -> Int32 in
            data[(matrixStart + 4 * word)..<(matrixStart + 4 * word + 4)].reduce(0) { $0 << 8 | Int32($1) }
        }
        XCTAssertEqual(words, [0, 0x1_0000, 0, -0x1_0000, 0, 0, 240 << 16, 0, 0x4000_0000])
    }

    func testVideoFactsFrameLookup() {
        let vfr = Fixture.variableFrameRate.facts.video!
        XCTAssertEqual(vfr.presentationTimes.prefix(3), [0, 1.0 / 30, 2.0 / 30])
        XCTAssertEqual(vfr.presentationTime(ofFrame: 62) * 30, 63, accuracy: 1e-9)
        XCTAssertEqual(vfr.presentationTime(ofFrame: 99) * 30, 118, accuracy: 1e-9)
        XCTAssertEqual(vfr.frameIndex(at: 62.5 / 30), 61)
        XCTAssertEqual(vfr.frameIndex(at: 63.0 / 30), 62)
        XCTAssertEqual(vfr.frameIndex(at: 100), 99)
        let constant = Fixture.h264AAC.facts.video!
        XCTAssertEqual(constant.frameIndex(at: 37.0 / 30), 37)
        XCTAssertEqual(constant.frameIndex(at: -1), 0)
    }
}
