import AVFoundation

#if canImport(Glibc)
import Glibc
#endif

/// `avplay [play] FILE|URL …`: plays the inputs in order (an `AVQueuePlayer`) with sound and a
/// status line on the terminal. Keys and the window come later; Ctrl-C quits.
enum PlayCommand {
    struct Options {
        var inputs: [String] = []
        var volume: Float = 1
        var muted = false
        var rate: Float = 1
        var start: Double?
        var end: Double?
        var quiet = false
    }

    static func parse(_ arguments: [String]) -> Options? {
        var o = Options()
        var i = 0
        func value() -> String? {
            i += 1
            return i < arguments.count ? arguments[i] : nil
        }
        while i < arguments.count {
            let a = arguments[i]
            switch a {
            case "--volume": guard let v = value().flatMap(Float.init) else { return nil }; o.volume = v
            case "--mute": o.muted = true
            case "--rate": guard let v = value().flatMap(Float.init), v > 0 else { return nil }; o.rate = v
            case "--start": guard let v = value().flatMap(Double.init) else { return nil }; o.start = v
            case "--end": guard let v = value().flatMap(Double.init) else { return nil }; o.end = v
            case "--quiet": o.quiet = true
            default:
                if a.hasPrefix("-") && a != "-" {
                    Terminal.error("unknown option “\(a)”")
                    return nil
                }
                o.inputs.append(a)
            }
            i += 1
        }
        return o.inputs.isEmpty ? nil : o
    }

    /// Runs the player; never returns (exits the process when the queue is done).
    static func run(_ options: Options) -> Never {
        let items = options.inputs.map { AVPlayerItem(url: mediaURL($0)) }
        if let end = options.end {
            items.first?.forwardPlaybackEndTime = CMTime(seconds: end, preferredTimescale: 600)
        }
        let player = AVQueuePlayer(items: items)
        player.volume = options.volume
        player.isMuted = options.muted
        let status = StatusLine(enabled: !options.quiet)
        let failures = FailureCount()

        for item in items {
            let name = item.asset is AVURLAsset ? (item.asset as! AVURLAsset).url.lastPathComponent : "?"
            _ = NotificationCenter.default.addObserver(
                forName: AVPlayerItem.failedToPlayToEndTimeNotification, object: item, queue: .main
            ) { note in
                let error = note.userInfo?[AVPlayerItemFailedToPlayToEndTimeErrorKey] as? NSError
                status.clear()
                Terminal.error("\(name): \(error?.localizedDescription ?? "playback failed")")
            }
        }
        var observations: [NSKeyValueObservation] = []
        for item in items {
            observations.append(
                item.observe(\.status) { item, _ in
                    guard item.status == .failed else { return }
                    status.clear()
                    Terminal.error(item.error?.localizedDescription ?? "cannot play")
                    failures.increment()
                    (player as AVQueuePlayer).advanceToNextItem()
                })
        }
        observations.append(
            player.observe(\.currentItem) { player, _ in
                if player.currentItem == nil {
                    status.clear()
                    exit(failures.value > 0 ? 1 : 0)
                }
            })
        _ = player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 10), queue: .main) { _ in
            MainActor.assumeIsolated { status.show(player) }
        }
        signal(SIGINT) { _ in
            FileHandle.standardError.write(Data("\n".utf8))
            exit(130)
        }
        if let start = options.start, let first = items.first {
            _ = first.observe(\.status) { item, _ in
                if item.status == .readyToPlay {
                    item.seek(
                        to: CMTime(seconds: start, preferredTimescale: 600), toleranceBefore: .zero,
                        toleranceAfter: .zero)
                }
            }
        }
        player.rate = options.rate
        withExtendedLifetime(observations) {
            dispatchMain()
        }
    }
}

final class FailureCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

/// The one-line status on the terminal: `▶ 0:03.2 / 0:10.0 [=====-----] 1.00× vol 100%  name`.
final class StatusLine: @unchecked Sendable {
    let enabled: Bool
    init(enabled: Bool) { self.enabled = enabled }

    func show(_ player: AVPlayer) {
        guard enabled, let item = player.currentItem else { return }
        let t = item.currentTime().seconds
        let d = item.duration.seconds
        let width = 24
        var bar = ""
        if d.isFinite && d > 0 {
            let done = Int((min(max(t / d, 0), 1) * Double(width)).rounded())
            var loaded = done
            if let range = item.loadedTimeRanges.last?.timeRangeValue, range.end.seconds.isFinite {
                loaded = max(done, Int((min(range.end.seconds / d, 1) * Double(width)).rounded()))
            }
            bar =
                String(repeating: "=", count: done) + String(repeating: "-", count: loaded - done)
                + String(repeating: " ", count: width - loaded)
        } else {
            bar = String(repeating: " ", count: width)
        }
        let state: String
        switch player.timeControlStatus {
        case .playing: state = "▶"
        case .paused: state = "⏸"
        case .waitingToPlayAtSpecifiedRate: state = "…"
        }
        let name = (item.asset as? AVURLAsset)?.url.lastPathComponent ?? ""
        let volume = player.isMuted ? "muted" : "vol \(Int(player.volume * 100))%"
        let line = String(
            format: "%@ %@ / %@ [%@] %.2f× %@  %@", state, clock(t), d.isFinite ? clock(d) : "--:--", bar,
            player.rate, volume, name)
        FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }

    func clock(_ s: Double) -> String {
        guard s.isFinite else { return "--:--" }
        let m = Int(s) / 60
        return String(format: "%d:%04.1f", m, s - Double(m * 60))
    }
}
