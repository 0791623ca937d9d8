import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// What a metadata collector's delegate got, call by call.
private final class CollectorLog: AVPlayerItemMetadataCollectorPushDelegate, @unchecked Sendable {
    struct Call {
        var groups: [AVDateRangeMetadataGroup]
        var new: IndexSet
        var modified: IndexSet
    }

    let queue = DispatchQueue(label: "collector-log")
    private let lock = ConditionLock()
    private var _calls: [Call] = []

    var calls: [Call] { queue.sync {}; return lock.withLock { _calls } }

    func metadataCollector(
        _ metadataCollector: AVPlayerItemMetadataCollector, didCollect metadataGroups: [AVDateRangeMetadataGroup],
        indexesOfNewGroups: IndexSet, indexesOfModifiedGroups: IndexSet
    ) {
        lock.withLock {
            _calls.append(Call(groups: metadataGroups, new: indexesOfNewGroups, modified: indexesOfModifiedGroups))
        }
    }
}

/// `AVPlayerItemMetadataCollector` on a live HLS window (`HLSLiveWindow` over the `ts` ladder's 360p playlist, whose
/// first segment is dated 2020-01-02T03:04:05Z) whose playlist announces `EXT-X-DATERANGE`s that a reload adds to
/// and updates.
final class MetadataCollectorTests: XCTestCase {
    private static let ad1 =
        #"#EXT-X-DATERANGE:ID="ad-1",CLASS="com.example.ad",START-DATE="2020-01-02T03:04:06.000Z",DURATION=3.5,"#
        + #"X-COM-EXAMPLE-AD-ID="ad 1",X-COM-EXAMPLE-SLOT=1"#
    private static let chapter =
        #"#EXT-X-DATERANGE:ID="chapter-1",CLASS="com.example.chapter",START-DATE="2020-01-02T03:04:08.000Z","#
        + #"X-COM-EXAMPLE-TITLE="Part 1""#
    private static let chapterEnded = chapter + #",END-DATE="2020-01-02T03:04:12.000Z""#
    private static let ad2 =
        #"#EXT-X-DATERANGE:ID="ad-2",CLASS="com.example.ad",START-DATE="2020-01-02T03:04:10.000Z",DURATION=2,"#
        + #"X-COM-EXAMPLE-AD-ID="ad 2",SCTE35-OUT=0xFC30"#

    private func date(_ seconds: Double) -> Date {
        // 2020-01-02T03:04:05Z plus `seconds`.
        Date(timeIntervalSince1970: 1_577_934_245 + seconds)
    }

    private func metadataItem(_ group: AVDateRangeMetadataGroup, _ identifier: String) -> AVMetadataItem? {
        group.items.first { $0.identifier?.rawValue == identifier }
    }

    func test_liveDateRanges_collected_thenNewAndModifiedOnReload_filtered() throws {
        let server = try HTTPTestServer(root: try Fixtures.directory())
        let live = try HLSLiveWindow(
            contentsOf: try Fixtures.directory().appendingPathComponent("hls/ts/360p.m3u8"), atEnd: .stall)
        let ranges = Locked([Self.ad1, Self.chapter])
        server.route("/hls/ts/live_dateranges.m3u8") { _ in
            var lines = live.playlist().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            lines.insert(contentsOf: ranges.withLock { $0 }, at: 1)
            return HTTPTestResponse(text: lines.joined(separator: "\n"))
        }
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: server.url("hls/ts/live_dateranges.m3u8"))
        // Reloads go on while paused (below) only when the item may use the network then.
        item.canUseNetworkResourcesForLiveStreamingWhilePaused = true
        let all = AVPlayerItemMetadataCollector()
        let allLog = CollectorLog()
        all.setDelegate(allLog, queue: allLog.queue)
        let ads = AVPlayerItemMetadataCollector(
            identifiers: ["lsdr/X-COM-EXAMPLE-AD-ID"], classifyingLabels: ["com.example.ad"])
        let adLog = CollectorLog()
        ads.setDelegate(adLog, queue: adLog.queue)
        item.add(all)
        item.add(ads)
        XCTAssertEqual(item.mediaDataCollectors.count, 2)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        v.player.play()
        waitUntil("first collection", timeout: 30) { !allLog.calls.isEmpty && !adLog.calls.isEmpty }

