import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// `AVPlayerItemMetadataOutput` on ID3 tags carried in fragmented-MP4 `emsg` boxes of an HLS stream
/// (`EmsgID3Fixture`, over the loopback server): tag n is due at item time n − 0.5 − 2/30 s.
final class EmsgMetadataOutputTests: XCTestCase {
    private let frame = 1.0 / 30
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    private struct Setup {
        let v: VirtualPlayer
        let item: AVPlayerItem
        let output: AVPlayerItemMetadataOutput
        let log: MetadataLog
    }

    /// A player with the stream, a metadata output for `identifiers` and 1/30 s ticks logged; ready, paused at 0.
    private func makePlayer(identifiers: [String]? = nil, mode: VirtualClock.Mode = .untimed) -> Setup {
        let v = VirtualPlayer(mode: mode, captureAudio: false)
        let item = AVPlayerItem(url: server.url(EmsgID3Fixture.playlist))
        let output = AVPlayerItemMetadataOutput(identifiers: identifiers)
        let log = MetadataLog()
        output.setDelegate(log, queue: log.queue)
        item.add(output)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        _ = v.player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 30), queue: log.queue) {
            log.record(.tick($0))
        }
        return Setup(v: v, item: item, output: output, log: log)
    }

    private func playToEnd(_ s: Setup) {
        let ended = NotificationLog(.AVPlayerItemDidPlayToEndTime, object: s.item)
        s.v.player.rate = 1
        waitUntil("end", timeout: 60) { ended.count > 0 }
        _ = s.log.events
    }

    private func titles(_ events: ArraySlice<EmsgID3Fixture.Event>) -> [String] { events.map(\.title) }

    func test_emsg_everyTagOnce_inOrder_atItsTime_withItsItems() {
        let s = makePlayer()
        playToEnd(s)
        let events = EmsgID3Fixture.events
        // Version 0 and 1, both schemes; the SCTE-35 message is not a tag.
        XCTAssertEqual(s.log.titles, titles(events[...]))
        for (group, event) in zip(s.log.groups, events) {
            XCTAssertEqual(group.timeRange.start.seconds, event.itemTime, accuracy: 0.001, event.title)
            XCTAssertTrue(group.timeRange.duration.isIndefinite, "an ID3 tag holds until the next")
            let items = group.items
            XCTAssertEqual(items.compactMap(\.identifier), [.id3MetadataTitleDescription, .id3MetadataUserText])
            XCTAssertEqual(items.first?.stringValue, event.title)
            XCTAssertEqual(items.last?.stringValue, String(event.index))
            XCTAssertEqual(items.last?.extraAttributes?[.info] as? String, "index")
        }
        for e in s.log.events {
            if case .groups(_, let track) = e { XCTAssertNil(track, "emsg tags belong to no track") }
        }
        // `timedMetadata` follows on the main queue.
        waitUntil("the last tag in timedMetadata") {
            s.item.timedMetadata?.first { $0.identifier == .id3MetadataTitleDescription }?.stringValue
                == events.last?.title
        }
    }

    /// Played one frame at a time on a manual clock: each group comes between the ticks a frame either side of its
    /// time.
    func test_emsg_groupsComeWithinAFrameOfTheirTime() {
        let s = makePlayer(mode: .manual)
        s.v.player.play()
        waitUntil("playing") { s.v.player.timeControlStatus == .playing }
        for k in 1...Int(3.2 * 30) {
            let target = CMTime(value: Int64(k) * 1_000_000 + 500, timescale: 30_000_000)
            s.v.clock.advance(by: target - s.v.clock.time)
            waitUntil("tick \(k)", timeout: 30) {
                s.log.events.contains {
                    if case .tick(let t) = $0 { return t >= target - CMTime(value: 1, timescale: 1_000_000) }
                    return false
                }
            }
        }
        XCTAssertEqual(s.log.titles, titles(EmsgID3Fixture.events[0..<3]))
        s.log.assertOnTime(frame: frame, firstTick: -.infinity, fromMetadataTrack: false)
    }

    func test_emsg_seek_flushes_thenTheTagInEffect_thenTheRestOnce() {
        let s = makePlayer()
        playToEnd(s)
        let events = EmsgID3Fixture.events
        s.v.player.pause()
        // 5.0 s lies in tag 5's time (4.43 s …), in the third segment: after the flush it comes again, then 6 … 12.
        exactSeek(s.item, 5.0)
        playToEnd(s)
        XCTAssertEqual(s.log.titles, titles(events[...]) + ["flush"] + titles(events[4...]))
        // Before the first tag nothing is in effect: after the flush, every tag in order.
        exactSeek(s.item, 0.2)
        playToEnd(s)
        XCTAssertEqual(Array(s.log.titles.suffix(events.count + 1)), ["flush"] + titles(events[...]))
    }

    /// Plays `url` to its end on an untimed clock with an unfiltered output; the groups delivered.
    private func groups(playing url: URL) -> [AVTimedMetadataGroup] {
        let v = VirtualPlayer(captureAudio: false)
        let item = AVPlayerItem(url: url)
        let output = AVPlayerItemMetadataOutput(identifiers: nil)
        let log = MetadataLog()
        output.setDelegate(log, queue: log.queue)
        item.add(output)
        let ended = NotificationLog(.AVPlayerItemDidPlayToEndTime, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        v.player.play()
        waitUntil("end", timeout: 60) { ended.count > 0 }
        return log.groups
    }

    private func title(_ group: AVTimedMetadataGroup) -> String? {
        group.items.first { $0.identifier == .id3MetadataTitleDescription }?.stringValue
    }

    /// The first three segments, a discontinuity, then the same three again (their timestamps restart): the tags of
    /// the second part come 6 s later, where the playlist's durations put that part.
    func test_emsg_afterADiscontinuity_areOnTheContinuedTimeline() {
        var playlist = "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n"
        playlist += "#EXT-X-PLAYLIST-TYPE:VOD\n"
        for part in 0..<2 {
            if part == 1 { playlist += "#EXT-X-DISCONTINUITY\n" }
            playlist += "#EXT-X-MAP:URI=\"init.mp4\"\n"
            for i in 0..<3 { playlist += "#EXTINF:2.000000,\n" + String(format: "seg_%03d.m4s\n", i) }
        }
        playlist += "#EXT-X-ENDLIST\n"
        let text = playlist
        server.route("/hls/emsg/spliced.m3u8") { _ in HTTPTestResponse(text: text) }
        let groups = groups(playing: server.url("hls/emsg/spliced.m3u8"))
        let part = Array(EmsgID3Fixture.events.prefix(6))
        XCTAssertEqual(groups.compactMap(title), (part + part).map(\.title))
        for (k, (group, event)) in zip(groups, part + part).enumerated() {
            let expected = event.itemTime + (k < 6 ? 0 : 6)
            XCTAssertEqual(group.timeRange.start.seconds, expected, accuracy: frame, event.title)
        }
    }

    func test_emsg_identifiers_filterTheItems() {
        let s = makePlayer(identifiers: [AVMetadataIdentifier.id3MetadataUserText.rawValue])
        playToEnd(s)
        XCTAssertEqual(
            s.log.groups.map { $0.items.compactMap(\.stringValue) }, EmsgID3Fixture.events.map { [String($0.index)] })
    }
}
