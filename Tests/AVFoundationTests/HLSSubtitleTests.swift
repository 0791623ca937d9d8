import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// The WebVTT subtitle rendition of `HLSFixture.ts` (`subs_eng.m3u8`: six segments, cue i from 2i + 0.5 s to
/// 2i + 1.5 s after the first picture, mapped by `X-TIMESTAMP-MAP`) as the legible media selection group's option.
final class HLSSubtitleTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    private var masterURL: URL { server.url(HLSFixture.ts.rawValue) }
    private var facts: HLSSubtitleRenditionFacts { HLSFixture.ts.facts.subtitleRenditions[0] }

    private var subtitleRequests: [String] {
        server.requestLog.map(\.path).filter { $0.contains("subs_eng") }
    }

    func test_subtitleRendition_isTheLegibleGroupsOption_withItsNameLanguageAndFlags() async throws {
        let asset = AVURLAsset(url: masterURL)
        let group = try await asset.loadMediaSelectionGroup(for: .legible)
        let legible = try XCTUnwrap(group)
        XCTAssertTrue(legible.allowsEmptySelection)
        let option = try XCTUnwrap(legible.options.first)
        XCTAssertEqual(legible.options.count, 1)
        XCTAssertEqual(option.displayName, facts.name)
        XCTAssertEqual(option.extendedLanguageTag, "en")
        XCTAssertEqual(option.mediaType, .subtitle)
        XCTAssertEqual(legible.defaultOption, option, "DEFAULT=YES")
        XCTAssertTrue(option.hasMediaCharacteristic(.legible))
        XCTAssertFalse(option.hasMediaCharacteristic(.containsOnlyForcedSubtitles), "FORCED=NO")
        XCTAssertFalse(option.hasMediaCharacteristic(.audible))
        // Describing it fetched nothing of it.
        XCTAssertEqual(subtitleRequests, [])
    }

    func test_selectedRendition_deliversEveryCueToTheLegibleOutput_atItsTime() throws {
        let v = VirtualPlayer(captureAudio: false)
        let item = AVPlayerItem(url: masterURL)
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        item.select(group.options.first, in: group)
        let output = AVPlayerItemLegibleOutput()
        let log = LegibleCueLog(label: "hls-cue-log")
        output.setDelegate(log, queue: log.queue)
        item.add(output)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        waitUntil("cues read", timeout: 30) { item.read { $0.session }?.subtitleCues?.isComplete == true }
        waitUntil("first frame", timeout: 30) { !v.frames.entries.isEmpty }
        let firstPicture = try XCTUnwrap(v.frames.entries.first).time.seconds
        v.player.play()
        waitUntil("end", timeout: 60) { ends.count == 1 || item.status == .failed }
        XCTAssertNil(item.error)
        // Each cue on at its start and off at its end, on the pictures' timeline.
        let expected = facts.cues.flatMap { [([$0.text], firstPicture + $0.start), ([], firstPicture + $0.end)] }
        let got = log.deliveries
        XCTAssertEqual(got.map(\.texts), expected.map(\.0))
        for (g, e) in zip(got, expected) {
            XCTAssertEqual(g.time, e.1, accuracy: 0.0015, "\(e.0)")
        }
        // Its playlist and each segment once, in the item's access log with the others.
        let segments = (0..<facts.segmentCount).map { String(format: "/hls/ts/subs_eng_%03d.vtt", $0) }
        XCTAssertEqual(subtitleRequests, ["/hls/ts/subs_eng.m3u8"] + segments)
        // (Adaptive bitrate may move up the ladder: one event per variant period, the requests shared among them.)
        let events = try XCTUnwrap(item.accessLog()?.events)
        let media = server.requestLog.filter { $0.path.hasSuffix(".ts") || $0.path.hasSuffix(".vtt") }
        XCTAssertEqual(events.reduce(0) { $0 + max(0, $1.numberOfMediaRequests) }, media.count)
    }

    func test_unselectedRendition_fetchesNothingOfIt() throws {
        let v = VirtualPlayer(captureAudio: false)
        let item = AVPlayerItem(url: masterURL)
        let group = try XCTUnwrap(item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible))
        item.select(nil, in: group)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end", timeout: 60) { ends.count == 1 || item.status == .failed }
        XCTAssertNil(item.error)
        XCTAssertEqual(v.frames.indices.last ?? nil, HLSFixture.ts.facts.video.frameCount - 1)
        XCTAssertEqual(subtitleRequests, [])
    }
}
