import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Adaptive bitrate on the player's manual virtual clock alone (issue 29): the presentation's requests go through a
/// ``TraceNetwork`` (`AVURLAsset.oavfNetworkTransportKey`) whose link carries a bandwidth trace in the clock's time,
/// so the transfers' timings, the bandwidth estimate, the buffer and playback all follow the clock the test moves,
/// 100 ms at a time. The ladder is `HLSFixture.ts` (360p 580.8, 540p 1020.8, 720p 1790.8 kbit/s declared, six 2 s
/// segments, an English audio rendition beside). Which variant each segment came from is read from the network's
/// requests; every picture is checked by the index drawn in it; nothing measures real time (real time only bounds how
/// long a step waits for the engine to present what the clock made due).
final class HLSAdaptiveClockTests: XCTestCase {
    private let root = "/hls/ts/"

    /// A player on a manual clock and a network on the same clock whose link carries `bytesPerSlot` (per 100 ms) after
    /// `latency` seconds.
    private func setUp(bytesPerSlot: [Int], latency: Double = 0.02) throws -> (VirtualPlayer, TraceNetwork) {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let network = TraceNetwork(
            root: try Fixtures.directory(), clock: v.clock, bytesPerSlot: bytesPerSlot, latency: latency)
        return (v, network)
    }

    private func item(_ path: String, on network: TraceNetwork) -> AVPlayerItem {
        // A numeric host (no name to resolve for the logs); nothing listens there: the network serves it.
        let url = URL(string: "http://127.0.0.1:1\(path)")!
        return AVPlayerItem(asset: AVURLAsset(url: url, options: [AVURLAsset.oavfNetworkTransportKey: network]))
    }

    /// What one run saw.
    private struct Run {
        var item: AVPlayerItem
        /// Stall notifications, and the times-control statuses seen after playback first played.
        var stalls: Int
        var waitedAfterPlaying: Bool
        /// Item seconds buffered ahead (loaded range end − current time) when `onStep` first returned true.
        var bufferAtMark: Double?
    }

