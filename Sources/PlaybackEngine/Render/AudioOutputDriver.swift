import CoreMedia

/// The engine's side of the audio sink (mpv's `ao` driver contract): opens it, pauses and resumes a real-time
/// device, and in virtual-clock runs writes rendered chunks to a non-real-time sink itself.
///
/// Threads: the driver belongs to the engine thread (``init`` runs on the thread that makes the engine, before the
/// engine thread starts). The ``renderer`` it owns is thread-safe: a real-time device pulls it on its own thread.
final class AudioOutputDriver {
    /// Audio frames rendered per write in virtual-clock runs (a device's typical buffer).
    static let virtualChunkFrames = 1024
    /// Longest wait for a decoder before re-checking for a stop request (seconds).
    static let pollInterval = 0.01

    /// The format audio is decoded to (the sink's, or the standard format without a sink).
    let format: AudioFormat
    /// Turns decoded frames into the sink's PCM; pulled by a real-time device.
    let renderer: AudioRenderer
    /// The sink, nil without a device.
    private let sink: (any AudioSink)?
    /// Why no device could be opened because the machine has no sound system, if so (playback goes on silently).
    let unavailableReason: String?
    /// Why the device failed to open although the machine has a sound system, if so: the player cannot play.
    let openFailure: String?
    /// Set once the device was lost and could not be reopened (``checkConnection()`` reports it once).
    private var lost = false
    /// Whether the real-time device is pulling.
    private var deviceRunning = false
    /// Where virtual-clock runs render a chunk (``virtualChunkFrames`` × channels), freed in `deinit`.
    private let scratch: UnsafeMutablePointer<Float>

    /// Opens the sink `makeSink` returns (nil or a failing open: no device).
    init(makeSink: () -> (any AudioSink)?) {
        var format = AudioFormat.standard
        var sink = makeSink()
        var unavailable: String?
        var failure: String?
        if let s = sink {
            do {
                format = try s.open(preferred: .standard)
            } catch {
                if error.noSoundSystem { unavailable = error.message } else { failure = error.message }
                sink = nil
            }
        }
        self.sink = sink
        self.format = format
        self.unavailableReason = unavailable
        self.openFailure = failure
        renderer = AudioRenderer(format: format)
        scratch = .allocate(capacity: Self.virtualChunkFrames * max(1, format.channelCount))
        if let sink {
            renderer.setLatency(seconds: sink.latency)
            if sink.isRealTime { sink.start(source: renderer) }
        }
    }

    deinit {
        scratch.deallocate()
    }

    /// Whether there is a sink to hear anything on.
    var hasSink: Bool { sink != nil && !lost }

    /// Whether audio is heard at `rate` with `algorithm` (a device, and a rate the algorithm supports).
    func plays(rate: Float, algorithm: TimePitchAlgorithm) -> Bool {
        sink != nil && AudioRenderer.plays(rate: Double(rate), algorithm: algorithm)
    }

    /// Lets a real-time device pull (no effect on non-real-time sinks).
    func resumeDevice() {
        guard !deviceRunning else { return }
        sink?.resume()
        deviceRunning = true
    }

    /// Stops a real-time device pulling.
    func pauseDevice() {
        guard deviceRunning else { return }
        sink?.pause()
        deviceRunning = false
    }

    func setVolume(_ volume: Float, muted: Bool) {
        sink?.setVolume(volume, muted: muted)
    }

    /// Releases the device.
    func close() {
        sink?.close()
    }

    /// Engine thread, once per step: when the device was lost, reopens it in the same format (the renderer's
    /// samples stay valid) and carries on as before, paused or pulling; returns why when it cannot be reopened
    /// (once: the driver then has no device, as if none had opened).
    func checkConnection() -> String? {
        guard let sink, !lost, sink.isDisconnected else { return nil }
        let running = deviceRunning
        sink.close()
        do throws(AudioSinkError) {
            let reopened = try sink.open(preferred: format)
            guard reopened == format else {
                throw AudioSinkError("it came back as \(reopened.sampleRate) Hz, \(reopened.channelCount) channels")
            }
            sink.start(source: renderer)
            if running { sink.resume() }
            return nil
        } catch {
            sink.close()
            lost = true
            deviceRunning = false
            return "The audio device was lost and could not be reopened: \(error.message)"
        }
    }

    // MARK: Virtual clocks

    /// Untimed runs: blocks until a chunk of audio of `session` at `rate` is decoded or its decoder finished.
    func waitForAudio(_ session: ItemSession, rate: Float, stopped: () -> Bool) {
        guard let frames = session.audioFrames else { return }
        // A chunk of output at `rate` consumes chunk × rate media frames.
        let needed = Int(Double(Self.virtualChunkFrames) * max(1, Double(abs(rate))))
        while renderer.availableFrames < needed && !session.isAudioDecoderFinished && !stopped() {
            _ = frames.waitUntilReadable(timeout: Self.pollInterval)
            if frames.count >= 2 { break }
        }
    }

    /// Renders one chunk to the non-real-time sink; returns the item time after it.
    func renderChunk() -> CMTime? {
        let n = renderer.renderAvailable(into: scratch, frameCount: Self.virtualChunkFrames)
        if n > 0 { sink?.write(scratch, frameCount: n) }
        return renderer.renderedEnd
    }

    /// Manual clocks: renders the audio of `session` up to item time `t` at `rate`.
    func render(_ session: ItemSession, upTo t: CMTime, rate: Float, stopped: () -> Bool) {
        while !renderer.isDrained && !stopped() {
            // Render exactly up to `t`: a manual clock's time is where audio stops.
            var frames = Self.virtualChunkFrames
            if let end = renderer.renderedEnd {
                guard end < t else { break }
                let remaining = Int(((t - end).seconds * Double(format.sampleRate) / Double(rate)).rounded())
                guard remaining > 0 else { break }
                frames = min(frames, remaining)
            }
            waitForAudio(session, rate: rate, stopped: stopped)
            let before = renderer.renderedEnd
            let n = renderer.renderAvailable(into: scratch, frameCount: frames)
            if n > 0 { sink?.write(scratch, frameCount: n) }
            if renderer.renderedEnd == before { break }
        }
    }

    /// Reverse play on virtual clocks: writes up to `frames` frames of reversed audio, waiting for `source`; returns
    /// how many were written.
    func renderReversed(frames needed: Int, from source: ReverseAudioSource, stopped: () -> Bool) -> Int {
        var needed = needed
        var written = 0
        while needed > 0 && !stopped() {
            let n = renderer.renderAvailable(into: scratch, frameCount: min(needed, Self.virtualChunkFrames))
            if n > 0 {
                sink?.write(scratch, frameCount: n)
                written += n
                needed -= n
                continue
            }
            if source.isFinished && source.frames.count == 0 { break }
            _ = source.frames.waitUntilReadable(timeout: Self.pollInterval)
        }
        return written
    }
}
