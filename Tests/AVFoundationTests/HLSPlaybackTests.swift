import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// HTTP Live Streaming through the HLS module's own source, against a loopback server: h264_aac.mp4 (10 s, 30 fps,
/// keyframes every 2 s, 440/660 Hz) cut into 2 s MPEG-TS segments with `ffmpeg -f hls -c copy`, so each picture still
/// carries its frame index.
final class HLSPlaybackTests: XCTestCase {
    private static let ladder = LockedBox<URL?>(nil)
    private var server: LoopbackHTTPServer!

    /// A VOD playlist of h264_aac.mp4, made once per run into a temporary folder.
    private static func vodFolder() throws -> URL {
        if let made = ladder.withLock({ $0 }) { return made }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-hls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let result = try Subprocess.run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-i", try fixture(.h264AAC).path, "-c", "copy", "-f", "hls", "-hls_time",
                "2",
                "-hls_playlist_type", "vod", "-hls_segment_filename", folder.appendingPathComponent("seg%d.ts").path,
                folder.appendingPathComponent("vod.m3u8").path,
            ])
        guard result.status == 0 else { throw XCTSkip("ffmpeg could not segment: \(result.stderr)") }
        ladder.withLock { $0 = folder }
        return folder
    }

    override func setUpWithError() throws {
        server = try LoopbackHTTPServer(root: try Self.vodFolder())
    }

    override func tearDown() {
        server.stop()
    }

    private func readyPlayer(_ path: String = "vod.m3u8") throws -> (VirtualPlayer, AVPlayerItem) {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: server.url(path))
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 20) { item.status == .readyToPlay || item.status == .failed }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        waitUntil("first frame", timeout: 20) { v.frames.entries.count >= 1 }
        return (v, item)
    }

    private func seek(_ item: AVPlayerItem, _ seconds: Double, exact: Bool = true) -> Bool {
        let done = LockedBox<Bool?>(nil)
        let tolerance: CMTime = exact ? .zero : .positiveInfinity
        item.seek(
            to: CMTime(seconds: seconds, preferredTimescale: 600), toleranceBefore: tolerance,
            toleranceAfter: tolerance
        ) { ok in done.withLock { $0 = ok } }
        waitUntil("seek \(seconds)", timeout: 20) { done.withLock { $0 } != nil }
        return done.withLock { $0 } ?? false
    }

    func test_vod_isReadWithTheDurationOfItsPlaylist_andItsTracks() async throws {
        let asset = AVURLAsset(url: server.url("vod.m3u8"))
        let (duration, tracks) = try await asset.load(.duration, .tracks)
        XCTAssertEqual(duration.seconds, 10, accuracy: 0.001)
        XCTAssertEqual(Set(tracks.map(\.mediaType)), [.video, .audio])
    }

    func test_vod_startsAtFrameZero_andExactSeeksLandOnTheFrameContainingTheTarget_acrossSegments() throws {
        // As in an MPEG-TS file, item time zero is the earliest stream's start: the audio's, 21 ms before the first
        // picture, so frame k shows over k/30 + 0.0213 s.
        let (v, item) = try readyPlayer()
        let first = try XCTUnwrap(v.frames.entries.first)
        XCTAssertEqual(first.index, 0)
        XCTAssertEqual(first.time.seconds, 0.0213, accuracy: 0.001)
        XCTAssertEqual(item.duration.seconds, 10, accuracy: 0.001)
        for seconds in [5.0, 3.3, 0.05, 9.99, 4.0, 4.03, 1.999, 2.0, 6.5] {
            XCTAssertTrue(seek(item, seconds), "seek \(seconds)")
            XCTAssertEqual(item.currentTime(), CMTime(seconds: seconds, preferredTimescale: 600))
            let expected = Int(((seconds - first.time.seconds) * 30).rounded(.down))
            XCTAssertEqual(v.frames.indices.last ?? nil, expected, "at \(seconds) s")
        }
    }

    func test_vod_toleratedSeek_landsOnTheSegmentsKeyframe() throws {
        let (v, item) = try readyPlayer()
        XCTAssertTrue(seek(item, 5.0, exact: false))
        XCTAssertEqual(v.frames.indices.last ?? nil, 120)
    }

    func test_vod_seekableRangeIsTheWholePlaylist() throws {
        let (_, item) = try readyPlayer()
        let ranges = item.seekableTimeRanges.map(\.timeRangeValue)
        XCTAssertEqual(ranges.count, 1)
        XCTAssertEqual(ranges.first?.start.seconds ?? -1, 0, accuracy: 0.001)
        XCTAssertEqual(ranges.first?.duration.seconds ?? 0, 10, accuracy: 0.001)
    }

    func test_vod_playsToTheEnd_everyFrameOnce() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: server.url("vod.m3u8"))
        let ended = LockedBox(false)
        let token = NotificationCenter.default.addObserver(
            forName: .AVPlayerItemDidPlayToEndTime, object: item, queue: nil
        ) { _ in ended.withLock { $0 = true } }
        defer { NotificationCenter.default.removeObserver(token) }
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end", timeout: 60) { ended.withLock { $0 } || item.status == .failed }
        XCTAssertNil(item.error)
        XCTAssertEqual(v.frames.indices.compactMap { $0 }, Array(0..<300))
        // Both channels' tones came through the segments intact.
        XCTAssertGreaterThan(v.audio.frameCount, 44_100 * 9)
    }

    func test_missingPlaylist_failsWithContentUnavailable() throws {
        let item = AVPlayerItem(url: server.url("missing.m3u8"))
        let player = AVPlayer(playerItem: item)
        waitUntil("failed", timeout: 20) { item.status == .failed }
        let error = try XCTUnwrap(item.error as NSError?)
        XCTAssertEqual(error.domain, AVFoundationErrorDomain)
        XCTAssertEqual(error.code, AVError.Code.contentIsUnavailable.rawValue, error.localizedDescription)
        withExtendedLifetime(player) {}
    }
}
