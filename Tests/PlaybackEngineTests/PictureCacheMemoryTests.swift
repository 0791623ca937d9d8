import CoreMedia
import CoreVideo
import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import PlaybackEngine

/// The picture cache gives memory back when the machine runs short: it looks at the memory available every few
/// insertions and shrinks to a quarter of it (and grows back, up to the limit asked for, when memory returns).
final class PictureCacheMemoryTests: XCTestCase {
    func test_cacheShrinksWhenMemoryAvailableDrops_andStaysUnderItsLimit() throws {
        let harness = try PipelineHarness(.h264AAC, audio: false)
        harness.start()
        let (frames, _, _) = harness.decodeAll()
        harness.stop()
        XCTAssertEqual(frames.map { frameIndex(of: $0.pixelBuffer) }, Array(0..<300), "decoded pictures")
        guard frames.count >= 200 else { return }
        let pictureBytes = PictureCache.byteSize(of: frames[0].pixelBuffer)
        let available = Locked<Int>(1 << 40)
        let cache = PictureCache(byteLimit: 64 * pictureBytes, availableMemory: { available.current })
        var previous: CMTime?
        for frame in frames.prefix(100) {
            cache.insert(frame, previous: previous)
            previous = frame.pts
            XCTAssertLessThanOrEqual(cache.byteCount, cache.byteLimit)
        }
        XCTAssertEqual(cache.byteCount, 64 * pictureBytes, "full at the limit asked for")
        // Memory runs short: a quarter of what is left holds 8 pictures.
        available.withLock { $0 = 32 * pictureBytes }
        for frame in frames[100..<(100 + PictureCache.memoryCheckInterval)] {
            cache.insert(frame, previous: previous)
            previous = frame.pts
        }
        XCTAssertEqual(cache.byteLimit, 8 * pictureBytes)
        XCTAssertLessThanOrEqual(cache.byteCount, 8 * pictureBytes)
        // Memory comes back: the limit grows back to the one asked for, never above it.
        available.withLock { $0 = 1 << 40 }
        for frame in frames[150..<(150 + PictureCache.memoryCheckInterval)] {
            cache.insert(frame, previous: previous)
            previous = frame.pts
        }
        XCTAssertEqual(cache.byteLimit, 64 * pictureBytes)
    }
}
