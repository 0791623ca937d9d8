import CoreMedia
import FFmpegBridge
import OAVFLocking

/// The part of a decoder other threads see: counters, the finished serial, and the switches the engine
/// flips while the decode thread runs. Thread-safe (one lock); the decode thread reads the switches
/// before each packet or frame.
package final class DecoderStatus: @unchecked Sendable {
    /// The guarded fields.
    private struct State {
        /// See ``DecoderStatus/decodeErrorCount``.
        var decodeErrorCount = 0
        /// See ``DecoderStatus/finishedSerial``.
        var finishedSerial: Serial?
        /// See ``DecoderStatus/skipNonReferenceFrames``.
        var skipNonReference = false
        /// See ``DecoderStatus/skipNonKeyFrames``.
        var skipNonKey = false
        /// The exact-seek target and the serials it applies to.
        var dropTarget: (scope: DropScope, time: CMTime)?
        /// See ``DecoderStatus/framesDecoded``.
        var framesDecoded = 0
        /// See ``DecoderStatus/framesDropped``.
        var framesDropped = 0
        /// See ``DecoderStatus/framesProduced``.
        var framesProduced = 0
        /// See ``DecoderStatus/packetsSentSkippingNonReference``.
        var packetsSentSkippingNonReference = 0
        /// See ``DecoderStatus/lastInputEnd``.
        var lastInputEnd: Int64?
        /// See ``DecoderStatus/decodesEverythingBeforeTarget``.
        var decodesEverythingBeforeTarget = false
        /// See ``DecoderStatus/cachesPictures``.
        var cachesPictures = false
        /// See ``DecoderStatus/pushedEnd(serial:)``.
        var pushedEnd: (serial: Serial, ticks: Int64)?
        /// See ``DecoderStatus/packetsSentForFirstPicture(serial:)``.
        var firstPicture: (serial: Serial, packetsSent: Int)?
    }

    /// Which serials an exact-seek target applies to.
    enum DropScope {
        /// Frames of exactly this serial.
        case serial(Serial)
        /// Frames of any serial after this one (set before the seek that creates the serial).
        case after(Serial)
    }

    /// Guards `state`. Decode thread and engine thread. Not an engine command: the decode thread reads the switches
    /// between packets and cannot wait for the engine's mailbox.
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var state = State()

    /// Errors so far: packets the codec rejected, failed receives, frames flagged corrupt, pictures that
    /// could not be converted.
    package var decodeErrorCount: Int { lock.withLock { state.decodeErrorCount } }

    /// The serial whose end of stream the decoder has fully drained (ffplay's `finished`); nil while
    /// decoding. Playback of a stream has ended when this equals the packet queue's serial and the
    /// frame queue is empty.
    package var finishedSerial: Serial? { lock.withLock { state.finishedSerial } }

    /// Frames handed to the frame queue so far.
    package var framesDecoded: Int { lock.withLock { state.framesDecoded } }

    /// Frames decoded but dropped (stale serial, before an exact-seek target) so far.
    package var framesDropped: Int { lock.withLock { state.framesDropped } }

    /// Frames the codec produced so far, whatever became of them (pushed, dropped before an exact-seek target, stale):
    /// the decoding work done. Pictures the codec skipped (`skip_frame`) never count.
    package var framesProduced: Int { lock.withLock { state.framesProduced } }

    /// Packets sent to the codec with `AVDISCARD_NONREF` because their picture ends before an exact-seek target
    /// (whether the codec then skipped it depends on the picture: reference pictures are decoded anyway).
    package var packetsSentSkippingNonReference: Int { lock.withLock { state.packetsSentSkippingNonReference } }

    /// Where the latest packet given to the codec ends (`pts + duration`, stream time base), for the current serial:
    /// how far the stream got even when skipped pictures (high rates) never come out of the decoder.
    package var lastInputEnd: Int64? { lock.withLock { state.lastInputEnd } }

    /// Records the end of a packet given to the codec, keeping the latest (nil: a new serial began).
    func noteInput(end: Int64?) {
        lock.withLock { state.lastInputEnd = end.map { max($0, state.lastInputEnd ?? $0) } }
    }

    /// Where the latest frame of `serial` pushed to the frame queue ends (stream time base), nil when none was: frames
    /// from there on are still to come out of the decoder.
    package func pushedEnd(serial: Serial) -> Int64? {
        lock.withLock { state.pushedEnd.flatMap { $0.serial == serial ? $0.ticks : nil } }
    }

    /// How many packets of `serial` the codec had been sent when the first picture of `serial` came out of it (the
    /// keyframe sent twice by a preview counts twice); nil before that picture or for another serial. The work a seek
    /// waits for: with B-frames and frame threading, a picture usually comes out only after several more are sent.
    package func packetsSentForFirstPicture(serial: Serial) -> Int? {
        lock.withLock { state.firstPicture.flatMap { $0.serial == serial ? $0.packetsSent : nil } }
    }

    /// Records the first picture of `serial` out of the codec (decode thread).
    func noteFirstPicture(serial: Serial, packetsSent: Int) {
        lock.withLock { state.firstPicture = (serial, packetsSent) }
    }

    /// Records the end of a frame of `serial` just pushed (decode thread).
    func notePushed(end: Int64, serial: Serial) { lock.withLock { state.pushedEnd = (serial, end) } }

    /// Whether pictures before an exact-seek target are all decoded (none skipped), so the picture cache gets every
    /// one of them: set for seeks a little way back, which backward steps and scrubs follow.
    package var decodesEverythingBeforeTarget: Bool {
        get { lock.withLock { state.decodesEverythingBeforeTarget } }
        set { lock.withLock { state.decodesEverythingBeforeTarget = newValue } }
    }

    /// Whether the decoder puts the pictures it makes into its ``PictureCache`` (when it has one).
    package var cachesPictures: Bool {
        get { lock.withLock { state.cachesPictures } }
        set { lock.withLock { state.cachesPictures = newValue } }
    }

    /// Whether the codec skips non-reference frames (`AVDISCARD_NONREF`).
    package var skipNonReferenceFrames: Bool {
        get { lock.withLock { state.skipNonReference } }
        set { lock.withLock { state.skipNonReference = newValue } }
    }

    /// Whether the codec decodes keyframes only (`AVDISCARD_NONKEY`); wins over ``skipNonReferenceFrames``.
    package var skipNonKeyFrames: Bool {
        get { lock.withLock { state.skipNonKey } }
        set { lock.withLock { state.skipNonKey = newValue } }
    }

    /// Which frames the codec skips; applied by the decode thread before its next packet.
    package var frameSkipping: FrameSkipping {
        lock.withLock { state.skipNonKey ? .nonKey : state.skipNonReference ? .nonReference : .none }
    }

    /// The exact-seek target last set, whatever serials it applies to.
    package var dropFramesBefore: CMTime? {
        lock.withLock { state.dropTarget?.time }
    }

    /// Makes the decoder drop frames that end before `time` (nil clears), for frames of exactly
    /// `serial` or, with `after`, of any later serial.
    func setDropFramesBefore(_ time: CMTime?, scope: DropScope) {
        lock.withLock { state.dropTarget = time.map { (scope, $0) } }
    }

    /// The target for frames of `serial`: the one set here when it applies, else the one the packet
    /// queue's flush recorded (`Demuxer.seek(to:range:accurate:)`).
    func dropTarget(for serial: Serial, packets: PacketQueue) -> CMTime? {
        if let target = lock.withLock({ state.dropTarget }) {
            switch target.scope {
            case .serial(let exact) where exact == serial: return target.time
            case .after(let previous) where serial > previous: return target.time
            default: break
            }
        }
        return packets.dropFramesBefore(serial: serial)
    }

    /// Counts one decode error (decode thread).
    func countDecodeError() { lock.withLock { state.decodeErrorCount += 1 } }
    /// Counts one frame pushed (decode thread).
    func countDecoded() { lock.withLock { state.framesDecoded += 1 } }
    /// Counts one frame out of the codec (decode thread).
    func countProduced() { lock.withLock { state.framesProduced += 1 } }
    /// Counts one packet sent with `AVDISCARD_NONREF` before an exact-seek target (decode thread).
    func countSentSkippingNonReference() { lock.withLock { state.packetsSentSkippingNonReference += 1 } }
    /// Counts one frame decoded but dropped (decode thread).
    func countDropped() { lock.withLock { state.framesDropped += 1 } }
    /// Records the drained serial, or nil when decoding resumes (decode thread).
    func setFinished(_ serial: Serial?) { lock.withLock { state.finishedSerial = serial } }
}
