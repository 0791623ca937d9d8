import AVFoundation

#if canImport(Glibc)
import Glibc
#endif

/// One run of the player: follows the current item (status, end, failure), applies keys, and keeps the
/// status line (or the event stream) up to date. Lives on the main actor, where the API delivers
/// observations and notifications.
@MainActor
final class PlaySession {
    let player: AVQueuePlayer
    let options: PlayCommand.Options
    let status: StatusLine
    let events: EventLog
    let failures = FailureCount()

    /// Status-line state the player does not hold: seek mode, resume rate, option names, last message.
    private var extras = StatusExtras()
    private var observations: [NSKeyValueObservation] = []
    private var itemObservations: [NSKeyValueObservation] = []
    private var itemNotifications: [any NSObjectProtocol] = []
    private var timer: (any DispatchSourceTimer)?
    /// How many items have become current (the event stream's `index`).
    private var itemCount = 0
    /// The current item's event fields (kept after the queue ends, for the last time event).
    private var currentInfo = ItemInfo(index: 0, file: nil)
    private weak var followedItem: AVPlayerItem?
    /// How many of the followed item's variant decisions `--events` printed.
    private var variantDecisionsEmitted = 0
    private var startApplied = false
    private var finishing = false

    init(player: AVQueuePlayer, options: PlayCommand.Options) {
        self.player = player
        self.options = options
        status = StatusLine(enabled: !options.quiet && !options.events)
        events = EventLog(enabled: options.events)
        extras.exactSeeking = options.exact
        extras.rate = options.rate
    }

