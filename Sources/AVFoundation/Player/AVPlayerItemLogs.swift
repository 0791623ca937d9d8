import Foundation

/// The access log of an item: one event per uninterrupted period of playback.
///
/// Apple fills it for streams only; here files get events too (dropped frames, stalls, duration
/// watched, bit rates, startup time).
open class AVPlayerItemAccessLog: NSObject, NSCopying, @unchecked Sendable {
    /// The log's events, oldest first.
    public private(set) var events: [AVPlayerItemAccessLogEvent]

    init(events: [AVPlayerItemAccessLogEvent]) {
        self.events = events
    }

    /// Returns an immutable copy.
    public func copy(with zone: NSZone? = nil) -> Any { AVPlayerItemAccessLog(events: events) }

    func append(_ e: AVPlayerItemAccessLogEvent) { events.append(e) }

    /// The log in the W3C Extended Log File Format (Apple's field names).
    open func extendedLogData() -> Data? {
        var lines = [
            "#Version: 1.0", "#Software: OpenAVFoundation",
            "#Date: \(W3C.date(Date()))",
            "#Fields: date time s-ip uri cs-guid c-start-time c-duration-watched c-stalls c-frames-dropped "
                + "c-observed-bitrate sc-indicated-bitrate c-startup-time bytes s-playback-type",
        ]
        for e in events {
            lines.append(
                [
                    W3C.dateTime(e.playbackStartDate), e.serverAddress ?? "-", e.uri ?? "-", e.playbackSessionID ?? "-",
                    W3C.number(e.playbackStartOffset), W3C.number(e.durationWatched), "\(e.numberOfStalls)",
                    "\(e.numberOfDroppedVideoFrames)", W3C.number(e.observedBitrate), W3C.number(e.indicatedBitrate),
                    W3C.number(e.startupTime), "\(e.numberOfBytesTransferred)", e.playbackType ?? "-",
                ].joined(separator: " "))
        }
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// The string encoding of the extended log: UTF-8.
    open var extendedLogDataStringEncoding: UInt { String.Encoding.utf8.rawValue }
}

/// One access-log event. Numbers are negative when unknown, strings and dates nil.
open class AVPlayerItemAccessLogEvent: NSObject, NSCopying, @unchecked Sendable {
    /// The number of media requests (segments, or reads for files); −1 when not known.
    public internal(set) var numberOfMediaRequests: Int = -1
    /// The number of media segments downloaded: Apple's deprecated name for ``numberOfMediaRequests``.
    @available(*, deprecated, renamed: "numberOfMediaRequests")
    public var numberOfSegmentsDownloaded: Int { numberOfMediaRequests }
    /// When playback started.
    public internal(set) var playbackStartDate: Date?
    /// The URI played.
    public internal(set) var uri: String?
    /// The server's address, if known.
    public internal(set) var serverAddress: String?
    /// The number of server address changes; −1 when not known.
    public internal(set) var numberOfServerAddressChanges: Int = -1
    /// A unique identifier of the playback session.
    public internal(set) var playbackSessionID: String?
    /// The item time playback started at, in seconds.
    public internal(set) var playbackStartOffset: TimeInterval = -1
    /// The duration of the segments downloaded, in seconds; −1 when not known.
    public internal(set) var segmentsDownloadedDuration: TimeInterval = -1
    /// How long playback ran, in seconds.
    public internal(set) var durationWatched: TimeInterval = -1
    /// The number of stalls.
    public internal(set) var numberOfStalls: Int = -1
    /// The number of bytes transferred; −1 when not known.
    public internal(set) var numberOfBytesTransferred: Int64 = -1
    /// How long transfers took, in seconds; −1 when not known.
    public internal(set) var transferDuration: TimeInterval = -1
    /// The observed bit rate, in bits per second; −1 when not known.
    public internal(set) var observedBitrate: Double = -1
    /// The bit rate the stream's playlist indicates; −1 when not known.
    public internal(set) var indicatedBitrate: Double = -1
    /// The average bit rate the stream's playlist indicates; −1 when not known.
    public internal(set) var indicatedAverageBitrate: Double = -1
    /// The average video bit rate; −1 when not known.
    public internal(set) var averageVideoBitrate: Double = -1
    /// The average audio bit rate; −1 when not known.
    public internal(set) var averageAudioBitrate: Double = -1
    /// The number of video frames dropped.
    public internal(set) var numberOfDroppedVideoFrames: Int = -1
    /// How long playback took to start, in seconds; −1 when not known.
    public internal(set) var startupTime: TimeInterval = -1
    /// The number of segments downloaded too late; −1 when not known.
    public internal(set) var downloadOverdue: Int = -1
    /// The standard deviation of the observed bit rate; −1 when not known.
    public internal(set) var observedBitrateStandardDeviation: Double = -1
    /// The bit rate of a variant switch; −1 when not known.
    public internal(set) var switchBitrate: Double = -1
    /// The number of requests over cellular networks: −1 (not known on Linux).
    public internal(set) var mediaRequestsWWAN: Int = -1
    /// The playback type: `"FILE"` for files, `"VOD"` for other URLs.
    public internal(set) var playbackType: String?

