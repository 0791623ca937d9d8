import OAVFLocking
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
        let done = Locked<Bool?>(nil)
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
        // Each seek continued forward, or found its picture in the picture cache (decoded already, ahead of the
        // picture on screen).
        XCTAssertEqual(session.seeksPerformed, seeksBefore)
        XCTAssertEqual(session.seeksContinued + session.pictureCache.hits, 41)
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
        let hits = session.pictureCache.hits
        XCTAssertTrue(exactSeek(item, 3360))  // then 0.1 s ahead in the same GOP: continues (or is cached)
        XCTAssertEqual(v.frames.indices.last ?? nil, 168)
        XCTAssertEqual(session.seeksPerformed, seeks + 1)
        XCTAssertEqual(session.seeksContinued + session.pictureCache.hits, continued + hits + 1)
    }
}

/// The picture cache: backward steps and backward scrubs inside it decode nothing, and its bytes stay under its
/// limit.
final class PictureCacheTests: XCTestCase {
    private func readyPlayer(_ f: Fixture) throws -> (VirtualPlayer, AVPlayerItem, ItemSession) {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(f))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        waitUntil("first frame") { v.frames.entries.count >= 1 }
        return (v, item, try XCTUnwrap(item.session))
    }

    private func exactSeek(_ item: AVPlayerItem, _ value: Int64) -> Bool {
        let done = Locked<Bool?>(nil)
        item.seek(to: CMTime(value: value, timescale: 600), toleranceBefore: .zero, toleranceAfter: .zero) { ok in
            done.withLock { $0 = ok }
        }
        waitUntil("seek \(value)/600") { done.withLock { $0 } != nil }
        return done.withLock { $0 } ?? false
    }

    /// Waits until the decoder has filled its picture queue (it decodes ahead until the queue is full), so that the
    /// pictures counted afterwards are those the next requests cost, not ones still on their way under load.
    private func waitForDecoderToSettle(_ session: ItemSession) {
        waitUntil("decoder settled") {
            guard let frames = session.videoFrames else { return true }
            return frames.count >= frames.capacity
        }
    }

    /// Steps by `count` and waits for picture `expected`.
    private func step(_ item: AVPlayerItem, _ v: VirtualPlayer, by count: Int, to expected: Int) {
        item.step(byCount: count)
        waitUntil("picture \(expected)") { v.frames.indices.last == expected }
    }

    func test_thirtyBackwardStepsInsideTheCache_decodeNothing() throws {
        let (v, item, session) = try readyPlayer(.bPyramidH264)
        XCTAssertTrue(exactSeek(item, 3000))  // 5 s: picture 150
        for n in 1...35 { step(item, v, by: 1, to: 150 + n) }  // the pictures stepped through are cached
        waitForDecoderToSettle(session)
        let produced = session.videoFramesProduced
        let seeks = session.seeksPerformed
        let hits = session.pictureCache.hits
        for n in 1...30 {
            step(item, v, by: -1, to: 185 - n)
            XCTAssertEqual(item.currentTime(), CMTime(value: Int64(185 - n), timescale: 30))
        }
        // Nothing decoded but, at most, the one picture the decoder had in hand when its queue filled.
        XCTAssertLessThanOrEqual(session.videoFramesProduced, produced + 1, "no picture decoded")
        XCTAssertEqual(session.seeksPerformed, seeks, "no seek")
        XCTAssertEqual(session.pictureCache.hits, hits + 30)
        // Forward again through the cache, then past it (the pipeline is still ahead): every picture in order.
        for n in 1...40 { step(item, v, by: 1, to: 155 + n) }
    }

    func test_backwardScrubInsideTheCache_decodesNothing_andLandsOnEachPicture() throws {
        let (v, item, session) = try readyPlayer(.bPyramidH264)
        XCTAssertTrue(exactSeek(item, 3000))  // 5 s: picture 150
        XCTAssertTrue(exactSeek(item, 2940))  // 0.1 s back: decodes every picture before it into the cache
        XCTAssertEqual(v.frames.indices.last ?? nil, 147)
        waitForDecoderToSettle(session)
        let produced = session.videoFramesProduced
        for n in 1...19 {
            // 4.8 s down to 3.0 s, 0.1 s apart: inside the 2 s the seek to 4.9 s decoded (its edge, 2.9 s, is left out:
            // whether the picture there was kept depends on rounding at the edge).
            XCTAssertTrue(exactSeek(item, 2940 - 60 * Int64(n)))
            XCTAssertEqual(v.frames.indices.last ?? nil, 147 - 3 * n, "seek \(n)")
        }
        // Nothing decoded but, at most, the one picture the decoder had in hand when its queue filled.
        XCTAssertLessThanOrEqual(session.videoFramesProduced, produced + 1, "no picture decoded")
    }

    func test_steppingA1080pFile_keepsTheCacheUnderItsLimit() throws {
        let (v, item, session) = try readyPlayer(.longGOP1080p)
        // About ten 1080p 4:2:0 pictures (3 MiB each).
        let limit = 32 << 20
        session.pictureCache.byteLimit = limit
        XCTAssertEqual(session.pictureCache.byteLimit, limit)
        var largest = 0
        XCTAssertTrue(exactSeek(item, 6600))  // 11 s: picture 330, 30 after the keyframe at 10 s
        largest = max(largest, session.pictureCache.byteCount)
        for n in 1...30 {
            step(item, v, by: -1, to: 330 - n)
            largest = max(largest, session.pictureCache.byteCount)
            XCTAssertLessThanOrEqual(session.pictureCache.byteCount, limit)
        }
        for n in 1...12 {
            step(item, v, by: 1, to: 300 + n)
            XCTAssertLessThanOrEqual(session.pictureCache.byteCount, limit)
        }
        XCTAssertGreaterThan(largest, limit / 2, "the cache was used")
        XCTAssertGreaterThan(session.pictureCache.hits, 0)
    }
}
