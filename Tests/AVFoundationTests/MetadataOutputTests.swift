import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// What a metadata output's delegate saw, in order, merged with periodic time ticks on the same serial queue (the
/// engine hands both over in playback order, so a group's place among the ticks says when it came).
final class MetadataLog: NSObject, AVPlayerItemMetadataOutputPushDelegate, @unchecked Sendable {
    enum Event {
        case groups([AVTimedMetadataGroup], AVPlayerItemTrack?)
        case flushed
        case tick(CMTime)
    }

    let queue = DispatchQueue(label: "metadata-log")
    private let lock = ConditionLock()
    private var _events: [Event] = []

    var events: [Event] { queue.sync {}; return lock.withLock { _events } }

    func record(_ e: Event) { lock.withLock { _events.append(e) } }

    func metadataOutput(
        _ output: AVPlayerItemMetadataOutput, didOutputTimedMetadataGroups groups: [AVTimedMetadataGroup],
        from track: AVPlayerItemTrack?
    ) {
        record(.groups(groups, track))
    }

    func outputSequenceWasFlushed(_ output: AVPlayerItemOutput) { record(.flushed) }

    /// Every group delivered, in order.
    var groups: [AVTimedMetadataGroup] {
        events.flatMap { e -> [AVTimedMetadataGroup] in
            if case .groups(let g, _) = e { return g }
            return []
        }
    }

    /// Each group's title (`id3/TIT2`), or "-" for a group without one; "flush" for a flush.
    var titles: [String] {
        events.compactMap { e -> String? in
            switch e {
            case .groups(let g, _):
                return g.map { group in
                    group.items.first { $0.identifier == .id3MetadataTitleDescription }?.stringValue ?? "-"
                }.joined(separator: "+")
            case .flushed: return "flush"
            case .tick: return nil
            }
        }
    }
}

/// `AVPlayerItemMetadataOutput` and `AVPlayerItem.timedMetadata` on the timed-ID3 MPEG-TS (`TimedID3Fixture`): tag n
/// is due at 0.5 n s and names its index and time.
final class MetadataOutputTests: XCTestCase {
    private let frame = 1.0 / 30

    private struct Setup {
        let v: VirtualPlayer
        let item: AVPlayerItem
        let output: AVPlayerItemMetadataOutput
        let log: MetadataLog
    }

