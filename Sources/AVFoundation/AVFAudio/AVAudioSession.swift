import Foundation
import OAVFLocking
import PlaybackEngine
import SDLOutput

/// The app's audio session (AVFAudio's `AVAudioSession`, which `import AVFoundation` brings on Apple's systems and
/// here): how the app uses audio, its activation, and the output route with the device's properties.
///
/// Linux meaning (through SDL 2, the audio output the players use):
/// - ``category``, ``mode``, ``categoryOptions`` and ``routeSharingPolicy`` are kept as set and observable
///   (`observe(\.category, options: [.old, .new]) { session, change in ... }`, Swift Observation). They do not change
///   what is heard: the sound server (PipeWire, PulseAudio) or ALSA mixes every program's streams.
/// - ``setActive(_:options:)`` with `true` starts SDL's audio driver (as `SDL_AUDIODRIVER` names it, or SDL's
///   choice), opens the default output device paused for a moment to learn what it grants at the preferred sample
///   rate and buffer duration (or, when a player already holds an output open, takes that device and what it was
///   granted), and watches devices coming and going until the session is deactivated. It throws
///   (`NSOSStatusErrorDomain`, ``ErrorCode/cannotStartPlaying``) when no driver starts or no device opens, e.g. on a
///   machine without sound that names no `dummy` / `disk` driver. Activation does not gate playback: players open
///   their own device whether or not the session is active.
/// - ``currentRoute`` names that device: SDL's name for it, its channels, a port type guessed from its name.
///   ``sampleRate``, ``ioBufferDuration``, ``outputLatency`` and ``outputNumberOfChannels`` are what the device
///   granted. They are empty and 0 until the first activation (set the category and activate first, as Apple
///   recommends), and describe the last device readied after deactivation.
/// - ``outputVolume`` is 1: SDL 2 has no access to the system mixer's volume, and plays at full scale.
/// - ``routeChangeNotification`` is posted when SDL reports a device added (`.newDeviceAvailable`) or an open
///   device lost (`.oldDeviceUnavailable`) while the session is active, and when the category changes while it is
///   active (`.categoryChange`). ``interruptionNotification``, ``mediaServicesWereLostNotification``,
///   ``mediaServicesWereResetNotification`` and ``silenceSecondaryAudioHintNotification`` are never posted: Linux has
///   no arbiter taking the audio from one program for another, nor a media server reset under the app (see
///   AVAudioSession+Notifications.swift). ``isOtherAudioPlaying`` and ``secondaryAudioShouldBeSilencedHint`` are
///   therefore always false.
///
/// Thread-safe: every method and property may be used from any thread. Changes the app makes are announced to
/// key-value observers on the calling thread before the call returns; changes the devices make (a route change)
/// on the main queue; notifications are posted on a private serial queue, as Apple posts them on a secondary thread.
open class AVAudioSession: NSObject, @unchecked Sendable {
    /// What the session holds.
    struct State {
        var category = Category.soloAmbient
        var mode = Mode.default
        var categoryOptions: CategoryOptions = []
        var routeSharingPolicy = RouteSharingPolicy.default
        var isActive = false
        var preferredSampleRate = 0.0
        var preferredIOBufferDuration = 0.0
        /// The device readied by the last activation or route change (nil before the first, or when none opened).
        var device: SDLOutputDeviceInfo?
        var route = AVAudioSessionRouteDescription(inputs: [], outputs: [])
    }

    /// The session's state; getters read it, setters change it inside the hub's `withMutation`. App threads and SDL's
    /// device-event handler. Not an engine command: the session is process-wide, not one player's.
    private let state = Locked(State())

    /// Key-value and Swift Observation of the observable properties.
    let observationHub = ObservationHub<AVAudioSession>()

    /// Serialises activation, deactivation and device refreshes (the work that talks to SDL), so a route change and a
    /// `setActive(false)` never interleave. Never held while observers or notifications run. Not an engine command: the
    /// session is process-wide, not one player's. Lock order: this lock, then `state`'s.
    private let activation = ConditionLock()

    /// Where notifications are posted, in order.
    private let notificationQueue = DispatchQueue(label: "OpenAVFoundation.AVAudioSession.notifications")

