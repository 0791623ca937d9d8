import CoreMedia

/// What one playback run put out, as text to compare with a golden file (Media3's `PlaybackOutput` and its
/// `.dump` files; DESIGN.md principle 8).
///
/// A dump holds, in order: a header naming the scenario, every picture presented (the item it belongs to, its item
/// time as an exact `value/timescale`, and the frame index read from its pixels), and the audio written to the sink,
/// cut into chunks of fixed size (re-chunked from whatever pieces were written, so how the engine happened to slice
/// its writes does not matter; the last chunk may be short), each with its position and an ``FNV1a64`` hash of its
/// samples. Optional footer lines follow (e.g. where playback ended). One entry per line, so a diff reads well:
///
/// ```
/// # playback dump: play to the end at rate 1
/// # fixture: dump_h264_flac.mkv
/// pictures: 120
/// picture A 0/1000 frame 0
/// picture A 33/1000 frame 1
/// …
/// audio: 48000 Hz, 2 channels, 192000 frames in chunks of 4800, FNV-1a 64 of the Float bit patterns
/// audio 0+4800 8f0c1be5a9e5d2a1
/// …
/// ```
///
/// Audio whose samples are not bit-stable from run to run (a time-pitch stage whose output depends on timing) can be
/// recorded by position only (``AudioDetail/positionsOnly``); the header then says so.
public struct PlaybackDump: Sendable {
    /// One presented picture.
    public struct Picture: Sendable, Equatable {
        /// The name of the item it belongs to (`"A"`, `"B"`, …).
        public var item: String
        /// Its item time.
        public var time: CMTime
        /// The frame index drawn in it, `nil` when unreadable.
        public var frameIndex: Int?

        public init(item: String, time: CMTime, frameIndex: Int?) {
            self.item = item
            self.time = time
            self.frameIndex = frameIndex
        }
    }

    /// One chunk of the captured audio.
    public struct AudioChunk: Sendable, Equatable {
        /// The position of its first frame in the captured stream (frames from the first sample written).
        public var start: Int
        /// Its length in frames (``PlaybackDump/audioChunkFrames`` but for the last).
        public var frameCount: Int
        /// The FNV-1a 64 hex digest of its samples; `nil` when recorded by position only.
        public var hash: String?
    }

    /// How much of the audio a dump keeps.
    public enum AudioDetail: Sendable, Equatable {
        /// Positions and sample hashes.
        case hashes
        /// Positions only: the samples are not bit-stable from run to run.
        case positionsOnly
    }

    /// Audio chunks are this long unless said otherwise: 100 ms at 48 kHz.
    public static let defaultAudioChunkFrames = 4800

    /// What was played, in a line (the dump's first line).
    public var scenario: String
    /// More header lines: the fixture, the clock, why audio is kept by position only, ….
    public var notes: [String]
    /// Every picture presented, in order.
    public var pictures: [Picture] = []
    /// The captured audio's format and chunking; `nil` when nothing was captured.
    public private(set) var audioLayout: (sampleRate: Int, channelCount: Int, chunkFrames: Int, detail: AudioDetail)?
    /// The captured audio's chunks, in order.
    public private(set) var audioChunks: [AudioChunk] = []
    /// Lines after everything else (e.g. where playback ended).
    public var footer: [String] = []

    /// An empty dump for `scenario`.
    public init(scenario: String, notes: [String] = []) {
        self.scenario = scenario
        self.notes = notes
    }

    /// Adds one presented picture.
    public mutating func addPicture(item: String, time: CMTime, frameIndex: Int?) {
        pictures.append(Picture(item: item, time: time, frameIndex: frameIndex))
    }

    /// Records `interleaved` (everything captured, `channelCount` samples per frame) in chunks of `chunkFrames`
    /// frames, replacing any audio recorded before. A trailing partial frame is ignored.
    public mutating func setAudio(
        _ interleaved: [Float], sampleRate: Int, channelCount: Int, chunkFrames: Int = defaultAudioChunkFrames,
        detail: AudioDetail = .hashes
    ) {
        precondition(sampleRate > 0 && channelCount > 0 && chunkFrames > 0, "PlaybackDump.setAudio: bad layout")
        audioLayout = (sampleRate, channelCount, chunkFrames, detail)
        audioChunks = []
        let frames = interleaved.count / channelCount
        var start = 0
        while start < frames {
            let count = min(chunkFrames, frames - start)
            var hash: String?
            if detail == .hashes {
                var fnv = FNV1a64()
                fnv.combine(interleaved[(start * channelCount)..<((start + count) * channelCount)])
                hash = fnv.hexDigest
            }
            audioChunks.append(AudioChunk(start: start, frameCount: count, hash: hash))
            start += count
        }
    }

    /// Frames of audio recorded.
    public var audioFrameCount: Int { audioChunks.reduce(0) { $0 + $1.frameCount } }

    /// The dump as text, one entry per line, ending with a newline.
    public var text: String {
        lines.joined(separator: "\n") + "\n"
    }

    /// The dump's lines (see the type's documentation).
    public var lines: [String] {
        var lines = ["# playback dump: \(scenario)"]
        lines += notes.map { "# \($0)" }
        lines.append("pictures: \(pictures.count)")
        for p in pictures {
            lines.append("picture \(p.item) \(Self.exact(p.time)) frame \(p.frameIndex.map(String.init) ?? "?")")
        }
        if let layout = audioLayout {
            let what =
                layout.detail == .hashes
                ? "FNV-1a 64 of the Float bit patterns" : "positions only (samples not bit-stable)"
            lines.append(
                "audio: \(layout.sampleRate) Hz, \(layout.channelCount) channels, \(audioFrameCount) frames in chunks "
                    + "of \(layout.chunkFrames), \(what)")
            for c in audioChunks {
                lines.append("audio \(c.start)+\(c.frameCount)" + (c.hash.map { " \($0)" } ?? ""))
            }
        } else {
            lines.append("audio: none")
        }
        lines += footer
        return lines
    }

    /// `time` as an exact `value/timescale` (or its kind when not numeric).
    public static func exact(_ time: CMTime) -> String {
        if time.isNumeric { return "\(time.value)/\(time.timescale)" }
        if time.isPositiveInfinity { return "+infinity" }
        if time.isNegativeInfinity { return "-infinity" }
        if time.isIndefinite { return "indefinite" }
        return "invalid"
    }
}