    /// A player (untimed by default) with the fixture, a metadata output for `identifiers` and 1/30 s ticks logged;
    /// ready, paused at 0, with every tag read.
    private func makePlayer(identifiers: [String]? = nil, mode: VirtualClock.Mode = .untimed) throws -> Setup {
        let v = VirtualPlayer(mode: mode, captureAudio: false)
        let item = AVPlayerItem(url: try TimedID3Fixture.url())
        let output = AVPlayerItemMetadataOutput(identifiers: identifiers)
        let log = MetadataLog()
        output.setDelegate(log, queue: log.queue)
        item.add(output)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        waitUntil("tags read") { item.read { $0.session }?.timedMetadata.isComplete == true }
        _ = v.player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 30), queue: log.queue) {
            log.record(.tick($0))
        }
        return Setup(v: v, item: item, output: output, log: log)
    }

    private func playToEnd(_ s: Setup) {
        let ended = NotificationLog(.AVPlayerItemDidPlayToEndTime, object: s.item)
        s.v.player.rate = 1
        waitUntil("end") { ended.count > 0 }
        _ = s.log.events
    }

    /// Plays a manual-clock player one frame at a time (each step waits for its tick), to `seconds`.
    private func playFrameByFrame(_ s: Setup, to seconds: Double) {
        s.v.player.play()
        waitUntil("playing") { s.v.player.timeControlStatus == .playing }
        let frames = Int((seconds * 30).rounded())
        for k in 1...frames {
            let target = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000)
            s.v.clock.advance(by: target - s.v.clock.time)
            waitUntil("tick \(k)") {
                s.log.events.contains {
                    if case .tick(let t) = $0 { return t >= target - CMTime(value: 1, timescale: 1_000_000) }
                    return false
                }
            }
        }
    }

    private func titles(_ events: ArraySlice<TimedID3Fixture.Event>) -> [String] { events.map(\.title) }

    func test_id3_everyGroupOnce_inOrder_withinAFrameOfItsTime_withItsItems() throws {
        let s = try makePlayer(mode: .manual)
        playFrameByFrame(s, to: 2.9)
        let events = TimedID3Fixture.events
        XCTAssertEqual(s.log.titles, titles(events[...]))
        let groups = s.log.groups
        for (group, event) in zip(groups, events) {
            XCTAssertEqual(group.timeRange.start.seconds, event.time.seconds, accuracy: 0.001)
            XCTAssertTrue(group.timeRange.duration.isIndefinite, "an ID3 tag holds until the next")
            let items = group.items
            XCTAssertEqual(
                items.compactMap(\.identifier),
                [.id3MetadataTitleDescription, .id3MetadataUserText, .id3MetadataPrivate])
            XCTAssertEqual(items.compactMap(\.keySpace), [.id3, .id3, .id3])
            XCTAssertEqual(items.compactMap { $0.key as? NSString }, ["TIT2", "TXXX", "PRIV"])
            XCTAssertEqual(items[0].stringValue, event.title)
            XCTAssertEqual(items[0].commonKey, .commonKeyTitle)
            XCTAssertEqual(items[1].stringValue, String(event.index))
            XCTAssertEqual(items[1].extraAttributes?[.info] as? String, "index")
            XCTAssertEqual(items[2].dataValue, Data(event.privateData))
            XCTAssertEqual(items[2].extraAttributes?[.info] as? String, TimedID3Fixture.Event.privateOwner)
            XCTAssertEqual(items[0].time.seconds, event.time.seconds, accuracy: 0.001)
        }
        s.log.assertOnTime(frame: frame)
    }

    func test_advanceInterval_deliversThatMuchEarly() throws {
        let s = try makePlayer(mode: .manual)
        s.output.advanceIntervalForDelegateInvocation = 0.25
        XCTAssertEqual(s.output.advanceIntervalForDelegateInvocation, 0.25)
        playFrameByFrame(s, to: 2.9)
        XCTAssertEqual(s.log.titles, titles(TimedID3Fixture.events[...]))
        s.log.assertOnTime(frame: frame, advance: 0.25)
        s.output.advanceIntervalForDelegateInvocation = -.infinity
        XCTAssertEqual(s.output.advanceIntervalForDelegateInvocation, 0)
    }

    func test_identifiers_filterTheItems() throws {
        let s = try makePlayer(identifiers: [AVMetadataIdentifier.id3MetadataUserText.rawValue])
        playToEnd(s)
        let groups = s.log.groups
        XCTAssertEqual(groups.count, TimedID3Fixture.events.count)
        XCTAssertEqual(
            groups.map { $0.items.compactMap(\.stringValue) }, TimedID3Fixture.events.map { [String($0.index)] })
        // An identifier the stream does not have: nothing at all.
        let none = try makePlayer(identifiers: [AVMetadataIdentifier.icyMetadataStreamTitle.rawValue])
        playToEnd(none)
        XCTAssertEqual(none.log.groups.count, 0)
    }

    func test_seek_flushes_thenTheGroupInEffect_thenTheRestOnce() throws {
        let s = try makePlayer()
        playToEnd(s)
        let events = TimedID3Fixture.events
        XCTAssertEqual(s.log.titles, titles(events[...]))
        s.v.player.pause()
        // 1.2 s lies in tag 2's time (1.0 s …): it comes again, after the flush, then 3, 4, 5 as playback passes them.
        exactSeek(s.item, 1.2)
        playToEnd(s)
        XCTAssertEqual(s.log.titles, titles(events[...]) + ["flush"] + titles(events[1...]))
        // Before the first tag nothing is in effect: after the flush, every tag in order.
        exactSeek(s.item, 0.2)
        playToEnd(s)
        let last = Array(s.log.titles.suffix(events.count + 1))
        XCTAssertEqual(last, ["flush"] + titles(events[...]))
    }

    func test_rate2_thenReverse_eachTagOnceEachWay() throws {
        let s = try makePlayer()
        let ended = NotificationLog(.AVPlayerItemDidPlayToEndTime, object: s.item)
        s.v.player.rate = 2
        waitUntil("end") { ended.count > 0 }
        let events = TimedID3Fixture.events
        XCTAssertEqual(s.log.titles, titles(events[...]))
        // Backwards from the end: passing tag n's time brings tag n − 1 back into effect (nothing before tag 1).
        s.v.player.rate = -1
        waitUntil("start") { ended.count > 1 }
        // (Reaching the start ends the item, which may flush the sequence after the last group.)
        let backwards = s.log.titles.dropFirst(events.count).filter { $0 != "flush" }
        XCTAssertEqual(backwards, [events[3].title, events[2].title, events[1].title, events[0].title])
    }

    func test_timedMetadata_followsTheGroupInEffect() throws {
        let s = try makePlayer()
        XCTAssertNil(s.item.timedMetadata, "nothing before the first tag")
        let changes = Locked<[String]>([])
        let observation = s.item.observe(\.timedMetadata, options: [.new]) { item, _ in
            let title = item.timedMetadata?.first { $0.identifier == .id3MetadataTitleDescription }?.stringValue
            changes.withLock { $0.append(title ?? "nil") }
        }
        playToEnd(s)
        let events = TimedID3Fixture.events
        waitUntil("last title") { changes.withLock { $0 }.last == events[4].title }
        XCTAssertEqual(changes.withLock { $0 }, events.map(\.title))
        s.v.player.pause()
        exactSeek(s.item, 1.2)
        waitUntil("tag 2 again") {
            s.item.timedMetadata?.first { $0.identifier == .id3MetadataTitleDescription }?.stringValue
                == events[1].title
        }
        // Before the first tag nothing is in effect.
        exactSeek(s.item, 0.2)
        waitUntil("nothing in effect") { s.item.timedMetadata == nil }
        observation.invalidate()
    }
}

