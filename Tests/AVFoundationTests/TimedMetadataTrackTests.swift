import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// `AVPlayerItemMetadataOutput` and `AVPlayerItem.timedMetadata` on a QuickTime timed-metadata track (`mebx`,
/// `TimedMetadataTrackFixture`): one group per sample over its second, items `mdta/<key>` with typed values.
final class TimedMetadataTrackTests: XCTestCase {
    private let titleID = AVMetadataIdentifier(rawValue: "mdta/com.example.title")
    private let indexID = AVMetadataIdentifier(rawValue: "mdta/com.example.index")
    private let levelID = AVMetadataIdentifier(rawValue: "mdta/com.example.level")

    private func makePlayer(identifiers: [String]? = nil) throws -> (VirtualPlayer, AVPlayerItem, MetadataLog) {
        let v = VirtualPlayer(captureAudio: false)
        let item = AVPlayerItem(url: try TimedMetadataTrackFixture.url())
        let output = AVPlayerItemMetadataOutput(identifiers: identifiers)
        let log = MetadataLog()
        output.setDelegate(log, queue: log.queue)
        item.add(output)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        return (v, item, log)
    }

    private func playToEnd(_ player: AVPlayer, _ item: AVPlayerItem, _ log: MetadataLog) {
        let ended = NotificationLog(.AVPlayerItemDidPlayToEndTime, object: item)
        player.rate = 1
        waitUntil("end") { ended.count > 0 }
        _ = log.events
    }

    private func titles(_ log: MetadataLog) -> [String] {
        log.events.compactMap { e -> String? in
            switch e {
            case .groups(let g, _):
                return g.map { $0.items.first { $0.identifier == titleID }?.stringValue ?? "-" }.joined(separator: "+")
            case .flushed: return "flush"
            case .tick: return nil
            }
        }
    }

    func test_everySample_once_inOrder_overItsSecond_withTypedValues() throws {
        let (v, item, log) = try makePlayer()
        playToEnd(v.player, item, log)
        let samples = TimedMetadataTrackFixture.samples
        XCTAssertEqual(titles(log), samples.map(\.title))
        for (group, sample) in zip(log.groups, samples) {
            XCTAssertEqual(group.timeRange.start.seconds, sample.start, accuracy: 0.001, sample.title)
            XCTAssertEqual(group.timeRange.duration.seconds, 1, accuracy: 0.001)
            let items = group.items
            XCTAssertEqual(items.compactMap(\.identifier), [titleID, indexID, levelID])
            XCTAssertEqual(items.compactMap(\.keySpace), [.quickTimeMetadata, .quickTimeMetadata, .quickTimeMetadata])
            XCTAssertEqual(
                items.compactMap { $0.key as? NSString },
                ["com.example.title", "com.example.index", "com.example.level"])
            XCTAssertEqual(items[0].stringValue, sample.title)
            XCTAssertEqual(items[1].numberValue?.intValue, sample.index)
            XCTAssertEqual(items[2].numberValue?.doubleValue, sample.level)
            XCTAssertEqual(
                items.compactMap(\.dataType),
                [kCMMetadataBaseDataType_UTF8, kCMMetadataBaseDataType_SInt32, kCMMetadataBaseDataType_Float64])
        }
        // The groups come from the metadata track.
        for e in log.events {
            if case .groups(_, let track) = e {
                XCTAssertEqual(track?.assetTrack?.trackID, TimedMetadataTrackFixture.trackID)
                XCTAssertEqual(track?.assetTrack?.mediaType, .metadata)
            }
        }
    }

    func test_seek_flushes_thenTheSampleInEffect_thenTheRest() throws {
        let (v, item, log) = try makePlayer()
        playToEnd(v.player, item, log)
        v.player.pause()
        let done = Locked<Bool?>(nil)
        item.seek(
            to: CMTime(seconds: 1.5, preferredTimescale: 600), toleranceBefore: .zero, toleranceAfter: .zero
        ) { ok in done.withLock { $0 = ok } }
        waitUntil("seek") { done.withLock { $0 } != nil }
        playToEnd(v.player, item, log)
        let samples = TimedMetadataTrackFixture.samples
        XCTAssertEqual(titles(log), samples.map(\.title) + ["flush"] + samples[1...].map(\.title))
    }

    func test_identifiersFilter_andTimedMetadataFollows() throws {
        let (v, item, log) = try makePlayer(identifiers: [levelID.rawValue])
        let changes = Locked<[String]>([])
        let observation = item.observe(\.timedMetadata, options: [.new]) { [titleID] item, _ in
            let title = item.timedMetadata?.first { $0.identifier == titleID }?.stringValue
            changes.withLock { $0.append(title ?? "nil") }
        }
        playToEnd(v.player, item, log)
        let samples = TimedMetadataTrackFixture.samples
        XCTAssertEqual(
            log.groups.map { $0.items.compactMap { $0.numberValue?.doubleValue } }, samples.map { [$0.level] })
        waitUntil("last sample") { changes.withLock { $0 }.last == samples[2].title }
        XCTAssertEqual(Array(changes.withLock { $0 }.suffix(2)), samples[1...].map(\.title))
        observation.invalidate()
    }
}
