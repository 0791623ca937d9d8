import Foundation
import FuzzSupport

@testable import AVFoundation

/// Harness (b): demux and decode to the end with exact seeks. The input plays on an untimed virtual clock (as fast
/// as it decodes); once ready, two exact seeks to times chosen by the input's last bytes, then playback to the end.
/// Every seek must complete exactly once and the item must end or fail, each within a bound (else: a hang).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDemuxDecodeSeek(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let file = MemoryFile(bytes) else { return 0 }
    let player = AVPlayer()
    player.sourceClock = VirtualClock(mode: .untimed)
    let item = AVPlayerItem(url: file.url)
    let ended = Box(false)
    let observers = [
        NotificationCenter.default.addObserver(
            forName: AVPlayerItem.didPlayToEndTimeNotification, object: item, queue: nil
        ) { _ in ended.value = true },
        NotificationCenter.default.addObserver(
            forName: AVPlayerItem.failedToPlayToEndTimeNotification, object: item, queue: nil
        ) { _ in ended.value = true },
    ]
    defer {
        for o in observers { NotificationCenter.default.removeObserver(o) }
        player.replaceCurrentItem(with: nil)
        // The item's asset load may still be running (a cancelled probe returning): wait for it, so that
        // LeakSanitizer, which libFuzzer runs right after the input, does not take its objects for leaks.
        AssetLoader.queue.sync(flags: .barrier) {}
    }
    player.replaceCurrentItem(with: item)
    waitOrTrap("the item settling", seconds: 30) { item.status != .unknown }
    guard item.status == .readyToPlay else { return 0 }
    let duration = item.duration.isNumeric ? max(item.duration.seconds, 0) : 10
    for k in 0..<2 {
        // Targets from the input's tail: fractions of the duration (and sometimes past it).
        let byte = size > k ? Double(bytes[size - 1 - k]) : 0
        let target = CMTime(seconds: duration * byte / 200, preferredTimescale: 600)
        let completions = Box(0)
        item.seek(to: target, toleranceBefore: .zero, toleranceAfter: .zero) { _ in completions.mutate { $0 += 1 } }
        waitOrTrap("seek \(k) completing", seconds: 30) { completions.value > 0 }
        RunLoop.main.run(until: Date().addingTimeInterval(0.001))
        if completions.value != 1 { fatalError("seek \(k) completed \(completions.value) times") }
    }
    player.play()
    waitOrTrap("the end of the item", seconds: 60) { ended.value || item.status == .failed }
    return 0
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzDemuxDecodeSeek_main")
public func fuzzDemuxDecodeSeekMain(
    _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
)
    -> Int32
{
    runFuzzer(argc, argv) { fuzzDemuxDecodeSeek($0, $1) }
}
