import CoreMedia
import FFmpegBridge
import OAVFLocking

/// How many times a ``LoopingSource`` repeats its media, and where each play began: shared by the source (its
/// reading thread writes the starts) and its owner (any thread sets the count and maps times to plays).
///
/// Thread-safe: one lock over the count and the starts.
package final class LoopControl: Sendable {
    private struct State {
        var numberOfLoops: Int
        /// Container time (microseconds) at which each play begins on the looped timeline, as read so far: play 0
        /// at the media's start.
        var passStarts: [Int64] = []
    }

    /// Guards the count and the starts: the source's reading thread writes starts, any thread sets the count. Not an
    /// engine command: the reading thread cannot wait for the engine's mailbox.
    private let state: Locked<State>

    /// Repeats `numberOfLoops` times after the first play (negative: for ever).
    package init(numberOfLoops: Int) {
        state = Locked(State(numberOfLoops: numberOfLoops))
    }

    /// Repeats after the first play (negative: for ever); a change applies at the next end of the media read.
    package var numberOfLoops: Int {
        get { state.withLock { $0.numberOfLoops } }
        set { state.withLock { $0.numberOfLoops = newValue } }
    }

    /// Whether play `pass` (0-based) is followed by another.
    func continues(after pass: Int) -> Bool {
        state.withLock { $0.numberOfLoops < 0 || pass < $0.numberOfLoops }
    }

    /// Records where play `pass` begins, forgetting later ones (a seek back re-reads them).
    func setStart(_ micros: Int64, ofPass pass: Int) {
        state.withLock { s in
            if s.passStarts.count > pass { s.passStarts.removeSubrange(pass...) }
            if s.passStarts.count == pass { s.passStarts.append(micros) }
        }
    }

    /// Where each play begins (container microseconds), as read so far.
    package var passStarts: [Int64] { state.withLock { $0.passStarts } }

    /// The play containing container time `micros` (0-based) and where it begins.
    package func pass(containing micros: Int64) -> (index: Int, start: Int64) {
        state.withLock { s in
            guard let index = s.passStarts.lastIndex(where: { $0 <= micros }) else {
                return (0, s.passStarts.first ?? 0)
            }
            return (index, s.passStarts[index])
        }
    }
}

