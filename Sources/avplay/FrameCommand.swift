import AVFoundation

/// Takes single pictures out of a file through the public API only: an `AVPlayer` on a manual `VirtualClock` (so
/// nothing plays in real time) whose item has an `AVPlayerItemVideoOutput` vending BGRA; each picture is a seek
/// (the paused player shows the picture at the new playhead) followed by `copyPixelBuffer(forItemTime:…)`.
@MainActor
final class FrameGrabber {
    /// A failure that is not an `AVError` (the item never got ready, no picture came).
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let player = AVPlayer()
    /// The player's clock: time moves only when ``VirtualClock/advance(by:)`` moves it.
    let clock = VirtualClock(mode: .manual)
    let item: AVPlayerItem
    let output: AVPlayerItemVideoOutput
    private let name: String

    /// Loads `url` with an output vending `pixelFormat` (BGRA by default), scaled to `width` x `height` when given
    /// (one of them alone keeps the aspect ratio).
    init(url: URL, width: Int? = nil, height: Int? = nil, pixelFormat: OSType = kCVPixelFormatType_32BGRA) {
        var attributes: [String: Any] = [kCVPixelBufferPixelFormatTypeKey: pixelFormat]
        if let width { attributes[kCVPixelBufferWidthKey] = width }
        if let height { attributes[kCVPixelBufferHeightKey] = height }
        output = AVPlayerItemVideoOutput(pixelBufferAttributes: attributes)
        item = AVPlayerItem(url: url)
        name = url.isFileURL ? url.lastPathComponent : url.absoluteString
        item.add(output)
        player.sourceClock = clock
        player.replaceCurrentItem(with: item)
    }

    /// Waits until the item is ready to play; throws its error when it fails or has no video.
    func waitUntilReady() async throws {
        try await poll(timeout: 30, "“\(name)” did not get ready to play") {
            if item.status == .failed {
                throw item.error ?? Failure(description: "“\(name)” can’t be played.")
            }
            return item.status == .readyToPlay
        }
        let tracks = try await item.asset.loadTracks(withMediaType: .video)
        if tracks.isEmpty { throw Failure(description: "“\(name)” has no video.") }
    }

    /// The item's duration (numeric once ready).
    var duration: CMTime { item.duration }

    /// Seeks to `time` (frame-exact when `exact`, else to a nearby keyframe) and returns the picture shown there
    /// and its own item time.
    func picture(at time: CMTime, exact: Bool) async throws -> (buffer: CVPixelBuffer, time: CMTime) {
        let tolerance: CMTime = exact ? .zero : .positiveInfinity
        let finished = await item.seek(to: time, toleranceBefore: tolerance, toleranceAfter: tolerance)
        if !finished {
            throw Failure(description: "Seeking “\(name)” to \(FrameCommand.format(time.seconds)) failed.")
        }
        var result: (CVPixelBuffer, CMTime)?
        try await poll(timeout: 30, "no picture came at \(FrameCommand.format(time.seconds))") {
            if item.status == .failed { throw item.error ?? Failure(description: "“\(name)” failed.") }
            let now = item.currentTime()
            guard output.hasNewPixelBuffer(forItemTime: now) else { return false }
            var shown = CMTime.invalid
            guard let buffer = output.copyPixelBuffer(forItemTime: now, itemTimeForDisplay: &shown) else {
                return false
            }
            result = (buffer, shown)
            return true
        }
        guard let result else { throw Failure(description: "no picture came") }
        return result
    }

    /// Calls `done` every 2 ms (letting the main queue deliver the player's changes) until it returns true.
    private func poll(timeout: Double, _ what: String, _ done: () throws -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !done() {
            if Date() > deadline { throw Failure(description: what) }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
    }
}

/// `avplay frame FILE --at T [--exact] [--size WxH] -o out.png`: one picture as a PNG file.
enum FrameCommand {
    /// The parsed command line.
    struct Options {
        var input: String
        var at: Double
        var exact = false
        var size: (width: Int, height: Int)?
        var output: String
    }

    /// Parses `WxH` (both positive).
    static func parseSize(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0, w <= 16384, h <= 16384
        else { return nil }
        return (w, h)
    }

    /// Seconds as `m:ss.mmm` (or `h:mm:ss.mmm`), the form printed and drawn under thumbnails.
    static func format(_ seconds: Double) -> String {
        let ms = Int((max(0, seconds) * 1000).rounded())
        let (h, m, s, f) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
        let tail = String(format: "%02d.%03d", s, f)
        return h > 0 ? String(format: "%d:%02d:", h, m) + tail : String(format: "%d:", m) + tail
    }

    /// Parses the arguments; nil (after saying why) on a usage error.
    static func parse(_ arguments: [String]) -> Options? {
        var input: String?
        var at: Double?
        var output: String?
        var exact = false
        var size: (width: Int, height: Int)?
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            let next = i + 1 < arguments.count ? arguments[i + 1] : nil
            switch a {
            case "--at":
                guard let v = next.flatMap(Double.init), v >= 0, v.isFinite else {
                    Terminal.error("frame: --at needs a time in seconds (≥ 0)")
                    return nil
                }
                at = v
                i += 1
            case "--size":
                guard let s = next.flatMap(parseSize) else {
                    Terminal.error("frame: --size needs WIDTHxHEIGHT, e.g. 160x120")
                    return nil
                }
                size = s
                i += 1
            case "-o", "--output":
                guard let next else {
                    Terminal.error("frame: -o needs a file name")
                    return nil
                }
                output = next
                i += 1
            case "--exact": exact = true
            default:
                if a.hasPrefix("-") && a != "-" || input != nil {
                    Terminal.error("frame: unexpected argument “\(a)”")
                    return nil
                }
                input = a
            }
            i += 1
        }
        guard let input, let at, let output else {
            Terminal.error("frame: give FILE, --at T and -o OUT.png (see avplay --help)")
            return nil
        }
        return Options(input: input, at: at, exact: exact, size: size, output: output)
    }

    @MainActor
    static func run(_ arguments: [String]) async -> Int32 {
        guard let o = parse(arguments) else { return 2 }
        let grabber = FrameGrabber(url: mediaURL(o.input), width: o.size?.width, height: o.size?.height)
        do {
            try await grabber.waitUntilReady()
            let target = CMTime(seconds: o.at, preferredTimescale: 1_000_000)
            let duration = grabber.duration
            if duration.isNumeric && target > duration {
                throw FrameGrabber.Failure(
                    description: "--at \(format(o.at)) is after the end (\(format(duration.seconds))).")
            }
            let (buffer, time) = try await grabber.picture(at: target, exact: o.exact)
            try OAVFWritePNG(buffer, to: URL(fileURLWithPath: o.output))
            print(
                "frame at \(format(time.seconds)) (\(time.value)/\(time.timescale) s), "
                    + "\(CVPixelBufferGetWidth(buffer))x\(CVPixelBufferGetHeight(buffer)) → \(o.output)")
            return 0
        } catch {
            Terminal.error(message(error))
            return 1
        }
    }

    /// An error's text for people.
    static func message(_ error: any Error) -> String {
        if let f = error as? FrameGrabber.Failure { return f.description }
        return error.localizedDescription
    }
}
