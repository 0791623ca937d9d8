import AVFoundation

/// `avplay decode-bench FILE`: takes every picture of the video track as BGRA, as fast as the machine allows, and
/// prints how many there were and how long it took (the throughput row of `make bench`).
///
/// Public API only: an `AVPlayer` on a manual `VirtualClock` plays the item; an `AVPlayerItemVideoOutput` vends BGRA
/// (converted by the output). The clock moves one frame (the track's `minFrameDuration`) at a time, and only once
/// the picture due is copied, so no picture is skipped while decoding runs ahead on the engine's threads.
enum DecodeBenchCommand {
    /// What a run counted.
    struct Result: Sendable {
        var frames = 0
        /// Steps where no new picture came (gaps in variable-frame-rate video).
        var misses = 0
        var width = 0
        var height = 0
        var failure: String?
    }

    @MainActor
    static func run(_ arguments: [String]) async -> Int32 {
        guard arguments.count == 1, let input = arguments.first, !input.hasPrefix("-") || input == "-" else {
            Terminal.error("decode-bench: give exactly one FILE or URL")
            return 2
        }
        let grabber = FrameGrabber(url: mediaURL(input))
        do {
            try await grabber.waitUntilReady()
            guard let track = try await grabber.item.asset.loadTracks(withMediaType: .video).first else {
                throw FrameGrabber.Failure(description: "“\(input)” has no video.")
            }
            let (minimum, rate, range) = try await track.load(.minFrameDuration, .nominalFrameRate, .timeRange)
            let step: CMTime
            if minimum.isNumeric && minimum > .zero {
                step = minimum
            } else if rate > 0 {
                step = CMTime(value: 1_000_000, timescale: Int32((Double(rate) * 1_000_000).rounded()))
            } else {
                step = CMTime(value: 1, timescale: 30)
            }
            let end = range.end.isNumeric ? range.end : grabber.duration
            let started = Date()
            grabber.player.play()
            let output = grabber.output
            let clock = grabber.clock
            let result = await withCheckedContinuation { (c: CheckedContinuation<Result, Never>) in
                Thread { c.resume(returning: pump(output, clock: clock, step: step, end: end)) }.start()
            }
            let seconds = Date().timeIntervalSince(started)
            grabber.player.pause()
            if let failure = result.failure { throw FrameGrabber.Failure(description: failure) }
            print(
                "\(result.frames) frames \(result.width)x\(result.height) BGRA in "
                    + String(format: "%.3f s (%.1f frames/s)", seconds, Double(result.frames) / max(seconds, 1e-9))
                    + (result.misses > 0 ? ", \(result.misses) steps without a new picture" : ""))
            return 0
        } catch {
            Terminal.error(FrameCommand.message(error))
            return 1
        }
    }

    /// Copies the picture due at each step until `end` (runs on its own thread; blocks while waiting).
    private static func pump(
        _ output: AVPlayerItemVideoOutput, clock: VirtualClock, step: CMTime, end: CMTime
    )
        -> Result
    {
        let signal = MediaSignal()
        output.setDelegate(signal, queue: signal.queue)
        defer { output.setDelegate(nil, queue: nil) }
        var result = Result()
        var k: Int64 = 0
        while true {
            let now = output.itemTime(forHostTime: clock.time.seconds)
            guard now.isNumeric else {
                result.failure = "the item lost its player"
                return result
            }
            let deadline = Date().addingTimeInterval(5)
            var fresh = true
            while !output.hasNewPixelBuffer(forItemTime: now) {
                if Date() > deadline {
                    fresh = false
                    break
                }
                output.requestNotificationOfMediaDataChange(withAdvanceInterval: 0)
                _ = signal.semaphore.wait(timeout: .now() + .milliseconds(2))
            }
            if fresh, let buffer = output.copyPixelBuffer(forItemTime: now, itemTimeForDisplay: nil) {
                result.frames += 1
                result.width = CVPixelBufferGetWidth(buffer)
                result.height = CVPixelBufferGetHeight(buffer)
            } else {
                result.misses += 1
                if result.misses > 10 && result.frames == 0 {
                    result.failure = "no picture came"
                    return result
                }
            }
            // The next picture's nominal time, plus half a step so clock rounding never lands just before it.
            k += 1
            let target =
                CMTimeMultiply(step, multiplier: Int32(clamping: k))
                + CMTimeMultiplyByRatio(step, multiplier: 1, divisor: 2)
            if target >= end { return result }
            clock.advance(by: target - now)
        }
    }
}

/// Wakes the pumping thread when the output has a new picture.
private final class MediaSignal: NSObject, AVPlayerItemOutputPullDelegate, @unchecked Sendable {
    let semaphore = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "avplay.decode-bench.signal")

    func outputMediaDataWillChange(_ sender: AVPlayerItemOutput) { semaphore.signal() }
}
