import Foundation
import TestSupport
import XCTest

/// Checks the generated HLS sets against `HLSFixture.facts`: the playlists read as text, the media through ffprobe
/// and ffmpeg (libavformat's own HLS demuxer), the frame index from the pixels and the tones from the samples.
final class HLSFixturesTests: XCTestCase {
    /// The entry playlists' variants and renditions, attribute by attribute.
    func test_entryPlaylists_listTheFactsVariantsAndRenditions() throws {
        for fixture in HLSFixture.allCases {
            let facts = fixture.facts
            let lines = try playlistLines(fixture.rawValue)
            XCTAssertEqual(lines.first, "#EXTM3U", fixture.rawValue)
            let streams = lines.indices.filter { lines[$0].hasPrefix("#EXT-X-STREAM-INF:") }
            XCTAssertEqual(streams.count, facts.variants.count, fixture.rawValue)
            XCTAssertEqual(facts.isMultivariant, !streams.isEmpty, fixture.rawValue)
            for (index, variant) in zip(streams, facts.variants) {
                let attributes = Self.attributes(lines[index])
                XCTAssertEqual(lines[index + 1], variant.playlist)
                XCTAssertEqual(attributes["RESOLUTION"], "\(variant.width)x\(variant.height)")
                XCTAssertEqual(attributes["BANDWIDTH"], "\(variant.bandwidth)")
                XCTAssertEqual(attributes["CODECS"], variant.codecs)
                XCTAssertEqual(attributes["AUDIO"], facts.audioRenditions.first?.groupID)
                XCTAssertEqual(attributes["SUBTITLES"], facts.subtitleRenditions.first?.groupID)
            }
            XCTAssertEqual(
                facts.variants.map(\.bandwidth), facts.variants.map(\.bandwidth).sorted(), "rungs rise")

            let media = lines.filter { $0.hasPrefix("#EXT-X-MEDIA:") }.map(Self.attributes)
            let audio = media.filter { $0["TYPE"] == "AUDIO" }
            XCTAssertEqual(audio.count, facts.audioRenditions.count, fixture.rawValue)
            for (attributes, rendition) in zip(audio, facts.audioRenditions) {
                XCTAssertEqual(attributes["GROUP-ID"], rendition.groupID)
                XCTAssertEqual(attributes["NAME"], rendition.name)
                XCTAssertEqual(attributes["LANGUAGE"], rendition.language)
                XCTAssertEqual(attributes["DEFAULT"], rendition.isDefault ? "YES" : "NO")
                XCTAssertEqual(attributes["AUTOSELECT"], rendition.autoselect ? "YES" : "NO")
                XCTAssertEqual(attributes["URI"], rendition.playlist)
            }
            let subtitles = media.filter { $0["TYPE"] == "SUBTITLES" }
            XCTAssertEqual(subtitles.count, facts.subtitleRenditions.count, fixture.rawValue)
            for (attributes, rendition) in zip(subtitles, facts.subtitleRenditions) {
                XCTAssertEqual(attributes["GROUP-ID"], rendition.groupID)
                XCTAssertEqual(attributes["NAME"], rendition.name)
                XCTAssertEqual(attributes["LANGUAGE"], rendition.language)
                XCTAssertEqual(attributes["DEFAULT"], rendition.isDefault ? "YES" : "NO")
                XCTAssertEqual(attributes["AUTOSELECT"], rendition.autoselect ? "YES" : "NO")
                XCTAssertEqual(attributes["FORCED"], rendition.isForced ? "YES" : "NO")
                XCTAssertEqual(attributes["URI"], rendition.playlist)
            }
        }
    }

