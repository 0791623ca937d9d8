import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Progressive HTTP that runs dry: a loopback server sends the first 35 % of an MP4 (its index is
/// fetched with a range request), then holds the rest. Real time, with SDL's disk driver writing to /dev/null as the audio device.
final class AVPlayerStallTests: XCTestCase {
    override func setUp() {
        setenv("SDL_AUDIODRIVER", "disk", 1)
        setenv("SDL_DISKAUDIOFILE", "/dev/null", 1)
    }

    override func tearDown() {
        unsetenv("SDL_AUDIODRIVER")
        unsetenv("SDL_DISKAUDIOFILE")
    }

    private func gatedServer() throws -> HTTPTestServer {
        let file = try fixture(.demo)
        let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as! Int
        let server = try HTTPTestServer(root: file.deletingLastPathComponent())
        server.inject(.holdBody(fromOffset: size * 35 / 100), forPath: "/" + Fixture.demo.rawValue)
        return server
    }

    func test_stall_waitsToMinimizeStalls_thenResumesAndEnds() throws {
        let server = try gatedServer()
        defer { server.stop() }
        let player = AVPlayer()
        let item = AVPlayerItem(url: server.url(Fixture.demo.rawValue))
        item.forwardPlaybackEndTime = CMTime(value: 5, timescale: 1)
        var statuses: [AVPlayer.TimeControlStatus] = []
        let token = player.observe(\.timeControlStatus, options: [.new]) { _, c in statuses.append(c.newValue!) }
        let stalls = NotificationLog(AVPlayerItem.playbackStalledNotification, object: item)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        player.replaceCurrentItem(with: item)
        // (Replacing the item announced `.paused` again, as Apple's player does.)
        let atPlay = statuses.count
        player.play()
        waitUntil("stall", timeout: 15) { stalls.count >= 1 }
        waitUntil("waiting state delivered") { statuses.last == .waitingToPlayAtSpecifiedRate }
        XCTAssertEqual(player.timeControlStatus, .waitingToPlayAtSpecifiedRate)
        XCTAssertEqual(player.reasonForWaitingToPlay, .toMinimizeStalls)
        XCTAssertEqual(player.rate, 1, "a stall keeps the rate it will resume at")
        waitUntil("buffer empty") { item.isPlaybackBufferEmpty }
        let stalledAt = item.currentTime().seconds
        XCTAssertGreaterThan(stalledAt, 1)
        XCTAssertLessThan(stalledAt, 4.5)
        server.releaseHeldBodies()
        waitUntil("end", timeout: 15) { ends.count == 1 }
        settle(player)
        // Never .paused between play() and the end: a stall is waiting.
        let beforeEnd = statuses[atPlay...].dropLast()
        XCTAssertFalse(beforeEnd.contains(.paused), "\(statuses.map(\.rawValue))")
        XCTAssertEqual(statuses.last, .paused)
        XCTAssertGreaterThanOrEqual(item.accessLog()?.events.last?.numberOfStalls ?? 0, 1)
        token.invalidate()
    }

    func test_stall_withoutAutomaticWaiting_pausesAtRateZero() throws {
        let server = try gatedServer()
        defer {
            server.releaseHeldBodies()
            server.stop()
        }
        let player = AVPlayer()
        player.automaticallyWaitsToMinimizeStalling = false
        let item = AVPlayerItem(url: server.url(Fixture.demo.rawValue))
        let stalls = NotificationLog(AVPlayerItem.playbackStalledNotification, object: item)
        player.replaceCurrentItem(with: item)
        player.play()
        waitUntil("stall", timeout: 15) { stalls.count >= 1 }
        waitUntil("paused") { player.timeControlStatus == .paused }
        XCTAssertEqual(player.rate, 0)
        XCTAssertNil(player.reasonForWaitingToPlay)
    }

    func test_preferredForwardBufferDuration_capsReadAhead() throws {
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(url: try fixture(.longGOP1080p))
        item.preferredForwardBufferDuration = 1
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready", timeout: 20) { item.status == .readyToPlay }
        spinMainRunLoop(0.3)
        let end = try XCTUnwrap(item.session?.bufferedEnd)
        XCTAssertLessThan(end.seconds, 3, "read ahead stays near 1 s, not the 10 s default")
        XCTAssertEqual(item.preferredForwardBufferDuration, 1)
    }
}