    /// SDL's device watch, made once (guarded by its own lock). Made by the first caller that needs it (any app
    /// thread). Not an engine command: the session is process-wide, not one player's.
    private let deviceWatch = Locked<SDLAudioDeviceWatch?>(nil)

    /// The sample rate asked of the device when none is preferred: what the players' devices ask for.
    static let defaultSampleRate = AudioFormat.standard.sampleRate

    /// The one session of the process.
    private static let shared = AVAudioSession(singleton: ())

    /// The app's audio session.
    open class func sharedInstance() -> AVAudioSession {
        shared
    }

    private init(singleton: Void) {
        super.init()
        let watch = SDLAudioDeviceWatch { [weak self] event in self?.deviceChanged(event) }
        deviceWatch.withLock { $0 = watch }
    }

    // MARK: Category and mode

    /// The category (`.soloAmbient` until set). Observable.
    open var category: Category {
        observationHub.access(self, keyPath: \.category)
        return state.withLock { $0.category }
    }

    /// The mode (`.default` until set). Observable.
    open var mode: Mode {
        observationHub.access(self, keyPath: \.mode)
        return state.withLock { $0.mode }
    }

    /// The category's options. Observable.
    open var categoryOptions: CategoryOptions {
        observationHub.access(self, keyPath: \.categoryOptions)
        return state.withLock { $0.categoryOptions }
    }

    /// The route-sharing policy. Observable.
    open var routeSharingPolicy: RouteSharingPolicy {
        observationHub.access(self, keyPath: \.routeSharingPolicy)
        return state.withLock { $0.routeSharingPolicy }
    }

    /// The categories this device supports (all of them).
    open var availableCategories: [Category] {
        [.ambient, .multiRoute, .playAndRecord, .playback, .record, .soloAmbient]
    }

    /// The modes this device supports (all of them).
    open var availableModes: [Mode] {
        [
            .default, .gameChat, .measurement, .moviePlayback, .spokenAudio, .videoChat, .videoRecording,
            .voiceChat, .voicePrompt,
        ]
    }

    /// Sets the category, keeping the mode and clearing the options.
    open func setCategory(_ category: Category) throws {
        try storeCategory(category, mode: nil, policy: nil, options: [])
    }

    /// Sets the category and its options, keeping the mode.
    open func setCategory(_ category: Category, options: CategoryOptions = []) throws {
        try storeCategory(category, mode: nil, policy: nil, options: options)
    }

    /// Sets the category, mode and options together (what players call:
    /// `setCategory(.playback, mode: .moviePlayback, options: [])`).
    open func setCategory(_ category: Category, mode: Mode, options: CategoryOptions = []) throws {
        try storeCategory(category, mode: mode, policy: nil, options: options)
    }

    /// Sets the category, mode, route-sharing policy and options together.
    open func setCategory(
        _ category: Category, mode: Mode, policy: RouteSharingPolicy, options: CategoryOptions = []
    ) throws {
        try storeCategory(category, mode: mode, policy: policy, options: options)
    }

    /// Sets the mode.
    open func setMode(_ mode: Mode) throws {
        observationHub.withMutation(of: self, keyPath: \.mode) {
            state.withLock { $0.mode = mode }
        }
    }

    /// Stores a category change and, when the session is active and the category changed, posts
    /// `routeChangeNotification` with `.categoryChange` (the inputs follow the category).
    private func storeCategory(
        _ category: Category, mode: Mode?, policy: RouteSharingPolicy?, options: CategoryOptions
    ) throws {
        var keyPaths: [PartialKeyPath<AVAudioSession>] = [\.category, \.categoryOptions]
        if mode != nil { keyPaths.append(\.mode) }
        if policy != nil { keyPaths.append(\.routeSharingPolicy) }
        let previous: (route: AVAudioSessionRouteDescription, wasActive: Bool, changed: Bool) =
            observationHub.withMutation(of: self, keyPaths: keyPaths) {
                state.withLock { state in
                    let previous = (state.route, state.isActive, state.category != category)
                    state.category = category
                    state.categoryOptions = options
                    if let mode { state.mode = mode }
                    if let policy { state.routeSharingPolicy = policy }
                    return previous
                }
            }
        guard previous.wasActive, previous.changed else { return }
        // The inputs follow the category. Stored under `activation` (no device refresh interleaves), announced after
        // it is released (an observer may call the session back).
        let routeChanged: Bool = activation.withLock {
            let route = state.withLock { $0.route }
            let updated = Self.route(outputs: route.outputs, category: category)
            return state.withLock { state in
                guard !state.route.isEqual(updated) else { return false }
                state.route = updated
                return true
            }
        }
        if routeChanged { observationHub.publish(self, changed: [\.currentRoute]) }
        postRouteChange(.categoryChange, previous: previous.route)
    }