    /// Every media playlist: VOD with ENDLIST, its segment count and durations, dates that follow the durations, init
    /// sections and keys, and every file it names present.
    func test_mediaPlaylists_segmentsDatesMapsAndKeys() throws {
        for fixture in HLSFixture.allCases {
            let facts = fixture.facts
            let videoPlaylists = facts.isMultivariant ? facts.variants.map(\.playlist) : [fixture.rawValue]
            var playlists: [(path: String, segments: Int, initSection: String?, dated: Bool, exact: Bool)] = []
            for (playlist, variant) in zip(
                videoPlaylists, facts.isMultivariant ? facts.variants.map(Optional.some) : [nil])
            {
                playlists.append((playlist, facts.videoSegmentCount, variant?.initSection, true, true))
            }
            for rendition in facts.audioRenditions {
                playlists.append((rendition.playlist, rendition.segmentCount, rendition.initSection, true, false))
            }
            for rendition in facts.subtitleRenditions {
                playlists.append((rendition.playlist, rendition.segmentCount, nil, false, true))
            }
            for entry in playlists {
                let path = facts.isMultivariant ? "\(fixture.folder)/\(entry.path)" : entry.path
                let lines = try playlistLines(path)
                XCTAssertTrue(lines.contains("#EXT-X-TARGETDURATION:\(facts.targetDuration)"), path)
                XCTAssertTrue(lines.contains("#EXT-X-PLAYLIST-TYPE:VOD"), path)
                XCTAssertEqual(lines.last, "#EXT-X-ENDLIST", path)
                let durations = lines.filter { $0.hasPrefix("#EXTINF:") }.map { line in
                    Double(line.dropFirst(8).prefix { $0 != "," }) ?? -1
                }
                XCTAssertEqual(durations.count, entry.segments, path)
                XCTAssertEqual(durations.reduce(0, +), facts.duration, accuracy: 0.05, path)
                if entry.exact {
                    XCTAssertEqual(durations, Array(repeating: facts.segmentDuration, count: entry.segments), path)
                }
                XCTAssertLessThanOrEqual(durations.max() ?? 0, Double(facts.targetDuration) + 0.5, path)

                let dates = lines.filter { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }.map {
                    Self.date(String($0.dropFirst(25)))
                }
                if let first = facts.firstProgramDate, entry.dated {
                    XCTAssertEqual(dates.count, entry.segments, path)
                    var expected = first.timeIntervalSince1970
                    for (date, duration) in zip(dates, durations) {
                        XCTAssertEqual(
                            try XCTUnwrap(date, path).timeIntervalSince1970, expected, accuracy: 0.0015, path)
                        expected += duration
                    }
                } else {
                    XCTAssertEqual(dates.count, 0, path)
                }

                let maps = lines.filter { $0.hasPrefix("#EXT-X-MAP:") }.map { Self.attributes($0)["URI"] }
                XCTAssertEqual(maps, entry.initSection.map { [$0] } ?? [], path)
                let keys = lines.filter { $0.hasPrefix("#EXT-X-KEY:") }.map(Self.attributes)
                if let key = facts.key {
                    XCTAssertEqual(keys.count, 1, path)
                    XCTAssertEqual(keys.first?["METHOD"], key.method)
                    XCTAssertEqual(keys.first?["URI"], key.uri)
                    XCTAssertEqual(keys.first?["IV"], "0x" + key.iv.map { String(format: "%02x", $0) }.joined())
                } else {
                    XCTAssertEqual(keys.count, 0, path)
                }

                let folder = (path as NSString).deletingLastPathComponent
                let names = lines.filter { !$0.hasPrefix("#") && !$0.isEmpty } + maps.compactMap { $0 }
                for name in names {
                    let file = try Fixtures.directory().appendingPathComponent("\(folder)/\(name)")
                    XCTAssertTrue(FileManager.default.fileExists(atPath: file.path), "\(path) names \(name)")
                }
            }
        }
    }

    /// ffprobe through each video playlist: the size, codec, frame count, frame times and keyframes of the facts,
    /// and the muxed audio.
    func test_videoPlaylists_probeAsTheFactsSay() throws {
        for (fixture, playlist, width, height) in videoPlaylists() {
            let facts = fixture.facts
            let url = try Fixtures.directory().appendingPathComponent(playlist)
            let report = try ProbeReport.probe(url, inputOptions: HLSFixture.ffmpegInputOptions)
            XCTAssertEqual(report.format.formatName, "hls", playlist)
            let video = try XCTUnwrap(report.streams(ofType: "video").first, playlist)
            XCTAssertEqual(report.streams(ofType: "video").count, 1, playlist)
            XCTAssertEqual(video.codecName, facts.video.codec, playlist)
            XCTAssertEqual(video.width, width, playlist)
            XCTAssertEqual(video.height, height, playlist)
            let audio = report.streams(ofType: "audio")
            XCTAssertEqual(audio.count, facts.muxedAudio == nil ? 0 : 1, playlist)
            if let muxed = facts.muxedAudio, let stream = audio.first {
                XCTAssertEqual(stream.codecName, muxed.codec, playlist)
                XCTAssertEqual(stream.sampleRate, muxed.sampleRate, playlist)
                XCTAssertEqual(stream.channels, muxed.channelCount, playlist)
            }

            let packets = try ProbeReport.packetTimes(url, inputOptions: HLSFixture.ffmpegInputOptions)
            XCTAssertEqual(packets.count, facts.video.frameCount, playlist)
            let ticks = try XCTUnwrap(Double(try XCTUnwrap(video.timeBase).split(separator: "/")[1]))
            let first = try XCTUnwrap(packets.first).pts
            for (index, packet) in packets.enumerated() {
                XCTAssertEqual(
                    Double(packet.pts - first) / ticks, facts.video.presentationTime(ofFrame: index), accuracy: 0.0015,
                    "\(playlist) frame \(index)")
            }
            let keyframes = packets.indices.filter { packets[$0].isKeyframe }
            let gop = try XCTUnwrap(facts.video.keyframeInterval)
            XCTAssertEqual(keyframes, Array(stride(from: 0, to: facts.video.frameCount, by: gop)), playlist)
            XCTAssertEqual(Double(gop) / facts.video.framesPerSecond, facts.segmentDuration, "a GOP per segment")
        }
    }

