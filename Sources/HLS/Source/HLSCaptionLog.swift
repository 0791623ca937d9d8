import CoreMedia
import FFmpegBridge
import Foundation
import OAVFLocking
import PlaybackEngine

/// The CEA-608/708 caption data an ``HLSSource`` finds in its variant's video as it reads it for playback (one entry
/// per video packet that carries any), for the closed-caption readers of its `CLOSED-CAPTIONS` renditions
/// (``HLSClosedCaptionSource``): the captions travel in the video, so reading them on their own would download the
/// video a second time.
///
/// Kept from the start (up to ``capacity`` entries, the oldest dropped first), so a rendition selected while playing
/// gets the captions of the video already read ahead. A packet read again (a seek back, a variant switch repeating
/// a segment's time) is recorded once: entries are keyed by their timestamp. Thread-safe: the source's reading thread
/// appends, caption readers read with cursors of their own.
final class HLSCaptionLog: @unchecked Sendable {
    /// Tuning: entries kept (an hour of 30 fps video that carries captions in every picture; about 40 bytes each).
    static let capacity = 108_000

    /// Guards every `var` below; signalled on every append and by ``wake()``. The source's reading thread appends, the
    /// caption readers' threads wait and read. Not an engine command: those are the source's threads, which block here.
    private let condition = ConditionLock()
    private var entries: [CaptionDataRead] = []
    /// The position (counting from the first entry ever appended) of `entries[0]`.
    private var firstPosition = 0
    /// The timestamps of the `.data` entries held.
    private var recorded = Set<Int64>()

    /// Records the caption data `triplets` of the video packet at `pts`, unless that packet was recorded already.
    func append(pts: Int64, triplets: [UInt8]) {
        condition.withLock {
            guard recorded.insert(pts).inserted else { return }
            entries.append(.data(pts: pts, triplets: triplets))
            if entries.count > Self.capacity {
                let dropped = entries.count / 2
                for case .data(let old, _) in entries.prefix(dropped) { recorded.remove(old) }
                entries.removeFirst(dropped)
                firstPosition += dropped
            }
            condition.broadcast()
        }
    }

    /// The played source read to its end: readers may decode all they hold.
    func markCaughtUp() {
        condition.withLock {
            if entries.last == .caughtUp { return }
            entries.append(.caughtUp)
            condition.broadcast()
        }
    }

    /// The entry at `cursor` (moved on past it; to the oldest entry held when it fell behind), waiting for one;
    /// throws `FFmpegError.exit` once `isInterrupted` says so (``wake()`` makes a waiting reader look).
    func read(at cursor: inout Int, isInterrupted: () -> Bool) throws(FFmpegError) -> CaptionDataRead {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if isInterrupted() { throw FFmpegError.exit }
            cursor = max(cursor, firstPosition)
            if cursor < firstPosition + entries.count {
                defer { cursor += 1 }
                return entries[cursor - firstPosition]
            }
            condition.wait()
        }
    }

    /// Makes waiting readers look at their interruption.
    func wake() {
        condition.withLock { condition.broadcast() }
    }
}

/// Reads the captions of one `CLOSED-CAPTIONS` rendition of an ``HLSSource`` for the engine's `SubtitleTrackReader`:
/// the caption data its played source found in the variant's video (``HLSCaptionLog``), nothing fetched of its own.
/// Its stream list is the played source's; its one stream is the variant's video. Threads: as ``MediaSource`` says.
final class HLSClosedCaptionSource: CaptionDataSource, @unchecked Sendable {
    private let log: HLSCaptionLog
    private let streams: MediaInfo
    private let videoStream: Int
    private let videoTimeBase: Rational
    private let interruptFlag = InterruptFlag()
    /// The reading thread's position in the log.
    private var cursor = 0

    /// A reader of `log`, whose entries are video stream `videoStream`'s (of `streams`, in `videoTimeBase`).
    init(log: HLSCaptionLog, streams: MediaInfo, videoStream: Int, videoTimeBase: Rational) {
        self.log = log
        self.streams = streams
        self.videoStream = videoStream
        self.videoTimeBase = videoTimeBase
    }

    func readCaptionData() throws(FFmpegError) -> CaptionDataRead {
        try log.read(at: &cursor, isInterrupted: { [interruptFlag] in interruptFlag.isAborted })
    }

    var isLocal: Bool { false }

    func open() throws(FFmpegError) {
        if interruptFlag.isAborted { throw FFmpegError.exit }
    }

    var info: MediaInfo { streams }
    var isSeekable: Bool { false }
    var isLive: Bool { false }
    var seekableRange: CMTimeRange? { nil }

    /// Not read: the caption data comes found (``readCaptionData()``).
    func codecParameters(stream index: Int) throws(FFmpegError) -> CodecParameters {
        throw FFmpegError.streamNotFound
    }

    func kind(ofStream index: Int) -> StreamKind { index == videoStream ? .video : .unknown }

    func timeBase(ofStream index: Int) -> Rational? { index == videoStream ? videoTimeBase : nil }

    func setDiscard(keepingStreams streams: Set<Int>) {}

    /// No packets: the caption data comes found (``readCaptionData()``).
    func read(into packet: Packet) throws(FFmpegError) -> ReadResult { .endOfFile }

    func attachedPicture(stream index: Int) -> Packet? { nil }
    var isAtEndOfInput: Bool { false }
    var ioError: FFmpegError? { nil }
    var bytesRead: Int64 { 0 }

    func seek(toMicroseconds microseconds: Int64, minimum: Int64, maximum: Int64) throws(FFmpegError) {}

    func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?) {
        (nil, nil)
    }

    /// Ends this reader's wait, not the played source's reading.
    func interrupt() {
        interruptFlag.abort()
        log.wake()
    }

    var isInterrupted: Bool { interruptFlag.isAborted }

    func makeIndependentSource() -> any MediaSource {
        HLSClosedCaptionSource(log: log, streams: streams, videoStream: videoStream, videoTimeBase: videoTimeBase)
    }
}
