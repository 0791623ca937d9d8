import AVFoundation
import Foundation
import TestSupport
import XCTest

/// Live catch-up on the real-time clock, written as an app writes it: an `AVPlayer` on a loopback live HLS stream
/// whose window moves in real time, paused until the window has left the paused time behind, then played. The
/// engine seeks into the window (its catch-up), and the pictures shown from there, read from their pixels, are the
/// ones at the times the item reports. `HLSLiveWhilePausedTests` checks the same on the manual clock, frame by frame.
///
/// Real time (one of the named few): a short window (two 2 s segments) keeps it to a few seconds. Asserted: where
/// the playhead lands and what the pixels say, never how long anything took.
final class HLSLiveCatchUpRealTimeTests: XCTestCase {
    private var server: HTTPTestServer!
    private let path = "/hls/live_catch_up.m3u8"
    /// `hls/vod.m3u8`'s pictures: 30 a second, 300 before the loop repeats them.
    private let framesPerSecond = 30.0
    private let loopFrames = 300

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
        // No sound card here: SDL's dummy driver paces the audio clock as a device would.
        setenv("SDL_AUDIODRIVER", "dummy", 1)
    }

    override func tearDown() {
        unsetenv("SDL_AUDIODRIVER")
        server.stop()
    }

    /// The picture `output` has for `time`: its index read from its pixels, and its own item time.
    private func picture(_ output: AVPlayerItemVideoOutput, at time: CMTime) -> (index: Int, time: CMTime)? {
        var shownAt = CMTime.invalid
        guard let buffer = output.copyPixelBuffer(forItemTime: time, itemTimeForDisplay: &shownAt),
            let index = frameIndex(of: buffer), shownAt.isNumeric
        else { return nil }
        return (index, shownAt)
    }

    func test_realTime_pausedUntilTheWindowLeftThePlayheadBehind_playResumesInsideTheWindow() throws {
        let live = try HLSLiveWindow(
            contentsOf: Fixtures.url(.vod), window: .sliding(segments: 2), atEnd: .loop,
            advance: .realTime(now: { Date() }))
        live.serve(on: server, at: path)
        let item = AVPlayerItem(url: server.url(String(path.dropFirst())))
        // Reloads while paused: the item's seekable range shows the window moving away.
        item.canUseNetworkResourcesForLiveStreamingWhilePaused = true
        let output = AVPlayerItemVideoOutput(pixelBufferAttributes: nil)
        item.add(output)
        let player = AVPlayer(playerItem: item)
        var window: CMTimeRange? { item.seekableTimeRanges.first?.timeRangeValue }
        waitUntil("ready", timeout: 30) { item.status != .unknown }
        XCTAssertEqual(item.status, .readyToPlay, "\(String(describing: item.error))")

        player.play()
        waitUntil("playing: \(player.timeControlStatus.rawValue)", timeout: 30) {
            player.timeControlStatus == .playing && self.picture(output, at: item.currentTime()) != nil
        }
        player.pause()
        waitUntil("paused") { player.timeControlStatus == .paused }
        let pausedAt = item.currentTime()
        let paused = try XCTUnwrap(picture(output, at: pausedAt))

        // The window slides on in real time; reloads show it. Paused until its start has passed the playhead.
        waitUntil(
            "the window left the paused time behind: \(String(describing: window)), \(pausedAt.seconds)", timeout: 60
        ) {
            (window?.start ?? .zero) > pausedAt
        }
        XCTAssertEqual(item.currentTime(), pausedAt, "paused: the playhead stayed")

        player.play()
        var resumed: (index: Int, time: CMTime)?
        waitUntil(
            "playing inside the window: \(item.currentTime().seconds), \(String(describing: window))", timeout: 60
        ) {
            guard player.timeControlStatus == .playing, let window,
                let shown = self.picture(output, at: item.currentTime()),
                shown.time > pausedAt
            else { return false }
            resumed = shown
            return shown.time >= window.start - CMTime(value: 1, timescale: 10)
        }
        let shown = try XCTUnwrap(resumed)
        let landed = try XCTUnwrap(window)
        // Inside the window the item reports (less a picture: the window may have slid on since it was read).
        XCTAssertGreaterThanOrEqual(item.currentTime(), landed.start - CMTime(value: 1, timescale: 10))
        XCTAssertLessThanOrEqual(item.currentTime(), landed.end)
        XCTAssertNil(item.error)
        // The picture shown is the one at its time: as many pictures on from the paused one as its time is
        // (the VOD loops every 300), so playback went on from the window, not from what it had buffered.
        let expected =
            (paused.index + Int(((shown.time - paused.time).seconds * framesPerSecond).rounded())) % loopFrames
        XCTAssertLessThanOrEqual(
            min(abs(shown.index - expected), loopFrames - abs(shown.index - expected)), 1,
            "picture \(shown.index) at \(shown.time.seconds) s; paused on \(paused.index) at \(paused.time.seconds) s")
        XCTAssertGreaterThan(shown.time - paused.time, CMTime(value: 1, timescale: 2), "it jumped ahead")
    }
}
