/// How far the demuxer reads ahead of the decoders (ffplay's back-pressure constants, with the
/// duration limit and a forward-buffer target the engine's load control sets).
///
/// The demuxer sleeps (re-checking every 10 ms or when a decoder takes a packet) while:
/// - the queues hold more than ``maxBytes`` in total, or
/// - every audio/video queue holds more than ``minPackets`` packets and more than ``maxDuration``
///   seconds (a queue whose packets carry no durations counts by packets alone), or
/// - ``forwardDuration`` is set and the shortest audio/video queue holds at least that many seconds.
package struct BufferLimits: Sendable, Equatable {
    /// ffplay's `MAX_QUEUE_SIZE`: caps memory whatever the bit rate (15 MB).
    package var maxBytes: Int
    /// ffplay's `MIN_FRAMES`: a queue with this few packets is never "enough", so a stream with long
    /// packets still has some queued (25).
    package var minPackets: Int
    /// Seconds per queue beyond which reading pauses (ffplay uses 1 s; the engine default of 10 s
    /// rides out network hiccups, as AVPlayer's default forward buffer does).
    package var maxDuration: Double
    /// The preferred forward buffer in seconds (`AVPlayerItem.preferredForwardBufferDuration`); nil
    /// leaves it to the other limits.
    package var forwardDuration: Double?

    /// Limits with ffplay's defaults, a 10 s duration cap and no forward target unless given.
    package init(
        maxBytes: Int = 15 * 1024 * 1024, minPackets: Int = 25, maxDuration: Double = 10,
        forwardDuration: Double? = nil
    ) {
        self.maxBytes = maxBytes
        self.minPackets = minPackets
        self.maxDuration = maxDuration
        self.forwardDuration = forwardDuration
    }
}
