import CoreMedia
import FFmpegBridge
import OAVFLocking

/// The read thread of ffplay (`read_thread`): reads packets from a ``MediaSource`` and routes each to its
/// stream's ``PacketQueue``, applies back-pressure, performs seeks, and marks the end of the input.
///
/// - Routing: streams without a queue are discarded inside libavformat (`AVDISCARD_ALL`).
/// - Back-pressure: see ``BufferLimits``; the thread waits on a condition that the queues signal when
///   a decoder takes a packet, re-checking at least every 10 ms (ffplay's `continue_read_thread`).
/// - End of input: every queue gets an end-of-stream marker so its decoder drains; the thread then
///   waits until a seek (reading resumes) or ``stop()``.
/// - Seeks are asynchronous and the latest request wins: the thread calls `avformat_seek_file`,
///   flushes every queue (bumping its serial), clears the end-of-file state and reports
///   ``DemuxEvent/seekCompleted(target:)``.
/// - An exact seek given the decoder's position (`continuingFrom`) whose target lies ahead of it, with no keyframe
///   in between (the source's index says so), continues forward instead: nothing is seeked or flushed, every queue's
///   current serial gets the target as its drop target, and the same callbacks report it (the decoders go on from
///   where they are; mpv and ffplay go back to the keyframe).
/// - Cover art (attached pictures) is queued after start and after every seek, followed by an
///   end-of-stream marker, as ffplay does.
///
/// Lifecycle: `init` → ``start()`` → ``stop()``; not restartable. ``stop()`` interrupts the source
/// (permanently) so that a blocked read returns. A started demuxer must be stopped: its thread keeps it alive
/// until then.
///
/// Threads: the demux thread ("oavf.demux") owns the opened source between ``start()`` and the end of
/// ``stop()`` (the caller owns it before and after), the scratch packet and the routing table. Requests
/// and published state are guarded by `control`, which is also the condition the thread sleeps on.
package final class Demuxer: @unchecked Sendable {
    /// How long the thread sleeps before re-checking a full buffer or a finished input (ffplay: 10 ms).
    static let idleWait = 0.01
    /// How far ahead an exact seek continues forward when the source's index cannot tell whether a keyframe lies in
    /// between (MPEG-TS): a second of pictures decodes faster than a seek back to the keyframe and the decode to here.
    static let blindContinuationLimit = CMTime(value: 1, timescale: 1)
    /// Read errors in a row after which the input is given up as unreadable: a damaged region makes
    /// libavformat fail once per bad packet and then recover, a dead input fails every time.
    static let maximumConsecutiveReadErrors = 32

    /// A pending seek request.
    private struct SeekRequest {
        /// Where to go, in container time.
        var target: CMTime
        /// Where the landing point may be; nil: at or before `target`.
        var range: ClosedRange<CMTime>?
        /// Whether decoders drop what ends before `target`.
        var accurate: Bool
        /// A tolerance window around `target` (Apple's toleranceBefore/After): when the keyframe at
        /// or before `target` lies before the window but the next keyframe lies inside it, the seek
        /// goes to that next keyframe instead (less to decode).
        var window: ClosedRange<CMTime>?
        /// For an exact seek: the earliest container time the decoders can still deliver without seeking (every
        /// picture from there on is queued, being decoded or not read yet); the seek continues forward from there
        /// when the target lies ahead and no keyframe lies in between. With the video queue's serial it was read
        /// under (a seek performed since makes it meaningless).
        var continueFrom: (time: CMTime, serial: Serial)?
    }

    /// Requests and published state, guarded by `control`.
    private struct Shared {
        /// Set by `stop`.
        var abortRequested = false
        /// Seeks performed (for tests and statistics).
        var seeksPerformed = 0
        /// Exact seeks that continued forward without seeking (for tests and statistics).
        var seeksContinued = 0
        /// Reads that failed and were skipped (damaged data).
        var readErrors = 0
        /// Times the thread waited without reading because the queues were full or the input ended.
        var idleWaits = 0
        /// The latest seek not yet performed.
        var pendingSeek: SeekRequest?
        /// The latest routing table not yet applied.
        var pendingStreams: [Int: PacketQueue]?
        /// Whether a seek follows ``pendingStreams`` (see ``Demuxer/setStreams(_:seekFollows:)``).
        var streamsAwaitSeek = false
        /// The read-ahead limits.
        var limits: BufferLimits
        /// See ``Demuxer/onEvent``.
        var onEvent: (@Sendable (DemuxEvent) -> Void)?
        /// See ``Demuxer/onSeek``.
        var onSeek: (@Sendable (_ target: CMTime, _ serials: [Int: Serial]) -> Void)?
        /// The routing table as last applied by the thread (or given to `init`).
        var streams: [Int: PacketQueue]
        /// See ``Demuxer/isAtEndOfFile``.
        var isAtEndOfFile = false
        /// See ``Demuxer/bytesRead``.
        var bytesRead: Int64 = 0
    }

    /// The input; demux thread only while running.
    let source: any MediaSource
    /// The lock guarding `shared` and the condition the thread sleeps on; queues signal it. The engine thread posts
    /// requests (seek, stop), the demux thread sleeps on it. Not an engine command: the demux thread is below the
    /// engine and blocks here, not in the engine's mailbox.
    private let control = ConditionLock()
    /// Guarded by `control`.
    private var shared: Shared
    /// Kind of every container stream, read at `init` (audio and video queues count for duration limits).
    let streamKinds: [StreamKind]
    /// The container's end (start + duration) when known: the buffered end at the end of input when nothing
    /// was read since the last seek.
    private let containerEnd: CMTime?
    /// The running thread; guarded by `control`.
    private var thread: WorkerThread?

    // Demux thread only:
    /// Where `av_read_frame` writes; its payload is moved into a pooled packet of the target queue.
    let scratch = Packet()
    /// The routing table the thread uses.
    var streams: [Int: PacketQueue]
    /// Whether the end of input (or a fatal read error) was reached and the markers queued.
    private var reachedEnd = false
    /// Consecutive failed reads.
    private var consecutiveErrors = 0
    /// Whether the last read gave the thread back within a packet (``MediaSource/yieldsWithinPackets``): the next
    /// seek is performed, not continued. The demux thread.
    private var yieldedWithinPacket = false
    /// The ICY metadata last reported (demux thread).
    var lastICYMetadata: String?
    /// Timed-metadata streams whose packets are reported (``DemuxEvent/timedMetadata(_:stream:time:)``), not queued.
    private let metadataStreams: Set<Int>

    /// A demuxer for the opened `source` routing stream index → queue, reporting the packets of `metadataStreams`
    /// as they are read; other streams are discarded.
    ///
    /// Call on the thread that owns `source`; the demuxer owns it from ``start()`` until ``stop()`` returns.
    package init(
        source: any MediaSource, streams: [Int: PacketQueue], limits: BufferLimits = BufferLimits(),
        metadataStreams: Set<Int> = []
    ) {
        self.source = source
        self.streams = streams
        self.metadataStreams = metadataStreams
        shared = Shared(limits: limits, streams: streams)
        let info = source.info
        streamKinds = info.streams.map(\.kind)
        // A damaged header can state a start and duration whose sum overflows: then no end is known.
        if let duration = info.durationMicroseconds,
            case let (end, overflow) = (info.startTimeMicroseconds ?? 0).addingReportingOverflow(duration), !overflow
        {
            containerEnd = CMTime(microseconds: end)
        } else {
            containerEnd = nil
        }
        source.setDiscard(keepingStreams: Set(streams.keys).union(metadataStreams))
        for queue in streams.values { queue.setConsumerWakeup(control) }
    }

    // MARK: Owner API (any thread)

    /// Called on the demux thread for every ``DemuxEvent``. Set it before ``start()``.
    package var onEvent: (@Sendable (DemuxEvent) -> Void)? {
        get { control.withLock { shared.onEvent } }
        set { control.withLock { shared.onEvent = newValue } }
    }

    /// Called on the demux thread after each performed seek with the queues' serials after the flush
    /// (before the ``DemuxEvent/seekCompleted(target:)`` event).
    package var onSeek: (@Sendable (_ target: CMTime, _ serials: [Int: Serial]) -> Void)? {
        get { control.withLock { shared.onSeek } }
        set { control.withLock { shared.onSeek = newValue } }
    }

    /// The read-ahead limits; changes apply from the thread's next check.
    package var limits: BufferLimits {
        get { control.withLock { shared.limits } }
        set {
            control.withLock { shared.limits = newValue }
            control.broadcast()
        }
    }

    /// Starts the demux thread. Call once.
    package func start() {
        control.withLock {
            precondition(thread == nil, "Demuxer.start() called twice")
            thread = WorkerThread(name: "oavf.demux") { [self] in run() }
        }
    }

    /// Stops the demux thread: interrupts a blocked read (the format's `InterruptFlag`, for good) and
    /// waits for the thread to end. The queues are left as they are. Idempotent; safe from any thread,
    /// including an ``onEvent`` handler (which cannot wait for its own thread and returns at once).
    package func stop() {
        let running = control.withLock {
            shared.abortRequested = true
            return thread
        }
        source.interrupt()
        control.broadcast()
        running?.join()
    }

    /// Requests a seek to `target` in container time (the source's timeline, which stream
    /// timestamps share). Asynchronous; replaces a request the thread has not performed yet.
    ///
    /// - Parameters:
    ///   - range: where the landing point may be (`avformat_seek_file`'s min/max); by default anything
    ///     at or before `target`, so decoding starts at the keyframe at or before it.
    ///   - accurate: also make the decoders drop what ends before `target` in the new serial (through
    ///     ``PacketQueue/flush(dropFramesBefore:)``), so the first frames out are the target's.
    ///   - continuingFrom: for an accurate seek without range or window, the earliest container time the decoders
    ///     can still deliver without seeking (the first picture not yet taken from the video frame queue), and the
    ///     video packet queue's serial it was read under: when that serial is still current, `target` lies at or
    ///     after that time and no keyframe lies between them, nothing is seeked or flushed (see the type's summary);
    ///     serials stay as they are.
    package func seek(
        to target: CMTime, range: ClosedRange<CMTime>? = nil, accurate: Bool = false,
        window: ClosedRange<CMTime>? = nil,
        continuingFrom: (time: CMTime, serial: Serial)? = nil
    ) {
        control.withLock {
            shared.pendingSeek = SeekRequest(
                target: target, range: range, accurate: accurate, window: window, continueFrom: continuingFrom)
        }
        control.broadcast()
        // A read waiting for a live playlist to grow would hold the seek until it does.
        source.wakeBlockedRead()
    }

    /// Seeks performed so far (coalesced requests count once): scrubbing tests check it stays small.
    package var seeksPerformed: Int { control.withLock { shared.seeksPerformed } }

    /// Exact seeks that continued forward without seeking so far (not counted in ``seeksPerformed``).
    package var seeksContinued: Int { control.withLock { shared.seeksContinued } }
    /// Reads that failed on damaged data and were skipped so far (the demuxer goes on with the next packet).
    package var readErrors: Int { control.withLock { shared.readErrors } }
    /// Times the thread has waited without reading because the queues were full (back-pressure) or the input ended:
    /// a test sees the reader held back by counting these, not by waiting a while.
    package var idleWaitCount: Int { control.withLock { shared.idleWaits } }

    /// Replaces the routing table (e.g. another audio track): streams that leave stop being read (their
    /// queues are left to the owner), new streams are read from the current position on; a new queue
    /// gets an end-of-stream marker at once if the input already ended. Asynchronous.
    ///
    /// With `seekFollows` (the engine seeks to the playhead right after a switch), the thread reads nothing between
    /// the new table and that seek (for at most ``switchSeekWait``): a source that opens an input for a new stream
    /// where it is reading (an HLS rendition) would otherwise fetch a segment there and drop it at the seek.
    package func setStreams(_ streams: [Int: PacketQueue], seekFollows: Bool = false) {
        control.withLock {
            shared.pendingStreams = streams
            shared.streamsAwaitSeek = seekFollows
        }
        control.broadcast()
    }

    /// How long the thread waits, after a table whose seek follows, for that seek.
    static let switchSeekWait = 2.0

    /// Whether the input ended (or failed) and the end-of-stream markers were queued; cleared by a seek.
    package var isAtEndOfFile: Bool {
        control.withLock { shared.isAtEndOfFile }
    }

    /// How far the input has been read, in container time: the earliest of the audio/video queues' last
    /// timestamps (other queues when there are none). Once the input ended, the latest of them: everything
    /// the file holds has been read (for a truncated file, where its data ends; the container's end when
    /// nothing was read since the last seek). Nil before any timestamped packet, and right after a seek.
    package var bufferedEnd: CMTime? {
        let (streams, ended) = control.withLock { (shared.streams, shared.isAtEndOfFile) }
        let ends = streams.map { (index, queue) in (index, queue.lastTimestamp) }
        if ended {
            return ends.compactMap(\.1).max() ?? containerEnd
        }
        let media = ends.filter { isMedia($0.0) }.compactMap(\.1)
        return (media.isEmpty ? ends.compactMap(\.1) : media).min()
    }

    /// How far the demuxer has read the media streams (the furthest `pts + duration` of any; stream time): nil at
    /// the end of the input, or before anything was read. Past it nothing of any stream can be played yet.
    package var readEnd: CMTime? {
        let (streams, ended) = control.withLock { (shared.streams, shared.isAtEndOfFile) }
        guard !ended else { return nil }
        return streams.filter { isMedia($0.key) }.compactMap { $0.value.lastTimestamp }.max()
    }

    /// Bytes read from the input so far (the I/O layer's count).
    package var bytesRead: Int64 {
        control.withLock { shared.bytesRead }
    }

    // MARK: Demux thread

    /// The thread body (ffplay's `read_thread` loop).
    private func run() {
        queueAttachedPictures()
        while true {
            let requests = takeRequests()
            if requests.abort { return }
            if let streams = requests.streams { apply(streams) }
            if let seek = requests.seek {
                perform(seek)
                continue
            }
            if requests.awaitSeek {
                // A seek or a stop signals `control`: the wait ends at once then; the deadline is the real one (the
                // seek announced never came).
                let deadline = MonotonicTime.now + Self.switchSeekWait
                control.withLock {
                    while !shared.abortRequested && shared.pendingSeek == nil {
                        let left = deadline - MonotonicTime.now
                        if left <= 0 { break }
                        control.wait(timeout: left)
                    }
                }
                continue
            }
            if reachedEnd || isFull(requests.limits) {
                control.withLock {
                    if !shared.abortRequested && shared.pendingSeek == nil && shared.pendingStreams == nil {
                        shared.idleWaits += 1
                        control.wait(timeout: Self.idleWait)
                    }
                }
                continue
            }
            readPacket()
        }
    }

    /// What the owner asked for since the thread last looked.
    private struct Requests {
        /// `stop` was called.
        var abort: Bool
        /// A seek to perform.
        var seek: SeekRequest?
        /// A routing table to apply.
        var streams: [Int: PacketQueue]?
        /// Whether a seek follows that table.
        var awaitSeek: Bool
        /// The current limits.
        var limits: BufferLimits
    }

    /// Takes the pending requests (clearing the one-shot ones).
    private func takeRequests() -> Requests {
        control.withLock {
            defer {
                shared.pendingSeek = nil
                shared.pendingStreams = nil
                shared.streamsAwaitSeek = false
            }
            return Requests(
                abort: shared.abortRequested, seek: shared.pendingSeek, streams: shared.pendingStreams,
                awaitSeek: shared.pendingStreams != nil && shared.streamsAwaitSeek, limits: shared.limits)
        }
    }

    /// Reads one packet and routes it, or handles the end of input or a read error.
    private func readPacket() {
        let result: ReadResult
        do {
            result = try source.read(into: scratch)
        } catch {
            if source.isInterrupted || control.withLock({ shared.abortRequested }) { return }
            // The source gave the thread back (``MediaSource/wakeBlockedRead()``): look at the requests, read again
            // (after an idle wait when there is none, so that a source saying "again" by itself does not spin).
            if error == FFmpegError.tryAgain {
                if source.yieldsWithinPackets { yieldedWithinPacket = true }
                control.withLock {
                    if !shared.abortRequested && shared.pendingSeek == nil && shared.pendingStreams == nil {
                        control.wait(timeout: Self.idleWait)
                    }
                }
                return
            }
            // ffplay: a failed read at the end of the input is the end of the input.
            if source.isAtEndOfInput {
                reachEnd(with: .endOfFile)
                return
            }
            consecutiveErrors += 1
            control.withLock { shared.readErrors += 1 }
            if consecutiveErrors >= Self.maximumConsecutiveReadErrors || source.ioError != nil {
                reachEnd(with: .readError(source.ioError ?? error))
            }
            return
        }
        reportSourceMetadata()
        switch result {
        case .endOfFile:
            reachEnd(with: .endOfFile)
        case .packet:
            consecutiveErrors = 0
            let index = scratch.streamIndex
            if !source.isLocal { reportICYMetadata(packetStream: index) }
            if let queue = streams[index], !isAttachedPicture(index) {
                queue.put(movingFrom: scratch)
            } else if metadataStreams.contains(index) {
                reportTimedMetadata(stream: index)
                scratch.unref()
            } else {
                scratch.unref()
            }
            let bytes = source.bytesRead
            control.withLock { shared.bytesRead = bytes }
        }
    }

    /// Queues end-of-stream markers, publishes the state and reports `event`.
    private func reachEnd(with event: DemuxEvent) {
        reachedEnd = true
        for queue in streams.values { queue.putEndOfStream() }
        let bytes = source.bytesRead
        let handler = control.withLock {
            shared.isAtEndOfFile = true
            shared.bytesRead = bytes
            return shared.onEvent
        }
        handler?(event)
    }

    /// Performs `request`: seek, flush every queue, clear the end state, report.
    private func perform(_ request: SeekRequest) {
        // Callbacks name the target that was asked for, whatever keyframe the window chose.
        let requestedTarget = request.target
        let mustSeek = yieldedWithinPacket
        yieldedWithinPacket = false
        if !mustSeek, let from = request.continueFrom, request.accurate, request.range == nil, request.window == nil,
            canContinue(from: from, to: request.target)
        {
            continueForward(to: request.target)
            return
        }
        var request = request
        if let window = request.window, let forward = forwardKeyframe(for: request.target, in: window) {
            // Exactly that index entry: a zero-width range makes the seek land on it, not before it.
            request.target = forward
            request.range = forward...forward
            request.accurate = false
        }
        control.withLock { shared.seeksPerformed += 1 }
        let microseconds = Rational(1, 1_000_000)
        guard let target = request.target.ffmpegValue(in: microseconds) else {
            report(.seekFailed(target: requestedTarget, error: FFmpegError.posix(EINVAL)))
            return
        }
        var minimum = Int64.min
        var maximum = target
        if let range = request.range {
            minimum =
                range.lowerBound.isNegativeInfinity
                ? Int64.min : range.lowerBound.ffmpegValue(in: microseconds) ?? Int64.min
            maximum =
                range.upperBound.isPositiveInfinity
                ? Int64.max : range.upperBound.ffmpegValue(in: microseconds) ?? Int64.max
        }
        do {
            try source.seek(toMicroseconds: target, minimum: min(minimum, target), maximum: max(maximum, target))
        } catch {
            report(.seekFailed(target: requestedTarget, error: error))
            return
        }
        // A seek to "at or before the target" must land on a keyframe at or before it.
        let held = request.range == nil ? landOnKeyframe(atOrBefore: request.target) : []
        var serials: [Int: Serial] = [:]
        for (index, queue) in streams {
            queue.flush(dropFramesBefore: request.accurate ? request.target : nil)
            serials[index] = queue.serial
        }
        for packet in held {
            if let queue = streams[packet.streamIndex], !isAttachedPicture(packet.streamIndex) {
                _ = queue.put(movingFrom: packet)
            }
        }
        reachedEnd = false
        consecutiveErrors = 0
        queueAttachedPictures()
        let (onSeek, onEvent) = control.withLock {
            shared.isAtEndOfFile = false
            return (shared.onSeek, shared.onEvent)
        }
        onSeek?(requestedTarget, serials)
        onEvent?(.seekCompleted(target: requestedTarget))
    }

    /// Whether decoding on from `position` (read under the video queue's current serial) reaches `target` without passing a keyframe of the video stream (which a
    /// seek would start from, with less to decode): `target` is not before `position`, and the index's keyframe at or
    /// before `target` is at or before `position`; without an index entry, when `target` is less than
    /// ``blindContinuationLimit`` ahead.
    private func canContinue(from position: (time: CMTime, serial: Serial), to target: CMTime) -> Bool {
        guard target >= position.time,
            let video = streams.keys.sorted().first(where: { source.kind(ofStream: $0) == .video }),
            streams[video]?.serial == position.serial, let timeBase = source.timeBase(ofStream: video),
            let ticks = target.ffmpegValue(in: timeBase)
        else { return false }
        if let keyframe = source.keyframeTimestamps(stream: video, around: ticks).atOrBefore {
            return CMTime(ffmpeg: keyframe, timeBase: timeBase) <= position.time
        }
        return target - position.time <= Self.blindContinuationLimit
    }

    /// Continues forward to `target`: every queue's current serial drops what ends before it; reported as a seek.
    private func continueForward(to target: CMTime) {
        var serials: [Int: Serial] = [:]
        for (index, queue) in streams {
            queue.setDropFramesBefore(target)
            serials[index] = queue.serial
        }
        let (onSeek, onEvent) = control.withLock {
            shared.seeksContinued += 1
            return (shared.onSeek, shared.onEvent)
        }
        onSeek?(target, serials)
        onEvent?(.seekCompleted(target: target))
    }

    /// Makes sure the seek just made lands on a video keyframe at or before `target` (container time): reads up to
    /// that keyframe and, when it starts after `target` (inputs without an index, such as MPEG-TS, where libavformat
    /// seeks by timestamp search and can land a GOP late), seeks again 1, 2, 4 … s earlier. Returns the packets read
    /// from the keyframe on (and the other streams' packets read alongside), to be queued after the flush; video
    /// packets before the keyframe cannot be decoded and are dropped. Inputs with an index land right the first time
    /// and only have their first packets read here.
    private func landOnKeyframe(atOrBefore target: CMTime) -> [Packet] {
        guard let video = streams.keys.sorted().first(where: { source.kind(ofStream: $0) == .video }),
            let timeBase = source.timeBase(ofStream: video)
        else { return [] }
        var backoff = 0.0
        for attempt in 0...5 {
            var held: [Packet] = []
            var landed: CMTime?
            reading: while held.count < Self.landingReadLimit {
                let packet = Packet()
                guard (try? source.read(into: packet)) == .packet else { break reading }
                if packet.streamIndex == video {
                    guard packet.isKeyframe, let ts = packet.pts ?? packet.dts else { continue }  // undecodable
                    landed = CMTime(ffmpeg: ts, timeBase: timeBase)
                    held.append(packet)
                    break reading
                }
                held.append(packet)
            }
            // Late: the keyframe starts after the target, or none came before the end (landed past the last one).
            let late = landed.map { $0 > target } ?? true
            guard late, attempt < 5, target.seconds - backoff > -1 else { return held }
            backoff = max(1, backoff * 2)
            let earlier = target - CMTime(seconds: backoff, preferredTimescale: 1_000_000)
            guard let micros = earlier.ffmpegValue(in: Rational(1, 1_000_000)) else { return held }
            do {
                try source.seek(toMicroseconds: micros, maximum: micros)
            } catch {
                // Nothing indexed that early: from the start.
                guard (try? source.seek(toMicroseconds: Int64.min / 2)) != nil else { return held }
            }
        }
        return []
    }

    /// Packets read at most while looking for the keyframe a seek landed on.
    static let landingReadLimit = 2000

    /// Switches to a new routing table.
    private func apply(_ newStreams: [Int: PacketQueue]) {
        let old = streams
        streams = newStreams
        source.setDiscard(keepingStreams: Set(newStreams.keys).union(metadataStreams))
        for (index, queue) in old where newStreams[index] !== queue {
            queue.setConsumerWakeup(nil)
        }
        for (index, queue) in newStreams where old[index] !== queue {
            queue.setConsumerWakeup(control)
            if let picture = source.attachedPicture(stream: index) {
                queue.put(picture)
                queue.putEndOfStream()
            } else if reachedEnd {
                queue.putEndOfStream()
            }
        }
        control.withLock { shared.streams = newStreams }
    }

    /// Queues the cover art of attached-picture streams, each followed by an end-of-stream marker.
    private func queueAttachedPictures() {
        for (index, queue) in streams {
            guard let picture = source.attachedPicture(stream: index) else { continue }
            queue.put(picture)
            queue.putEndOfStream()
        }
    }

    /// Attached-picture streams, found once on the demux thread.
    lazy var attachedPictureStreams: Set<Int> = Set(
        (0..<streamKinds.count).filter { source.attachedPicture(stream: $0) != nil })

    /// Reports `event` to the owner (outside the lock).
    func report(_ event: DemuxEvent) {
        let handler = control.withLock { shared.onEvent }
        handler?(event)
    }
}
