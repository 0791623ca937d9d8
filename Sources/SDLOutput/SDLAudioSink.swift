import CSDL2
import Foundation
import OAVFLocking
import PlaybackEngine
import Synchronization

/// The real audio output: an SDL 2 audio device that pulls interleaved 32-bit float frames from an
/// ``AudioRenderSource`` on SDL's audio thread, and applies volume and mute with the engine's shared
/// ``AudioGainRamp`` (so changes ramp over 10 ms instead of clicking).
///
/// Drivers: SDL picks the driver, honouring `SDL_AUDIODRIVER` as SDL does (a name or comma-separated list). Without
/// it SDL tries its real drivers in order (PulseAudio, ALSA, sndio, PipeWire, OSS, ...) and never falls back to
/// `disk` or `dummy`, which SDL only uses when named. On a machine without a sound card set `SDL_AUDIODRIVER=dummy`
/// (discard at real-time pace) or `SDL_AUDIODRIVER=disk` with `SDL_DISKAUDIOFILE=path` (write what would be heard
/// to a raw file of interleaved native-endian samples in the obtained format, no header; `SDL_DISKAUDIODELAY` sets
/// the milliseconds the driver sleeps per buffer, by default the buffer's duration). Otherwise `open` throws: on a
/// headless Linux box SDL initialises ALSA and then fails to open its `default` PCM, quickly, with "ALSA: Couldn't
/// open audio device: No such file or directory".
///
/// Lifecycle (``AudioSink``): `open` → `start(source:)` → `resume` ⇄ `pause` → `close`; the device opens paused and
/// can be opened again after `close`. SDL's disk and dummy drivers keep running while paused, producing silence
/// (the disk file grows with zeros); the source is not called while paused.
///
/// Threads: `open`, `start`, `pause`, `resume` and `close` may come from any thread and are serialised by a lock;
/// they must not be called from inside ``AudioRenderSource/render(into:frameCount:hostTime:)`` (`close` waits for
/// that callback to return). ``latency``, ``setVolume(_:muted:)``, ``volume``, ``isMuted`` and
/// ``renderedFrameCount`` are lock-free and safe anywhere, including the render callback; the other accessors take
/// the lifecycle lock, which `pause` and `close` hold while waiting for the callback, so the callback must not use
/// them.
package final class SDLAudioSink: AudioSink, @unchecked Sendable {
    /// The device buffer aimed for, in seconds: 1024 frames at 48 kHz (21.3 ms, 47 callbacks a second). ffplay
    /// asks for the smallest power of two above 1/30 s (2048 frames at 48 kHz, at least `SDL_AUDIO_MIN_BUFFER_SIZE`
    /// 512); half that keeps the latency the audio clock must correct for, and the delay before a pause or volume
    /// change is heard, at about 21 ms (43 ms with SDL's second buffer), while 47 callbacks a second cost nothing.
    package static let targetBufferDuration = 1_024.0 / 48_000.0

    /// The smallest buffer asked for, in frames: ffplay's `SDL_AUDIO_MIN_BUFFER_SIZE`, below which ALSA and
    /// PulseAudio underrun on a loaded machine.
    package static let minimumBufferFrameCount = 512

    /// The largest buffer asked for, in frames (SDL's `samples` is 16-bit; 8192 is 43 ms even at 192 kHz).
    package static let maximumBufferFrameCount = 8_192

    /// The device buffer asked for at `sampleRate`: the power of two nearest above ``targetBufferDuration`` (SDL 2
    /// documents `samples` as a power of two), within ``minimumBufferFrameCount`` … ``maximumBufferFrameCount``.
    /// 1024 at 44.1 and 48 kHz, 2048 at 96 kHz, 512 at 22.05 kHz and below.
    package static func bufferFrameCount(sampleRate: Int) -> Int {
        let wanted = Int((Double(sampleRate) * targetBufferDuration).rounded(.down))
        var frames = minimumBufferFrameCount
        while frames < wanted && frames < maximumBufferFrameCount {
            frames *= 2
        }
        return frames
    }

    /// Serialises the lifecycle methods; guards every `var` below. The engine thread opens, pauses and closes; app
    /// threads read the device's properties. Not an engine command: a sink is below the engine and its properties are
    /// read without waiting for it. Lock order: this lock, then `SDLSubsystem`'s.
    private let lock = ConditionLock()

    /// What the audio thread works on (see its doc); lives as long as the sink, so every device callback finds it.
    private let renderer = SDLAudioRenderer()

    /// ``latency`` as `Double.bitPattern`: an `Atomic` (one value, not a lock) so the render
    /// callback may read it while `close` holds `lock`.
    private let latencyBits = Atomic<UInt64>(0)

    /// The open device, 0 when closed (guarded by `lock`).
    private var device: SDL_AudioDeviceID = 0

    /// The obtained format, `nil` when closed (guarded by `lock`).
    private var obtained: AudioFormat?

    /// Frames per device buffer SDL granted, 0 when closed (guarded by `lock`).
    private var obtainedBufferFrames = 0

    /// Whether the device is paused (guarded by `lock`); true from `open` until `resume`.
    private var paused = true

    /// The SDL output device asked for by name, `nil` for the default one (guarded by `lock`).
    private var requestedDevice: String?

    /// The name of the device open now, `nil` for the default one or when closed (guarded by `lock`).
    private var openedDevice: String?

    /// A closed sink at full volume that opens SDL's output device named `deviceName` (as
    /// `SDL_GetAudioDeviceName` lists it; `nil`, the default device).
    package init(deviceName: String? = nil) {
        requestedDevice = deviceName
    }

    /// The names of SDL's output devices (`SDL_GetAudioDeviceName`); empty when the driver has only its default
    /// device (SDL's `dummy` and `disk` drivers, which open only by the name "System audio output device" or nil).
    package static func outputDeviceNames() -> [String] {
        SDLSubsystem.withExclusiveAccess {
            guard SDLSubsystem.acquire(SDL_INIT_AUDIO) == nil else { return [] }
            defer { SDLSubsystem.release(SDL_INIT_AUDIO) }
            let count = SDL_GetNumAudioDevices(0)
            guard count > 0 else { return [] }
            return (0..<count).compactMap { SDL_GetAudioDeviceName($0, 0).map { String(cString: $0) } }
        }
    }

    /// The device asked for (nil: the default one).
    package var deviceName: String? { lock.withLock { requestedDevice } }

    /// The device open now: the name asked for, or nil for the default device (also when the named one could not be
    /// opened, or when closed).
    package var openedDeviceName: String? { lock.withLock { openedDevice } }

    /// Plays on the device named `name` (nil: the default one) from now on. An open sink moves at once: the device
    /// it plays on closes and the new one opens in the same format (SDL converts when the device differs), with the
    /// same source, paused or playing as before. A name that does not open falls back to the default device.
    package func selectDevice(named name: String?) {
        lock.lock()
        defer { lock.unlock() }
        guard name != requestedDevice else { return }
        requestedDevice = name
        guard device != 0, let format = obtained else { return }
        let source = renderer.currentSource
        let wasPaused = paused
        let frames = obtainedBufferFrames
        closeDevice()
        // The same format, without changes: what the engine renders for stays valid.
        guard (try? openDevice(format: format, frames: frames, allowChanges: false)) != nil else { return }
        renderer.setSource(source)
        if !wasPaused { setPaused(false) }
    }

    /// Closes the device if still open.
    deinit {
        lock.withLock { closeDevice() }
    }

    /// Always true: SDL's thread pulls the audio.
    package var isRealTime: Bool { true }

    /// Opens the output device named at ``init(deviceName:)`` or ``selectDevice(named:)`` (SDL's default one when
    /// none is, or when the named one does not open), paused, asking for `preferred` as 32-bit float at
    /// ``bufferFrameCount(sampleRate:)`` frames per buffer. SDL may change the rate and channel count to what the
    /// device supports (the returned format says which); it converts sample formats itself, so the callback always
    /// gets 32-bit float. An open sink is closed first.
    ///
    /// - Throws: ``AudioSinkError`` carrying SDL's error text when no driver starts or no device opens.
    /// Why no device can exist, when no driver was named and the machine has neither sound hardware
    /// (`/dev/snd`) nor a sound server (PulseAudio / PipeWire socket): SDL would only probe ALSA,
    /// fail, and let libasound print errors on the terminal. Nil when a device may exist.
    static func noSoundSystem() -> String? {
        if getenv("SDL_AUDIODRIVER") != nil { return nil }
        let files = FileManager.default
        if files.fileExists(atPath: "/dev/snd") { return nil }
        if getenv("PULSE_SERVER") != nil { return nil }
        if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }) {
            for socket in ["pulse/native", "pipewire-0"] where files.fileExists(atPath: runtime + "/" + socket) {
                return nil
            }
        }
        return "this machine has no sound card and no sound server"
    }

    package func open(preferred: AudioFormat) throws(AudioSinkError) -> AudioFormat {
        guard preferred.sampleRate > 0, preferred.sampleRate <= Int(Int32.max),
            (1...8).contains(preferred.channelCount)
        else {
            throw AudioSinkError(
                "Cannot open an audio device at \(preferred.sampleRate) Hz with \(preferred.channelCount) channels.")
        }
        if let reason = Self.noSoundSystem() {
            throw AudioSinkError(
                "No audio device: \(reason). Set SDL_AUDIODRIVER=dummy, or disk with SDL_DISKAUDIOFILE=<path>.",
                noSoundSystem: true)
        }
        lock.lock()
        defer { lock.unlock() }
        closeDevice()
        return try openDevice(
            format: preferred, frames: Self.bufferFrameCount(sampleRate: preferred.sampleRate), allowChanges: true)
    }

    /// Opens the requested device (falling back to the default one when it does not open), paused, and readies the
    /// renderer (caller holds `lock`; the device is closed).
    private func openDevice(
        format preferred: AudioFormat, frames: Int, allowChanges: Bool
    ) throws(AudioSinkError)
        -> AudioFormat
    {
        let requested = requestedDevice
        let (device, spec, opened) = try SDLSubsystem.withExclusiveAccess {
            () throws(AudioSinkError) -> (SDL_AudioDeviceID, SDL_AudioSpec, String?) in
            if let message = SDLSubsystem.acquire(SDL_INIT_AUDIO) {
                throw Self.failure("Could not start SDL audio", message)
            }
            var desired = SDL_AudioSpec()
            desired.freq = Int32(preferred.sampleRate)
            desired.format = SDL_AudioFormat(AUDIO_F32SYS)
            desired.channels = UInt8(preferred.channelCount)
            desired.samples = UInt16(frames)
            desired.callback = sdlAudioCallback
            desired.userdata = Unmanaged.passUnretained(renderer).toOpaque()
            var spec = SDL_AudioSpec()
            SDL_ClearError()
            let changes = allowChanges ? Int32(SDL_AUDIO_ALLOW_FREQUENCY_CHANGE | SDL_AUDIO_ALLOW_CHANNELS_CHANGE) : 0
            var opened = requested
            var device = SDL_OpenAudioDevice(requested, 0, &desired, &spec, changes)
            if device == 0, requested != nil {
                // No such device (any more): the default one.
                opened = nil
                SDL_ClearError()
                device = SDL_OpenAudioDevice(nil, 0, &desired, &spec, changes)
            }
            guard device != 0 else {
                let message = SDLSubsystem.lastError()
                SDLSubsystem.release(SDL_INIT_AUDIO)
                // Drivers with a single output (SDL's `dummy` and `disk`) let one sink at a time hold it: another
                // player of this process then plays without sound, as on a machine without any, rather than fail.
                var error = Self.failure("Could not open an audio device", message)
                error.noSoundSystem = message.contains("already open")
                throw error
            }
            SDLAudioDeviceWatch.noteOpened(
                self,
                SDLOutputDeviceInfo(
                    name: opened ?? SDLAudioDeviceWatch.defaultOutputName(),
                    driver: SDL_GetCurrentAudioDriver().map { String(cString: $0) } ?? "unknown",
                    sampleRate: Int(spec.freq), channelCount: Int(spec.channels), bufferFrameCount: Int(spec.samples)))
            return (device, spec, opened)
        }
        let format = AudioFormat(sampleRate: Int(spec.freq), channelCount: Int(spec.channels))
        renderer.prepare(format: format)
        self.device = device
        openedDevice = opened
        obtained = format
        obtainedBufferFrames = Int(spec.samples)
        paused = true
        // SDL 2 fills one buffer while the device plays the previous one: ffplay's `2 * audio_hw_buf_size`.
        let latency = 2 * Double(spec.samples) / Double(spec.freq)
        latencyBits.store(latency.bitPattern, ordering: .relaxed)
        return format
    }

    /// Sets the source SDL's thread pulls from (replacing any earlier one); the device stays paused until
    /// ``resume()``. The sink holds the source strongly until ``close()``.
    package func start(source: any AudioRenderSource) {
        lock.withLock { renderer.setSource(source) }
    }

    /// Pauses the device: when this returns the callback is not running and will not run until ``resume()``
    /// (`SDL_PauseAudioDevice` takes the lock SDL holds around each callback). No-op when closed.
    package func pause() {
        lock.withLock { setPaused(true) }
    }

    /// Resumes pulling from the source. No-op when closed.
    package func resume() {
        lock.withLock { setPaused(false) }
    }

    /// Ignored: SDL pulls through the source.
    package func write(_ samples: UnsafePointer<Float>, frameCount: Int) {}

    /// Seconds between the callback and the ear: two device buffers (the one SDL is filling and the one the device
    /// is playing), as ffplay counts. Driver-side buffering beyond that (PulseAudio's server buffer, SDL's
    /// conversion stream when the device format differs) is not visible through SDL 2 and not counted. 0 when
    /// closed.
    package var latency: Double {
        Double(bitPattern: latencyBits.load(ordering: .relaxed))
    }

    /// Sets volume (clamped to 0…1) and mute; the next callback ramps to it over ``AudioGainRamp/duration``.
    /// Kept across close and reopen.
    package func setVolume(_ volume: Float, muted: Bool) {
        renderer.volume.set(volume: volume, muted: muted)
    }

    /// Closes the device, waiting for a running callback to return (`SDL_CloseAudioDevice` joins SDL's audio
    /// thread, which also sleeps about two buffers to let the device drain), drops the source, and releases the SDL
    /// audio subsystem when this was its last user. No-op when closed.
    package func close() {
        lock.withLock { closeDevice() }
    }

    /// The format obtained by the last open, `nil` when closed.
    package var format: AudioFormat? { lock.withLock { obtained } }

    /// Frames per device buffer SDL granted, 0 when closed.
    package var bufferFrameCount: Int { lock.withLock { obtainedBufferFrames } }

    /// Whether a device is open.
    package var isOpen: Bool { lock.withLock { device != 0 } }

    /// Whether the open device was lost: SDL stops a device that disappears (`SDL_AUDIO_STOPPED` while open; SDL
    /// reads its own atomic flag, no SDL lock is taken).
    package var isDisconnected: Bool {
        lock.withLock { device != 0 && SDL_GetAudioDeviceStatus(device) == SDL_AUDIO_STOPPED }
    }

    /// Whether the device is paused (true from open until resume, and when closed).
    package var isPaused: Bool { lock.withLock { device == 0 || paused } }

    /// Frames delivered to the device since the last open (still readable after close).
    package var renderedFrameCount: Int { renderer.renderedFrameCount }

    /// The volume last set (0…1).
    package var volume: Float { renderer.volume.volume }

    /// Whether muted.
    package var isMuted: Bool { renderer.volume.isMuted }

    /// The name of the SDL audio driver in use ("alsa", "pulseaudio", "disk", ...), `nil` when SDL audio is not
    /// initialised.
    package static var currentDriverName: String? {
        SDLSubsystem.withExclusiveAccess { SDL_GetCurrentAudioDriver().map { String(cString: $0) } }
    }

    /// Pauses or resumes an open device (caller holds `lock`).
    private func setPaused(_ pause: Bool) {
        guard device != 0 else { return }
        let device = self.device
        SDLSubsystem.withExclusiveAccess { SDL_PauseAudioDevice(device, pause ? 1 : 0) }
        paused = pause
    }

    /// Closes an open device and forgets the source (caller holds `lock`).
    private func closeDevice() {
        guard device != 0 else { return }
        let device = self.device
        SDLSubsystem.withExclusiveAccess {
            SDL_CloseAudioDevice(device)
            SDLAudioDeviceWatch.noteClosed(self)
            SDLSubsystem.release(SDL_INIT_AUDIO)
        }
        self.device = 0
        openedDevice = nil
        obtained = nil
        obtainedBufferFrames = 0
        paused = true
        latencyBits.store(Double(0).bitPattern, ordering: .relaxed)
        renderer.setSource(nil)
    }

    /// An error naming what failed, the driver asked for, SDL's reason, and what to do on a machine without sound.
    private static func failure(_ what: String, _ reason: String) -> AudioSinkError {
        let driver = ProcessInfo.processInfo.environment["SDL_AUDIODRIVER"].map { "driver '\($0)'" }
        return AudioSinkError(
            "\(what) (\(driver ?? "SDL's default drivers")): \(reason). On a machine without sound, set "
                + "SDL_AUDIODRIVER=dummy, or SDL_AUDIODRIVER=disk with SDL_DISKAUDIOFILE=<path>.")
    }
}
