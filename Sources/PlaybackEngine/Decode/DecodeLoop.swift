import CoreMedia
import FFmpegBridge

/// ffplay's `Decoder` and its `decoder_decode_frame`: feeds one stream's packets to its codec and
/// returns decoded frames one at a time, following the packet queue's serials.
///
/// - Packets whose serial differs from the queue's current serial are stale and recycled unsent.
/// - When the serial of the packets taken changes (a seek flushed the queue), the codec is flushed
///   (`avcodec_flush_buffers`) and ``onSerialChange`` runs so the owner resets its pts extrapolation.
/// - An end-of-stream marker drains the codec; when the codec is empty, ``status`` records the serial
///   as finished and ``onEndOfStream`` runs; the loop then waits for packets of a new serial.
/// - Decode errors (invalid data, corrupt frames) are counted in ``status`` and skipped; only a fatal
///   error (out of memory) ends the loop.
/// - With ``skipsNonReferenceBeforeTarget`` (video), while an exact-seek target is set, a packet whose picture
///   cannot be the one shown at the target is sent with `AVDISCARD_NONREF` (mpv's `hr-seek-framedrop`): the codec
///   skips it unless later pictures reference it. The picture due at the target is always decoded: a packet is
///   skipped only when it ends at or before the target and another picture, sent before it or queued right after
///   it, starts after it and at or before the target (with B-frames the next picture in time is often sent
///   earlier, the reference it was predicted from, or comes right after it). Everything else is sent with the
///   switches ``status`` holds (fast rates).
/// - With ``previewsKeyframeAfterSerialChange`` (video), when the first packet of a new serial is a keyframe whose
///   picture is the one due at the serial's exact-seek target (or there is no target: a keyframe seek, the start),
///   the codec is drained right after it, so its picture comes out alone instead of after the codec's reorder delay
///   and frame-threading pipeline (several more pictures decoded first). The codec is then flushed and the keyframe
///   sent again for what follows; its second picture is discarded unseen. One extra keyframe decode buys the
///   picture a seek waits for without the pictures behind it.
///
/// Owned by one decode thread: every member except ``status`` belongs to it.
final class DecodeLoop {
    /// What ``next()`` produced.
    enum Step {
        /// ``frame`` holds a decoded frame of this serial; the caller unrefs it when done.
        case frame(Serial)
        /// The packet queue was aborted: the thread should end.
        case aborted
        /// An unrecoverable error: the thread should report it and end.
        case fatal(FFmpegError)
    }

    /// Receive errors in a row after which the loop stops asking for output and feeds the next
    /// packet (libavcodec reports an error once, so this only guards against a decoder gone wrong).
    static let maximumConsecutiveReceiveErrors = 64

    /// The codec; decode thread only.
    let codec: CodecContext
    /// The stream's packets.
    let packets: PacketQueue
    /// Counters and switches shared with other threads.
    let status: DecoderStatus
    /// The frame ``next()`` decodes into; the caller reads it after `.frame` and unrefs it.
    let frame = Frame()
    /// Runs on the decode thread when packets of a new serial arrive (after the codec flush).
    var onSerialChange: (Serial) -> Void = { _ in }
    /// Runs on the decode thread when the codec is fully drained at the end of `serial`'s stream.
    var onEndOfStream: (Serial) -> Void = { _ in }
    /// Whether pictures that end before an exact-seek target and that no later picture references are skipped
    /// (video decoders; see the type's summary).
    var skipsNonReferenceBeforeTarget = false

    /// Whether the keyframe that starts a new serial is decoded on its own first (see the type's summary).
    var previewsKeyframeAfterSerialChange = false

    /// Queued packets looked at when deciding whether a picture can be skipped before a target: the next picture in
    /// time, when it comes after in decode order, is within the next few packets (B-frame runs are short).
    static let skipLookahead = 8

    /// The serial of the packet last taken (ffplay's `pkt_serial`); nil before the first.
    private(set) var packetSerial: Serial?
    /// A packet the codec refused with EAGAIN, to send again after reading output.
    private var pending: PendingInput?
    /// Whether the codec has been sent the end-of-stream signal for `packetSerial` and not yet flushed.
    private var draining = false
    /// Presentation timestamps of the packets sent since the last keyframe of `packetSerial` (the keyframe's
    /// included), in decode order: pictures known to exist when deciding whether one can be skipped.
    private var sentSinceKeyframe: [Int64] = []
    /// Packets of `packetSerial` sent to the codec, while its first picture has not come out (nil after).
    private var sentBeforeFirstPicture: Int?
    /// Whether the next packet taken is the first of `packetSerial` (a keyframe preview may start with it).
    private var awaitsFirstPacket = false
    /// The keyframe being previewed: sent, then the drain signal; sent again once the codec is drained and flushed.
    private var previewKeyframe: Packet?
    /// Whether the codec is draining after a previewed keyframe (its end of stream is the preview's, not the serial's).
    private var previewDraining = false
    /// The timestamp of the previewed keyframe sent again: its second picture is discarded.
    private var suppressedTimestamp: Int64?
    /// Presentation timestamps of the packets of `packetSerial` sent with any skipping on, after the last frame
    /// out (see ``hasSkipped(after:before:)``).
    private var skippedTimestamps: [Int64] = []