/// Plays another source's media several times on one continuous timeline (`AVAudioPlayer.numberOfLoops`): at the
/// end of the media it seeks the inner source back to its start and goes on reading, each play's timestamps shifted
/// to follow the last packet of the play before. The decoders and the renderer see one stream, so the loops join
/// without a gap (a queue of items restarts the audio device between them).
///
/// Threads: as any ``MediaSource`` (the reading thread owns the reading state); the ``LoopControl`` is shared.
package final class LoopingSource: MediaSource, @unchecked Sendable {
    private let inner: any MediaSource
    /// How many plays, and where each begins.
    package let control: LoopControl

    // Reading thread only.
    /// The play being read (0-based).
    private var pass = 0
    /// Added to each stream's timestamps in this play (stream time base).
    private var offsets: [Int: Int64] = [:]
    /// Each stream's first timestamp in the media (stream time base, as read in the first play).
    private var firstTimestamps: [Int: Int64] = [:]
    /// Each stream's end in this play: the largest timestamp + duration, offset included.
    private var ends: [Int: Int64] = [:]
    /// Offsets of each play read so far, for a seek back into one of them.
    private var passOffsets: [[Int: Int64]] = [[:]]
    /// Packets read in this play (a play with none ends the loop: nothing to repeat).
    private var packetsInPass = 0

    /// Repeats `inner`'s media as `control` says.
    package init(inner: any MediaSource, control: LoopControl) {
        self.inner = inner
        self.control = control
    }

    package var isLocal: Bool { inner.isLocal }

    package func open() throws(FFmpegError) {
        try inner.open()
        control.setStart(inner.info.startTimeMicroseconds ?? 0, ofPass: 0)
    }

    package var info: MediaInfo { inner.info }

    package var isSeekable: Bool { inner.isSeekable }

    package var isLive: Bool { false }

    /// The inner range repeated as many times as the control says (for ever: a day's worth of plays).
    package var seekableRange: CMTimeRange? {
        guard let range = inner.seekableRange else { return nil }
        let loops = control.numberOfLoops
        let plays = loops < 0 ? max(1, Int(86_400 / max(range.duration.seconds, 0.001))) : loops + 1
        return CMTimeRange(
            start: range.start, duration: CMTimeMultiply(range.duration, multiplier: Int32(clamping: plays)))
    }

    package func codecParameters(stream index: Int) throws(FFmpegError) -> CodecParameters {
        try inner.codecParameters(stream: index)
    }

    package func kind(ofStream index: Int) -> StreamKind { inner.kind(ofStream: index) }

    package func timeBase(ofStream index: Int) -> Rational? { inner.timeBase(ofStream: index) }

    package func setDiscard(keepingStreams streams: Set<Int>) { inner.setDiscard(keepingStreams: streams) }

    package func read(into packet: Packet) throws(FFmpegError) -> ReadResult {
        while true {
            let result: ReadResult
            do {
                result = try inner.read(into: packet)
            } catch {
                guard inner.isAtEndOfInput, try restartIfLooping() else { throw error }
                continue
            }
            switch result {
            case .packet:
                shift(packet)
                return .packet
            case .endOfFile:
                guard try restartIfLooping() else { return .endOfFile }
            }
        }
    }

    /// Offsets a packet into the current play and notes where the play ends.
    private func shift(_ packet: Packet) {
        let stream = packet.streamIndex
        packetsInPass += 1
        if pass == 0, firstTimestamps[stream] == nil, let t = packet.pts ?? packet.dts {
            firstTimestamps[stream] = t
        }
        let offset = offsets[stream] ?? 0
        if offset != 0, let base = inner.timeBase(ofStream: stream) {
            packet.retime(from: base, to: base, adding: offset)
        }
        if let t = packet.pts ?? packet.dts {
            let end = t + max(0, packet.duration)
            if end > ends[stream] ?? Int64.min { ends[stream] = end }
        }
    }

    /// At the end of the media: when another play follows, seeks the inner source to its start and shifts the next
    /// play to begin where this one ended; false when the loop is over.
    private func restartIfLooping() throws(FFmpegError) -> Bool {
        guard packetsInPass > 0, control.continues(after: pass) else { return false }
        var next: [Int: Int64] = [:]
        var startMicros: Int64?
        for (stream, end) in ends {
            guard let first = firstTimestamps[stream] else { continue }
            next[stream] = end - first
            if let base = inner.timeBase(ofStream: stream) {
                let micros = Rational.rescale(end, from: base, to: Rational(1, 1_000_000))
                startMicros = max(startMicros ?? micros, micros)
            }
        }
        let start = inner.info.startTimeMicroseconds ?? 0
        try inner.seek(toMicroseconds: start, minimum: Int64.min, maximum: start)
        pass += 1
        offsets = next
        ends = [:]
        packetsInPass = 0
        if passOffsets.count > pass { passOffsets.removeSubrange(pass...) }
        passOffsets.append(next)
        control.setStart(startMicros ?? start, ofPass: pass)
        return true
    }

    package func attachedPicture(stream index: Int) -> Packet? { inner.attachedPicture(stream: index) }

    package var isAtEndOfInput: Bool { inner.isAtEndOfInput && !control.continues(after: pass) }

    package var ioError: FFmpegError? { inner.ioError }

    package var bytesRead: Int64 { inner.bytesRead }

    /// Seeks on the looped timeline: into the play containing `microseconds` (one already read), the inner source
    /// to the same place in its media.
    package func seek(toMicroseconds microseconds: Int64, minimum: Int64, maximum: Int64) throws(FFmpegError) {
        let (index, passStart) = control.pass(containing: microseconds)
        let target = min(index, passOffsets.count - 1)
        let origin = inner.info.startTimeMicroseconds ?? 0
        let shift = passStart - origin
        try inner.seek(
            toMicroseconds: microseconds - shift, minimum: minimum == Int64.min ? minimum : minimum - shift,
            maximum: maximum == Int64.max ? maximum : maximum - shift)
        pass = target
        offsets = passOffsets[target]
        ends = [:]
        packetsInPass = 0
    }

    package func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?) {
        let offset = offsets[index] ?? 0
        let (before, after) = inner.keyframeTimestamps(stream: index, around: timestamp - offset)
        return (before.map { $0 + offset }, after.map { $0 + offset })
    }

    package func interrupt() { inner.interrupt() }

    package var isInterrupted: Bool { inner.isInterrupted }

    /// Another looping source over the same media with the same count, keeping its own starts.
    package func makeIndependentSource() -> any MediaSource {
        LoopingSource(inner: inner.makeIndependentSource(), control: LoopControl(numberOfLoops: control.numberOfLoops))
    }

    /// Subtitles are not looped: none are read ahead.
    package func makeSubtitleSource(stream index: Int) -> (any MediaSource)? { nil }
}
