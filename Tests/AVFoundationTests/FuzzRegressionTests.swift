import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// The inputs `make fuzz` found a crash or hang with (`FuzzRegressions/`, each a few KiB), replayed the way the
/// harness that found them drives the player (`Fuzz/Sources/FuzzDemuxDecodeSeek`): an untimed virtual clock, two
/// exact seeks to times chosen by the input's last two bytes (a fraction of the duration, sometimes past it), then
/// playback to the end. Every seek completes exactly once and the item ends or fails, each within a bound that only
/// a hang exceeds.
final class FuzzRegressionTests: XCTestCase {
    private static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("FuzzRegressions")

    func test_decodeSeekInputs_seekAndPlayToTheirEnd() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter {
            $0.hasPrefix("decode-seek-")
        }.sorted()
        XCTAssertFalse(names.isEmpty)
        for name in names { try replay(Self.folder.appendingPathComponent(name)) }
    }

    private func replay(_ url: URL) throws {
        let bytes = [UInt8](try Data(contentsOf: url))
        let v = VirtualPlayer(captureAudio: false)
        defer { v.player.replaceCurrentItem(with: nil) }
        let item = AVPlayerItem(url: url)
        let ended = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let failed = NotificationLog(AVPlayerItem.failedToPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("\(url.lastPathComponent): settled", timeout: 30) { item.status != .unknown }
        guard item.status == .readyToPlay else { return }
        let duration = item.duration.isNumeric ? max(item.duration.seconds, 0) : 10
        for k in 0..<2 {
            let byte = bytes.count > k ? Double(bytes[bytes.count - 1 - k]) : 0
            let target = CMTime(seconds: duration * byte / 200, preferredTimescale: 600)
            let completions = Locked<[Bool]>([])
            item.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero) { ok in
                completions.withLock { $0.append(ok) }
            }
            waitUntil("\(url.lastPathComponent): seek \(k) to \(target.seconds) s completing", timeout: 30) {
                !completions.withLock { $0 }.isEmpty
            }
            settle(v.player)
            XCTAssertEqual(completions.withLock { $0 }.count, 1, "\(url.lastPathComponent): seek \(k) completions")
        }
        v.player.play()
        waitUntil("\(url.lastPathComponent): the end", timeout: 60) {
            ended.count > 0 || failed.count > 0 || item.status == .failed
        }
    }
}
