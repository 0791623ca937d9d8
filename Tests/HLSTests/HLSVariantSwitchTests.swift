import CoreMedia
import FFmpegBridge
import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import HLS

/// Switches the variant at given media sequence numbers (a policy an app could give).
private struct ScriptedPolicy: VariantPolicy {
    /// Media sequence number → variant index.
    let plan: [Int: Int]
    func chooseVariant(in situation: VariantSituation) -> VariantChoice {
        VariantChoice(index: plan[situation.mediaSequence] ?? situation.current, reason: .policy)
    }
}

/// Variant switching in the HLS source read directly, against the generated ladder on a loopback server: which
/// variant each segment comes from (the server's request log), and that the video packets go on frame after frame
/// across every switch.
final class HLSVariantSwitchTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    /// Asserts that `frames` are 0..<count, each once, and says briefly what is wrong when not.
    private func assertEveryFrameOnce(
        _ frames: [Int], count: Int, file: StaticString = #filePath, line: UInt = #line
    ) {
        let sorted = frames.sorted()
        let repeated = zip(sorted, sorted.dropFirst()).filter { $0 == $1 }.map(\.0)
        let missing = Set(0..<count).subtracting(sorted).sorted()
        XCTAssertTrue(
            repeated.isEmpty && missing.isEmpty && sorted.count == count,
            "\(sorted.count) frames; repeated \(repeated.prefix(10)); missing \(missing.prefix(10))", file: file,
            line: line)
    }

    /// Reads the source to its end (video and the first audio stream); the video packets' frame numbers (from their
    /// presentation times at 30 fps, the first frame 0, in reading order) and the audio packet count.
    private func readFrames(_ source: HLSSource, each: ((Int) -> Void)? = nil) throws -> (video: [Int], audio: Int) {
        source.setDiscard(keepingStreams: [0, 1])
        let timeBase = try XCTUnwrap(source.timeBase(ofStream: 0))
        let start = Double(try XCTUnwrap(source.info.startTimeMicroseconds)) / 1e6
        var frames: [Int] = []
        var audio = 0
        let packet = Packet()
        while try source.read(into: packet) == .packet {
            if packet.streamIndex == 1 { audio += 1 }
            guard packet.streamIndex == 0, let pts = packet.pts else { continue }
            let seconds = CMTime(ffmpeg: pts, timeBase: timeBase).seconds - start
            frames.append(Int((seconds * 30).rounded()))
            each?(frames.count)
        }
        let first = frames.min() ?? 0
        return (frames.map { $0 - first }, audio)
    }

    /// The variant (its playlist's name, "360p") each video segment was fetched from, by segment number.
    private func variantsFetched(extension ext: String) -> [Int: [String]] {
        var fetched: [Int: [String]] = [:]
        for path in server.requestLog.map(\.path) where path.hasSuffix(ext) {
            let name = (path as NSString).lastPathComponent
            let parts = name.dropLast(ext.count).split(separator: "_")
            guard parts.count == 2, parts[0].hasSuffix("p"), let number = Int(parts[1]) else { continue }
            fetched[number, default: []].append(String(parts[0]))
        }
        return fetched
    }

    /// MPEG-TS: up two rungs, down one, down again, up: every segment comes once, from the variant planned, and
    /// the frames run 0, 1, 2, … without a repeat or a gap.
    func test_ts_switchesAtSegmentBoundaries_everyFrameOnce() throws {
        let source = HLSSource(url: server.url(HLSFixture.ts.rawValue))
        let control = try XCTUnwrap(source.variantControl)
        control.policy = ScriptedPolicy(plan: [1: 2, 2: 1, 3: 0, 4: 2])
        try source.open()
        let (frames, audio) = try readFrames(source)
        assertEveryFrameOnce(frames, count: HLSFixture.ts.facts.video.frameCount)
        XCTAssertGreaterThan(audio, 0)
        XCTAssertEqual(
            variantsFetched(extension: ".ts"),
            [0: ["360p"], 1: ["720p"], 2: ["540p"], 3: ["360p"], 4: ["720p"], 5: ["720p"]])
        let decisions = control.decisions
        XCTAssertEqual(decisions.map(\.reason), [.start, .policy, .policy, .policy, .policy])
        XCTAssertEqual(decisions.map(\.mediaSequence), [0, 1, 2, 3, 4])
        XCTAssertEqual(decisions.map(\.to.height), [360, 720, 540, 360, 720])
        XCTAssertEqual(decisions.dropFirst().map { $0.from?.height }, [360, 720, 540, 360])
        // Each switch starts where its segment starts on the presentation timeline (2 s apart).
        let starts = decisions.map { Double($0.startMicroseconds - decisions[0].startMicroseconds) / 1e6 }
        for (start, expected) in zip(starts, [0.0, 2, 4, 6, 8]) { XCTAssertEqual(start, expected, accuracy: 0.05) }
        // The transfers carry the bit rate of the variant they belong to.
        let indicated = source.networkLog?.finishedTransfers.filter { $0.uri.hasSuffix("720p_004.ts") }
            .compactMap(\.indicatedBitrate)
        XCTAssertEqual(indicated, [1_790_800])
    }

    /// Fragmented MP4: each switch opens a demuxer on the new variant's init section; the frames go on.
    func test_fragmentedMP4_switchReadsTheNewInitSection_everyFrameOnce() throws {
        let source = HLSSource(url: server.url(HLSFixture.fmp4.rawValue))
        source.variantControl?.policy = ScriptedPolicy(plan: [1: 1, 3: 0, 4: 1])
        try source.open()
        let (frames, audio) = try readFrames(source)
        assertEveryFrameOnce(frames, count: HLSFixture.fmp4.facts.video.frameCount)
        XCTAssertGreaterThan(audio, 0)
        XCTAssertEqual(
            variantsFetched(extension: ".m4s"),
            [0: ["360p"], 1: ["540p"], 2: ["540p"], 3: ["360p"], 4: ["540p"], 5: ["540p"]])
        let paths = server.requestLog.map(\.path)
        XCTAssertEqual(paths.filter { $0.hasSuffix("540p_init.mp4") }.count, 2, "\(paths)")
    }

    /// Fragmented MP4: a seek to a segment already fetched ahead from the variant playing, which the policy now
    /// moves to another variant, reads that variant's init section and segment (not the bytes fetched ahead, which
    /// the new init section cannot describe), and the frames go on from the segment's first.
    func test_fragmentedMP4_seekToASegmentSwitchedAtTheSeek_readsTheNewVariantsBytes() throws {
        let source = HLSSource(url: server.url(HLSFixture.fmp4.rawValue))
        let control = try XCTUnwrap(source.variantControl)
        control.policy = ScriptedPolicy(plan: [:])
        try source.open()
        source.setDiscard(keepingStreams: [0, 1])
        let facts = HLSFixture.fmp4.facts
        let start = try XCTUnwrap(source.info.startTimeMicroseconds)
        let packet = Packet()
        // Into segment 2, so that segment 3 is fetched from 360p: ahead, at a read once segment 2 has arrived (one
        // segment download at a time), or, on a busy machine, as the segment read next.
        var videoPackets = 0
        while videoPackets < Int(2.5 * facts.segmentDuration * 30)
            || (!server.requestLog.contains { $0.path.hasSuffix("/360p_003.m4s") }
                && videoPackets < Int(3.5 * facts.segmentDuration * 30)),
            try source.read(into: packet) == .packet
        {
            if packet.streamIndex == 0 { videoPackets += 1 }
        }
        // The request made ahead reaches the server on its own time.
        XCTAssertTrue(server.waitForRequestLog { $0.contains { $0.path.hasSuffix("/360p_003.m4s") } })
        control.policy = ScriptedPolicy(plan: [3: 1])
        let before = server.requestLog.count
        try source.seek(toMicroseconds: start + Int64(3 * facts.segmentDuration * 1e6) + 100_000)
        let (frames, _) = try readFrames(source)
        let first = Int(3 * facts.segmentDuration * 30)
        XCTAssertEqual(frames.first, 0)  // readFrames counts from the first frame it reads
        XCTAssertEqual(frames.count, facts.video.frameCount - first)
        let after = server.requestLog.dropFirst(before).map(\.path)
        XCTAssertTrue(after.contains { $0.hasSuffix("/540p_init.mp4") }, "\(after)")
        XCTAssertTrue(after.contains { $0.hasSuffix("/540p_003.m4s") }, "\(after)")
        XCTAssertEqual(control.decisions.last?.to.height, 540)
    }

    /// A cap lowered while reading applies to the next segment, even one fetched ahead from above it.
    func test_capLoweredWhileReading_nextSegmentIsWithinIt() throws {
        let source = HLSSource(url: server.url(HLSFixture.ts.rawValue))
        let control = try XCTUnwrap(source.variantControl)
        control.policy = ScriptedPolicy(plan: [1: 2])
        try source.open()
        // Into segment 2 (frames 120…), which comes from 720p, as does segment 3, fetched ahead.
        let (frames, _) = try readFrames(source) { count in
            if count == 135 { control.caps = VariantCaps(maximumPeakBitRate: 1_100_000) }
        }
        assertEveryFrameOnce(frames, count: HLSFixture.ts.facts.video.frameCount)
        let fetched = variantsFetched(extension: ".ts")
        XCTAssertEqual(fetched[1], ["720p"])
        XCTAssertEqual(fetched[2], ["720p"])
        // Segment 3 also from 720p when it was fetched ahead before the cap (the two requests reach the server in
        // either order on a loaded machine); what follows only from 540p.
        XCTAssertTrue(fetched[3]?.contains("540p") ?? false, "segment 3: \(fetched)")
        XCTAssertTrue(Set(fetched[3] ?? []).isSubset(of: ["540p", "720p"]), "segment 3: \(fetched)")
        for segment in 4...5 {
            XCTAssertEqual(fetched[segment], ["540p"], "segment \(segment): \(fetched)")
        }
        let capped = try XCTUnwrap(control.decisions.last)
        XCTAssertEqual(capped.reason, .caps)
        XCTAssertEqual(capped.caps.maximumPeakBitRate, 1_100_000)
        XCTAssertEqual(capped.to.height, 540)
    }

    /// A seek back after a switch reads on from the variant switched to: the timeline says so from the seek's target
    /// on (the earlier period is gone), and a switch decided ahead of the seek is forgotten.
    func test_seekBackAfterASwitch_readsTheVariantSwitchedTo_andTheTimelineFollows() throws {
        let source = HLSSource(url: server.url(HLSFixture.ts.rawValue))
        let control = try XCTUnwrap(source.variantControl)
        control.policy = ScriptedPolicy(plan: [2: 2, 4: 1])
        try source.open()
        source.setDiscard(keepingStreams: [0, 1])
        let start = try XCTUnwrap(source.info.startTimeMicroseconds)
        let packet = Packet()
        // Into segment 3 (720p). Segment 4 (540p) is decided when it is fetched ahead, once segment 3 has arrived
        // whole: usually by now, on a loaded machine not always (reading on to make sure would cross into segment 4
        // and switch there).
        var videoPackets = 0
        while videoPackets < 200, try source.read(into: packet) == .packet {
            if packet.streamIndex == 0 { videoPackets += 1 }
        }
        if control.decisions.last?.to.height == 540 {
            XCTAssertEqual(control.period(atMicroseconds: start + 9_000_000)?.variant.height, 540)
        } else {
            XCTAssertEqual(control.decisions.last?.to.height, 720)
        }
        let before = server.requestLog.count
        try source.seek(toMicroseconds: start + 1_000_000)
        XCTAssertEqual(control.period(atMicroseconds: start + 1_500_000)?.variant.height, 720)
        XCTAssertEqual(control.period(atMicroseconds: start + 9_000_000)?.variant.height, 720)
        let videoStart = try XCTUnwrap(control.decisions.first?.startMicroseconds)
        XCTAssertEqual(control.period(atMicroseconds: videoStart)?.variant.height, 360)
        XCTAssertEqual(try source.read(into: packet), .packet)
        // Segment 0 and the one fetched ahead after it, from 720p (requests reach the server in any order, the one
        // made for segment 4 before the seek too).
        let after = Set(server.requestLog.dropFirst(before).map(\.path).filter { $0.contains("p_") })
        XCTAssertTrue(after.contains("/hls/ts/720p_000.ts"), "\(after)")
        XCTAssertTrue(
            after.isSubset(of: ["/hls/ts/720p_000.ts", "/hls/ts/720p_001.ts", "/hls/ts/540p_004.ts"]), "\(after)")
    }

    /// The first variant's playlist answers 404: playback starts on the next one, and the failure is logged.
    func test_variantPlaylist404_atOpen_fallsBackToAnotherVariant() throws {
        server.inject(.status(404), forPath: "/hls/ts/360p.m3u8")
        let source = HLSSource(url: server.url(HLSFixture.ts.rawValue))
        try source.open()
        let (frames, _) = try readFrames(source)
        assertEveryFrameOnce(frames, count: HLSFixture.ts.facts.video.frameCount)
        let decisions = try XCTUnwrap(source.variantControl?.decisions)
        XCTAssertEqual(decisions.first?.reason, .fallback)
        XCTAssertEqual(decisions.first?.to.height, 540)
        XCTAssertFalse(server.requestLog.contains { $0.path.hasPrefix("/hls/ts/360p_") })
        let failures = try XCTUnwrap(source.networkLog?.failedRequests)
        XCTAssertEqual(failures.map(\.statusCode), [404])
        XCTAssertTrue(failures[0].uri.hasSuffix("360p.m3u8"))
    }

    /// The variant switched to answers 404: the segment comes from the variant playing, the next choice leaves
    /// the failed one out, and the failure is logged once.
    func test_variantPlaylist404_onASwitch_staysAndLeavesItOut() throws {
        server.inject(.status(404), forPath: "/hls/ts/720p.m3u8")
        let source = HLSSource(url: server.url(HLSFixture.ts.rawValue))
        let control = try XCTUnwrap(source.variantControl)
        control.policy = ScriptedPolicy(plan: [1: 2, 2: 2, 3: 1])
        try source.open()
        let (frames, _) = try readFrames(source)
        assertEveryFrameOnce(frames, count: HLSFixture.ts.facts.video.frameCount)
        let fetched = variantsFetched(extension: ".ts")
        XCTAssertEqual(fetched[1], ["360p"])
        XCTAssertEqual(fetched[2], ["360p"])
        XCTAssertEqual(fetched[3], ["540p"])
        XCTAssertEqual(server.requests(for: "/hls/ts/720p.m3u8").count, 1)
        XCTAssertEqual(source.networkLog?.failedRequests.map(\.statusCode), [404])
        XCTAssertEqual(control.decisions.map(\.to.height), [360, 540])
    }
}
