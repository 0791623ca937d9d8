import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// A live item's time, as on Apple's player: item time 0 is the start of the playlist's window when it was loaded,
/// `seekableTimeRanges` is the window (from 0, sliding forward as segments leave the playlist), playback starts
/// three target durations from the edge, and the part of the window before that can be sought to (DVR-style).
///
/// On `HLSLiveWindow` over `hls/ts/360p.m3u8` (six 2 s MPEG-TS segments, video only, frame index drawn in each
/// picture, 30 fps), five segments listed (10 s), on a manual clock that also runs the reloads.
final class HLSLiveWindowSeekTests: XCTestCase {
    private var server: HTTPTestServer!
    private var live: HLSLiveWindow!
    private let path = "/hls/ts/live_dvr.m3u8"

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
        live = try HLSLiveWindow(
            contentsOf: Fixtures.directory().appendingPathComponent("hls/ts/360p.m3u8"),
            window: .sliding(segments: 5), initialSegments: 5, atEnd: .stall)
        live.serve(on: server, at: path)
    }

    override func tearDown() {
        server.stop()
    }

    private var window: CMTimeRange? { item?.seekableTimeRanges.first?.timeRangeValue }
    private var item: AVPlayerItem?

    func test_theWindowBeforeTheStartIsSeekable_andItsStartSlidesForward() throws {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let item = AVPlayerItem(url: server.url(String(path.dropFirst())))
        self.item = item
        item.canUseNetworkResourcesForLiveStreamingWhilePaused = true
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        // Where it starts, already as it becomes ready.
        XCTAssertEqual(item.currentTime().seconds, 4, accuracy: 0.05)
        waitUntil("first frame", timeout: 30) { !v.frames.entries.isEmpty }
        XCTAssertTrue(item.duration.isIndefinite)
        // The whole window from 0; playback starts 6 s (three target durations) before its edge: segment 2, 4 s in.
        XCTAssertEqual(window?.start, .zero)
        XCTAssertEqual(window?.duration.seconds ?? 0, 10, accuracy: 0.001)
        XCTAssertEqual(item.currentTime().seconds, 4, accuracy: 0.05)
        XCTAssertEqual(v.frames.indices.first ?? nil, 120)
        XCTAssertEqual(v.frames.entries.first?.time.seconds ?? 0, 4, accuracy: 0.05)

        // Back into the window, before the segment playback started with: segment 0 is fetched, its picture at 1 s
        // shows.
        let before = server.requests(for: "/hls/ts/360p_000.ts").count
        exactSeek(item, 1)
        waitUntil("the picture at 1 s: \(v.frames.indices.suffix(3))", timeout: 30) {
            v.frames.indices.last == 30
        }
        XCTAssertEqual(item.currentTime().seconds, 1, accuracy: 0.001)
        XCTAssertEqual(server.requests(for: "/hls/ts/360p_000.ts").count, before + 1)

        // Playing on from there: the pictures of the clock's time after 1 s, in order, into segment 1.
        let shownBefore = v.frames.entries.count
        v.player.play()
        for _ in 0..<12 {
            v.clock.advance(by: CMTime(value: 1, timescale: 10))
            let due = CMTime(value: 1, timescale: 1) + v.clock.time
            waitUntil("the picture at \(due.seconds) s: \(v.frames.indices.suffix(3))", timeout: 30) {
                (v.frames.entries.last?.time).map { $0 + CMTime(value: 1, timescale: 30) > due } ?? false
            }
        }
        v.player.pause()
        let played = v.frames.indices.dropFirst(shownBefore).compactMap { $0 }
        XCTAssertEqual(played, Array(31..<31 + played.count), "\(played)")
        XCTAssertGreaterThanOrEqual(played.last ?? 0, 65)

        // A segment is published and the reload due at 2 s of the clock finds it: segment 0 left the window, whose
        // start moved forward to 2 s (the edge to 12 s).
        live.advance(segments: 1)
        v.clock.advance(by: CMTime(value: 1, timescale: 1))
        waitUntil("the window slid: \(String(describing: self.window))", timeout: 30) {
            (self.window?.start.seconds).map { abs($0 - 2) < 0.001 } ?? false
        }
        XCTAssertEqual(window?.end.seconds ?? 0, 12, accuracy: 0.001)
        XCTAssertNil(item.error)
        withExtendedLifetime(v) {}
    }

    /// A live item that becomes current after another (queued behind a file, then advanced to) starts where one
    /// that was current from the start does: at its start segment's place in the window, not at 0.
    func test_aQueuedLiveItem_startsAtItsStartSegmentWhenItBecomesCurrent() throws {
        let v = VirtualPlayer(queue: true, mode: .manual, captureAudio: false)
        let queue = try XCTUnwrap(v.player as? AVQueuePlayer)
        let file = AVPlayerItem(url: try fixture(.videoOnly))
        let item = AVPlayerItem(url: server.url(String(path.dropFirst())))
        self.item = item
        queue.insert(file, after: nil)
        queue.insert(item, after: file)
        waitUntil("the file ready", timeout: 30) { file.status != .unknown }
        waitUntil("the file's first frame", timeout: 30) { !v.frames.entries.isEmpty }
        // The file is short and read to its end at once: the next item is prepared meanwhile, and is ready (not
        // current) before the queue advances to it.
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        queue.advanceToNextItem()
        XCTAssertTrue(queue.currentItem === item)
        waitUntil("the live item's first frame: \(v.frames.indices)", timeout: 30) {
            v.frames.entries.last?.index == 120
        }
        XCTAssertEqual(item.currentTime().seconds, 4, accuracy: 0.05)
        XCTAssertEqual(v.frames.entries.last?.time.seconds ?? 0, 4, accuracy: 0.05)
        XCTAssertEqual(window?.start, .zero)
        withExtendedLifetime(v) {}
    }

    /// The same on the real-time clock, written as an app writes it: a plain `AVPlayer`, the time read in the status
    /// observer as the item becomes ready (the public layer's snapshot and the engine's start must already agree), an
    /// exact seek back into the window with a completion handler, and the picture at the new time read from an
    /// `AVPlayerItemVideoOutput`. Asserted: times, the completion and the pixels, never how long anything took.
    func test_realTime_anAppSeesItsPlaceInTheWindowAsItBecomesReady_andSeeksBackIntoIt() throws {
        setenv("SDL_AUDIODRIVER", "dummy", 1)
        defer { unsetenv("SDL_AUDIODRIVER") }
        let item = AVPlayerItem(url: server.url(String(path.dropFirst())))
        self.item = item
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
        item.add(output)
        let seen = Locked<[(time: Double, window: CMTimeRange?)]>([])
        let observation = item.observe(\.status, options: [.new]) { item, _ in
            guard item.status == .readyToPlay else { return }
            let now = (item.currentTime().seconds, item.seekableTimeRanges.first?.timeRangeValue)
            seen.withLock { $0.append(now) }
        }
        let player = AVPlayer(playerItem: item)
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        waitUntil("the status observer ran", timeout: 30) { !seen.withLock { $0.isEmpty } }
        let ready = try XCTUnwrap(seen.withLock { $0.first })
        XCTAssertEqual(ready.time, 4, accuracy: 0.05, "the time as the item became ready")
        XCTAssertEqual(ready.window?.start, .zero)
        XCTAssertEqual(ready.window?.duration.seconds ?? 0, 10, accuracy: 0.001)

        let finished = Locked<[Bool]>([])
        player.seek(to: CMTime(value: 1, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero) { done in
            finished.withLock { $0.append(done) }
        }
        waitUntil("the seek completed", timeout: 30) { !finished.withLock { $0.isEmpty } }
        XCTAssertEqual(finished.withLock { $0 }, [true])
        XCTAssertEqual(item.currentTime().seconds, 1, accuracy: 0.001)
        var shown: Int?
        waitUntil("the picture at 1 s: \(String(describing: shown))", timeout: 30) {
            var at = CMTime.invalid
            shown = output.copyPixelBuffer(forItemTime: item.currentTime(), itemTimeForDisplay: &at).flatMap {
                frameIndex(of: $0)
            }
            return shown == 30
        }
        XCTAssertNil(item.error)
        withExtendedLifetime((player, observation)) {}
    }
}
