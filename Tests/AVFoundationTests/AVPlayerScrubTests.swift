import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Exact seeks while paused that move forward inside a GOP continue decoding from where the decoder is, with no
/// demuxer seek and no flush: a slider dragged forward decodes each picture at most once. bpyramid_h264.mp4 is one
/// 300-picture GOP at 30 fps (pictures 3 apart are 0.1 s apart).
final class AVPlayerScrubTests: XCTestCase {
    private func readyPlayer(_ f: Fixture) throws -> (VirtualPlayer, AVPlayerItem) {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(f))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        waitUntil("first frame") { v.frames.entries.count >= 1 }
        return (v, item)
    }

    /// An exact seek to `value / 600` s; waits for its completion and returns its result.
    private func exactSeek(_ item: AVPlayerItem, _ value: Int64) -> Bool {
        let done = LockedBox<Bool?>(nil)
        item.seek(to: CMTime(value: value, timescale: 600), toleranceBefore: .zero, toleranceAfter: .zero) { ok in
            done.withLock { $0 = ok }
        }
        waitUntil("seek \(value)/600") { done.withLock { $0 } != nil }
        return done.withLock { $0 } ?? false
    }

    func test_fortyForwardExactSeeksInOneGOP_decodeEachPictureAtMostOnce_andLandOnTheirPictures() throws {
        let (v, item) = try readyPlayer(.bPyramidH264)
        let session = try XCTUnwrap(item.session)
        let seeksBefore = session.seeksPerformed
        XCTAssertTrue(exactSeek(item, 600))  // 1 s: picture 30
        XCTAssertEqual(v.frames.indices.last ?? nil, 30)
        for step in 1...40 {
            // 0.1 s = 3 pictures further each time, up to picture 150 (5 s).
            XCTAssertTrue(exactSeek(item, 600 + 60 * Int64(step)))
            XCTAssertEqual(v.frames.indices.last ?? nil, 30 + 3 * step, "seek \(step)")
            XCTAssertEqual(item.currentTime(), CMTime(value: 600 + 60 * Int64(step), timescale: 600))
        }
        // No demuxer seek, so nothing was decoded twice: the codec made no more pictures than those up to the last
        // one shown, plus what the decoder holds ahead of it (the 3-picture frame queue and the one it waits to
        // push).
        XCTAssertEqual(session.seeksPerformed, seeksBefore)
        XCTAssertEqual(session.seeksContinued, 41)
        XCTAssertLessThanOrEqual(session.videoFramesProduced, 151 + 3 + 1)
        // Pictures before each target that nothing references were not decoded at all.
        XCTAssertLessThan(session.videoFramesProduced, 151)
    }

    func test_backwardExactSeek_seeksBack_andForwardAfterItContinuesFromThere() throws {
        let (v, item) = try readyPlayer(.bPyramidH264)
        let session = try XCTUnwrap(item.session)
        XCTAssertTrue(exactSeek(item, 3000))  // 5 s: picture 150
        XCTAssertEqual(v.frames.indices.last ?? nil, 150)
        let seeks = session.seeksPerformed
        XCTAssertTrue(exactSeek(item, 1200))  // back to 2 s: picture 60, only reachable by a seek
        XCTAssertEqual(v.frames.indices.last ?? nil, 60)
        XCTAssertEqual(session.seeksPerformed, seeks + 1)
        XCTAssertTrue(exactSeek(item, 1500))  // 2.5 s: picture 75
        XCTAssertEqual(v.frames.indices.last ?? nil, 75)
        XCTAssertEqual(session.seeksPerformed, seeks + 1)
    }

    func test_forwardExactSeekPastAKeyframe_seeksToThatKeyframe() throws {
        // h264_aac.mp4 has keyframes every 2 s: from 1 s to 5.5 s a seek to the keyframe at 4 s decodes less.
        let (v, item) = try readyPlayer(.h264AAC)
        let session = try XCTUnwrap(item.session)
        XCTAssertTrue(exactSeek(item, 600))
        let seeks = session.seeksPerformed
        let continued = session.seeksContinued
        XCTAssertTrue(exactSeek(item, 3300))
        XCTAssertEqual(v.frames.indices.last ?? nil, 165)
        XCTAssertEqual(session.seeksPerformed, seeks + 1)
        XCTAssertEqual(session.seeksContinued, continued)
        XCTAssertTrue(exactSeek(item, 3360))  // then 0.1 s ahead in the same GOP: continues
        XCTAssertEqual(v.frames.indices.last ?? nil, 168)
        XCTAssertEqual(session.seeksPerformed, seeks + 1)
        XCTAssertEqual(session.seeksContinued, continued + 1)
    }
}
