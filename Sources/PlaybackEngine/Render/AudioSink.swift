import CoreMedia

/// The audio format every sink consumes: interleaved 32-bit float PCM.
package struct AudioFormat: Sendable, Hashable {
    package var sampleRate: Int
    package var channelCount: Int

    package init(sampleRate: Int, channelCount: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
    }

    /// What the engine asks for when the media does not say: 48 kHz stereo.
    package static let standard = AudioFormat(sampleRate: 48_000, channelCount: 2)
}

/// Where rendered audio goes (mpv's `ao` drivers): a real device pulled by its own thread, or a
/// non-real-time sink the engine writes to as it advances a virtual clock.
///
/// Lifecycle: `open` → `start` → (`pause` ⇄ `resume`)* → `close`. Every method may be called from any
/// thread; implementations serialise internally.
package protocol AudioSink: AnyObject, Sendable {
    /// True for devices that consume audio in real time and pull it through ``AudioRenderSource``.
    /// False for sinks the engine feeds with ``write(_:frameCount:)`` (null, capture).
    var isRealTime: Bool { get }

    /// Opens the output asking for `preferred`; returns the format it will actually consume.
    /// Throws ``AudioSinkError`` when no device can be opened (the engine then runs on the system clock).
    func open(preferred: AudioFormat) throws(AudioSinkError) -> AudioFormat

    /// Real-time sinks: starts pulling from `source` on the device's thread (initially paused
    /// until ``resume()``). Non-real-time sinks ignore the source.
    func start(source: any AudioRenderSource)

    /// Stops pulling (the device plays silence / stops) without closing.
    func pause()
    func resume()

    /// Non-real-time sinks: consumes `frameCount` interleaved frames. Real-time sinks ignore it.
    func write(_ samples: UnsafePointer<Float>, frameCount: Int)

    /// Seconds of audio handed to the device but not yet heard (device buffer), for the audio clock.
    var latency: Double { get }

    /// Gain applied in the sink (0…1), and mute. The engine sets these from `AVPlayer.volume` / `isMuted`.
    func setVolume(_ volume: Float, muted: Bool)

    /// Releases the device. The sink may be opened again.
    func close()

    /// Whether the open device was lost (unplugged, its server gone): it plays nothing more until reopened. Read by
    /// the engine thread once per step; must be cheap.
    var isDisconnected: Bool { get }
}

extension AudioSink {
    /// Sinks that cannot lose their device (null, capture) never are.
    package var isDisconnected: Bool { false }
}

/// Pulled by a real-time sink's device thread for the next `frameCount` frames.
package protocol AudioRenderSource: AnyObject, Sendable {
    /// Fills `buffer` with exactly `frameCount` interleaved frames (silence where nothing is ready).
    /// `hostTime` is the monotonic time (nanoseconds, `CMClockGetHostTimeClock`) of the callback.
    /// Called on the device thread: must not block for long and must not allocate in steady state.
    func render(into buffer: UnsafeMutablePointer<Float>, frameCount: Int, hostTime: UInt64)
}

/// Why an audio sink could not open.
package struct AudioSinkError: Error, Sendable, CustomStringConvertible {
    package var message: String
    /// Whether the machine has no sound system at all (no sound card, no sound server, no driver named), or the
    /// driver's only device is held by another sink of this process (SDL's `dummy` and `disk` drivers have one): the
    /// engine then plays without sound. Any other failure to open a device is the player's failure, as on Apple's
    /// systems.
    package var noSoundSystem: Bool
    package init(_ message: String, noSoundSystem: Bool = false) {
        self.message = message
        self.noSoundSystem = noSoundSystem
    }
    package var description: String { message }
}
