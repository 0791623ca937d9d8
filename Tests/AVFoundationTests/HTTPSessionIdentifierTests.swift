import AVFoundation
import Foundation
import TestSupport
import XCTest

/// `AVURLAsset.httpSessionIdentifier`: each asset's own, sent as `X-Playback-Session-Id` with every request its
/// playback makes (HLS playlists and segments through URLSession, a progressive file through libavformat), unless
/// the app's headers name one.
final class HTTPSessionIdentifierTests: XCTestCase {
    private var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    private func play(_ asset: AVURLAsset) {
        let v = VirtualPlayer(captureAudio: false)
        let item = AVPlayerItem(asset: asset)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("the end", timeout: 60) { ends.count > 0 || item.status == .failed }
        XCTAssertNil(item.error)
    }

    func test_everyRequest_carriesTheAssetsSessionIdentifier() throws {
        let hls = AVURLAsset(url: server.url("hls/vod.m3u8"))
        let file = AVURLAsset(url: server.url("h264_aac.mp4"))
        XCTAssertNotEqual(hls.httpSessionIdentifier, file.httpSessionIdentifier)
        play(hls)
        play(file)
        let log = server.requestLog
        let playlist = log.filter { $0.path.hasPrefix("/hls/") }
        let progressive = log.filter { $0.path == "/h264_aac.mp4" }
        XCTAssertGreaterThan(playlist.count, 2, "the playlist and its segments")
        XCTAssertFalse(progressive.isEmpty)
        for record in playlist {
            XCTAssertEqual(record.headers["x-playback-session-id"], hls.httpSessionIdentifier.uuidString, record.path)
        }
        for record in progressive {
            XCTAssertEqual(record.headers["x-playback-session-id"], file.httpSessionIdentifier.uuidString)
        }
    }

    func test_theAppsOwnHeader_wins() throws {
        let asset = AVURLAsset(
            url: server.url("hls/vod.m3u8"),
            options: ["AVURLAssetHTTPHeaderFieldsKey": ["x-playback-session-id": "mine", "X-Other": "1"]])
        play(asset)
        let log = server.requestLog
        XCTAssertFalse(log.isEmpty)
        for record in log {
            XCTAssertEqual(record.headers["x-playback-session-id"], "mine", record.path)
            XCTAssertEqual(record.headers["x-other"], "1", record.path)
        }
    }
}
