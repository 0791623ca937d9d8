import AVFoundation
import Foundation
import TestSupport
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the container says the whole asset prefers (`preferredRate`, `preferredVolume`, `preferredTransform` from an
/// MP4's movie header), and the URL asset options that reach the network: `AVURLAssetHTTPCookiesKey`.
final class AssetContainerPreferencesTests: XCTestCase {
    /// A copy of the H.264/AAC fixture whose movie header (`moov/mvhd`) says `rate` (16.16), `volume` (8.8) and the
    /// matrix `a b c d tx ty` (16.16; u, v, w stay 0, 0, 1): the bytes a QuickTime editor writes.
    private func movie(
        rate: Double, volume: Double, matrix: (Double, Double, Double, Double, Double, Double)
    ) throws
        -> URL
    {
        var data = try Data(contentsOf: try fixture(.h264AAC))
        let mvhd = try XCTUnwrap(data.range(of: Data("mvhd".utf8)), "the fixture has a movie header")
        let payload = mvhd.upperBound
        let version = data[payload]
        var offset = payload + 4 + (version == 1 ? 28 : 16)
        func put32(_ v: Int32) {
            for i in 0..<4 { data[offset + i] = UInt8(truncatingIfNeeded: UInt32(bitPattern: v) >> (24 - 8 * i)) }
            offset += 4
        }
        put32(Int32(rate * 65536))
        let v16 = UInt16(volume * 256)
        data[offset] = UInt8(v16 >> 8)
        data[offset + 1] = UInt8(v16 & 0xff)
        offset += 2 + 10
        let (a, b, c, d, tx, ty) = matrix
        for (i, value) in [a, b, 0, c, d, 0, tx, ty, 1].enumerated() {
            put32(Int32(i % 3 == 2 ? value * 1_073_741_824 : value * 65536))
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mvhd-\(UUID().uuidString).mp4")
        try data.write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    func test_preferredRateVolumeAndTransform_comeFromTheMovieHeader() async throws {
        let url = try movie(rate: 1.5, volume: 0.5, matrix: (0, 1, -1, 0, 240, 0))
        let asset = AVURLAsset(url: url)
        let (rate, volume, transform) = try await asset.load(.preferredRate, .preferredVolume, .preferredTransform)
        XCTAssertEqual(rate, 1.5)
        XCTAssertEqual(volume, 0.5)
        XCTAssertEqual(transform, CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 240, ty: 0))
        // The deprecated synchronous getters say the same.
        XCTAssertEqual(asset.preferredRate, 1.5)
        XCTAssertEqual(asset.preferredVolume, 0.5)
        // The asset still loads and becomes ready to play.
        let item = AVPlayerItem(asset: asset)
        let v = VirtualPlayer(captureAudio: false)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        let original = try await AVURLAsset(url: try fixture(.h264AAC)).load(.duration)
        let duration = try await asset.load(.duration)
        XCTAssertEqual(duration, original)
    }

    func test_theDefaults_whenTheHeaderSaysSo_orTheContainerHasNone() async throws {
        let mp4 = AVURLAsset(url: try fixture(.h264AAC))
        let (rate, volume, transform) = try await mp4.load(.preferredRate, .preferredVolume, .preferredTransform)
        XCTAssertEqual(rate, 1)
        XCTAssertEqual(volume, 1)
        XCTAssertEqual(transform, .identity)
        let mkv = AVURLAsset(url: try fixture(.hevcMKV))
        let (r2, v2, t2) = try await mkv.load(.preferredRate, .preferredVolume, .preferredTransform)
        XCTAssertEqual(r2, 1)
        XCTAssertEqual(v2, 1)
        XCTAssertEqual(t2, .identity)
    }

    /// `AVURLAssetHTTPCookiesKey`: every request of the asset carries the cookies that apply to its URL (HLS playlists
    /// and segments through URLSession, a progressive file through libavformat), and only those.
    func test_cookies_reachEveryRequestTheyApplyTo_andNoOther() throws {
        let server = try HTTPTestServer(root: try Fixtures.directory())
        defer { server.stop() }
        let host = try XCTUnwrap(server.baseURL.host)
        func cookie(_ name: String, _ value: String, domain: String, path: String) -> HTTPCookie {
            HTTPCookie(properties: [.name: name, .value: value, .domain: domain, .path: path])!
        }
        let cookies = [
            cookie("session", "abc", domain: host, path: "/"),
            cookie("hls", "1", domain: host, path: "/hls"),
            cookie("elsewhere", "no", domain: host, path: "/other"),
            cookie("foreign", "no", domain: "example.com", path: "/"),
        ]
        for path in ["hls/vod.m3u8", "h264_aac.mp4"] {
            let asset = AVURLAsset(url: server.url(path), options: [AVURLAssetHTTPCookiesKey: cookies])
            let v = VirtualPlayer(captureAudio: false)
            let item = AVPlayerItem(asset: asset)
            let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
            v.player.replaceCurrentItem(with: item)
            v.player.play()
            waitUntil("\(path) played", timeout: 60) { ends.count > 0 || item.status == .failed }
            XCTAssertNil(item.error)
        }
        let log = server.requestLog
        let hls = log.filter { $0.path.hasPrefix("/hls/") }
        let file = log.filter { $0.path == "/h264_aac.mp4" }
        XCTAssertGreaterThan(hls.count, 2, "the playlist and its segments")
        XCTAssertFalse(file.isEmpty)
        for record in hls { XCTAssertEqual(record.headers["cookie"], "hls=1; session=abc", record.path) }
        for record in file { XCTAssertEqual(record.headers["cookie"], "session=abc", record.path) }
    }

    /// `AVURLAssetPreferPreciseDurationAndTimingKey`: a VBR MP3 without a Xing index (3 s of silence, then 7 s of
    /// noise) makes libavformat estimate its duration from the first frames' bit rate — almost four times too long.
    /// Without the key the asset says so (`providesPreciseDurationAndTiming` false); with it, the file is read once
    /// and the duration is where its audio ends.
    func test_preferPreciseDuration_readsTheFileWhenTheHeaderLies() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("vbr-\(UUID().uuidString).mp3")
        defer { try? FileManager.default.removeItem(at: url) }
        _ = try Subprocess.run(
            "ffmpeg",
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=44100:cl=stereo:d=3", "-f", "lavfi", "-i",
                "anoisesrc=d=7:c=white:r=44100:a=0.5", "-filter_complex", "[0][1]concat=n=2:v=0:a=1", "-c:a",
                "libmp3lame", "-q:a", "0", "-write_xing", "0", url.path,
            ])
        let estimated = AVURLAsset(url: url)
        let (d1, precise1) = try await estimated.load(.duration, .providesPreciseDurationAndTiming)
        XCTAssertFalse(precise1)
        XCTAssertGreaterThan(d1.seconds, 12, "libavformat's estimate is far off")

        let exact = AVURLAsset(url: url, options: [AVURLAssetPreferPreciseDurationAndTimingKey: true])
        let (d2, precise2) = try await exact.load(.duration, .providesPreciseDurationAndTiming)
        XCTAssertTrue(precise2)
        // 10 s of audio, give or take the encoder's padding (a frame is 26 ms).
        XCTAssertEqual(d2.seconds, 10, accuracy: 0.1)
        let tracks = try await exact.loadTracks(withMediaType: .audio)
        let track = try XCTUnwrap(tracks.first)
        let range = try await track.load(.timeRange)
        XCTAssertEqual(range.duration.seconds, d2.seconds, accuracy: 0.001)
    }
}