    // MARK: Activation

    /// Activates or deactivates the session (see the type's discussion for what that does on Linux).
    open func setActive(_ active: Bool) throws {
        try setActive(active, options: [])
    }

    /// Activates or deactivates the session; `.notifyOthersOnDeactivation` is accepted and changes nothing (there
    /// are no other sessions to tell).
    ///
    /// - Throws: `NSError` in `NSOSStatusErrorDomain` with ``ErrorCode/cannotStartPlaying`` when activating finds
    ///   no audio driver or device; its `localizedDescription` carries SDL's reason.
    open func setActive(_ active: Bool, options: SetActiveOptions = []) throws {
        guard let watch = deviceWatch.withLock({ $0 }) else { return }
        let changed: [PartialKeyPath<AVAudioSession>]? = try activation.withLock {
            guard active else {
                watch.stop()
                state.withLock { $0.isActive = false }
                return nil
            }
            guard !state.withLock({ $0.isActive }) else { return nil }
            do {
                try watch.start()
                let device = try probeDevice()
                return storeDevice(device, activating: true)
            } catch {
                watch.stop()
                throw NSError(
                    domain: NSOSStatusErrorDomain, code: ErrorCode.cannotStartPlaying.rawValue,
                    userInfo: [NSLocalizedDescriptionKey: "The audio session could not be activated: \(error)"])
            }
        }
        if let changed, !changed.isEmpty { observationHub.publish(self, changed: changed) }
    }

    /// Whether the session is active (not Apple API; Apple offers no getter). For tests and diagnostics.
    package var isActive: Bool { state.withLock { $0.isActive } }

    /// Opens the default output paused at the preferred rate and buffer, for what it grants (caller holds
    /// `activation`).
    private func probeDevice() throws(AudioSinkError) -> SDLOutputDeviceInfo {
        let (rate, duration) = state.withLock { ($0.preferredSampleRate, $0.preferredIOBufferDuration) }
        let sampleRate = rate > 0 ? Int(rate.rounded()) : Self.defaultSampleRate
        let frames =
            duration > 0
            ? Self.powerOfTwoFrames(duration * Double(sampleRate))
            : SDLAudioSink.bufferFrameCount(sampleRate: sampleRate)
        return try SDLAudioDeviceWatch.probeDefaultOutput(
            sampleRate: sampleRate, channelCount: AudioFormat.standard.channelCount, bufferFrameCount: frames)
    }

    /// The power of two nearest to `frames` (audio hardware grants buffers so), within 16…8192.
    static func powerOfTwoFrames(_ frames: Double) -> Int {
        let clamped = min(max(frames, 16), 8_192)
        return 1 << Int(log2(clamped).rounded())
    }

    /// Stores a readied device (or none) and the route naming it; returns the key paths whose values changed
    /// (caller holds `activation`, publishes after releasing it).
    private func storeDevice(_ device: SDLOutputDeviceInfo?, activating: Bool) -> [PartialKeyPath<AVAudioSession>] {
        let category = state.withLock { $0.category }
        var outputs: [AVAudioSessionPortDescription] = []
        if let device {
            outputs = [
                AVAudioSessionPortDescription(
                    portType: AVAudioSessionPortDescription.portType(
                        deviceName: device.name, driver: device.driver, isCapture: false),
                    portName: device.name, uid: "\(device.driver):\(device.name)", channelCount: device.channelCount)
            ]
        }
        let route = Self.route(outputs: outputs, category: category)
        return state.withLock { state in
            var changed: [PartialKeyPath<AVAudioSession>] = []
            if state.device?.sampleRate != device?.sampleRate { changed.append(\.sampleRate) }
            if state.device?.bufferFrameCount != device?.bufferFrameCount
                || state.device?.sampleRate
                    != device?.sampleRate
            {
                changed += [\.ioBufferDuration, \.outputLatency]
            }
            if state.device?.channelCount != device?.channelCount {
                changed += [\.outputNumberOfChannels, \.maximumOutputNumberOfChannels]
            }
            if !state.route.isEqual(route) { changed.append(\.currentRoute) }
            state.device = device
            state.route = route
            if activating { state.isActive = true }
            return changed
        }
    }

