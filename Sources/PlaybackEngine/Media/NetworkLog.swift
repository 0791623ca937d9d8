import Foundation
import OAVFLocking

/// What a network source measured of its transfers and which requests failed: what the public layer turns into
/// `AVPlayerItemAccessLog` and `AVPlayerItemErrorLog` events. Real numbers only: a field nobody measured stays out.
///
/// Thread-safe: the source's transfer threads append, the public layer reads snapshots.
package final class NetworkLog: @unchecked Sendable {
    /// One finished request.
    package struct Transfer: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            /// A media segment (or an init section): Apple's "media request".
            case media
            /// A playlist, key or other request.
            case other
        }
        /// What a media transfer carries, for the access log's per-kind bit rates.
        package enum Content: Sendable, Equatable {
            /// A segment of the variant played (or of a lone media playlist): its video, with its audio when they
            /// are muxed (what the main segments carry is ``NetworkLog/mainStreams``).
            case main
            /// A segment of an alternate audio rendition.
            case audioRendition
            /// A segment of a subtitle rendition.
            case subtitleRendition
            /// Not a segment, or not said.
            case unspecified
        }
        package var kind: Kind
        package var content: Content
        package var uri: String
        /// The server's host.
        package var serverAddress: String?
        package var bytes: Int64
        /// The download's duration: from the request's start to the arrival of its last byte, on the network side
        /// (how long the reader took to consume the body does not count).
        package var duration: TimeInterval
        /// When the request started: the wall-clock date the access log shows.
        package var start: Date
        /// When the request started on the monotonic clock (``MonotonicTime``, seconds): what transfers are lined up
        /// by (``start`` is a date, which can jump). Records made without one (tests of the logs) take `start`'s
        /// seconds, which line up among themselves.
        package var monotonicStart: Double
        /// The media duration the transfer carried (a segment's `EXTINF`), 0 when not media.
        package var mediaDuration: TimeInterval
        /// The indicated bit rate of the variant it belongs to (its `BANDWIDTH`), when known.
        package var indicatedBitrate: Double?

        package init(
            kind: Kind, uri: String, serverAddress: String?, bytes: Int64, duration: TimeInterval, start: Date,
            monotonicStart: Double? = nil, mediaDuration: TimeInterval = 0, indicatedBitrate: Double? = nil,
            content: Content = .unspecified
        ) {
            self.monotonicStart = monotonicStart ?? start.timeIntervalSinceReferenceDate
            self.kind = kind
            self.content = content
            self.uri = uri
            self.serverAddress = serverAddress
            self.bytes = bytes
            self.duration = duration
            self.start = start
            self.mediaDuration = mediaDuration
            self.indicatedBitrate = indicatedBitrate
        }
    }

    /// One failed request.
    package struct Failure: Sendable, Equatable {
        package var date: Date
        package var uri: String
        package var serverAddress: String?
        /// The HTTP status, or a negative code for a transport failure.
        package var statusCode: Int
        /// "HTTP" for a status, else the transport's error domain.
        package var domain: String
        package var comment: String
        /// The response's header fields, when a response came (an HTTP status).
        package var responseHeaders: [String: String]?

        package init(
            date: Date, uri: String, serverAddress: String?, statusCode: Int, domain: String, comment: String,
            responseHeaders: [String: String]? = nil
        ) {
            self.date = date
            self.uri = uri
            self.serverAddress = serverAddress
            self.statusCode = statusCode
            self.domain = domain
            self.comment = comment
            self.responseHeaders = responseHeaders
        }
    }

    /// What the main playlist's segments carry: whether video, whether audio.
    package struct MainStreams: Sendable, Equatable {
        package var video: Bool
        package var audio: Bool
        package init(video: Bool, audio: Bool) {
            self.video = video
            self.audio = audio
        }
    }

    /// The bytes of the packets demuxed from the main playlist's segments since the start: all of them, and those of
    /// audio streams. How a muxed segment's bytes divide between audio and video.
    package struct PacketBytes: Sendable, Equatable {
        package var all: Int64 = 0
        package var audio: Int64 = 0
        package init(all: Int64 = 0, audio: Int64 = 0) {
            self.all = all
            self.audio = audio
        }
    }

    /// Guards what the log recorded: the source's transfer threads append, the public layer reads. Not an engine
    /// command: transfer threads cannot wait for the engine's mailbox.
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var _mainStreams: MainStreams?
    private var _mainPacketBytes = PacketBytes()
    private var transfers: [Transfer] = []
    private var failures: [Failure] = []
    /// Transfers recorded since the start, the dropped ones included.
    private var transfersRecorded = 0
    /// At most this many of each are kept (the oldest are dropped first).
    static let capacity = 4096

    package init() {}

    package func record(_ transfer: Transfer) {
        lock.withLock {
            transfers.append(transfer)
            transfersRecorded += 1
            if transfers.count > Self.capacity { transfers.removeFirst(transfers.count - Self.capacity) }
        }
    }

    package func record(_ failure: Failure) {
        lock.withLock {
            failures.append(failure)
            if failures.count > Self.capacity { failures.removeFirst(failures.count - Self.capacity) }
        }
    }

    /// The transfers finished so far, oldest first.
    package var finishedTransfers: [Transfer] { lock.withLock { transfers } }

    /// The transfers finished after the first `cursor` ever recorded (those still kept), and the cursor to pass next
    /// time: a reader that follows the log without copying what it already saw.
    package func transfers(after cursor: Int) -> (transfers: ArraySlice<Transfer>, cursor: Int) {
        lock.withLock {
            let new = min(transfers.count, max(0, transfersRecorded - cursor))
            return (transfers.suffix(new), transfersRecorded)
        }
    }

    /// What the main playlist's segments carry, once the source opened them (nil before, and for a source that
    /// does not say).
    package var mainStreams: MainStreams? {
        get { lock.withLock { _mainStreams } }
        set { lock.withLock { _mainStreams = newValue } }
    }

    /// Counts a packet demuxed from the main playlist's segments (`bytes` of payload; `isAudio` when its stream is
    /// audio).
    package func countMainPacket(bytes: Int, isAudio: Bool) {
        lock.withLock {
            _mainPacketBytes.all += Int64(bytes)
            if isAudio { _mainPacketBytes.audio += Int64(bytes) }
        }
    }

    /// The main playlist's packet bytes counted so far.
    package var mainPacketBytes: PacketBytes { lock.withLock { _mainPacketBytes } }

    /// The failed requests so far, oldest first.
    package var failedRequests: [Failure] { lock.withLock { failures } }
}