    /// The frame-index strip survives every rung's scaling and coding.
    func test_frameIndexStrip_readsInEveryVariant() throws {
        for (fixture, playlist, _, _) in videoPlaylists() {
            let last = fixture.facts.video.frameCount - 1
            let wanted = [0, 61, 179, last]
            let url = try Fixtures.directory().appendingPathComponent(playlist)
            let frames = try ReferenceDecoder.videoFrames(
                of: url, indices: wanted, inputOptions: HLSFixture.ffmpegInputOptions)
            XCTAssertEqual(frames.map { $0.frameIndex()?.index }, wanted, playlist)
        }
    }

    /// Every audio rendition and muxed track decodes to its tones, at its level, without breaks at the segment
    /// boundaries.
    func test_audio_decodesToItsTones() throws {
        var tracks: [(String, AudioTrackFacts, Double)] = []
        for fixture in HLSFixture.allCases {
            let facts = fixture.facts
            if let muxed = facts.muxedAudio { tracks.append((fixture.rawValue, muxed, facts.duration)) }
            for rendition in facts.audioRenditions {
                tracks.append(("\(fixture.folder)/\(rendition.playlist)", rendition.audio, facts.duration))
            }
        }
        XCTAssertEqual(tracks.count, 6)
        for (playlist, facts, duration) in tracks {
            let samples = try ReferenceDecoder.audioSamples(
                of: try Fixtures.directory().appendingPathComponent(playlist),
                inputOptions: HLSFixture.ffmpegInputOptions)
            let channels = ToneAnalyzer.deinterleave(samples, channelCount: facts.channelCount)
            let rate = Double(facts.sampleRate)
            XCTAssertGreaterThan(Double(channels[0].count) / rate, duration - 0.1, playlist)
            for (channel, tone) in zip(channels, facts.tones) {
                let window = Array(channel[Int(rate)..<Int(rate * 1.25)])
                let analysis = ToneAnalyzer.analyze(window, sampleRate: rate)
                XCTAssertEqual(try XCTUnwrap(analysis.frequency, playlist), tone, accuracy: tone * 0.005, playlist)
                XCTAssertEqual(analysis.rmsDBFS, -9.03, accuracy: 0.3, playlist)
                let body = Array(channel[Int(rate * 0.05)..<(channel.count - Int(rate * 0.1))])
                XCTAssertEqual(ToneAnalyzer.discontinuities(in: body, sampleRate: rate, frequency: tone), [], playlist)
            }
        }
    }

    /// The WebVTT segments: one cue each, as the facts say, mapped to the first video frame's MPEG-TS time.
    func test_subtitleSegments_holdTheFactsCues() throws {
        let fixture = HLSFixture.ts
        let rendition = try XCTUnwrap(fixture.facts.subtitleRenditions.first)
        let folder = try Fixtures.directory().appendingPathComponent(fixture.folder)
        let firstSegment =
            folder.appendingPathComponent(try XCTUnwrap(fixture.facts.variants.first).playlist)
            .deletingPathExtension().path + "_000.ts"
        let firstPTS = try XCTUnwrap(
            try ProbeReport.packetTimes(URL(fileURLWithPath: firstSegment)).first?.pts)
        let names = try playlistLines("\(fixture.folder)/\(rendition.playlist)").filter { !$0.hasPrefix("#") }
        XCTAssertEqual(names.count, rendition.segmentCount)
        var cues: [SubtitleCue] = []
        for name in names {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            XCTAssertEqual(lines.first, "WEBVTT", name)
            XCTAssertEqual(lines.dropFirst().first, "X-TIMESTAMP-MAP=MPEGTS:\(firstPTS),LOCAL:00:00:00.000", name)
            for (index, line) in lines.enumerated() where line.contains(" --> ") {
                let times = line.components(separatedBy: " --> ").map(Self.vttSeconds)
                cues.append(SubtitleCue(start: times[0], end: times[1], text: lines[index + 1]))
            }
        }
        XCTAssertEqual(cues, rendition.cues)
    }