    override init() { super.init() }

    /// Returns the object itself: it is immutable, so it is its own copy.
    public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// The error log of an item.
open class AVPlayerItemErrorLog: NSObject, NSCopying, @unchecked Sendable {
    /// The log's events, oldest first.
    public private(set) var events: [AVPlayerItemErrorLogEvent]

    init(events: [AVPlayerItemErrorLogEvent]) {
        self.events = events
    }

    /// Returns an immutable copy.
    public func copy(with zone: NSZone? = nil) -> Any { AVPlayerItemErrorLog(events: events) }

    func append(_ e: AVPlayerItemErrorLogEvent) { events.append(e) }

    /// The log in the W3C Extended Log File Format.
    open func extendedLogData() -> Data? {
        var lines = [
            "#Version: 1.0", "#Software: OpenAVFoundation", "#Date: \(W3C.date(Date()))",
            "#Fields: date time s-ip uri cs-guid status domain comment",
        ]
        for e in events {
            lines.append(
                [
                    W3C.dateTime(e.date), e.serverAddress ?? "-", e.uri ?? "-", e.playbackSessionID ?? "-",
                    "\(e.errorStatusCode)", e.errorDomain,
                    "\"\((e.errorComment ?? "").replacingOccurrences(of: "\"", with: "'"))\"",
                ].joined(separator: " "))
        }
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// The string encoding of the extended log: UTF-8.
    open var extendedLogDataStringEncoding: UInt { String.Encoding.utf8.rawValue }
}

/// One error-log event.
open class AVPlayerItemErrorLogEvent: NSObject, NSCopying, @unchecked Sendable {
    /// When the error happened.
    public let date: Date?
    /// The URI involved, if any.
    public let uri: String?
    /// The server's address, if known.
    public let serverAddress: String?
    /// A unique identifier of the playback session.
    public let playbackSessionID: String?
    /// An HTTP status or an error code (`AVError` codes for local failures).
    public let errorStatusCode: Int
    /// The error's domain.
    public let errorDomain: String
    /// A description of the error.
    public let errorComment: String?

    init(
        date: Date?, uri: String?, serverAddress: String?, playbackSessionID: String?, errorStatusCode: Int,
        errorDomain: String, errorComment: String?
    ) {
        self.date = date
        self.uri = uri
        self.serverAddress = serverAddress
        self.playbackSessionID = playbackSessionID
        self.errorStatusCode = errorStatusCode
        self.errorDomain = errorDomain
        self.errorComment = errorComment
        super.init()
    }

    /// Returns the object itself: it is immutable, so it is its own copy.
    public func copy(with zone: NSZone? = nil) -> Any { self }
}

enum W3C {
    static func date(_ d: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f.string(from: d)
    }

    static func dateTime(_ d: Date?) -> String { d.map(date) ?? "- -" }

    static func number(_ v: Double) -> String { v < 0 ? "-" : String(format: "%.3f", v) }
}