    /// Observes the player, starts playback at the requested rate and the status-line refresh.
    func start() {
        observations.append(
            player.observe(\.currentItem, options: [.initial]) { [weak self] player, _ in
                MainActor.assumeIsolated { self?.currentItemChanged(player.currentItem) }
            })
        observations.append(
            player.observe(\.rate) { [weak self] player, _ in
                MainActor.assumeIsolated { self?.events.emit("rate", ["rate": Double(player.rate)]) }
            })
        observations.append(
            player.observe(\.timeControlStatus) { [weak self] player, _ in
                MainActor.assumeIsolated {
                    self?.events.emit("timeControlStatus", ["value": Self.name(player.timeControlStatus)])
                }
            })
        _ = player.addPeriodicTimeObserver(forInterval: CMTime(value: 1, timescale: 2), queue: .main) {
            [weak self] time in
            MainActor.assumeIsolated {
                guard let self, time.isNumeric else { return }
                self.emitVariantDecisions()
                self.events.emit("time", self.currentInfo.fields.merging(["time": time.seconds]) { a, _ in a })
            }
        }
        if status.enabled {
            let timer = DispatchSource.makeTimerSource(queue: .main)
            timer.schedule(deadline: .now(), repeating: .milliseconds(100))
            timer.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.refresh() } }
            timer.resume()
            self.timer = timer
        }
        player.defaultRate = options.rate
        if options.paused {
            extras.message = "pause"
        } else {
            player.rate = options.rate
        }
    }

    // MARK: Items

    private func currentItemChanged(_ item: AVPlayerItem?) {
        // A change notification can repeat the item already followed (a looper re-inserting replicas).
        guard item == nil || item !== followedItem else { return }
        followedItem = item
        variantDecisionsEmitted = 0
        itemObservations.removeAll()
        for token in itemNotifications { NotificationCenter.default.removeObserver(token) }
        itemNotifications.removeAll()
        guard let item else {
            finish(failures.value > 0 ? 1 : 0)
            return
        }
        if itemCount > 0 { extras.message = "" }
        itemCount += 1
        let info = ItemInfo(index: itemCount - 1, file: (item.asset as? AVURLAsset)?.url.lastPathComponent)
        currentInfo = info
        itemObservations.append(
            item.observe(\.status, options: [.initial]) { [weak self] item, _ in
                MainActor.assumeIsolated { self?.itemStatusChanged(item, info.fields) }
            })
        itemObservations.append(
            item.observe(\.timedMetadata) { [weak self] item, _ in
                MainActor.assumeIsolated { self?.timedMetadataChanged(item.timedMetadata, info.fields) }
            })
        itemNotifications.append(
            NotificationCenter.default.addObserver(
                forName: AVPlayerItem.didPlayToEndTimeNotification, object: item, queue: .main
            ) { [weak self] _ in
                MainActor.assumeIsolated {
                    self?.emitVariantDecisions()
                    self?.events.emit("end", info.fields)
                }
            })
        itemNotifications.append(
            NotificationCenter.default.addObserver(
                forName: AVPlayerItem.failedToPlayToEndTimeNotification, object: item, queue: .main
            ) { [weak self] note in
                let error = note.userInfo?[AVPlayerItemFailedToPlayToEndTimeErrorKey] as? NSError
                let message = error?.localizedDescription ?? "playback failed"
                MainActor.assumeIsolated { self?.itemFailed(item, message, info.fields) }
            })
    }

    /// `--events`: the HTTP Live Streaming variant decisions of the current item not printed yet (an
    /// OpenAVFoundation extension: each with its reason and the estimate, buffer and caps it was made on).
    private func emitVariantDecisions() {
        guard events.enabled, let item = followedItem else { return }
        let decisions = item.oavfVariantDecisions
        guard decisions.count > variantDecisionsEmitted else { return }
        for d in decisions[variantDecisionsEmitted...] {
            var fields = currentInfo.fields
            fields["reason"] = String(describing: d.reason)
            fields["mediaSequence"] = d.mediaSequence
            fields["time"] = d.itemTime.seconds
            fields["bitrate"] = d.toPeakBitRate
            if let from = d.fromPeakBitRate { fields["from"] = from }
            if let size = d.toPresentationSize { fields["size"] = "\(Int(size.width))x\(Int(size.height))" }
            if let estimate = d.estimatedBitRate { fields["estimate"] = estimate.rounded() }
            if let buffer = d.forwardBufferDuration { fields["buffer"] = (buffer * 1000).rounded() / 1000 }
            if let cap = d.peakBitRateCap { fields["peakBitRateCap"] = cap }
            if let cap = d.maximumResolutionCap { fields["resolutionCap"] = "\(Int(cap.width))x\(Int(cap.height))" }
            events.emit("variant", fields)
        }
        variantDecisionsEmitted = decisions.count
    }

    private func itemStatusChanged(_ item: AVPlayerItem, _ fields: [String: Any]) {
        switch item.status {
        case .unknown:
            return
        case .readyToPlay:
            let ready: [String: Any] = ["status": "readyToPlay", "pitch": item.audioTimePitchAlgorithm.rawValue]
            events.emit("status", fields.merging(ready) { a, _ in a })
            updateSelectionNames(item)
            if let start = options.start, !startApplied {
                startApplied = true
                item.seek(
                    to: CMTime(seconds: start, preferredTimescale: 600), toleranceBefore: .zero, toleranceAfter: .zero,
                    completionHandler: nil)
            }
        case .failed:
            events.emit("status", fields.merging(["status": "failed"]) { a, _ in a })
            itemFailed(item, item.error?.localizedDescription ?? "cannot play", fields)
        @unknown default:
            return
        }
    }

    /// The timed metadata in effect changed (an ID3 tag, an ICY title): a `metadata` event with the tag's time and
    /// its items by identifier (text as is, binary values as hexadecimal).
    private func timedMetadataChanged(_ items: [AVMetadataItem]?, _ fields: [String: Any]) {
        guard let items, let first = items.first else { return }
        var values: [String: String] = [:]
        for item in items {
            guard let identifier = item.identifier?.rawValue else { continue }
            values[identifier] =
                item.stringValue ?? item.dataValue.map { $0.map { String(format: "%02x", $0) }.joined() } ?? ""
        }
        var event = fields
        event["time"] = first.time.isNumeric ? first.time.seconds : 0
        event["items"] = values
        events.emit("metadata", event)
        if let title = items.first(where: { $0.commonKey == .commonKeyTitle })?.stringValue {
            extras.message = title
        }
    }

    private func itemFailed(_ item: AVPlayerItem, _ message: String, _ fields: [String: Any]) {
        let name = (item.asset as? AVURLAsset)?.url.lastPathComponent ?? "?"
        events.emit("error", fields.merging(["message": message]) { a, _ in a })
        status.clear()
        Terminal.error(message.contains(name) ? message : "\(name): \(message)")
        failures.increment()
        if player.currentItem === item { player.advanceToNextItem() }
    }

    /// Restores the terminal and exits with `code`, after the main queue has delivered what is already
    /// queued (an item's end notification can trail the player's change of current item).
    func finish(_ code: Int32) {
        guard !finishing else { return }
        finishing = true
        timer?.cancel()
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(50)) {
            MainActor.assumeIsolated {
                self.status.clear()
                TerminalInput.restore()
                self.events.emit("exit", ["code": Int(code)])
                exit(code)
            }
        }
    }

    private func refresh() {
        guard !finishing else { return }
        status.show(player, extras)
    }

    // MARK: Keys

    /// Applies an event from the video window: its keys as the terminal's, a close request as `q`.
    func handle(_ event: AVPlayerLayerWindowEvent) {
        switch event {
        case .keyDown(let windowKey):
            if let key = Key(windowKey) { handle(key) }
        case .closeRequested:
            quit()
        }
    }

    /// Quits: exit status 0, or 1 when an input could not be played.
    func quit() {
        finish(failures.value > 0 ? 1 : 0)
    }

    /// Applies one key (see `avplay --help`, "Keys"), from the terminal or the video window: the one dispatcher.
    func handle(_ key: Key) {
        guard !finishing else { return }
        switch key {
        case .left: seek(by: -5)
        case .right: seek(by: 5)
        case .down: seek(by: -60)
        case .up: seek(by: 60)
        case .character(let c): handle(c)
        }
        refresh()
    }

    private func handle(_ c: Character) {
        switch c {
        case " ": togglePause()
        case "e":
            extras.exactSeeking.toggle()
            extras.message = extras.exactSeeking ? "exact seeking" : "fast seeking"
        case ",": step(by: -1)
        case ".": step(by: 1)
        case "[": changeRate(by: 1 / 1.25)
        case "]": changeRate(by: 1.25)
        case "{": stepRatePreset(up: false)
        case "}": stepRatePreset(up: true)
        case "m":
            player.isMuted.toggle()
            extras.message = player.isMuted ? "muted" : "unmuted"
        case "9": changeVolume(by: -0.1)
        case "0": changeVolume(by: 0.1)
        case "a": cycle(.audible, includingOff: false)
        case "s": cycle(.legible, includingOff: true)
        case "n":
            extras.message = "next"
            player.advanceToNextItem()
        case "q": quit()
        default: break
        }
    }

    private func togglePause() {
        if player.rate == 0 {
            player.rate = extras.rate
            extras.message = "play"
        } else {
            player.pause()
            extras.message = "pause"
        }
    }

    private func seek(by seconds: Double) {
        guard let item = player.currentItem, item.status == .readyToPlay else {
            extras.message = "not ready to seek"
            return
        }
        var target = item.currentTime().seconds + seconds
        let duration = item.duration.seconds
        if duration.isFinite { target = min(target, duration) }
        target = max(target, 0)
        let time = CMTime(seconds: target, preferredTimescale: 600)
        if extras.exactSeeking {
            player.seek(to: time, toleranceBefore: .zero, toleranceAfter: .zero)
        } else {
            player.seek(to: time)
        }
        extras.message = String(format: "seek %+.0f s", seconds)
    }

    /// Steps one frame while paused, when the item supports it; otherwise says why not.
    private func step(by frames: Int) {
        guard let item = player.currentItem else { return }
        let allowed = frames > 0 ? item.canStepForward : item.canStepBackward
        guard allowed else {
            extras.message = "can’t step \(frames > 0 ? "forward" : "back") here"
            return
        }
        player.pause()
        item.step(byCount: frames)
        extras.message = frames > 0 ? "step +1" : "step -1"
    }

    /// Multiplies the rate's magnitude by `factor` (keeping its direction), within 1/32 … 32.
    private func changeRate(by factor: Float) {
        let magnitude = min(max(abs(extras.rate) * factor, 1 / 32), 32)
        setRate(extras.rate < 0 ? -magnitude : magnitude)
    }

    /// The rates `{` and `}` step through; the reverse ones only when the current item can play them.
    static let ratePresets: [Float] = [-2, -1, -0.5, 0.25, 0.5, 1, 1.5, 2, 4, 8]

    /// Whether `item` can play at the preset `rate`: forward rates always (the player plays 1/32 … 32), reverse
    /// ones per the item's `canPlayReverse` (−1), `canPlaySlowReverse` (−1 … 0) and `canPlayFastReverse` (< −1).
    static func canPlay(preset rate: Float, _ item: AVPlayerItem?) -> Bool {
        if rate > 0 { return true }
        guard let item, item.canPlayReverse else { return false }
        if rate == -1 { return true }
        return rate > -1 ? item.canPlaySlowReverse : item.canPlayFastReverse
    }

    /// The next preset rate above (`up`) or below the current one that the item can play.
    static func nextPreset(after rate: Float, up: Bool, _ item: AVPlayerItem?) -> Float? {
        let usable = ratePresets.filter { canPlay(preset: $0, item) }
        return up ? usable.first { $0 > rate + 1e-4 } : usable.last { $0 < rate - 1e-4 }
    }

    private func stepRatePreset(up: Bool) {
        guard let rate = Self.nextPreset(after: extras.rate, up: up, player.currentItem) else {
            let reverse = player.currentItem?.canPlayReverse == true ? "" : " (this item can’t play in reverse)"
            let which = up ? "highest" : "lowest"
            extras.message = String(format: "rate %.2f× is the ", extras.rate) + "\(which) preset" + (up ? "" : reverse)
            return
        }
        setRate(rate)
    }

    /// Plays at `rate` from now on (when paused, once resumed).
    private func setRate(_ rate: Float) {
        extras.rate = rate
        player.defaultRate = rate
        if player.rate != 0 { player.rate = rate }
        extras.message = String(format: "rate %.2f×", rate)
    }

    private func changeVolume(by delta: Float) {
        player.volume = min(max(((player.volume + delta) * 10).rounded() / 10, 0), 1)
        extras.message = "volume \(Int((player.volume * 100).rounded()))%"
    }

    /// Selects the next option of the asset's group for `characteristic` (and "off" after the last,
    /// when `includingOff`).
    private func cycle(_ characteristic: AVMediaCharacteristic, includingOff: Bool) {
        let what = characteristic == .audible ? "audio" : "subtitles"
        guard let item = player.currentItem,
            let group = item.asset.mediaSelectionGroup(forMediaCharacteristic: characteristic)
        else {
            extras.message = "no \(what) options"
            return
        }
        var choices: [AVMediaSelectionOption?] = group.options
        if includingOff { choices.append(nil) }
        let current = item.currentMediaSelection.selectedMediaOption(in: group)
        let index = choices.firstIndex { $0 == current } ?? -1
        let next = choices[(index + 1) % choices.count]
        item.select(next, in: group)
        updateSelectionNames(item)
        extras.message = "\(what): \(next?.displayName ?? "off")"
    }

    private func updateSelectionNames(_ item: AVPlayerItem) {
        let selection = item.currentMediaSelection
        if let audible = item.asset.mediaSelectionGroup(forMediaCharacteristic: .audible) {
            extras.audio = selection.selectedMediaOption(in: audible)?.displayName ?? "off"
        } else {
            extras.audio = nil
        }
        if let legible = item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible) {
            extras.subtitles = selection.selectedMediaOption(in: legible)?.displayName ?? "off"
        } else {
            extras.subtitles = nil
        }
    }

    private static func name(_ status: AVPlayer.TimeControlStatus) -> String {
        switch status {
        case .paused: return "paused"
        case .waitingToPlayAtSpecifiedRate: return "waiting"
        case .playing: return "playing"
        }
    }
}

/// Which item an event is about: its place in the order items became current, and its file name.
struct ItemInfo: Sendable {
    var index: Int
    var file: String?

    /// The event fields `index` and `file`.
    var fields: [String: Any] {
        var fields: [String: Any] = ["index": index]
        if let file { fields["file"] = file }
        return fields
    }
}
