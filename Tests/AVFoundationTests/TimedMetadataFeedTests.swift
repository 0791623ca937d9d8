import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// The feed that follows the playhead through an item's timed metadata, driven directly with the playheads the
/// engine thread and the store's observer (which replays the last playhead from the reader's thread) hand it.
final class TimedMetadataFeedTests: XCTestCase {
    private final class Recorder: TimedMetadataFeedOwner, @unchecked Sendable {
        let lock = ConditionLock()
        var times: [Double] = []
        var feedAdvanceInterval: TimeInterval { 0 }
        func feedDelivered(_ sample: TimedMetadataSample, session: ItemSession) {
            lock.withLock { times.append(sample.time.seconds) }
        }
        func feedFlushed() {}
    }

    private func at(_ seconds: Double) -> CMTime { CMTime(seconds: seconds, preferredTimescale: 600) }

    /// A playhead older than the last one (the store's observer replaying it after the engine moved on) must not
    /// move the delivered frontier back: the next playhead then asked the store for an inverted range, which
    /// trapped ("Range requires lowerBound <= upperBound", seen under ThreadSanitizer with emsg tags found while
    /// playing).
    func test_anOlderPlayhead_neitherTrapsNorDeliversAgain() throws {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let item = AVPlayerItem(url: try ChapterTagsFixture.url())
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status != .unknown }
        let session = try XCTUnwrap(item.read { $0.session })
        waitUntil("the chapters") { session.timedMetadata.allSamples.count == ChapterTagsFixture.chapters.count }
        let recorder = Recorder()
        let feed = TimedMetadataFeed()
        feed.owner = recorder
        feed.setSession(session)
        for t in [0.0, 2.6, 1.0, 2.0, 2.7, 3.9] {
            feed.playheadMoved(to: at(t), rate: 1, session: session)
        }
        XCTAssertEqual(recorder.lock.withLock { recorder.times }, ChapterTagsFixture.chapters.map(\.start))
        XCTAssertEqual(session.timedMetadata.samples(after: at(2.5), through: at(2.0)).count, 0, "inverted: none")
        v.player.replaceCurrentItem(with: nil)
    }
}