    /// A route of `outputs`, with SDL's first capture device as input when `category` records.
    static func route(outputs: [AVAudioSessionPortDescription], category: Category) -> AVAudioSessionRouteDescription {
        var inputs: [AVAudioSessionPortDescription] = []
        if category == .record || category == .playAndRecord, let name = SDLAudioDeviceWatch.captureDeviceNames().first
        {
            let driver = SDLAudioSink.currentDriverName ?? "unknown"
            inputs = [
                AVAudioSessionPortDescription(
                    portType: AVAudioSessionPortDescription.portType(deviceName: name, driver: driver, isCapture: true),
                    portName: name, uid: "\(driver):capture:\(name)", channelCount: 0)
            ]
        }
        return AVAudioSessionRouteDescription(inputs: inputs, outputs: outputs)
    }

    // MARK: Devices coming and going

    /// A device event from SDL (on the watch's queue): re-reads the default device, announces the changed values
    /// to observers (main queue) and posts `routeChangeNotification` with the previous route.
    private func deviceChanged(_ event: SDLAudioDeviceEvent) {
        let reason: RouteChangeReason
        switch event {
        case .added: reason = .newDeviceAvailable
        case .removed: reason = .oldDeviceUnavailable
        }
        let result: (previous: AVAudioSessionRouteDescription, changed: [PartialKeyPath<AVAudioSession>])? =
            activation.withLock {
                let (active, previous) = state.withLock { ($0.isActive, $0.route) }
                guard active else { return nil }
                // A device that no longer opens leaves the route without outputs.
                let device = try? probeDevice()
                return (previous, storeDevice(device, activating: false))
            }
        guard let result else { return }
        if !result.changed.isEmpty {
            ChangeOrigin.engine { observationHub.publish(self, changed: result.changed) }
        }
        postRouteChange(reason, previous: result.previous)
    }

    /// Posts `routeChangeNotification` on the notification queue.
    private func postRouteChange(_ reason: RouteChangeReason, previous: AVAudioSessionRouteDescription) {
        let userInfo = UncheckedUserInfo(value: [
            AVAudioSessionRouteChangeReasonKey: reason.rawValue,
            AVAudioSessionRouteChangePreviousRouteKey: previous,
        ])
        notificationQueue.async { [self] in
            NotificationCenter.default.post(
                name: AVAudioSession.routeChangeNotification, object: self, userInfo: userInfo.value)
        }
    }

    /// Waits until every device event SDL reported so far has been handled and its notification posted (tests).
    package func waitForDeviceEvents() {
        deviceWatch.withLock { $0 }?.drain()
        notificationQueue.sync {}
    }

    // MARK: The device's values

    /// The output route: the device the session readied. Observable.
    open var currentRoute: AVAudioSessionRouteDescription {
        observationHub.access(self, keyPath: \.currentRoute)
        return state.withLock { $0.route }
    }

    /// The device's sample rate in hertz, 0 before the first activation. Observable.
    open var sampleRate: Double {
        observationHub.access(self, keyPath: \.sampleRate)
        return state.withLock { Double($0.device?.sampleRate ?? 0) }
    }

    /// The device's buffer duration in seconds (frames per buffer over the rate), 0 before the first activation.
    /// Observable.
    open var ioBufferDuration: TimeInterval {
        observationHub.access(self, keyPath: \.ioBufferDuration)
        return state.withLock { state in
            guard let device = state.device, device.sampleRate > 0 else { return 0 }
            return Double(device.bufferFrameCount) / Double(device.sampleRate)
        }
    }

    /// Seconds between audio handed to the device and the ear, as the players count it: two device buffers (SDL 2
    /// shows no driver-side buffering). 0 before the first activation. Observable.
    open var outputLatency: TimeInterval {
        observationHub.access(self, keyPath: \.outputLatency)
        return state.withLock { $0.device?.latency ?? 0 }
    }

