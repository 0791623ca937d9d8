import Foundation
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// A media file or playlist cannot make the player open other URLs or local files: libavformat's
/// `protocol_whitelist` is set per source kind (`FFmpegSource.protocolWhitelist(for:)`). The crafted inputs are
/// written at test time; a canary (a playable MPEG-TS copy under a name nobody else knows) is watched with inotify,
/// so "never opened" is observed, not inferred, and the loopback server counts the requests it gets.
final class ProtocolConfinementTests: XCTestCase {
    private var folder: URL!
    private var canary: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-confine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        canary = folder.appendingPathComponent("canary-\(UUID().uuidString).ts")
        try FileManager.default.copyItem(at: try fixture(.h264AACTS), to: canary)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A playlist whose segments are `urls`, one second each.
    private func playlist(_ urls: [String]) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n"
        for url in urls { text += "#EXTINF:1.0,\n\(url)\n" }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// Opens `url` in a player and waits (generously) until its item settles; the item.
    private func settle(_ url: URL) -> AVPlayerItem {
        let v = VirtualPlayer(mode: .manual, captureAudio: false)
        let item = AVPlayerItem(url: url)
        v.player.replaceCurrentItem(with: item)
        waitUntil("the item settles", timeout: 30) { item.status != .unknown }
        v.player.replaceCurrentItem(with: nil)
        return item
    }

    func test_whitelists_perSourceKind() {
        XCTAssertEqual(FFmpegSource.protocolWhitelist(for: "/tmp/a.mp4"), "file,crypto")
        XCTAssertEqual(FFmpegSource.protocolWhitelist(for: "file:/tmp/a.mp4"), "file,crypto")
        XCTAssertEqual(FFmpegSource.protocolWhitelist(for: "http://example.com/a.m3u8"), "http,https,tcp,tls,crypto")
        XCTAssertEqual(FFmpegSource.protocolWhitelist(for: "https://example.com/a.mp4"), "http,https,tcp,tls,crypto")
        XCTAssertEqual(FFmpegSource.protocolWhitelist(for: "pipe:0"), "pipe,tcp,udp,tls,rtp")
        let source = FFmpegSource(location: "https://example.com/a.mp4")
        XCTAssertEqual(source.effectiveOptions["protocol_whitelist"], "http,https,tcp,tls,crypto")
    }

    /// The canary is readable and plays when asked for directly (so a zero open count below means something).
    func test_canary_playsWhenOpenedDirectly() throws {
        let watch = try FileOpenWatch(path: canary.path)
        let item = settle(canary)
        XCTAssertEqual(item.status, .readyToPlay)
        XCTAssertGreaterThan(watch.opens, 0)
    }

    /// A remote playlist naming local files (the canary and /etc/passwd, with and without `file:`) gets nothing.
    func test_remotePlaylist_cannotReadLocalFiles() throws {
        let watch = try FileOpenWatch(path: canary.path)
        try playlist([
            "file://\(canary.path)", canary.path, "file:///etc/passwd", "/etc/passwd",
            "subfile,,start,0,end,0,,:\(canary.path)",
        ]).write(to: folder.appendingPathComponent("evil.m3u8"), atomically: true, encoding: .utf8)
        let server = try HTTPTestServer(root: folder)
        defer { server.stop() }
        let item = settle(server.url("evil.m3u8"))
        XCTAssertGreaterThan(server.requestLog.count, 0, "the playlist was fetched")
        XCTAssertEqual(watch.opens, 0, "the remote playlist made the player open a local file")
        XCTAssertNotEqual(item.status, .readyToPlay, "nothing playable came from local files")
    }

    /// A local playlist naming network URLs (the loopback server) and other protocols makes no connection.
    func test_localPlaylist_cannotOpenURLs() throws {
        let server = try HTTPTestServer(root: folder)
        defer { server.stop() }
        let watch = try FileOpenWatch(path: canary.path)
        let local = folder.appendingPathComponent("local.m3u8")
        try playlist([
            server.url("segment.ts").absoluteString, "concat:\(canary.path)|\(canary.path)",
            "subfile,,start,0,end,0,,:/etc/passwd",
        ]).write(to: local, atomically: true, encoding: .utf8)
        let item = settle(local)
        XCTAssertEqual(server.requestLog.count, 0, "a local playlist made the player connect to a server")
        XCTAssertEqual(watch.opens, 0)
        XCTAssertNotEqual(item.status, .readyToPlay)
    }

    /// An `ffconcat` script joining /etc/passwd and the canary (absolute paths) reads neither.
    func test_concatScript_cannotReadOtherFiles() throws {
        let watch = try FileOpenWatch(path: canary.path)
        let script = folder.appendingPathComponent("join.ffconcat")
        try "ffconcat version 1.0\nfile '/etc/passwd'\nfile '\(canary.path)'\nfile 'file:\(canary.path)'\n"
            .write(to: script, atomically: true, encoding: .utf8)
        let item = settle(script)
        XCTAssertEqual(watch.opens, 0)
        XCTAssertNotEqual(item.status, .readyToPlay)
    }
}
