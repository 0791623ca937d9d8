import CSDL2
import Foundation
import OAVFLocking
import PlaybackEngine

/// What SDL says about an output device: its name, the driver serving it, and the format and buffer it granted when
/// opened (paused, for a moment) with a given request.
package struct SDLOutputDeviceInfo: Sendable, Equatable {
    /// The device's name as SDL lists it (`SDL_GetAudioDeviceName`), or SDL's name of the default device
    /// (`SDL_GetDefaultAudioInfo`), or "System audio output device" for drivers with only a default device (SDL's
    /// `dummy` and `disk`).
    package var name: String
    /// The SDL audio driver serving it ("pulseaudio", "alsa", "disk", "dummy", ...).
    package var driver: String
    /// The sample rate the device granted, in hertz.
    package var sampleRate: Int
    /// The channels the device granted.
    package var channelCount: Int
    /// Frames per device buffer the device granted.
    package var bufferFrameCount: Int

    /// Seconds between a callback and the ear, counted as ``SDLAudioSink/latency`` counts it: two device buffers.
    package var latency: Double { sampleRate > 0 ? 2 * Double(bufferFrameCount) / Double(sampleRate) : 0 }
}

/// A device appearing or leaving, as SDL reports it (`SDL_AUDIODEVICEADDED` / `SDL_AUDIODEVICEREMOVED`).
package enum SDLAudioDeviceEvent: Sendable, Equatable {
    /// A device became available: SDL's list index (valid until SDL lists devices again) and whether it records.
    case added(index: Int, isCapture: Bool)
    /// An open device was lost (unplugged, or its driver failed: the `disk` driver reports it when a write fails):
    /// SDL's device id and whether it records.
    case removed(deviceID: UInt32, isCapture: Bool)
}

