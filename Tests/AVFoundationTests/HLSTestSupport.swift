import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// Plays `url` on an untimed virtual clock until it ends or fails; `ready` runs once the item has a status, before
/// playback starts.
func play(
    _ url: URL, after ready: ((AVPlayerItem) -> Void)? = nil, file: StaticString = #filePath, line: UInt = #line
) -> (v: VirtualPlayer, item: AVPlayerItem, ends: NotificationLog, failures: NotificationLog) {
    let v = VirtualPlayer()
    let item = AVPlayerItem(url: url)
    let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
    let failures = NotificationLog(AVPlayerItem.failedToPlayToEndTimeNotification, object: item)
    v.player.replaceCurrentItem(with: item)
    waitUntil("ready", timeout: 30, file: file, line: line) { item.status != .unknown }
    ready?(item)
    v.player.play()
    waitUntil("end", timeout: 60, file: file, line: line) {
        ends.count + failures.count > 0 || item.status == .failed
    }
    return (v, item, ends, failures)
}

/// Plays `url` to its end on an untimed virtual clock and returns the player and item; asserts the item has no error.
func playToEnd(_ url: URL, file: StaticString = #filePath, line: UInt = #line) -> (VirtualPlayer, AVPlayerItem) {
    let run = play(url, file: file, line: line)
    XCTAssertNil(run.item.error, file: file, line: line)
    return (run.v, run.item)
}

/// Opens `url` on a manual clock, then seeks exactly to each of `targets` in turn: each seek completes `true` and
/// shows the frame whose interval holds its target (30 fps; frame k starts at the first frame's time + k/30).
func assertExactSeeksLand(
    on url: URL, at targets: [Double], file: StaticString = #filePath, line: UInt = #line
) throws {
    let v = VirtualPlayer(mode: .manual)
    let item = AVPlayerItem(url: url)
    v.player.replaceCurrentItem(with: item)
    waitUntil("ready", timeout: 30, file: file, line: line) { item.status != .unknown }
    waitUntil("first frame", timeout: 30, file: file, line: line) { !v.frames.entries.isEmpty }
    let first = try XCTUnwrap(v.frames.entries.first, file: file, line: line)
    for seconds in targets {
        let done = Locked<Bool?>(nil)
        item.seek(
            to: CMTime(seconds: seconds, preferredTimescale: 600), toleranceBefore: .zero, toleranceAfter: .zero
        ) { ok in done.withLock { $0 = ok } }
        waitUntil("seek \(seconds)", timeout: 30, file: file, line: line) { done.withLock { $0 } != nil }
        XCTAssertEqual(done.withLock { $0 }, true, "seek \(seconds)", file: file, line: line)
        XCTAssertEqual(item.currentTime(), CMTime(seconds: seconds, preferredTimescale: 600), file: file, line: line)
        let expected = Int(((seconds - first.time.seconds) * 30).rounded(.down))
        XCTAssertEqual(v.frames.indices.last ?? nil, expected, "at \(seconds) s", file: file, line: line)
    }
}

/// A variant policy that keeps the variant playback started on (the first listed): tests about something other than
/// adaptive bitrate.
struct StayOnVariant: OAVFVariantPolicy {
    func chooseVariant(in situation: OAVFVariantSituation) -> Int { situation.currentVariant }
}
