import AVFoundation

/// `avplay seek-bench FILE [--mode M] …`: how long seeks and steps take, measured in the process (`make bench`
/// rows 5 to 11).
///
/// Public API only, as `avplay frame`: an `AVPlayer` on a manual `VirtualClock` (paused, nothing plays in real
/// time) whose item has an `AVPlayerItemVideoOutput` vending the decoder's own 4:2:0 format (`'y420'`, no
/// conversion). Once the item is ready and an untimed warm-up seek has shown its picture, each operation is timed
/// from the call until the output has the picture it shows. Modes:
///
/// - `exact` (default) `--targets T1,T2,…`: `seek(to:toleranceBefore: .zero, toleranceAfter: .zero)` to each time
///   in turn; the picture shown must be the one due at the target.
/// - `keyframe` `--targets T1,T2,…`: `seek(to:)` with infinite tolerances (a nearby keyframe).
/// - `scrub` `--from T --by D --count N`: after an untimed exact seek to T, N exact seeks to T + D, T + 2D, …
///   (a slider dragged forward, or backward with a negative D).
/// - `back-steps` `--from T --count N`: after an untimed exact seek to T, N `step(byCount: -1)`; each must show
///   the picture before the previous one.
/// - `first-picture`: opens the file and exits once the output has its first picture (timed as a whole process
///   by the caller; prints the in-process time too).
///
/// Prints one line per timed operation (`seek N to T s: picture at P in X ms`, `step N: picture at P in X ms`)
/// and a summary (median, 95th percentile, min, max).
enum SeekBenchCommand {
    /// What to time.
    enum Mode: String {
        case exact, keyframe, scrub
        case backSteps = "back-steps"
        case firstPicture = "first-picture"
    }

    /// The parsed command line.
    struct Options {
        var input: String
        var mode: Mode
        var targets: [Double]
        var from: Double?
        var by: Double?
        var count: Int?
    }

    /// Parses the arguments; prints the problem and returns nil on a usage error.
    static func parse(_ arguments: [String]) -> Options? {
        var input: String?
        var mode = Mode.exact
        var targets: [Double] = []
        var from: Double?
        var by: Double?
        var count: Int?
        var i = 0
        func value(_ name: String) -> String? {
            guard i + 1 < arguments.count else {
                Terminal.error("seek-bench: \(name) needs a value")
                return nil
            }
            return arguments[i + 1]
        }
        while i < arguments.count {
            let a = arguments[i]
            switch a {
            case "--targets":
                guard let text = value(a) else { return nil }
                let values = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard !values.isEmpty, values.allSatisfy({ $0.map { $0 >= 0 && $0.isFinite } ?? false }) else {
                    Terminal.error("seek-bench: --targets needs times in seconds (≥ 0), separated by commas")
                    return nil
                }
                targets = values.compactMap { $0 }
            case "--mode":
                guard let text = value(a) else { return nil }
                guard let m = Mode(rawValue: text) else {
                    Terminal.error("seek-bench: --mode is exact, keyframe, scrub, back-steps or first-picture")
                    return nil
                }
                mode = m
            case "--from", "--by":
                guard let text = value(a), let v = Double(text), v.isFinite, a == "--by" || v >= 0 else {
                    Terminal.error("seek-bench: \(a) needs a time in seconds")
                    return nil
                }
                if a == "--from" { from = v } else { by = v }
            case "--count":
                guard let text = value(a), let n = Int(text), n > 0 else {
                    Terminal.error("seek-bench: --count needs a positive whole number")
                    return nil
                }
                count = n
            default:
                guard input == nil, !a.hasPrefix("-") || a == "-" else {
                    Terminal.error("seek-bench: unexpected argument “\(a)”")
                    return nil
                }
                input = a
                i += 1
                continue
            }
            i += 2
        }
        guard let input else {
            Terminal.error("seek-bench: give FILE (see avplay --help)")
            return nil
        }
        switch mode {
        case .exact, .keyframe:
            guard !targets.isEmpty else {
                Terminal.error("seek-bench: --mode \(mode.rawValue) needs --targets T1,T2,…")
                return nil
            }
        case .scrub:
            guard from != nil, by != nil, count != nil else {
                Terminal.error("seek-bench: --mode scrub needs --from T --by D --count N")
                return nil
            }
        case .backSteps:
            guard from != nil, count != nil else {
                Terminal.error("seek-bench: --mode back-steps needs --from T --count N")
                return nil
            }
        case .firstPicture:
            break
        }
        return Options(input: input, mode: mode, targets: targets, from: from, by: by, count: count)
    }

