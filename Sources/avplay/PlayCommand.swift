import AVFoundation
import OAVFLocking

#if canImport(Glibc)
import Glibc
#endif

/// `avplay [play] FILE|URL …`: plays the inputs in order (an `AVQueuePlayer`, or an `AVPlayerLooper`
/// with `--loop`) with sound, keys and a status line on the terminal, or JSON events with `--events`.
enum PlayCommand {
    /// The parsed command line.
    struct Options {
        var inputs: [String] = []
        var volume: Float = 1
        var muted = false
        var rate: Float = 1
        var start: Double?
        var end: Double?
        var quiet = false
        var loop = false
        var exact = false
        var noAudio = false
        var events = false
        var noWindow = false
        /// Start paused (`--pause`): the first picture (at `--start`) is shown, space plays.
        var paused = false
        /// `audioTimePitchAlgorithm` for every item.
        var pitch: AVAudioTimePitchAlgorithm = .timeDomain
    }

    /// Parses the play command's arguments; nil (after saying why) on a usage error.
    static func parse(_ arguments: [String]) -> Options? {
        var o = Options()
        var i = 0
        func value() -> String? {
            i += 1
            return i < arguments.count ? arguments[i] : nil
        }
        func number<T: LosslessStringConvertible>(_ name: String, _ valid: (T) -> Bool = { _ in true }) -> T? {
            guard let v = value().flatMap(T.init), valid(v) else {
                Terminal.error("\(name) needs a valid number")
                return nil
            }
            return v
        }
        while i < arguments.count {
            let a = arguments[i]
            switch a {
            case "--volume":
                guard let v: Float = number(a, { $0 >= 0 && $0 <= 1 }) else { return nil }
                o.volume = v
            case "--rate":
                // Negative rates play backwards (items that can play in reverse).
                guard let v: Float = number(a, { $0 != 0 && abs($0) <= 32 }) else { return nil }
                o.rate = v
            case "--pitch":
                let names: [String: AVAudioTimePitchAlgorithm] = [
                    "varispeed": .varispeed, "timedomain": .timeDomain, "spectral": .spectral,
                    "lowquality": .lowQualityZeroLatency,
                ]
                guard let name = value(), let algorithm = names[name.lowercased()] else {
                    Terminal.error("--pitch takes varispeed, timedomain, spectral or lowquality")
                    return nil
                }
                o.pitch = algorithm
            case "--start":
                guard let v: Double = number(a, { $0 >= 0 }) else { return nil }
                o.start = v
            case "--end":
                guard let v: Double = number(a, { $0 > 0 }) else { return nil }
                o.end = v
            case "--mute": o.muted = true
            case "--quiet": o.quiet = true
            case "--loop": o.loop = true
            case "--exact": o.exact = true
            case "--no-audio": o.noAudio = true
            case "--no-window": o.noWindow = true
            case "--pause": o.paused = true
            case "--events": o.events = true
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

    /// What keeps playing until the process exits.
    @MainActor private static var running: (session: PlaySession, looper: AVPlayerLooper?, layer: AVPlayerLayer?)?

    /// Runs the player; never returns (exits the process when the queue is done, or on `q`).
    @MainActor
    static func run(_ options: Options) -> Never {
        if options.loop {
            if options.inputs.count > 1 { Terminal.error("--loop plays only the first input") }
            let item = AVPlayerItem(url: mediaURL(options.inputs[0]))
            // AVPlayerLooper needs the duration: load it first so bad input is an error, not a trap.
            item.asset.loadValuesAsynchronously(forKeys: ["duration"]) {
                DispatchQueue.main.async {
                    MainActor.assumeIsolated {
                        var error: NSError?
                        let loaded = item.asset.statusOfValue(forKey: "duration", error: &error) == .loaded
                        let duration = item.asset.duration
                        guard loaded, duration.isNumeric, duration > .zero else {
                            Terminal.error(error?.localizedDescription ?? "can’t loop an item without a duration")
                            exit(1)
                        }
                        let player = AVQueuePlayer()
                        let looper = AVPlayerLooper(player: player, templateItem: item)
                        begin(player, options, looper: looper)
                    }
                }
            }
        } else {
            begin(AVQueuePlayer(items: options.inputs.map { AVPlayerItem(url: mediaURL($0)) }), options, looper: nil)
        }
        dispatchMain()
    }

    /// Configures `player`, starts the session and the key reader.
    @MainActor
    private static func begin(_ player: AVQueuePlayer, _ options: Options, looper: AVPlayerLooper?) {
        if let end = options.end, !options.loop {
            player.items().first?.forwardPlaybackEndTime = CMTime(seconds: end, preferredTimescale: 600)
        }
        for item in player.items() { item.audioTimePitchAlgorithm = options.pitch }
        player.volume = options.volume
        player.isMuted = options.muted || options.noAudio

        // A window (AVPlayerLayer) when a display exists; the layer opens it on the first picture.
        var layer: AVPlayerLayer?
        let env = ProcessInfo.processInfo.environment
        if !options.noWindow, env["DISPLAY"] != nil || env["WAYLAND_DISPLAY"] != nil {
            layer = AVPlayerLayer(player: player)
        }
        let session = PlaySession(player: player, options: options)
        running = (session, looper, layer)
        session.start()
        // Keys pressed in the window do what they do in the terminal; closing the window quits.
        layer?.windowEventHandler = { event in MainActor.assumeIsolated { session.handle(event) } }
        if TerminalInput.isInteractive {
            TerminalInput.enterRawMode()
            TerminalInput.startReading { key in session.handle(key) }
        } else {
            signal(SIGINT) { _ in
                FileHandle.standardError.write(Data("\n".utf8))
                exit(130)
            }
        }
    }
}

/// Counts inputs that could not be played (the exit status is 1 when any could not).
final class FailureCount: @unchecked Sendable {
    /// The count: incremented from the player's notification and observer threads, read by the main thread when
    /// the command ends. Not an engine command: it is avplay's own tally, not playback state.
    private let count = Locked(0)
    func increment() {
        count.withLock { $0 += 1 }
    }
    var value: Int {
        count.current
    }
}