    /// Input waiting to be sent.
    private enum PendingInput {
        /// A packet to decode (owned by the loop until sent or recycled).
        case packet(Packet)
        /// The drain signal (`avcodec_send_packet(NULL)`).
        case endOfStream
        /// The drain signal after a previewed keyframe.
        case previewDrain
    }

    /// A loop feeding `codec` from `packets`, counting into `status`.
    init(codec: CodecContext, packets: PacketQueue, status: DecoderStatus) {
        self.codec = codec
        self.packets = packets
        self.status = status
    }

    /// Decodes until a frame is ready (in ``frame``), the queue is aborted, or a fatal error occurs.
    func next() -> Step {
        while true {
            if let serial = packetSerial, packets.serial == serial {
                switch receive(serial: serial) {
                case .some(let step): return step
                case .none: break
                }
            }
            switch takeInput() {
            case .aborted: return .aborted
            case .input(let input): if let fatal = send(input) { return .fatal(fatal) }
            }
        }
    }

    // MARK: Private

    /// Asks the codec for output. Returns a step to hand to the caller, or nil when the codec needs input.
    private func receive(serial: Serial) -> Step? {
        var consecutiveErrors = 0
        while true {
            if packets.isAborted { return .aborted }
            do {
                switch try codec.receive(into: frame) {
                case .frame:
                    status.countProduced()
                    if let suppressed = suppressedTimestamp, let pts = frame.bestEffortTimestamp, pts <= suppressed {
                        // The previewed keyframe's picture again (already out), or one before it that an open GOP
                        // leads with (shown before the keyframe, so too late now).
                        if pts < suppressed { status.countDropped() }
                        frame.unref()
                        continue
                    }
                    suppressedTimestamp = nil
                    if let sent = sentBeforeFirstPicture {
                        sentBeforeFirstPicture = nil
                        status.noteFirstPicture(serial: serial, packetsSent: sent)
                    }
                    if frame.isCorrupt { status.countDecodeError() }
                    return .frame(serial)
                case .needsInput:
                    return nil
                case .endOfStream where previewDraining:
                    finishPreview()
                    return nil
                case .endOfStream:
                    codec.flush()
                    draining = false
                    // The owner pushes what it still holds first, so "finished and queue empty" means the end.
                    onEndOfStream(serial)
                    status.setFinished(serial)
                    return nil
                }
            } catch {
                if error.posixErrno == ENOMEM { return .fatal(error) }
                status.countDecodeError()
                consecutiveErrors += 1
                if consecutiveErrors >= Self.maximumConsecutiveReceiveErrors {
                    if previewDraining { finishPreview() }
                    return nil
                }
            }
        }
    }

    /// What ``takeInput()`` produced.
    private enum Taken {
        /// Input of the queue's current serial.
        case input(PendingInput)
        /// The queue was aborted.
        case aborted
    }

    /// The next input of the queue's current serial: the pending one, else packets from the queue,
    /// recycling stale ones, flushing the codec when the serial changes.
    private func takeInput() -> Taken {
        while true {
            let input: PendingInput
            if let pending {
                self.pending = nil
                input = pending
            } else {
                let serial: Serial
                switch packets.get(blocking: true) {
                case .aborted, .empty:
                    return .aborted
                case .packet(let packet, let packetSerial):
                    input = .packet(packet)
                    serial = packetSerial
                case .endOfStream(let packetSerial):
                    input = .endOfStream
                    serial = packetSerial
                }
                if serial != packetSerial {
                    codec.flush()
                    draining = false
                    endPreview()
                    awaitsFirstPacket = true
                    sentBeforeFirstPicture = 0
                    sentSinceKeyframe.removeAll()
                    skippedTimestamps.removeAll()
                    packetSerial = serial
                    status.setFinished(nil)
                    status.noteInput(end: nil)
                    onSerialChange(serial)
                }
            }
            if packets.serial == packetSerial { return .input(input) }
            if case .packet(let packet) = input { packets.recycle(packet) }
        }
    }

    /// The previewed keyframe is out (the codec drained): flushes the codec and sends the keyframe again next, for the
    /// pictures after it, discarding its second picture.
    private func finishPreview() {
        codec.flush()
        previewDraining = false
        if let keyframe = previewKeyframe {
            previewKeyframe = nil
            pending = .packet(keyframe)
            suppressedTimestamp = keyframe.pts
        }
    }