    /// The device's channel count, 0 before the first activation. Observable.
    open var outputNumberOfChannels: Int {
        observationHub.access(self, keyPath: \.outputNumberOfChannels)
        return state.withLock { $0.device?.channelCount ?? 0 }
    }

    /// The most channels the route takes: what the device granted (SDL asks for stereo). Observable.
    open var maximumOutputNumberOfChannels: Int {
        observationHub.access(self, keyPath: \.maximumOutputNumberOfChannels)
        return state.withLock { $0.device?.channelCount ?? 0 }
    }

    /// The system output volume, 0…1: always 1 on Linux (SDL 2 cannot read the system mixer; it plays at full
    /// scale). Observable; it never changes.
    open var outputVolume: Float {
        observationHub.access(self, keyPath: \.outputVolume)
        return 1
    }

    /// Whether another app is playing audio: always false on Linux (nothing reports other programs' audio).
    open var isOtherAudioPlaying: Bool { false }

    /// Whether another app's primary audio is playing, so secondary audio should be silenced: always false on Linux
    /// (see ``isOtherAudioPlaying``).
    open var secondaryAudioShouldBeSilencedHint: Bool { false }

    /// The preferred sample rate (0: none; the device is then asked for 48 kHz). Observable.
    open var preferredSampleRate: Double {
        observationHub.access(self, keyPath: \.preferredSampleRate)
        return state.withLock { $0.preferredSampleRate }
    }

    /// The preferred buffer duration (0: none; the device is then asked for the players' buffer, 1024 frames at
    /// 48 kHz). Observable.
    open var preferredIOBufferDuration: TimeInterval {
        observationHub.access(self, keyPath: \.preferredIOBufferDuration)
        return state.withLock { $0.preferredIOBufferDuration }
    }

    /// Sets the sample rate to ask of the device; an active session readies the device again at once, an inactive
    /// one at activation. The device may grant another rate (``sampleRate`` says which).
    ///
    /// - Throws: `NSError` (`NSOSStatusErrorDomain`, ``ErrorCode/badParam``) for a negative or non-finite rate.
    open func setPreferredSampleRate(_ sampleRate: Double) throws {
        guard sampleRate.isFinite, sampleRate >= 0, sampleRate <= Double(Int32.max) else {
            throw Self.badParam("The preferred sample rate \(sampleRate) is not a rate in hertz.")
        }
        observationHub.withMutation(of: self, keyPath: \.preferredSampleRate) {
            state.withLock { $0.preferredSampleRate = sampleRate }
        }
        refreshIfActive()
    }

    /// Sets the buffer duration to ask of the device, in seconds; the device is asked for the power of two frames
    /// nearest to it (16…8192), as audio hardware grants. Applied as ``setPreferredSampleRate(_:)`` is.
    ///
    /// - Throws: `NSError` (`NSOSStatusErrorDomain`, ``ErrorCode/badParam``) for a negative or non-finite duration.
    open func setPreferredIOBufferDuration(_ duration: TimeInterval) throws {
        guard duration.isFinite, duration >= 0 else {
            throw Self.badParam("The preferred I/O buffer duration \(duration) is not a duration in seconds.")
        }
        observationHub.withMutation(of: self, keyPath: \.preferredIOBufferDuration) {
            state.withLock { $0.preferredIOBufferDuration = duration }
        }
        refreshIfActive()
    }

    /// Readies the device again with the current preferences when active (app-made change: observers hear it on
    /// this thread).
    private func refreshIfActive() {
        let changed: [PartialKeyPath<AVAudioSession>] = activation.withLock {
            guard state.withLock({ $0.isActive }) else { return [] }
            return storeDevice(try? probeDevice(), activating: false)
        }
        if !changed.isEmpty { observationHub.publish(self, changed: changed) }
    }

    /// Apple's error for an out-of-range parameter.
    private static func badParam(_ message: String) -> NSError {
        NSError(
            domain: NSOSStatusErrorDomain, code: ErrorCode.badParam.rawValue,
            userInfo: [NSLocalizedDescriptionKey: message])
    }
}

extension AVAudioSession: AVKeyValueObservable {}

/// A notification's `userInfo` handed to the notification queue. `@unchecked`: built on the calling thread and never
/// touched again before the queue posts it (its values are immutable route descriptions and numbers).
private struct UncheckedUserInfo: @unchecked Sendable {
    let value: [AnyHashable: Any]
}
