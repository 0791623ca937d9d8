import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// Plays the variant each media sequence number is planned on (an app's policy).
private struct PlannedVariants: OAVFVariantPolicy {
    let plan: [Int: Int]
    func chooseVariant(in situation: OAVFVariantSituation) -> Int {
        plan[situation.mediaSequence] ?? situation.currentVariant
    }
}

/// Adaptive bitrate through the public API, on the generated ladder (`HLSFixture.ts`: 360p 580.8 kb/s, 540p
/// 1020.8 kb/s, 720p 1790.8 kb/s, six 2 s segments each, audio in separate English / French renditions) served
/// from a loopback server. Which variant each segment came from is read from the server's request log; nothing
/// asserts a duration.
final class HLSAdaptiveTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    private var masterURL: URL { server.url(HLSFixture.ts.rawValue) }

    /// The variants ("360p") each video segment was requested from, by segment number, among `records` (all by
    /// default).
    private func videoSegments(in records: [HTTPTestRequestRecord]? = nil) -> [Int: [String]] {
        var fetched: [Int: [String]] = [:]
        for path in (records ?? server.requestLog).map(\.path) where path.hasSuffix(".ts") {
            let parts = (path as NSString).lastPathComponent.dropLast(3).split(separator: "_")
            guard parts.count == 2, parts[0].hasSuffix("p"), let number = Int(parts[1]) else { continue }
            fetched[number, default: []].append(String(parts[0]))
        }
        return fetched
    }

    /// An app's policy switches at every segment: the pictures go on frame after frame, the sound has no gap or
    /// click, each segment comes once from its planned variant, `presentationSize` follows the variant playing, and
    /// the decisions say why.
    func test_switchAtEverySegment_everyFrameOnce_audioContinuous_sizeFollows() throws {
        let plan = [1: 2, 2: 1, 3: 0, 4: 2, 5: 1]
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: masterURL)
        item.oavfVariantPolicy = PlannedVariants(plan: plan)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end", timeout: 60) { ends.count > 0 || item.status == .failed }
        let run = (v: v, item: item)
        XCTAssertNil(run.item.error)
        let indices = run.v.frames.indices.compactMap { $0 }
        XCTAssertEqual(indices, Array(0..<HLSFixture.ts.facts.video.frameCount))
        XCTAssertEqual(run.v.frames.indices.count, indices.count, "every picture carries its index")

        let left = ToneAnalyzer.deinterleave(run.v.audio.samples, channelCount: 2)[0]
        XCTAssertGreaterThanOrEqual(left.count, 11 * 48_000)
        // From 0.1 s to 11.5 s (the encoder's start and tail aside): the 440 Hz tone without a gap or a click.
        let middle = Array(left[4_800..<(48_000 * 23 / 2)])
        XCTAssertEqual(ToneAnalyzer.dominantFrequency(of: middle, sampleRate: 48_000) ?? 0, 440, accuracy: 2)
        XCTAssertEqual(ToneAnalyzer.discontinuities(in: middle, sampleRate: 48_000, frequency: 440), [])

        let names = ["360p", "540p", "720p"]
        var expected: [Int: [String]] = [0: ["360p"]]
        for (segment, variant) in plan { expected[segment] = [names[variant]] }
        XCTAssertEqual(videoSegments(), expected)
        let decisions = run.item.oavfVariantDecisions
        XCTAssertEqual(decisions.map(\.reason), [.start, .policy, .policy, .policy, .policy, .policy])
        XCTAssertEqual(decisions.map(\.mediaSequence), [0, 1, 2, 3, 4, 5])
        XCTAssertEqual(decisions.map(\.toPeakBitRate), [580_800, 1_790_800, 1_020_800, 580_800, 1_790_800, 1_020_800])
        for (decision, seconds) in zip(decisions, [0.0, 2, 4, 6, 8, 10]) {
            XCTAssertEqual(decision.itemTime.seconds, seconds, accuracy: 0.05)
        }
        XCTAssertEqual(run.item.presentationSize, CGSize(width: 960, height: 540))
        let indicated = run.item.accessLog()?.events.map(\.indicatedBitrate) ?? []
        XCTAssertEqual(indicated.first, 580_800, "\(indicated)")
        XCTAssertGreaterThanOrEqual(indicated.count, 2, "a period per variant played: \(indicated)")
    }

    /// The same switches on a live (event) stream: two segments listed when the item opens, one more a second (as
    /// an encoder publishes them) until it ends. Each switch reloads the variant switched to from then on; every
    /// picture comes once, each segment from its planned variant.
    func test_live_switchesVariants_everyFrameOnce_andReloadsTheVariantSwitchedTo() throws {
        let live = try HLSLiveLadder(.ts, window: .event, initialSegments: 2, atEnd: .endList)
        live.serve(on: server, at: "/live/ts")
        let plan = [1: 2, 3: 1]
        let v = VirtualPlayer(captureAudio: false)
        let item = AVPlayerItem(url: server.url("live/ts/master.m3u8"))
        item.oavfVariantPolicy = PlannedVariants(plan: plan)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        // The encoder: a segment a second, also the audio renditions' short last one, then EXT-X-ENDLIST.
        let publisher = Thread {
            for _ in 0..<HLSFixture.ts.facts.audioRenditions[0].segmentCount - 2 {
                // Real time by design: HLS reloads a live playlist on the wall clock, not the player's virtual one.
                Thread.sleep(forTimeInterval: 1)
                live.advance(segments: 1)
            }
        }
        publisher.start()
        waitUntil("end", timeout: 60) { ends.count > 0 || item.status == .failed }
        XCTAssertNil(item.error)
        // Every picture once, in order (the first too: a just-opened live item no longer seeks to its window's
        // start, which re-fetched the first two segments and showed the first picture twice), each segment once.
        let indices = v.frames.indices.compactMap { $0 }
        XCTAssertEqual(indices, Array(0..<HLSFixture.ts.facts.video.frameCount))
        let fetched = videoSegments()
        XCTAssertEqual(fetched[0], ["360p"], "started on the first variant")
        XCTAssertEqual(fetched[1], ["720p"], "switched up at segment 1")
        XCTAssertEqual(fetched.filter { $0.key >= 2 }, [2: ["720p"], 3: ["540p"], 4: ["540p"], 5: ["540p"]])
        XCTAssertEqual(item.oavfVariantDecisions.map(\.mediaSequence), [0, 1, 3])
        // After each switch, the variant switched to is the playlist reloaded.
        for name in ["720p", "540p"] {
            XCTAssertGreaterThan(server.requests(for: "/live/ts/\(name).m3u8").count, 1, "\(name) reloaded")
        }
    }
}