    @MainActor
    static func run(_ arguments: [String]) async -> Int32 {
        guard let options = parse(arguments) else { return 2 }
        let start = DispatchTime.now().uptimeNanoseconds
        let grabber = FrameGrabber(url: mediaURL(options.input), pixelFormat: kCVPixelFormatType_420YpCbCr8Planar)
        do {
            if options.mode == .firstPicture {
                try await grabber.waitUntilReady()
                let shown = try await grabber.currentPicture()
                let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                print(String(format: "first picture at %@ in %.1f ms", FrameCommand.format(shown.seconds), ms))
                return 0
            }
            try await grabber.waitUntilReady()
            let duration = grabber.duration
            let track = try await grabber.item.asset.loadTracks(withMediaType: .video).first
            let frameDuration = try await track?.load(.minFrameDuration).seconds ?? 1.0 / 30
            var targets = options.targets
            var warmUp = 0.0
            if options.mode == .scrub, let from = options.from, let by = options.by, let count = options.count {
                warmUp = from
                targets = (1...count).map { from + by * Double($0) }
            }
            if options.mode == .backSteps, let from = options.from { warmUp = from }
            if let late = (targets + [warmUp]).first(where: { duration.isNumeric && ($0 >= duration.seconds || $0 < 0) }
            ) {
                throw FrameGrabber.Failure(
                    description: "time \(FrameCommand.format(late)) is not inside the item "
                        + "(0 to \(FrameCommand.format(duration.seconds))).")
            }
            // Warm-up: decoders running, the starting picture shown.
            _ = try await grabber.picture(at: CMTime(seconds: warmUp, preferredTimescale: 1_000_000), exact: true)
            var milliseconds: [Double] = []
            if options.mode == .backSteps {
                var previous = grabber.item.currentTime().seconds
                for n in 1...(options.count ?? 1) {
                    let begin = DispatchTime.now().uptimeNanoseconds
                    let shown = try await grabber.stepBack()
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6
                    // The picture before the previous one: earlier, by about one frame.
                    let back = previous - shown.seconds
                    guard back > 1e-6, !frameDuration.isFinite || back < 2 * frameDuration - 1e-3 else {
                        throw FrameGrabber.Failure(
                            description: "step \(n) back from \(FrameCommand.format(previous)) showed the picture at "
                                + "\(FrameCommand.format(shown.seconds)).")
                    }
                    previous = shown.seconds
                    milliseconds.append(ms)
                    print(
                        String(format: "step %d: picture at %@ in %.1f ms", n, FrameCommand.format(shown.seconds), ms))
                }
            } else {
                let exact = options.mode != .keyframe
                for (n, seconds) in targets.enumerated() {
                    let target = CMTime(seconds: seconds, preferredTimescale: 1_000_000)
                    let begin = DispatchTime.now().uptimeNanoseconds
                    let (_, shown) = try await grabber.picture(at: target, exact: exact)
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e6
                    // The picture due at the target: at or before it, less than a frame before.
                    let error = seconds - shown.seconds
                    if exact, error <= -1e-3 || (frameDuration.isFinite && error >= frameDuration + 1e-3) {
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
            }
            let sorted = milliseconds.sorted()
            let median =
                sorted.count % 2 == 1
                ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            // Nearest rank.
            let p95 = sorted[max(0, Int((0.95 * Double(sorted.count)).rounded(.up)) - 1)]
            let what = options.mode == .backSteps ? "backward steps" : "\(options.mode.rawValue) seeks"
            print(
                String(
                    format: "%d %@: median %.1f ms, p95 %.1f ms, min %.1f ms, max %.1f ms", sorted.count, what,
                    median, p95, sorted.first ?? 0, sorted.last ?? 0))
            return 0
        } catch {
            Terminal.error(FrameCommand.message(error))
            return 1
        }
    }
}

extension FrameGrabber {
    /// Waits until the output has the picture at the item's current time and returns that picture's own time.
    func currentPicture() async throws -> CMTime {
        // The first picture may start after item time zero (MPEG-TS: the audio starts first): ask for its time (a
        // millisecond later, so that the picture's own rounding of it cannot fall after the question).
        let track = try await item.asset.loadTracks(withMediaType: .video).first
        let start = try await track?.load(.timeRange).start ?? .zero
        let first = start.isNumeric ? start + CMTime(value: 1, timescale: 1000) : .zero
        return try await waitForPicture("no first picture came", at: { max($0, first) }) { _ in true }
    }

    /// Steps one picture back (`step(byCount: -1)`) and returns the time of the picture the output then has.
    func stepBack() async throws -> CMTime {
        let before = item.currentTime()
        item.step(byCount: -1)
        return try await waitForPicture("stepping back from \(FrameCommand.format(before.seconds)) showed nothing") {
            $0 < before
        }
    }

    /// Polls every 0.25 ms (letting the main queue deliver the player's changes) until the item's current time
    /// satisfies `isNew` and the output has a new picture for it; returns that picture's time.
    private func waitForPicture(
        _ what: String, at time: (CMTime) -> CMTime = { $0 }, isNew: (CMTime) -> Bool
    ) async throws -> CMTime {
        let deadline = Date().addingTimeInterval(30)
        while true {
            if item.status == .failed { throw item.error ?? Failure(description: "the item failed") }
            let now = time(item.currentTime())
            if isNew(now), output.hasNewPixelBuffer(forItemTime: now) {
                var shown = CMTime.invalid
                if output.copyPixelBuffer(forItemTime: now, itemTimeForDisplay: &shown) != nil { return shown }
            }
            if Date() > deadline { throw Failure(description: what) }
            try await Task.sleep(nanoseconds: 250_000)
        }
    }
}
