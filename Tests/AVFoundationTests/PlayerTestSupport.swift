import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// Records every video frame the engine presents: its item time and the index drawn in it.
final class FrameRecorder: VideoFrameSink, @unchecked Sendable {
    struct Entry: Equatable {
        var time: CMTime
        var index: Int?
        /// The playback clock when the frame was presented (when a probe is set).
        var clock: CMTime?
    }
    /// Reads the playback clock at presentation (real-time A/V sync checks).
    var clockProbe: (@Sendable (ItemSession) -> CMTime)?
    private let lock = ConditionLock()
    private var storage: [Entry] = []
    private var flushes = 0

    func present(_ frame: VideoFrame, itemTime: CMTime, session: ItemSession) {
        // Planar or packed (a video composition hands out BGRA).
        let index = frameIndex(of: frame.pixelBuffer)
        let clock = clockProbe?(session)
        lock.lock()
        storage.append(Entry(time: itemTime, index: index, clock: clock))
        lock.unlock()
    }

    func flush(session: ItemSession?) {
        lock.lock()
        flushes += 1
        lock.unlock()
    }

    var entries: [Entry] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    var indices: [Int?] { entries.map(\.index) }
}

/// A player on an untimed virtual clock with a capturing audio sink and a frame recorder.
struct VirtualPlayer {
    let player: AVPlayer
    let audio: CapturingAudioSink
    let frames: FrameRecorder
    let clock: VirtualClock

    /// `captureAudio: false` discards audio (a NullAudioSink) — for long runs whose memory is measured.
    init(queue: Bool = false, mode: VirtualClock.Mode = .untimed, captureAudio: Bool = true) {
        let clock = VirtualClock(mode: mode)
        let audio = CapturingAudioSink()
        player = queue ? AVQueuePlayer() : AVPlayer()
        player.sourceClock = clock
        if captureAudio {
            player.audioSinkOverride = { audio }
        } else {
            player.audioSinkOverride = { NullAudioSink() }
        }
        self.audio = audio
        self.frames = FrameRecorder()
        self.clock = clock
        player.engineCreatingIfNeeded().addVideoSink(frames)
    }
}

/// Waits (running the main run loop, where KVO and observers are delivered) until `condition`. `description` is
/// evaluated when the wait times out, so it can report the state then. The bound is a hang guard only, never a
/// measurement: `timeout` or ``Awaitable/hangGuard``, whichever is longer, so a machine whose cores are busy is not
/// taken for a hang.
func waitUntil(
    _ description: @autoclosure () -> String, timeout: TimeInterval = 20, file: StaticString = #filePath,
    line: UInt = #line, _ condition: () -> Bool
) {
    let bound = UInt64(max(timeout, Awaitable<Void>.hangGuard) * 1e9)
    let start = DispatchTime.now().uptimeNanoseconds
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds - start > bound {
            XCTFail("timed out waiting for \(description())", file: file, line: line)
            return
        }
        RunLoop.main.run(until: Date().addingTimeInterval(0.005))
    }
}

/// Seeks `item` exactly to `seconds`, waits for the seek to complete and checks that it finished.
func exactSeek(_ item: AVPlayerItem, _ seconds: Double, file: StaticString = #filePath, line: UInt = #line) {
    let done = Locked<Bool?>(nil)
    item.seek(to: CMTime(seconds: seconds, preferredTimescale: 600), toleranceBefore: .zero, toleranceAfter: .zero) {
        ok in done.withLock { $0 = ok }
    }
    waitUntil("seek \(seconds)", file: file, line: line) { done.withLock { $0 } != nil }
    XCTAssertEqual(done.withLock { $0 }, true, file: file, line: line)
}

/// Runs the main run loop briefly so queued main-queue deliveries happen.
/// Waits until `player`'s engine has applied every command given before this call, delivered what that told (events,
/// completions, observer calls) and the main queue has run the blocks queued meanwhile (``PlayerEngine/barrier(_:)``):
/// "nothing else happened" then says the engine has seen it all, however slow the machine. At once for a player whose
/// engine was never made.
func settle(_ player: AVPlayer, file: StaticString = #filePath, line: UInt = #line) {
    guard let engine = player.existingEngine else { return }
    let done = Locked(false)
    engine.barrier { _ in DispatchQueue.main.async { done.withLock { $0 = true } } }
    waitUntil("the engine settles", file: file, line: line) { done.withLock { $0 } }
}

func spinMainRunLoop(_ seconds: TimeInterval = 0.05) {
    RunLoop.main.run(until: Date().addingTimeInterval(seconds))
}

/// Collects notifications of one name for one object.
final class NotificationLog: @unchecked Sendable {
    private let lock = ConditionLock()
    private var items: [Notification] = []
    private var token: NSObjectProtocol?

    init(_ name: Notification.Name, object: AnyObject?) {
        token = NotificationCenter.default.addObserver(forName: name, object: object, queue: nil) { [weak self] n in
            guard let self else { return }
            self.lock.lock()
            self.items.append(n)
            self.lock.unlock()
        }
    }

    deinit {
        if let token { NotificationCenter.default.removeObserver(token) }
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return items.count
    }

    var notifications: [Notification] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
