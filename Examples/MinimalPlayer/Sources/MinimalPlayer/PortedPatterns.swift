// Patterns of iOS/macOS player code that Linux cannot have, each in its smallest rewrite (the porting guide's
// "What Linux cannot have"), compiled and run by `make examples`:
//
// - a Clang-style submodule import (`import AVFoundation.AVPlayerItem`), which compiles unchanged;
// - the app's audio session, configured as iOS players configure it, unchanged;
// - string-keyed KVO with `override func observeValue(forKeyPath:of:change:context:)`: the body stays, `override`
//   goes, and a block observation feeds it;
// - `#selector` targets (`addObserver(_:selector:name:object:)`, `Timer(target:selector:)`): the method stays, `@objc`
//   goes, and a closure calls it;
// - Combine's `publisher(for: \.timeControlStatus)`: a block observation kept in an array, as cancellables are.
import AVFoundation.AVPlayerItem

/// Watches a player and its item the way an iOS view controller did, ported. Main-actor isolated, as a view
/// controller is; `@Sendable` callbacks that run on the main queue enter it with `MainActor.assumeIsolated`.
@MainActor
final class PlaybackReporter {
    private let player: AVPlayer
    private var statusObservation: NSKeyValueObservation?
    private var observations: [NSKeyValueObservation] = []
    private var endToken: NSObjectProtocol?
    private var routeToken: NSObjectProtocol?
    private var interruptionToken: NSObjectProtocol?
    private var timer: Timer?

    init(player: AVPlayer) {
        self.player = player
    }

    /// Configures the audio session (as on iOS) and starts watching.
    func start() {
        let session = AVAudioSession.sharedInstance()
        do {
            try session.setCategory(.playback, mode: .moviePlayback, options: [])
            try session.setActive(true)
            let port = session.currentRoute.outputs.first?.portName ?? "no output"
            print("audio session: \(session.category.rawValue) on \(port)")
        } catch {
            // No sound system: playback still runs, silently.
            print("audio session unavailable: \(error.localizedDescription)")
        }
        interruptionToken = NotificationCenter.default.addObserver(
            forName: AVAudioSession.interruptionNotification, object: session, queue: .main
        ) { [weak self] note in
            self?.handleInterruption(note)
        }
        routeToken = NotificationCenter.default.addObserver(
            forName: AVAudioSession.routeChangeNotification, object: session, queue: .main
        ) { [weak self] note in
            self?.handleRouteChange(note)
        }

        guard let item = player.currentItem else { return }
        // Was: item.addObserver(self, forKeyPath: "status", options: [.new], context: nil)
        statusObservation = item.observe(\.status, options: [.new]) { [weak self] item, _ in
            self?.observeValue(
                forKeyPath: "status", of: item, change: [.newKey: item.status.rawValue, .kindKey: 1], context: nil)
        }
        // Was: NotificationCenter.default.addObserver(self, selector: #selector(itemDidPlayToEnd(_:)),
        //                                             name: .AVPlayerItemDidPlayToEndTime, object: item)
        endToken = NotificationCenter.default.addObserver(
            forName: .AVPlayerItemDidPlayToEndTime, object: item, queue: .main
        ) { [weak self] note in
            self?.itemDidPlayToEnd(note)
        }
        // Was: player.publisher(for: \.timeControlStatus).sink { ... }.store(in: &cancellables)
        observations.append(
            player.observe(\.timeControlStatus, options: [.initial, .new]) { player, _ in
                if player.timeControlStatus == .playing { print("playing") }
            })
        // Was: Timer.scheduledTimer(timeInterval: 5, target: self, selector: #selector(tick), userInfo: nil,
        //                           repeats: true)
        // (A timer fires when the main run loop runs; this example runs dispatchMain(), so it shows the spelling.)
        timer = Timer.scheduledTimer(withTimeInterval: 5, repeats: true) { [weak self] _ in
            MainActor.assumeIsolated { self?.tick() }
        }
    }

    // The body as it was, without `override` (NSObject has no observeValue on Linux).
    func observeValue(
        forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
        context: UnsafeMutableRawPointer?
    ) {
        guard keyPath == "status", let number = change?[.newKey] as? NSNumber,
            let status = AVPlayerItem.Status(rawValue: number.intValue)
        else { return }
        if status == .failed { print("item failed") }
    }

    // Was `@objc func itemDidPlayToEnd(_ notification: Notification)`. Nonisolated, because a `Notification` cannot
    // be sent into the main actor in Swift 6; it enters the main actor for the class's state (it runs on the main
    // queue).
    nonisolated func itemDidPlayToEnd(_ notification: Notification) {
        MainActor.assumeIsolated { timer?.invalidate() }
    }

    // Was `@objc func tick()`.
    func tick() {
        print(String(format: "position %.1f s", player.currentTime().seconds))
    }

    // Never called on Linux (see AVAudioSession.interruptionNotification); kept as the iOS code wrote it. Nonisolated
    // as itemDidPlayToEnd(_:) is; `player` is a Sendable constant.
    nonisolated func handleInterruption(_ notification: Notification) {
        guard let raw = notification.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt,
            let type = AVAudioSession.InterruptionType(rawValue: raw)
        else { return }
        switch type {
        case .began:
            player.pause()
        case .ended:
            let options = (notification.userInfo?[AVAudioSessionInterruptionOptionKey] as? UInt)
                .map(AVAudioSession.InterruptionOptions.init(rawValue:))
            if options?.contains(.shouldResume) == true { player.play() }
        }
    }

    // Posted when SDL reports an output added or lost.
    nonisolated func handleRouteChange(_ notification: Notification) {
        guard let raw = notification.userInfo?[AVAudioSessionRouteChangeReasonKey] as? UInt,
            let reason = AVAudioSession.RouteChangeReason(rawValue: raw)
        else { return }
        if reason == .oldDeviceUnavailable { player.pause() }
    }
}