    /// Forgets a keyframe preview in progress (the codec was flushed for a new serial).
    private func endPreview() {
        previewDraining = false
        suppressedTimestamp = nil
        if let keyframe = previewKeyframe {
            previewKeyframe = nil
            packets.recycle(keyframe)
        }
    }

    /// Whether `packet`, the first of the current serial, is a keyframe whose picture is the one due at the serial's
    /// exact-seek target (or there is none), so it is decoded on its own first.
    private func startsPreview(_ packet: Packet) -> Bool {
        guard previewsKeyframeAfterSerialChange, packet.isKeyframe, let serial = packetSerial, let pts = packet.pts
        else { return false }
        guard let target = status.dropTarget(for: serial, packets: packets) else { return true }
        let timeBase = packets.timeBase
        let start = CMTime(ffmpeg: pts, timeBase: timeBase)
        // A keyframe after the target is still the first picture shown; one before it is when it lasts past it.
        guard packet.duration > 0 else { return target <= start }
        return target < CMTime(ffmpeg: pts + packet.duration, timeBase: timeBase)
    }

    /// Whether a packet sent with skipping on in the current serial has a timestamp strictly between `earlier` and
    /// `later` (two frames out in a row: whether a picture may be missing between them); forgets those at or before
    /// `earlier`, which no later pair can need.
    func hasSkipped(after earlier: Int64, before later: Int64) -> Bool {
        skippedTimestamps.removeAll { $0 <= earlier }
        return skippedTimestamps.contains { $0 < later }
    }

    /// Whether `packet`'s picture can be skipped on the way to the exact-seek target of the current serial: it is
    /// not a keyframe, it ends at or before the target (when it says how long it lasts), and a picture sent since
    /// the last keyframe or queued right after it starts after it and at or before the target, so the picture shown
    /// at the target is a later one. Timestamps compare in the stream's time base.
    private func isSkippableBeforeTarget(_ packet: Packet) -> Bool {
        guard skipsNonReferenceBeforeTarget, !packet.isKeyframe, !status.decodesEverythingBeforeTarget,
            let serial = packetSerial, let pts = packet.pts,
            let target = status.dropTarget(for: serial, packets: packets)
        else { return false }
        let timeBase = packets.timeBase
        func isAtOrBeforeTarget(_ ticks: Int64) -> Bool { CMTime(ffmpeg: ticks, timeBase: timeBase) <= target }
        guard isAtOrBeforeTarget(pts + max(0, packet.duration)) else { return false }
        if sentSinceKeyframe.contains(where: { $0 > pts && isAtOrBeforeTarget($0) }) { return true }
        return packets.upcomingTimestamps(limit: Self.skipLookahead).contains { $0 > pts && isAtOrBeforeTarget($0) }
    }

    /// Sends `input` to the codec. Returns a fatal error, or nil (sent, kept pending, or skipped).
    private func send(_ input: PendingInput) -> FFmpegError? {
        var skipping = status.frameSkipping
        var skipsBeforeTarget = false
        if skipping == .none, case .packet(let packet) = input, !draining, isSkippableBeforeTarget(packet) {
            skipping = .nonReference
            skipsBeforeTarget = true
        }
        if codec.frameSkipping != skipping { codec.frameSkipping = skipping }
        var previews = false
        if case .packet(let packet) = input, awaitsFirstPacket {
            awaitsFirstPacket = false
            previews = !draining && startsPreview(packet)
        }
        do {
            switch input {
            case .packet(let packet):
                if draining {
                    // Packets after an end-of-stream marker of the same serial: the codec cannot take
                    // them until it is flushed; drop them (the demuxer only does this on a read retry).
                    packets.recycle(packet)
                    return nil
                }
                if let pts = packet.pts { status.noteInput(end: pts + max(0, packet.duration)) }
                if try codec.send(packet) {
                    sentBeforeFirstPicture? += 1
                    if packet.isKeyframe { sentSinceKeyframe.removeAll() }
                    if let pts = packet.pts { sentSinceKeyframe.append(pts) }
                    if skipsBeforeTarget { status.countSentSkippingNonReference() }
                    if skipping != .none, let pts = packet.pts { skippedTimestamps.append(pts) }
                    if previews {
                        previewKeyframe = packet
                        return send(.previewDrain)
                    }
                    packets.recycle(packet)
                } else {
                    if previews { awaitsFirstPacket = true }
                    pending = .packet(packet)
                }
            case .endOfStream:
                if draining { return nil }
                if try codec.send(nil) {
                    draining = true
                } else {
                    pending = .endOfStream
                }
            case .previewDrain:
                if try codec.send(nil) {
                    previewDraining = true
                } else {
                    pending = .previewDrain
                }
            }
            return nil
        } catch {
            if case .packet(let packet) = input { packets.recycle(packet) }
            if case .previewDrain = input { endPreview() }
            if error.posixErrno == ENOMEM { return error }
            status.countDecodeError()
            return nil
        }
    }
}