        // First call: every range, all new, sorted by start date, with the attributes as items.
        var first = try XCTUnwrap(allLog.calls.first)
        XCTAssertEqual(first.groups.map(\.uniqueID), ["ad-1", "chapter-1"])
        XCTAssertEqual(first.new, IndexSet([0, 1]))
        XCTAssertEqual(first.modified, IndexSet())
        let ad = first.groups[0]
        XCTAssertEqual(ad.classifyingLabel, "com.example.ad")
        XCTAssertEqual(ad.startDate, date(1))
        XCTAssertEqual(ad.endDate, date(4.5), "START-DATE + DURATION")
        XCTAssertEqual(
            ad.items.compactMap(\.identifier?.rawValue).sorted(),
            [
                "lsdr/DURATION", "lsdr/X-COM-EXAMPLE-AD-ID", "lsdr/X-COM-EXAMPLE-SLOT",
            ])
        XCTAssertEqual(metadataItem(ad, "lsdr/X-COM-EXAMPLE-AD-ID")?.stringValue, "ad 1")
        XCTAssertEqual(metadataItem(ad, "lsdr/X-COM-EXAMPLE-AD-ID")?.keySpace, .hlsDateRange)
        XCTAssertEqual(metadataItem(ad, "lsdr/X-COM-EXAMPLE-SLOT")?.numberValue, 1)
        XCTAssertEqual(metadataItem(ad, "lsdr/DURATION")?.numberValue, 3.5)
        XCTAssertEqual(metadataItem(ad, "lsdr/X-COM-EXAMPLE-AD-ID")?.startDate, date(1))
        XCTAssertEqual(first.groups[1].classifyingLabel, "com.example.chapter")
        XCTAssertNil(first.groups[1].endDate, "no end known yet")
        XCTAssertEqual(metadataItem(first.groups[1], "lsdr/X-COM-EXAMPLE-TITLE")?.stringValue, "Part 1")
        // The filtered collector: only ads, only their ad IDs.
        first = try XCTUnwrap(adLog.calls.first)
        XCTAssertEqual(first.groups.map(\.uniqueID), ["ad-1"])
        XCTAssertEqual(first.groups[0].items.compactMap(\.stringValue), ["ad 1"])
        XCTAssertEqual(first.new, IndexSet([0]))
        XCTAssertEqual(allLog.calls.count, 1, "nothing changed, nothing more")

        // A reload ends the chapter and adds a second ad (with a segment, so playback moves on to it).
        ranges.withLock { $0 = [Self.ad1, Self.chapterEnded, Self.ad2] }
        live.advance(segments: 1)
        waitUntil("second collection", timeout: 30) { allLog.calls.count >= 2 && adLog.calls.count >= 2 }
        let second = allLog.calls[1]
        XCTAssertEqual(second.groups.map(\.uniqueID), ["ad-1", "chapter-1", "ad-2"])
        XCTAssertEqual(second.new, IndexSet([2]))
        XCTAssertEqual(second.modified, IndexSet([1]))
        XCTAssertEqual(second.groups[1].endDate, date(7))
        XCTAssertEqual(metadataItem(second.groups[2], "lsdr/SCTE35-OUT")?.dataValue, Data([0xfc, 0x30]))
        let adSecond = adLog.calls[1]
        XCTAssertEqual(adSecond.groups.map(\.uniqueID), ["ad-1", "ad-2"])
        XCTAssertEqual(adSecond.new, IndexSet([1]))
        XCTAssertEqual(adSecond.modified, IndexSet(), "the chapter is not collected here")
        XCTAssertEqual(adSecond.groups[1].items.compactMap(\.stringValue), ["ad 2"])

        // Paused, with no new segment: a reload that only changes a date range still reaches the collectors (the
        // item may use the network while paused, so its playlist is reloaded).
        v.player.pause()
        ranges.withLock { $0 = [Self.ad1 + #",X-COM-EXAMPLE-SEEN="paused""#, Self.chapterEnded, Self.ad2] }
        waitUntil("collection while paused", timeout: 30) { allLog.calls.count >= 3 && adLog.calls.count >= 3 }
        XCTAssertEqual(allLog.calls[2].modified, IndexSet([0]))
        XCTAssertEqual(allLog.calls[2].new, IndexSet())
        XCTAssertEqual(
            metadataItem(allLog.calls[2].groups[0], "lsdr/X-COM-EXAMPLE-SEEN")?.stringValue, "paused")
        XCTAssertEqual(adLog.calls[2].modified, IndexSet([0]))
        v.player.play()

        // The collector removed: nothing more reaches it.
        item.remove(all)
        XCTAssertEqual(item.mediaDataCollectors.count, 1)
        ranges.withLock { $0 = [Self.ad1, Self.chapterEnded] + [Self.ad2 + #",X-COM-EXAMPLE-EXTRA="x""#] }
        live.advance(segments: 1)
        waitUntil("fourth collection", timeout: 30) { adLog.calls.count >= 4 }
        XCTAssertEqual(allLog.calls.count, 3)
        XCTAssertEqual(adLog.calls[3].modified, IndexSet([0, 1]), "ad-1 lost an attribute, ad-2 gained one")
        v.player.pause()
        withExtendedLifetime(server) {}
    }
}