/// SDL's audio devices as a whole: the default output's properties, the capture devices' names, and a watch on
/// devices coming and going, for the audio session of the public layer.
///
/// Watching holds a reference on SDL's audio subsystem (so SDL's driver keeps running, with its hot-plug thread,
/// between players) and installs an `SDL_AddEventWatch` callback. The callback sees each device event as SDL pushes
/// it, on the pushing thread, before any event loop reads it, so it works beside ``SDLVideoWindow``'s loop, which
/// takes every event off SDL's queue. Handlers run on a private serial queue, never on SDL's thread (which may hold
/// SDL's device-list lock).
///
/// Threads: every method may be called from any thread.
package final class SDLAudioDeviceWatch: @unchecked Sendable {
    /// Where handlers run: serial, so events arrive in SDL's order.
    private let queue = DispatchQueue(label: "OpenAVFoundation.SDLAudioDeviceWatch")

    /// Called (on `queue`) with each device event.
    private let handler: @Sendable (SDLAudioDeviceEvent) -> Void

    /// Whether the watch is installed and the subsystem reference held (guarded by `lock`).
    private var watching = false

    /// Guards `watching`; `start` and `stop` run under it. App threads (the audio session). Not an engine command: the
    /// watch is process-wide, not one player's. Lock order: this lock, then `SDLSubsystem`'s.
    private let lock = ConditionLock()

    /// A watch that is not started; `handler` will hear every device event while it is.
    package init(handler: @escaping @Sendable (SDLAudioDeviceEvent) -> Void) {
        self.handler = handler
    }

    /// Stops watching if still started.
    deinit {
        stop()
    }

    /// Starts SDL's audio subsystem (when no one else has) and watches its device events. No-op when started.
    ///
    /// - Throws: ``AudioSinkError`` with SDL's reason when no audio driver starts, or when the machine has no sound
    ///   system and no driver was named (as ``SDLAudioSink/open(preferred:)`` does).
    package func start() throws(AudioSinkError) {
        if let reason = SDLAudioSink.noSoundSystem() {
            throw AudioSinkError(
                "No audio device: \(reason). Set SDL_AUDIODRIVER=dummy, or disk with SDL_DISKAUDIOFILE=<path>.")
        }
        lock.lock()
        defer { lock.unlock() }
        guard !watching else { return }
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        try SDLSubsystem.withExclusiveAccess { () throws(AudioSinkError) in
            if let message = SDLSubsystem.acquire(SDL_INIT_AUDIO) {
                throw AudioSinkError("Could not start SDL audio: \(message).")
            }
            SDL_AddEventWatch(sdlAudioDeviceEventWatch, userdata)
        }
        watching = true
    }

    /// Stops watching and drops the subsystem reference (SDL audio quits when nothing else holds it). No-op when
    /// stopped. A handler already queued still runs.
    package func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard watching else { return }
        let userdata = Unmanaged.passUnretained(self).toOpaque()
        SDLSubsystem.withExclusiveAccess {
            SDL_DelEventWatch(sdlAudioDeviceEventWatch, userdata)
            SDLSubsystem.release(SDL_INIT_AUDIO)
        }
        watching = false
    }

    /// Whether the watch is started.
    package var isWatching: Bool { lock.withLock { watching } }

    /// Waits until every handler queued so far has run (tests, and callers that need the effects of events SDL
    /// pushed before this call).
    package func drain() {
        queue.sync {}
    }

    /// Called by the SDL callback for a device event.
    fileprivate func receive(_ event: SDLAudioDeviceEvent) {
        let handler = self.handler
        queue.async { handler(event) }
    }

    /// Puts a device event on SDL's event queue with `SDL_PushEvent`, the call SDL's drivers make when a device
    /// appears or is lost, so watchers hear it as they would hear SDL's. For tests: the `dummy` and `disk` drivers
    /// never see devices come. Returns false when SDL's events are not running (no SDL subsystem is up).
    package static func pushEvent(_ event: SDLAudioDeviceEvent) -> Bool {
        var sdlEvent = SDL_Event()
        switch event {
        case .added(let index, let isCapture):
            sdlEvent.adevice.type = SDL_AUDIODEVICEADDED.rawValue
            sdlEvent.adevice.which = UInt32(index)
            sdlEvent.adevice.iscapture = isCapture ? 1 : 0
        case .removed(let deviceID, let isCapture):
            sdlEvent.adevice.type = SDL_AUDIODEVICEREMOVED.rawValue
            sdlEvent.adevice.which = deviceID
            sdlEvent.adevice.iscapture = isCapture ? 1 : 0
        }
        sdlEvent.adevice.timestamp = SDL_GetTicks()
        return SDL_PushEvent(&sdlEvent) == 1
    }

    // MARK: Devices

    /// The output devices ``SDLAudioSink``s hold open, oldest first (what SDL granted each), keyed by sink. Sinks note
    /// opens and closes on their engine threads; probes read it on app threads. Not an engine command: it spans every
    /// player of the process.
    private static let openOutputs = Locked<[(sink: ObjectIdentifier, info: SDLOutputDeviceInfo)]>([])

    /// Records that `sink` opened a device granting `info` (caller is inside ``SDLSubsystem/withExclusiveAccess(_:)``).
    static func noteOpened(_ sink: SDLAudioSink, _ info: SDLOutputDeviceInfo) {
        openOutputs.withLock { outputs in
            outputs.removeAll { $0.sink == ObjectIdentifier(sink) }
            outputs.append((ObjectIdentifier(sink), info))
        }
    }

    /// Records that `sink` closed its device (caller is inside ``SDLSubsystem/withExclusiveAccess(_:)``).
    static func noteClosed(_ sink: SDLAudioSink) {
        openOutputs.withLock { outputs in outputs.removeAll { $0.sink == ObjectIdentifier(sink) } }
    }

    /// The default output device as it is now: SDL's name for it and the format and buffer it grants when asked for
    /// `sampleRate` Hz (SDL's default when 0), `channelCount` channels and `bufferFrameCount` frames.
    ///
    /// When a player's ``SDLAudioSink`` holds an output open, that device is the output in use: its name and what it
    /// was granted are returned, and nothing is opened (SDL's `dummy` and `disk` drivers open only one device at a
    /// time). Otherwise the default device is opened paused and closed again (nothing is heard), inside one
    /// ``SDLSubsystem`` reference; with the `disk` driver that creates (truncates) `SDL_DISKAUDIOFILE`, as any open
    /// does.
    ///
    /// - Throws: ``AudioSinkError`` with SDL's reason when no driver starts or the device does not open.
    package static func probeDefaultOutput(
        sampleRate: Int, channelCount: Int, bufferFrameCount: Int
    ) throws(AudioSinkError) -> SDLOutputDeviceInfo {
        if let reason = SDLAudioSink.noSoundSystem() {
            throw AudioSinkError(
                "No audio device: \(reason). Set SDL_AUDIODRIVER=dummy, or disk with SDL_DISKAUDIOFILE=<path>.")
        }
        return try SDLSubsystem.withExclusiveAccess { () throws(AudioSinkError) -> SDLOutputDeviceInfo in
            if let message = SDLSubsystem.acquire(SDL_INIT_AUDIO) {
                throw AudioSinkError("Could not start SDL audio: \(message).")
            }
            defer { SDLSubsystem.release(SDL_INIT_AUDIO) }
            if let inUse = openOutputs.withLock({ $0.first }) { return inUse.info }
            let driver = SDL_GetCurrentAudioDriver().map { String(cString: $0) } ?? "unknown"
            var desired = SDL_AudioSpec()
            desired.freq = Int32(clamping: sampleRate)
            desired.format = SDL_AudioFormat(AUDIO_F32SYS)
            desired.channels = UInt8(clamping: channelCount)
            desired.samples = UInt16(clamping: bufferFrameCount)
            var spec = SDL_AudioSpec()
            SDL_ClearError()
            let device = SDL_OpenAudioDevice(
                nil, 0, &desired, &spec,
                Int32(
                    SDL_AUDIO_ALLOW_FREQUENCY_CHANGE | SDL_AUDIO_ALLOW_CHANNELS_CHANGE | SDL_AUDIO_ALLOW_SAMPLES_CHANGE)
            )
            guard device != 0 else {
                throw AudioSinkError(
                    "Could not open the audio device (driver '\(driver)'): \(SDLSubsystem.lastError()).")
            }
            SDL_CloseAudioDevice(device)
            return SDLOutputDeviceInfo(
                name: defaultOutputName(), driver: driver, sampleRate: Int(spec.freq), channelCount: Int(spec.channels),
                bufferFrameCount: Int(spec.samples))
        }
    }

    /// The names of SDL's capture devices (empty when the driver lists none, as `dummy` and `disk` do).
    package static func captureDeviceNames() -> [String] {
        SDLSubsystem.withExclusiveAccess {
            guard SDLSubsystem.acquire(SDL_INIT_AUDIO) == nil else { return [] }
            defer { SDLSubsystem.release(SDL_INIT_AUDIO) }
            let count = SDL_GetNumAudioDevices(1)
            guard count > 0 else { return [] }
            return (0..<count).compactMap { SDL_GetAudioDeviceName($0, 1).map { String(cString: $0) } }
        }
    }

    /// SDL's name of the default output (caller holds the audio subsystem): `SDL_GetDefaultAudioInfo` where the
    /// driver knows it (PulseAudio, PipeWire), else the first listed output, else SDL's name for a driver's only
    /// device.
    static func defaultOutputName() -> String {
        var name: UnsafeMutablePointer<CChar>?
        var spec = SDL_AudioSpec()
        if SDL_GetDefaultAudioInfo(&name, &spec, 0) == 0, let name {
            defer { SDL_free(name) }
            return String(cString: name)
        }
        if SDL_GetNumAudioDevices(0) > 0, let first = SDL_GetAudioDeviceName(0, 0) {
            return String(cString: first)
        }
        // SDL 2's DEFAULT_OUTPUT_DEVNAME, the name its single-device drivers open by.
        return "System audio output device"
    }
}

/// The `SDL_EventFilter` installed by ``SDLAudioDeviceWatch/start()``: forwards device events to the watch whose
/// pointer is `userdata` (kept alive: the watch removes the callback before it goes away). Returns 1 (the return value
/// of an event watch is ignored by SDL).
private func sdlAudioDeviceEventWatch(
    _ userdata: UnsafeMutableRawPointer?, _ event: UnsafeMutablePointer<SDL_Event>?
)
    -> Int32
{
    guard let userdata, let event else { return 1 }
    let type = event.pointee.type
    guard type == SDL_AUDIODEVICEADDED.rawValue || type == SDL_AUDIODEVICEREMOVED.rawValue else { return 1 }
    let device = event.pointee.adevice
    let watch = Unmanaged<SDLAudioDeviceWatch>.fromOpaque(userdata).takeUnretainedValue()
    if type == SDL_AUDIODEVICEADDED.rawValue {
        watch.receive(.added(index: Int(device.which), isCapture: device.iscapture != 0))
    } else {
        watch.receive(.removed(deviceID: device.which, isCapture: device.iscapture != 0))
    }
    return 1
}
