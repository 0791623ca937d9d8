import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// HTTP Live Streaming through the HLS module's own source, against a loopback server: h264_aac.mp4 (10 s, 30 fps,
/// keyframes every 2 s, 440/660 Hz) cut into 2 s MPEG-TS segments with `ffmpeg -f hls -c copy`, so each picture still
/// carries its frame index.
final class HLSPlaybackTests: XCTestCase {
    private static let ladder = Locked<URL?>(nil)
    private var server: HTTPTestServer!

    /// The date the dated playlist's first segment shows.
    static let firstDate = Date(timeIntervalSince1970: 1_767_322_800)  // 2026-01-02T03:00:00Z

    /// h264_aac.mp4 as HLS, made once per run into a temporary folder: `vod.m3u8` (five 2 s TS segments), `dated.m3u8`
    /// (the same with `EXT-X-PROGRAM-DATE-TIME`), `master.m3u8` (two variants), `aes.m3u8` (AES-128 segments),
    /// `wrongkey.m3u8` (the same with another key), `evil.m3u8` (a segment at a `file:` URL).
    private static func vodFolder() throws -> URL {
        if let made = ladder.withLock({ $0 }) { return made }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-hls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        func segment(_ extra: [String], playlist: String, segments: String) throws {
            let result = try Subprocess.run(
                "ffmpeg",
                ["-nostdin", "-v", "error", "-i", try fixture(.h264AAC).path, "-c", "copy", "-f", "hls"] + extra + [
                    "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_filename", path(segments),
                    path(playlist),
                ])
            guard result.status == 0 else { throw XCTSkip("ffmpeg could not segment: \(result.stderr)") }
        }
        try segment([], playlist: "vod.m3u8", segments: "seg%d.ts")
        // AES-128 with a fixed key; the IV is the media sequence number (no IV attribute).
        try Data((0..<16).map { UInt8($0 * 7 + 1) }).write(to: URL(fileURLWithPath: path("aes.key")))
        try Data((0..<16).map { UInt8($0 * 5 + 2) }).write(to: URL(fileURLWithPath: path("wrong.key")))
        try "aes.key\n\(path("aes.key"))\n".write(toFile: path("keyinfo"), atomically: true, encoding: .utf8)
        try segment(["-hls_key_info_file", path("keyinfo")], playlist: "aes.m3u8", segments: "aes%d.ts")
        let vod = try String(contentsOfFile: path("vod.m3u8"), encoding: .utf8)
        let aes = try String(contentsOfFile: path("aes.m3u8"), encoding: .utf8)
        let dated = vod.replacingOccurrences(
            of: "#EXTINF", with: "#EXT-X-PROGRAM-DATE-TIME:2026-01-02T03:00:00.000Z\n#EXTINF", options: [],
            range: vod.range(of: "#EXTINF"))
        let playlists = [
            "dated.m3u8": dated,
            "wrongkey.m3u8": aes.replacingOccurrences(of: "aes.key", with: "wrong.key"),
            "evil.m3u8": vod.replacingOccurrences(of: "seg1.ts", with: "file:///etc/passwd"),
            "master.m3u8": """
            #EXTM3U
            #EXT-X-STREAM-INF:BANDWIDTH=900000,RESOLUTION=320x240,CODECS="avc1.64000d,mp4a.40.2"
            vod.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=1800000,RESOLUTION=320x240,CODECS="avc1.64000d,mp4a.40.2"
            aes.m3u8

            """,
        ]
        for (name, text) in playlists { try text.write(toFile: path(name), atomically: true, encoding: .utf8) }
        ladder.withLock { $0 = folder }
        return folder
    }

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Self.vodFolder())
    }

    override func tearDown() {
        server.stop()
    }

    private func readyPlayer(
        _ path: String = "vod.m3u8", policy: (any OAVFVariantPolicy)? = nil
    ) throws -> (VirtualPlayer, AVPlayerItem) {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: server.url(path))
        item.oavfVariantPolicy = policy
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 20) { item.status == .readyToPlay || item.status == .failed }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        waitUntil("first frame", timeout: 20) { v.frames.entries.count >= 1 }
        return (v, item)
    }

    private func seek(_ item: AVPlayerItem, _ seconds: Double, exact: Bool = true) -> Bool {
        let done = Locked<Bool?>(nil)
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

    func test_pausedExactSeek_withinThePictureOnScreen_landsOnIt_withoutWaitingForTheNextPicture() throws {
        // Frame 59 (1.988–2.021 s) ends segment 0 and frame 60 begins segment 1, held back here after its first few
        // pictures (byte 12032: enough for the decoder to give up frame 59, not frame 60). Seeks inside frame 59 on
        // screen land on it at once. Without that, the picture cache cannot tell (no successor of frame 59) and the
        // seek continues forward, waiting for segment 1 until the transfer times out and is asked for again — or
        // landing on frame 60 when segment 1 is merely late (seen once under load).
        let (v, item) = try readyPlayer()
        XCTAssertTrue(seek(item, 4.03))
        server.inject(.holdBody(fromOffset: 12032), forPath: "/seg1.ts", schedule: .always)
        defer { server.releaseHeldBodies() }
        XCTAssertTrue(seek(item, 1.999))
        XCTAssertEqual(v.frames.indices.last ?? nil, 59)
        let asked = server.requests(for: "/seg1.ts").count
        for seconds in [2.0, 1.995, 2.02] {
            let presented = v.frames.entries.count
            XCTAssertTrue(seek(item, seconds), "seek \(seconds)")
            XCTAssertEqual(item.currentTime(), CMTime(seconds: seconds, preferredTimescale: 600))
            // The seek presents the picture at its target again, as one landing from the picture cache does.
            XCTAssertEqual(v.frames.entries.count, presented + 1, "\(v.frames.entries.map(\.index))")
            XCTAssertEqual(v.frames.indices.last ?? nil, 59, "at \(seconds) s")
        }
        XCTAssertEqual(server.requests(for: "/seg1.ts").count, asked, "the seeks waited for segment 1")
        // Stepping on needs frame 60: it comes once segment 1 does.
        server.releaseHeldBodies()
        item.step(byCount: 1)
        waitUntil("frame 60", timeout: 20) { v.frames.indices.last == 60 }
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
        let (v, _) = playToEnd(server.url("vod.m3u8"))
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

    func test_programDateTime_givesCurrentDate_andDateSeeksLandOnTheirFrame() throws {
        let (v, item) = try readyPlayer("dated.m3u8")
        let first = try XCTUnwrap(v.frames.entries.first)
        let start = try XCTUnwrap(item.currentDate())
        XCTAssertEqual(start.timeIntervalSince(Self.firstDate), item.currentTime().seconds, accuracy: 0.001)
        XCTAssertTrue(seek(item, 5))
        XCTAssertEqual(try XCTUnwrap(item.currentDate()).timeIntervalSince(Self.firstDate), 5, accuracy: 0.001)
        let done = Locked<Bool?>(nil)
        XCTAssertTrue(item.seek(to: Self.firstDate.addingTimeInterval(3.3)) { ok in done.withLock { $0 = ok } })
        waitUntil("date seek") { done.withLock { $0 } != nil }
        XCTAssertEqual(done.withLock { $0 }, true)
        XCTAssertEqual(item.currentTime().seconds, 3.3, accuracy: 0.001)
        XCTAssertEqual(v.frames.indices.last ?? nil, Int(((3.3 - first.time.seconds) * 30).rounded(.down)))
    }

    func test_withoutProgramDateTime_thereIsNoDate_andDateSeeksAreNotStarted() throws {
        let (_, item) = try readyPlayer()
        XCTAssertNil(item.currentDate())
        let done = Locked<[Bool]>([])
        XCTAssertFalse(item.seek(to: Self.firstDate) { ok in done.withLock { $0.append(ok) } })
        XCTAssertEqual(done.withLock { $0 }, [false])
    }

    func test_multivariantPlaylist_playsItsFirstVariant() throws {
        // Kept there: adaptive bitrate would move to the second on the loopback link (see HLSAdaptiveTests).
        let (v, item) = try readyPlayer("master.m3u8", policy: StayOnVariant())
        XCTAssertEqual(item.presentationSize, CGSize(width: 320, height: 240))
        XCTAssertTrue(seek(item, 7.5))
        let first = try XCTUnwrap(v.frames.entries.first)
        XCTAssertEqual(v.frames.indices.last ?? nil, Int(((7.5 - first.time.seconds) * 30).rounded(.down)))
        // Only the first variant's playlist and segments were fetched.
        let paths = server.requestLog.map(\.path)
        XCTAssertTrue(paths.contains("/vod.m3u8"), "\(paths)")
        XCTAssertFalse(paths.contains { $0.hasPrefix("/aes") }, "\(paths)")
    }

    func test_aes128Segments_areDecrypted_andPlayEveryFrame() throws {
        let (v, _) = playToEnd(server.url("aes.m3u8"))
        XCTAssertEqual(v.frames.indices.compactMap { $0 }, Array(0..<300))
    }

    func test_aes128WithTheWrongKey_failsWithAnError_notACrash() throws {
        let item = AVPlayerItem(url: server.url("wrongkey.m3u8"))
        let player = AVPlayer(playerItem: item)
        waitUntil("failed", timeout: 20) { item.status == .failed }
        let error = try XCTUnwrap(item.error as NSError?)
        XCTAssertEqual(error.domain, AVFoundationErrorDomain)
        XCTAssertTrue(error.localizedDescription.contains("key"), error.localizedDescription)
        withExtendedLifetime(player) {}
    }

    func test_remotePlaylist_cannotReadALocalFile() throws {
        let item = AVPlayerItem(url: server.url("evil.m3u8"))
        let player = AVPlayer(playerItem: item)
        waitUntil("failed", timeout: 20) { item.status == .failed }
        let error = try XCTUnwrap(item.error as NSError?)
        XCTAssertTrue(error.localizedDescription.contains("file:///etc/passwd"), error.localizedDescription)
        withExtendedLifetime(player) {}
    }

    /// A live media playlist over the VOD's segments `first...last` (media sequence `first`), ending when `ended`.
    private func writeLive(_ name: String, first: Int, last: Int, ended: Bool = false) throws {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
        for index in first...last { text += "#EXTINF:2.000000,\nseg\(index).ts\n" }
        if ended { text += "#EXT-X-ENDLIST\n" }
        try text.write(
            to: try Self.vodFolder().appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    func test_live_startsThreeTargetDurationsFromTheEdge_followsReloads_andEndsWithTheList() throws {
        let name = "live-\(UUID().uuidString).m3u8"
        try writeLive(name, first: 0, last: 3)
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: server.url(name))
        let ended = Locked(false)
        let token = NotificationCenter.default.addObserver(
            forName: .AVPlayerItemDidPlayToEndTime, object: item, queue: nil
        ) { _ in ended.withLock { $0 = true } }
        defer { NotificationCenter.default.removeObserver(token) }
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 20) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")
        XCTAssertTrue(item.duration.isIndefinite)
        // Eight seconds listed, playback starts 6 s (three target durations) before the edge: at segment 1.
        waitUntil("first frame") { !v.frames.entries.isEmpty }
        XCTAssertEqual(v.frames.indices.first ?? nil, 60)
        // Item time 0 is the window's start (segment 0): the whole window can be sought, playback is 2 s into it.
        XCTAssertEqual(
            item.seekableTimeRanges.map(\.timeRangeValue),
            [CMTimeRange(start: .zero, duration: CMTime(value: 8, timescale: 1))])
        XCTAssertEqual(item.currentTime().seconds, 2, accuracy: 0.1)
        // The window slides by a segment; playback reads on into it after a reload.
        try writeLive(name, first: 1, last: 4)
        v.player.play()
        // (The last pictures of the last segment listed wait in the demuxer and decoder for what follows them.)
        waitUntil("segment 4", timeout: 30) { v.frames.indices.contains(280) }
        waitUntil("window moved", timeout: 10) {
            item.seekableTimeRanges.map(\.timeRangeValue).first.map { abs($0.end.seconds - 10) < 0.01 } ?? false
        }
        XCTAssertEqual(item.seekableTimeRanges.first?.timeRangeValue.start.seconds ?? 0, 2, accuracy: 0.01)
        XCTAssertFalse(ended.withLock { $0 })
        // The list ends: playback ends after its last segment.
        try writeLive(name, first: 2, last: 4, ended: true)
        waitUntil("end", timeout: 30) { ended.withLock { $0 } || item.status == .failed }
        XCTAssertNil(item.error)
        XCTAssertEqual(v.frames.indices.compactMap { $0 }, Array(60..<300))
    }
}