    /// Moves the clock 100 ms at a time until the item ends (at most `limit` seconds), playing once the item is
    /// ready. Each step waits (in real time, bounded, never measured) until nothing but the clock holds the player
    /// back: the engine has presented what the clock made due (or waits, or ended), and the source waits for the
    /// network — a transfer is under way — or has nothing to fetch now (`fullAhead` seconds or more buffered, or
    /// every segment asked for: `hasFetchedAll` of the paths requested). So a request is made at the clock time its cause happened, whatever the machine's load. `onStep`
    /// runs after each step with the clock's seconds; its first true marks the buffer then.
    private func run(
        _ v: VirtualPlayer, _ item: AVPlayerItem, limit: Double = 40, fullAhead: Double = 9,
        network: TraceNetwork, hasFetchedAll: ([String]) -> Bool = HLSAdaptiveClockTests.hasFetchedAll,
        file: StaticString = #filePath, line: UInt = #line,
        onStep: (Double) -> Bool = { _ in false }
    ) -> Run {
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let stalls = NotificationLog(AVPlayerItem.playbackStalledNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        var playing = false
        var hasPlayed = false
        var waited = false
        var mark: Double?
        var seconds = 0.0
        /// Whether the source waits for the network (its reader blocked for bytes that have not arrived: what came
        /// was demuxed) or has nothing to fetch now.
        func sourceWaits() -> Bool {
            if item.status == .failed || ends.count > 0 { return true }
            if network.transfersUnderWay > 0, item.session?.isWaitingForInput ?? false { return true }
            guard playing else { return false }
            let end = item.loadedTimeRanges.last?.timeRangeValue.end.seconds ?? 0
            return end - item.currentTime().seconds >= fullAhead || hasFetchedAll(network.requests.map(\.path))
        }
        while ends.count == 0 && item.status != .failed && seconds < limit {
            // Bounded: a source that neither fetches nor fills up is what the assertions then see (generous: a loaded
            // machine's reader may take seconds to hand on a slot's bytes).
            let bound = Date().addingTimeInterval(20)
            while !sourceWaits() && Date() < bound {
                if !playing && item.status == .readyToPlay {
                    v.player.play()
                    playing = true
                }
                spinMainRunLoop(0.001)
            }
            v.clock.advance(by: CMTime(value: 1, timescale: 10))
            seconds += 0.1
            if !playing && item.status == .readyToPlay {
                v.player.play()
                playing = true
            }
            if playing {
                // The engine presented the picture the clock made due (or is waiting, or done).
                waitUntil("the picture at \(item.currentTime().seconds) s", timeout: 30, file: file, line: line) {
                    let last = v.frames.entries.last?.time ?? .zero
                    return ends.count > 0 || v.player.timeControlStatus != .playing
                        || last + CMTime(value: 1, timescale: 30) > item.currentTime()
                }
                switch v.player.timeControlStatus {
                case .playing: hasPlayed = true
                case .waitingToPlayAtSpecifiedRate: waited = waited || (hasPlayed && ends.count == 0)
                default: break
                }
            }
            if mark == nil, onStep(seconds) {
                // What the engine has read ahead (the published loaded ranges may be a step behind it).
                let published = item.loadedTimeRanges.last?.timeRangeValue.end.seconds ?? 0
                let end = item.session?.bufferedEnd?.seconds ?? published
                mark = end - item.currentTime().seconds
            }
        }
        XCTAssertEqual(ends.count, 1, "played to its end within \(limit) s of the clock", file: file, line: line)
        XCTAssertNil(item.error, file: file, line: line)
        return Run(item: item, stalls: stalls.count, waitedAfterPlaying: waited, bufferAtMark: mark)
    }

    /// Whether `paths` hold the requests for the ladder's last segments: video segment 5 of a variant and the
    /// English rendition's segment 6.
    private static func hasFetchedAll(_ paths: [String]) -> Bool {
        paths.contains { $0.hasSuffix("p_005.ts") } && paths.contains { $0.hasSuffix("eng_006.ts") }
    }

    /// The variants ("360p") each video segment was requested from, by segment number.
    private func videoSegments(_ network: TraceNetwork) -> [Int: [String]] {
        var fetched: [Int: [String]] = [:]
        for path in network.requests.map(\.path) where path.hasSuffix(".ts") {
            let parts = (path as NSString).lastPathComponent.dropLast(3).split(separator: "_")
            guard parts.count == 2, parts[0].hasSuffix("p"), let number = Int(parts[1]) else { continue }
            fetched[number, default: []].append(String(parts[0]))
        }
        return fetched
    }

    /// Serves `/hls/ts/long/master.m3u8`: the ladder's video (no audio rendition) played `loops` times over, an
    /// `EXT-X-DISCONTINUITY` before each repeat: a presentation long enough for the player's own buffer (10 s ahead)
    /// to matter.
    private func serveLongLadder(on network: TraceNetwork, loops: Int) -> String {
        let rungs = [("360p", 580_800, "640x360"), ("540p", 1_020_800, "960x540"), ("720p", 1_790_800, "1280x720")]
        var master = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
        for (name, bandwidth, size) in rungs {
            master +=
                "#EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),RESOLUTION=\(size),CODECS=\"avc1.64001f\"\n\(name).m3u8\n"
            var media = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n"
            media += "#EXT-X-INDEPENDENT-SEGMENTS\n"
            for loop in 0..<loops {
                if loop > 0 { media += "#EXT-X-DISCONTINUITY\n" }
                for segment in 0..<6 { media += "#EXTINF:2.000000,\n../\(name)_00\(segment).ts\n" }
            }
            network.route(root + "long/\(name).m3u8", text: media + "#EXT-X-ENDLIST\n")
        }
        network.route(root + "long/master.m3u8", text: master)
        return root + "long/master.m3u8"
    }

    private func assertEveryPictureOnce(_ v: VirtualPlayer, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(
            v.frames.indices.compactMap { $0 }, Array(0..<HLSFixture.ts.facts.video.frameCount), file: file, line: line)
    }

    /// The start-up case: a two-rung ladder (345 and 1,060 kbit/s declared, the low rung listed first) on a
    /// 40 Mbit/s link. The first segment's transfer, timed on the clock, is the first estimate, and the second segment
    /// is already requested from the high rung.
    func test_fastLink_twoRungLadder_requestsTheSecondSegmentFromTheHighRung() throws {
        let (v, network) = try setUp(bytesPerSlot: [500_000], latency: 0.002)
        network.route(root + "two_rungs.m3u8", text: HLSStartUpTests.twoRungMaster)
        let run = run(v, item(root + "two_rungs.m3u8", on: network), network: network)
        let fetched = videoSegments(network)
        XCTAssertEqual(fetched[0], ["360p"], "\(fetched)")
        for segment in 1..<6 { XCTAssertEqual(fetched[segment], ["540p"], "segment \(segment): \(fetched)") }
        let decisions = run.item.oavfVariantDecisions
        XCTAssertEqual(decisions.map(\.reason), [.start, .bandwidthUp], "\(decisions)")
        XCTAssertEqual(decisions.map(\.mediaSequence), [0, 1])
        // Measured on the clock: segment 0's bytes over the 40 Mbit/s link (less the latency's share).
        let estimate = try XCTUnwrap(decisions.last?.estimatedBitRate)
        XCTAssertGreaterThan(estimate, 20_000_000, "\(decisions)")
        XCTAssertLessThanOrEqual(estimate, 40_000_000 * 1.001, "\(decisions)")
        XCTAssertEqual(run.stalls, 0)
        XCTAssertFalse(run.waitedAfterPlaying)
        assertEveryPictureOnce(v)
    }

    /// A 3 s outage while 4.5 s or more are buffered (the link carries 4 Mbit/s before and after; a 6 s forward
    /// buffer): a segment under way when the outage begins arrives late, and playback goes on from the buffer without
    /// a stall.
    func test_outageShorterThanTheBuffer_playsThroughWithoutAStall() throws {
        let fast = 50_000  // 4 Mbit/s
        let (v, network) = try setUp(bytesPerSlot: [fast])
        let item = item("/" + HLSFixture.ts.rawValue, on: network)
        item.preferredForwardBufferDuration = 6
        var outage: Double?
        let run = run(
            v, item, fullAhead: 5, network: network,
            onStep: { seconds in
                // The outage starts once 3 s have played, while a segment is under way and 4.5 s or more are read
                // ahead: the outage's 3 s and about a second to fetch the segment it holds back once the link is
                // back. (Where in its fetch cycle the player is after 3 s varies from run to run — 4.2 to 6.2 s read
                // ahead were seen — with how the reader kept up with the link.)
                let ahead = (item.session?.bufferedEnd?.seconds ?? 0) - item.currentTime().seconds
                guard item.currentTime().seconds >= 3, network.transfersUnderWay > 0, ahead >= 4.5 else { return false }
                outage = seconds
                network.setTrace(bytesPerSlot: Array(repeating: 0, count: 30) + [fast])
                return true
            })
        let start = try XCTUnwrap(outage, "no transfer under way after 3 s: \(network.requests)")
        let buffered = try XCTUnwrap(run.bufferAtMark)
        XCTAssertGreaterThanOrEqual(buffered, 4.5, "the buffer covers the outage and the segment it holds back")
        // A segment the outage held back: asked for before its end, arrived after it.
        let held = network.requests.filter {
            $0.path.hasSuffix(".ts") && $0.time < start + 3 && ($0.arrived ?? 0) > start + 3
        }
        XCTAssertFalse(held.isEmpty, "\(network.requests)")
        XCTAssertEqual(run.stalls, 0, "\(run.item.oavfVariantDecisions)")
        XCTAssertFalse(run.waitedAfterPlaying)
        assertEveryPictureOnce(v)
    }

    /// A step down from 4 to 0.9 Mbit/s — below the top rung's segments (about 1.6 Mbit/s of bytes), above the
    /// middle one's — while playing the top rung of a 48 s presentation with the player's own buffer (10 s ahead):
    /// each top-rung segment now drains the buffer, and the policy leaves the rung while media is still buffered; the
    /// decision says on what estimate and buffer and why, and playback never stalls.
    func test_stepDown_switchesDownBeforeTheBufferEmpties() throws {
        let (v, network) = try setUp(bytesPerSlot: [50_000])
        let item = item(serveLongLadder(on: network, loops: 4), on: network)
        var step: Double?
        let run = run(
            v, item, limit: 90, network: network, hasFetchedAll: { $0.filter { $0.hasSuffix("p_005.ts") }.count == 4 }
        ) { seconds in
            guard item.currentTime().seconds >= 12 else { return false }
            step = seconds
            network.setTrace(bytesPerSlot: [11_250])
            return true
        }
        let stepped = try XCTUnwrap(step)
        XCTAssertGreaterThan(try XCTUnwrap(run.bufferAtMark), 8, "a deep buffer when the link steps down")
        let decisions = run.item.oavfVariantDecisions
        XCTAssertEqual(decisions.first?.reason, .start)
        XCTAssertEqual(decisions.dropFirst().first?.toPeakBitRate, 1_790_800, "up to the top rung: \(decisions)")
        let down = try XCTUnwrap(
            decisions.first { ($0.fromPeakBitRate ?? 0) == 1_790_800 && $0.toPeakBitRate < 1_790_800 }, "\(decisions)")
        XCTAssertTrue([.bandwidthDown, .bufferLow].contains(down.reason), "\(down)")
        // Decided on the link measured after the step, with media still ahead of the playhead.
        XCTAssertLessThan(down.estimatedBitRate ?? .infinity, 1_790_800, "\(down)")
        XCTAssertGreaterThan(down.forwardBufferDuration ?? 0, 1, "switched while media was buffered: \(down)")
        let switchedAt = try XCTUnwrap(
            network.requests.first { $0.path.hasSuffix(".ts") && !$0.path.contains("720p") && $0.time > stepped })
        XCTAssertGreaterThan(switchedAt.time, stepped)
        XCTAssertEqual(run.stalls, 0, "\(decisions)")
        XCTAssertFalse(run.waitedAfterPlaying)
        let frames = v.frames.indices.compactMap { $0 }
        XCTAssertEqual(frames, (0..<4).flatMap { _ in 0..<HLSFixture.ts.facts.video.frameCount }, "every picture once")
    }
}