/// The timed-ID3 MPEG-TS read over HTTP (the demux thread reads its tags with the played packets): as a progressive
/// file, and as the one segment of an HLS playlist.
final class NetworkMetadataOutputTests: XCTestCase {
    private func assertEveryTag(_ url: URL, file: StaticString = #filePath, line: UInt = #line) {
        let v = VirtualPlayer(captureAudio: false)
        let item = AVPlayerItem(url: url)
        let output = AVPlayerItemMetadataOutput(identifiers: nil)
        let log = MetadataLog()
        output.setDelegate(log, queue: log.queue)
        item.add(output)
        let ended = NotificationLog(.AVPlayerItemDidPlayToEndTime, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30, file: file, line: line) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))", file: file, line: line)
        v.player.play()
        waitUntil("end", timeout: 30, file: file, line: line) { ended.count > 0 }
        let events = TimedID3Fixture.events
        XCTAssertEqual(log.titles, events.map(\.title), file: file, line: line)
        for (group, event) in zip(log.groups, events) {
            XCTAssertEqual(
                group.timeRange.start.seconds, event.time.seconds, accuracy: 1.0 / 30, file: file, line: line)
            XCTAssertEqual(group.items.count, 3, file: file, line: line)
        }
    }

    func test_id3_overHTTP_andInAnHLSSegment_everyTagOnce_inOrder() throws {
        let ts = try TimedID3Fixture.url()
        let server = try HTTPTestServer(root: ts.deletingLastPathComponent())
        server.route("/id3.m3u8") { _ in
            HTTPTestResponse(
                text: "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:3\n#EXT-X-MEDIA-SEQUENCE:0\n"
                    + "#EXTINF:3.0,\n\(ts.lastPathComponent)\n#EXT-X-ENDLIST\n")
        }
        assertEveryTag(server.url(ts.lastPathComponent))
        assertEveryTag(server.url("id3.m3u8"))
        withExtendedLifetime(server) {}
    }
}

extension MetadataLog {
    /// Checks that each group came between the ticks a frame either side of its start (`advance` earlier): not
    /// before the tick a frame short of it, by the tick after it plus a frame; with `fromMetadataTrack`, each from the
    /// item's metadata track. `firstTick` is the playhead before the first tick.
    func assertOnTime(
        frame: Double, advance: Double = 0, firstTick: Double = -.infinity, fromMetadataTrack: Bool = true,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        var lastTick = firstTick
        var pending: [Double] = []
        for e in events {
            switch e {
            case .tick(let t):
                lastTick = t.seconds
                for due in pending {
                    XCTAssertLessThanOrEqual(lastTick, due - advance + frame + 0.001, "on time", file: file, line: line)
                }
                pending = []
            case .groups(let g, let track):
                let t = g[0].timeRange.start.seconds
                XCTAssertGreaterThanOrEqual(lastTick, t - advance - frame - 0.001, "not early", file: file, line: line)
                pending.append(t)
                if fromMetadataTrack {
                    XCTAssertEqual(
                        track?.assetTrack?.mediaType, .metadata, "from the metadata track", file: file, line: line)
                }
            case .flushed:
                XCTFail("no flush without a seek", file: file, line: line)
            }
        }
    }
}
