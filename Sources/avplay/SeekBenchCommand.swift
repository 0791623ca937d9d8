import AVFoundation

/// `avplay seek-bench FILE --targets T1,T2,…`: how long exact seeks take, measured in the process (row 5 of
/// `make bench`).
///
/// Public API only, as `avplay frame`: an `AVPlayer` on a manual `VirtualClock` (paused, nothing plays in real
/// time) whose item has an `AVPlayerItemVideoOutput` vending the decoder's own 4:2:0 format (`'y420'`, no
/// conversion). Once the item is ready and an untimed warm-up seek to 0 has shown its picture, each target is one
/// `seek(to:toleranceBefore: .zero, toleranceAfter: .zero)`, timed from the call until the output has the picture
/// due at the target. Prints one line per seek and the median and 95th percentile.
enum SeekBenchCommand {
    @MainActor
    static func run(_ arguments: [String]) async -> Int32 {
        var input: String?
        var targets: [Double] = []
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            if a == "--targets", i + 1 < arguments.count {
                let values = arguments[i + 1].split(separator: ",").map {
                    Double($0.trimmingCharacters(in: .whitespaces))
                }
                guard !values.isEmpty, values.allSatisfy({ $0.map { $0 >= 0 && $0.isFinite } ?? false }) else {
                    Terminal.error("seek-bench: --targets needs times in seconds (≥ 0), separated by commas")
                    return 2
                }
                targets = values.compactMap { $0 }
                i += 2
                continue
            }
            guard input == nil, !a.hasPrefix("-") || a == "-" else {
                Terminal.error("seek-bench: unexpected argument “\(a)”")
                return 2
            }
            input = a
            i += 1
        }
        guard let input, !targets.isEmpty else {
            Terminal.error("seek-bench: give FILE and --targets T1,T2,… (see avplay --help)")
            return 2
        }
        let grabber = FrameGrabber(url: mediaURL(input), pixelFormat: kCVPixelFormatType_420YpCbCr8Planar)
        do {
            try await grabber.waitUntilReady()
            let duration = grabber.duration
            if let late = targets.first(where: { duration.isNumeric && $0 >= duration.seconds }) {
                throw FrameGrabber.Failure(
                    description: "target \(FrameCommand.format(late)) is not before the end "
                        + "(\(FrameCommand.format(duration.seconds))).")
            }
            let track = try await grabber.item.asset.loadTracks(withMediaType: .video).first
            let frameDuration = try await track?.load(.minFrameDuration).seconds ?? 1.0 / 30
            _ = try await grabber.picture(at: .zero, exact: true)  // warm-up: decoders running, first picture shown
            var milliseconds: [Double] = []
            for (n, seconds) in targets.enumerated() {
                let target = CMTime(seconds: seconds, preferredTimescale: 1_000_000)
                let start = DispatchTime.now().uptimeNanoseconds
                let (_, shown) = try await grabber.picture(at: target, exact: true)
                let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                // The picture due at the target: at or before it, less than a frame before.
                let error = seconds - shown.seconds
                guard error > -1e-3, !frameDuration.isFinite || error < frameDuration + 1e-3 else {
                    throw FrameGrabber.Failure(
                        description: "seek \(n + 1) to \(FrameCommand.format(seconds)) showed the picture at "
                            + "\(FrameCommand.format(shown.seconds)).")
                }
                milliseconds.append(ms)
                print(
                    String(
                        format: "seek %d to %.3f s: picture at %@ in %.1f ms", n + 1, seconds,
                        FrameCommand.format(shown.seconds), ms))
            }
            let sorted = milliseconds.sorted()
            let median =
                sorted.count % 2 == 1
                ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            // Nearest rank.
            let p95 = sorted[max(0, Int((0.95 * Double(sorted.count)).rounded(.up)) - 1)]
            print(
                String(
                    format: "%d exact seeks: median %.1f ms, p95 %.1f ms, min %.1f ms, max %.1f ms", sorted.count,
                    median, p95, sorted.first ?? 0, sorted.last ?? 0))
            return 0
        } catch {
            Terminal.error(FrameCommand.message(error))
            return 1
        }
    }
}