/// Start-up on a fast link (issue 29): a two-rung ladder as a new viewer meets it — 345 and 1,060 kbit/s declared, the
/// low rung listed first — over the ladder's 360p and 540p segments (2 s each), served from loopback (tens of Mbit/s:
/// far above either rung). On the virtual clock (`VirtualPlayer`, untimed); which variant each segment came from is
/// read from the server's request log.
final class HLSStartUpTests: XCTestCase {
    /// The ladder: 345 and 1,060 kbit/s declared, the low rung listed first, one audio rendition (the
    /// ladder's 360p and 540p playlists beside it). `HLSAdaptiveClockTests` serves it too.
    static let twoRungMaster = """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",DEFAULT=YES,LANGUAGE="eng",URI="eng.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=345000,RESOLUTION=640x360,CODECS="avc1.64001e,mp4a.40.2",AUDIO="aud"
        360p.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=1060000,RESOLUTION=960x540,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aud"
        540p.m3u8

        """

    private var server: HTTPTestServer!
    private let master = "/hls/ts/two_rungs.m3u8"

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
        server.route(master) { _ in HTTPTestResponse(text: Self.twoRungMaster) }
    }

    override func tearDown() {
        server.stop()
    }

    /// The variants ("360p") the video segments of `records` came from, by segment number.
    private func videoSegments(in records: [HTTPTestRequestRecord]) -> [Int: [String]] {
        var fetched: [Int: [String]] = [:]
        for path in records.map(\.path) where path.hasSuffix(".ts") {
            let parts = (path as NSString).lastPathComponent.dropLast(3).split(separator: "_")
            guard parts.count == 2, parts[0].hasSuffix("p"), let number = Int(parts[1]) else { continue }
            fetched[number, default: []].append(String(parts[0]))
        }
        return fetched
    }

    private func playToEnd(_ v: VirtualPlayer, configure: (AVPlayerItem) -> Void = { _ in }) -> AVPlayerItem {
        let item = AVPlayerItem(url: server.url(String(master.dropFirst())))
        configure(item)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end", timeout: 60) { ends.count > 0 || item.status == .failed }
        XCTAssertNil(item.error)
        return item
    }

    /// The first segment of the start variant gives the first estimate, and the next request is already for the high
    /// rung: the switch is decided for segment 1 (the second), on that one measurement, not for segment 3.
    func test_fastLink_switchesUpAtTheSecondSegment() throws {
        let v = VirtualPlayer(captureAudio: false)
        let item = playToEnd(v)
        let fetched = videoSegments(in: server.requestLog)
        XCTAssertEqual(fetched[0], ["360p"], "\(fetched)")
        for segment in 1..<6 { XCTAssertEqual(fetched[segment], ["540p"], "segment \(segment): \(fetched)") }
        let decisions = item.oavfVariantDecisions
        XCTAssertEqual(decisions.map(\.reason), [.start, .bandwidthUp])
        XCTAssertEqual(decisions.map(\.mediaSequence), [0, 1])
        XCTAssertEqual(decisions.last?.itemTime.seconds ?? 0, 2, accuracy: 0.05)
        XCTAssertGreaterThan(decisions.last?.estimatedBitRate ?? 0, 1_060_000 / 0.7, "the first segment measured")
        XCTAssertNotNil(decisions.last?.forwardBufferDuration)
        // Every picture once: the switch is seamless.
        XCTAssertEqual(v.frames.indices.compactMap { $0 }, Array(0..<HLSFixture.ts.facts.video.frameCount))
    }

    /// The next item of the same player from the same host starts on the rung the first one measured: its start
    /// decision carries that estimate, and none of its segments comes from the low rung.
    func test_nextItemFromTheSameHost_startsOnTheRungTheLastMeasured() throws {
        let v = VirtualPlayer(captureAudio: false)
        let first = playToEnd(v)
        let measured = try XCTUnwrap(first.oavfVariantDecisions.last?.estimatedBitRate)
        let before = server.requestLog.count
        let second = playToEnd(v)
        let decisions = second.oavfVariantDecisions
        XCTAssertEqual(decisions.map(\.reason), [.start], "\(decisions)")
        XCTAssertEqual(decisions.first?.toPeakBitRate, 1_060_000)
        XCTAssertGreaterThan(decisions.first?.estimatedBitRate ?? 0, 1_060_000 / 0.7)
        XCTAssertGreaterThan(measured, 1_060_000 / 0.7)
        // The segments played by the second item: all from 540p (the asset's loading, before the player, still
        // probes the first listed variant's first segment).
        let playback = videoSegments(in: Array(server.requestLog.dropFirst(before)))
        for segment in 1..<6 { XCTAssertEqual(playback[segment], ["540p"], "segment \(segment): \(playback)") }
        XCTAssertTrue(playback[0]?.contains("540p") ?? false, "\(playback)")
        let count = HLSFixture.ts.facts.video.frameCount
        XCTAssertEqual(Array(v.frames.indices.compactMap { $0 }.suffix(count)), Array(0..<count))
    }

    /// `startsOnFirstEligibleVariant`: the next item starts on the first variant listed all the same, and the
    /// estimate it inherited moves it up from the second segment.
    func test_startsOnFirstEligibleVariant_startsOnTheFirstListed_thenTheKnownEstimateMovesItUp() throws {
        let v = VirtualPlayer(captureAudio: false)
        _ = playToEnd(v)
        let second = playToEnd(v) { $0.startsOnFirstEligibleVariant = true }
        let decisions = second.oavfVariantDecisions
        XCTAssertEqual(decisions.map(\.reason), [.start, .bandwidthUp], "\(decisions)")
        XCTAssertEqual(decisions.map(\.toPeakBitRate), [345_000, 1_060_000])
        XCTAssertEqual(decisions.map(\.mediaSequence), [0, 1])
    }
}