    /// The key file holds the facts' key, the encrypted segments are not readable MPEG-TS, the clear ones are.
    func test_aesSegments_areEncryptedWithTheFactsKey() throws {
        let key = try XCTUnwrap(HLSFixture.aes.facts.key)
        let folder = try Fixtures.directory().appendingPathComponent(HLSFixture.aes.folder)
        XCTAssertEqual([UInt8](try Data(contentsOf: folder.appendingPathComponent(key.uri))), key.key)
        XCTAssertEqual(key.key.count, 16)
        XCTAssertEqual(key.iv.count, 16)
        func isTransportStream(_ url: URL) throws -> Bool {
            let data = try Data(contentsOf: url)
            return data.count % 188 == 0 && stride(from: 0, to: data.count, by: 188).allSatisfy { data[$0] == 0x47 }
        }
        XCTAssertFalse(try isTransportStream(folder.appendingPathComponent("seg_000.ts")))
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("seg_000.ts")).count % 16, 0, "AES blocks")
        let clear = try Fixtures.directory().appendingPathComponent("hls/vod_000.ts")
        XCTAssertTrue(try isTransportStream(clear))
    }

    /// libavformat's own HLS demuxer reads every set over the test server: the playlists, the segments and the AES
    /// key all come over HTTP and are all found.
    func test_ffprobe_readsEverySetOverTheTestServer() throws {
        let server = try HTTPTestServer(root: try Fixtures.directory())
        defer { server.stop() }
        for fixture in HLSFixture.allCases {
            let facts = fixture.facts
            let url = server.url(fixture.rawValue).absoluteString
            let result = try Subprocess.run(
                "ffprobe", ["-v", "error", "-show_format", "-show_streams", "-of", "json", url], timeout: 300)
            XCTAssertEqual(result.status, 0, "\(fixture.rawValue): \(result.stderr)")
            let report = try JSONDecoder().decode(ProbeReport.self, from: result.stdoutData)
            XCTAssertEqual(report.format.formatName, "hls")
            XCTAssertEqual(
                report.streams(ofType: "video").map(\.width),
                facts.isMultivariant ? facts.variants.map(\.width) : [facts.video.width], fixture.rawValue)
            XCTAssertEqual(
                report.streams(ofType: "audio").count, max(facts.audioRenditions.count, 1), fixture.rawValue)
            let requested = Set(server.requestLog.map(\.path))
            XCTAssertTrue(requested.contains("/\(fixture.rawValue)"), fixture.rawValue)
            for playlist in facts.variants.map(\.playlist) + facts.audioRenditions.map(\.playlist) {
                XCTAssertTrue(requested.contains("/\(fixture.folder)/\(playlist)"), "\(fixture.rawValue): \(playlist)")
            }
            if let key = facts.key {
                XCTAssertTrue(requested.contains("/\(fixture.folder)/\(key.uri)"), "the key is fetched")
            }
        }
        let failures = server.requestLog.filter { $0.status != 200 && $0.status != 206 }
        XCTAssertEqual(failures.map(\.path), [])
    }

    // MARK: Helpers

    /// Each video playlist with the size it should have: every variant of a multivariant set, or the media playlist.
    private func videoPlaylists() -> [(HLSFixture, String, Int, Int)] {
        HLSFixture.allCases.flatMap { fixture -> [(HLSFixture, String, Int, Int)] in
            let facts = fixture.facts
            guard facts.isMultivariant else {
                return [(fixture, fixture.rawValue, facts.video.width, facts.video.height)]
            }
            return facts.variants.map { (fixture, "\(fixture.folder)/\($0.playlist)", $0.width, $0.height) }
        }
    }

    private func playlistLines(_ path: String) throws -> [String] {
        let text = try String(contentsOf: try Fixtures.directory().appendingPathComponent(path), encoding: .utf8)
        return text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The attribute list of a tag line (`#TAG:A=1,B="x,y"`), quotes removed.
    static func attributes(_ line: String) -> [String: String] {
        guard let colon = line.firstIndex(of: ":") else { return [:] }
        var result: [String: String] = [:]
        var name = ""
        var value = ""
        var inName = true
        var quoted = false
        for character in line[line.index(after: colon)...] {
            switch character {
            case "\"": quoted.toggle()
            case "=" where inName: inName = false
            case "," where !quoted:
                result[name] = value
                (name, value, inName) = ("", "", true)
            default:
                if inName { name.append(character) } else { value.append(character) }
            }
        }
        if !name.isEmpty { result[name] = value }
        return result
    }

    /// An EXT-X-PROGRAM-DATE-TIME value (`2020-01-02T03:04:05.000Z`).
    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    /// A WebVTT time (`00:00:02.500`) in seconds.
    static func vttSeconds(_ text: String) -> Double {
        text.split(separator: ":").reduce(0) { $0 * 60 + (Double($1) ?? .nan) }
    }
}
