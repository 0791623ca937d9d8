import Foundation
import OAVFLocking
import PlaybackEngine
import SDLOutput
import TestSupport
import XCTest

@testable import AVFoundation

/// A real SDL device (the dummy driver) that can be made to fail as hardware does: not open at all, or be lost
/// while playing (unplugged) and refuse to come back.
private final class FailingDevice: AudioSink, @unchecked Sendable {
    let device = SDLAudioSink()
    let failsToOpen: Bool
    private let lock = ConditionLock()
    private var unplugged = false
    private(set) var opens = 0

    init(failsToOpen: Bool) { self.failsToOpen = failsToOpen }

    func unplug() { lock.withLock { unplugged = true } }

    var isRealTime: Bool { true }
    func open(preferred: AudioFormat) throws(AudioSinkError) -> AudioFormat {
        let refuse = lock.withLock { () -> Bool in
            opens += 1
            return failsToOpen || unplugged
        }
        if refuse { throw AudioSinkError("Could not open an audio device: the device is not there") }
        return try device.open(preferred: preferred)
    }
    func start(source: any AudioRenderSource) { device.start(source: source) }
    func pause() { device.pause() }
    func resume() { device.resume() }
    func write(_ samples: UnsafePointer<Float>, frameCount: Int) {}
    var latency: Double { device.latency }
    func setVolume(_ volume: Float, muted: Bool) { device.setVolume(volume, muted: muted) }
    func close() { device.close() }
    var isDisconnected: Bool { lock.withLock { unplugged } || device.isDisconnected }
}

/// `AVPlayer.status` becomes `.failed`, with `AVPlayer.error` set, when the player can no longer play: its audio
/// device fails to open, or is lost and cannot be reopened (Apple's documented meaning of a failed player). A machine
/// with no sound system at all plays without sound instead (README, differences from Apple).
/// Real time (SDL's dummy driver behind the failing device).
final class AVPlayerAudioDeviceFailureTests: XCTestCase {
    override func setUp() {
        super.setUp()
        setenv("SDL_AUDIODRIVER", "dummy", 1)
    }

    override func tearDown() {
        unsetenv("SDL_AUDIODRIVER")
        super.tearDown()
    }

    func test_realTime_deviceThatFailsToOpen_failsThePlayer() throws {
        let player = AVPlayer()
        let device = FailingDevice(failsToOpen: true)
        player.audioSinkOverride = { device }
        let statuses = Locked<[AVPlayer.Status]>([])
        let observation = player.observe(\.status, options: [.new]) { player, _ in
            statuses.withLock { $0.append(player.status) }
        }
        defer { observation.invalidate() }
        player.replaceCurrentItem(with: AVPlayerItem(url: try fixture(.h264AAC)))
        player.play()
        waitUntil("player failed") { player.status == .failed }
        let error = try XCTUnwrap(player.error as NSError?)
        XCTAssertEqual(error.domain, AVFoundationErrorDomain)
        XCTAssertEqual(error.code, AVError.Code.deviceNotConnected.rawValue)
        XCTAssertTrue(
            (error.localizedFailureReason ?? "").contains("not there"), "says what happened: \(error)")
        // A failed player does not play: its rate goes back to 0 (the engine's report comes through the main queue,
        // late on a loaded machine); the changes still queued for the main queue arrive, the failure last.
        waitUntil("the rate back to 0: \(player.rate)") { player.rate == 0 }
        spinMainRunLoop(0.2)
        XCTAssertEqual(statuses.withLock { $0.last }, .failed, "\(statuses.withLock { $0 })")
        XCTAssertEqual(player.rate, 0)
        XCTAssertNotEqual(player.timeControlStatus, .playing)
    }

    func test_realTime_deviceLostWhilePlaying_andNotReopened_failsThePlayer_andStopsTheTime() throws {
        let player = AVPlayer()
        let device = FailingDevice(failsToOpen: false)
        player.audioSinkOverride = { device }
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        player.replaceCurrentItem(with: item)
        player.play()
        waitUntil("playing 0.3 s", timeout: 30) { item.currentTime().seconds > 0.3 }
        XCTAssertEqual(player.status, .readyToPlay)
        XCTAssertNil(player.error)

        device.unplug()
        waitUntil("player failed") { player.status == .failed }
        let error = try XCTUnwrap(player.error as NSError?)
        XCTAssertEqual(error.domain, AVFoundationErrorDomain)
        XCTAssertEqual(error.code, AVError.Code.deviceWasDisconnected.rawValue)
        XCTAssertGreaterThanOrEqual(device.opens, 2, "the engine tried to reopen the device before failing")
        waitUntil("paused") { player.timeControlStatus == .paused }
        XCTAssertEqual(player.rate, 0)
        let stoppedAt = item.currentTime()
        spinMainRunLoop(0.3)
        XCTAssertEqual(item.currentTime(), stoppedAt, "time stands once the device is gone")
        player.play()
        spinMainRunLoop(0.2)
        XCTAssertNotEqual(player.timeControlStatus, .playing, "a failed player does not play again")
        XCTAssertEqual(item.currentTime(), stoppedAt)
    }

    /// SDL's `dummy` (and `disk`) driver has one output, which one player at a time can hold: a second player of the
    /// same process plays without sound instead of failing (on a machine with a sound server each opens its own).
    func test_realTime_twoPlayersOnADriverWithOneDevice_bothPlay_neitherFails() throws {
        let first = AVPlayer(url: try fixture(.h264AAC))
        let second = AVPlayer(url: try fixture(.h264AAC))
        first.play()
        second.play()
        let items = [try XCTUnwrap(first.currentItem), try XCTUnwrap(second.currentItem)]
        waitUntil("both played 0.3 s", timeout: 30) { items.allSatisfy { $0.currentTime().seconds > 0.3 } }
        XCTAssertEqual(first.status, .readyToPlay)
        XCTAssertEqual(second.status, .readyToPlay)
        XCTAssertNil(first.error)
        XCTAssertNil(second.error)
        first.pause()
        second.pause()
    }
}