/// Adaptive bitrate in real time against a throttled server (SDL's disk driver writing to /dev/null as the audio
/// device): the server's bandwidth limit is the network.
final class HLSAdaptiveRealTimeTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", "/dev/null", 1)
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
        unsetenv("SDL_AUDIODRIVER")
        unsetenv("SDL_DISKAUDIOFILE")
    }

    /// 1.2 × the lowest rung's `BANDWIDTH`, in bytes per second.
    private static let throttled = 580_800 * 12 / 10 / 8

    private func videoSegments() -> [Int: [String]] {
        var fetched: [Int: [String]] = [:]
        for path in server.requestLog.map(\.path) where path.hasSuffix(".ts") {
            let parts = (path as NSString).lastPathComponent.dropLast(3).split(separator: "_")
            guard parts.count == 2, parts[0].hasSuffix("p"), let number = Int(parts[1]) else { continue }
            fetched[number, default: []].append(String(parts[0]))
        }
        return fetched
    }

    /// Plays `item` (by default the ladder) in real time to its end; `tick` runs on the main thread while it plays.
    private func playRealTime(
        _ item: AVPlayerItem? = nil, tick: (() -> Void)? = nil
    ) -> (item: AVPlayerItem, stalls: NotificationLog, ends: NotificationLog, player: AVPlayer) {
        let player = AVPlayer()
        let item = item ?? AVPlayerItem(url: server.url(HLSFixture.ts.rawValue))
        let stalls = NotificationLog(AVPlayerItem.playbackStalledNotification, object: item)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let stalledAt = Locked<[Double]>([])
        let token = NotificationCenter.default.addObserver(
            forName: AVPlayerItem.playbackStalledNotification, object: item, queue: nil
        ) { _ in stalledAt.withLock { $0.append(item.currentTime().seconds) } }
        defer {
            NotificationCenter.default.removeObserver(token)
            if !stalledAt.withLock({ $0 }).isEmpty { print("stalled at item times \(stalledAt.withLock { $0 })") }
        }
        player.replaceCurrentItem(with: item)
        player.play()
        waitUntil("end", timeout: 90) {
            tick?()
            return ends.count > 0 || item.status == .failed
        }
        return (item, stalls, ends, player)
    }

    /// Throttled to 1.2 × the lowest rung: every segment from the lowest rung, no stall.
    func test_throttledToJustAboveTheLowestRung_playsItWithoutStalling() throws {
        server.bandwidthLimit = Self.throttled
        let run = playRealTime()
        XCTAssertNil(run.item.error)
        XCTAssertEqual(run.ends.count, 1)
        XCTAssertEqual(run.stalls.count, 0)
        let fetched = videoSegments()
        XCTAssertEqual(fetched.keys.sorted(), Array(0..<6))
        XCTAssertTrue(fetched.values.allSatisfy { $0 == ["360p"] }, "\(fetched)")
        XCTAssertEqual(run.item.oavfVariantDecisions.map(\.reason), [.start])
        XCTAssertEqual(run.item.accessLog()?.events.first?.indicatedBitrate, 580_800)
        withExtendedLifetime(run.player) {}
    }

    /// Throttled while the first two segments are requested, then lifted: the top rung is reached within three
    /// segments, without a stall, and the item's size and access log follow.
    func test_throttleLifted_reachesTheTopRungWithinThreeSegments() throws {
        server.bandwidthLimit = Self.throttled
        var liftedAfter: Int?
        let run = playRealTime(tick: { [self] in
            guard liftedAfter == nil, let last = videoSegments().keys.max(), last >= 1 else { return }
            liftedAfter = last
            server.bandwidthLimit = nil
        })
        XCTAssertNil(run.item.error)
        XCTAssertEqual(run.stalls.count, 0)
        let lifted = try XCTUnwrap(liftedAfter)
        let fetched = videoSegments()
        for segment in 0...lifted { XCTAssertEqual(fetched[segment], ["360p"], "\(fetched)") }
        let top = try XCTUnwrap(fetched.keys.sorted().first { fetched[$0]?.last == "720p" }, "\(fetched)")
        XCTAssertLessThanOrEqual(top - lifted, 3, "lifted after segment \(lifted): \(fetched)")
        let decisions = run.item.oavfVariantDecisions
        XCTAssertEqual(decisions.last?.toPeakBitRate, 1_790_800)
        // Every switch after the start is up: on the measured bandwidth, or (12 s of media, all "near the end" for the
        // policy) because the rest of the item arrives in time from a higher rung.
        XCTAssertTrue(
            decisions.dropFirst().allSatisfy { [.bandwidthUp, .endOfItem].contains($0.reason) },
            "\(decisions.map(\.reason))")
        let peaks = decisions.map(\.toPeakBitRate)
        XCTAssertEqual(peaks, peaks.sorted(), "\(decisions)")
        // The log says what the last switch was made on: an estimate that carries the top rung within the policy's
        // largest share (2 × with a full buffer), or — near the end — one the rest of the item arrives on in time (under
        // load the loopback link measured 2.3 Mbit/s there: not more than the rung ÷ 0.7, as hls.js would need).
        let last = try XCTUnwrap(decisions.last)
        XCTAssertGreaterThan(try XCTUnwrap(last.estimatedBitRate), 0)
        XCTAssertNotNil(last.forwardBufferDuration)
        if last.reason == .bandwidthUp {
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(last.estimatedBitRate) * 2, 1_790_800, "\(last)")
        }
        XCTAssertEqual(run.item.presentationSize, CGSize(width: 1280, height: 720))
        let events = run.item.accessLog()?.events ?? []
        XCTAssertEqual(events.first?.indicatedBitrate, 580_800)
        XCTAssertEqual(events.last?.indicatedBitrate, 1_790_800)
        XCTAssertGreaterThan(events.last?.switchBitrate ?? 0, 0)
        withExtendedLifetime(run.player) {}
    }

    /// A cap lowered while the top rung plays: every segment requested from then on is within it.
    func test_capLoweredWhilePlaying_nextSegmentsAreWithinIt() throws {
        let item = AVPlayerItem(url: server.url(HLSFixture.ts.rawValue))
        item.preferredForwardBufferDuration = 4
        // When the cap is set: the requests so far, and the 720p segment whose request that decision made (it may
        // reach the server just after), or the one after it: the feed reads one segment ahead, and staying on a rung
        // is not a decision of its own (that request may have been made on the old rung just before the cap).
        var capped: (requests: Int, segment: Int)?
        let run = playRealTime(item) { [self] in
            guard capped == nil, let top = item.oavfVariantDecisions.last, top.toPeakBitRate == 1_790_800 else {
                return
            }
            capped = (server.requestLog.count, top.mediaSequence)
            item.preferredPeakBitRate = 1_100_000
        }
        XCTAssertNil(run.item.error)
        let cap = try XCTUnwrap(capped, "never reached the top rung: \(videoSegments())")
        let after = server.requestLog.dropFirst(cap.requests).map(\.path).filter { $0.hasSuffix(".ts") }
            .filter { path in
                path.contains("p_")
                    && ![cap.segment, cap.segment + 1].contains { path.hasSuffix(String(format: "720p_%03d.ts", $0)) }
            }
        XCTAssertFalse(after.isEmpty)
        XCTAssertFalse(after.contains { $0.contains("720p") }, "\(after)")
        XCTAssertEqual(run.item.oavfVariantDecisions.last?.reason, .caps)
        XCTAssertEqual(run.item.oavfVariantDecisions.last?.peakBitRateCap, 1_100_000)
        XCTAssertEqual(run.item.presentationSize, CGSize(width: 960, height: 540))
        withExtendedLifetime(run.player) {}
    }
}
