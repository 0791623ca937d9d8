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

    /// The log in the W3C Extended Log File Format, as Apple's players write it: `#Version`, `#Software` (the
    /// player's user agent), `#Date`, then one line per event under Apple's `#Fields` (`date time uri cs-guid s-ip
    /// s-ip-changes sc-count c-duration-downloaded c-start-time c-duration-watched bytes c-observed-bitrate
    /// sc-indicated-bitrate c-stalls c-frames-dropped c-startup-time c-overdue c-reason c-observed-min-bitrate
    /// c-observed-max-bitrate c-observed-bitrate-sd s-playback-type sc-wwan-count c-switch-bitrate`), then the
    /// columns Apple's newer fields name (`sc-indicated-avg-bitrate c-avg-video-bitrate c-avg-audio-bitrate`; Apple
    /// documents their names, not their place, so they follow the older ones). Unknown values are `-`; `c-reason`
    /// (why Apple's player began a new event) is always `-` here.
    open func extendedLogData() -> Data? {
        var text = W3C.header()
        guard !events.isEmpty else { return Data(text.utf8) }
        text += "\n#Fields: " + W3C.accessFields.joined(separator: " ") + "\n"
        for e in events {
            let fields: [String] = [
                e.uri ?? "-", e.playbackSessionID ?? "-", e.serverAddress ?? "-",
                W3C.count(e.numberOfServerAddressChanges), W3C.count(e.numberOfMediaRequests),
                W3C.number(e.segmentsDownloadedDuration), W3C.number(e.playbackStartOffset),
                W3C.number(e.durationWatched), W3C.count(e.numberOfBytesTransferred), W3C.number(e.observedBitrate),
                W3C.count(e.indicatedBitrate), W3C.count(e.numberOfStalls), W3C.count(e.numberOfDroppedVideoFrames),
                W3C.number(e.startupTime), W3C.count(e.downloadOverdue), "-", W3C.number(e.observedMinimum),
                W3C.number(e.observedMaximum), W3C.number(e.observedBitrateStandardDeviation),
                e.playbackType ?? "-", W3C.count(e.mediaRequestsWWAN), W3C.count(e.switchBitrate),
                W3C.count(e.indicatedAverageBitrate), W3C.number(e.averageVideoBitrate),
                W3C.number(e.averageAudioBitrate),
            ]
            text += W3C.dateTime(e.playbackStartDate) + " " + fields.joined(separator: " ") + "\n"
        }
        return Data(text.utf8)
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
    /// The IP address of the server of the last media request (the first address its host name resolves to), if
    /// known.
    public internal(set) var serverAddress: String?
    /// How often the server changed between one media request of the period and the next (their servers'
    /// addresses, in the order the requests started; "s-ip-changes"); −1 when not known (a file).
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
    /// The average bit rate the multivariant playlist advertises for the period's variant (its `AVERAGE-BANDWIDTH`,
    /// "sc-indicated-avg-bitrate"); −1 when it states none, and for a lone media playlist or a file.
    public internal(set) var indicatedAverageBitrate: Double = -1
    /// The video's average bit rate over the period's downloaded segments, in bits per second
    /// ("c-avg-video-bitrate"): each segment's bytes × 8 over its media duration, weighted by that duration — the
    /// video segments' bytes over their media seconds. Segments that carry audio muxed with the video give the
    /// combined content's rate, as Apple's do. −1 when not known (no video segment downloaded; a file).
    public internal(set) var averageVideoBitrate: Double = -1
    /// The audio's average bit rate over the period's downloaded segments, in bits per second
    /// ("c-avg-audio-bitrate"), weighted by duration as ``averageVideoBitrate`` is: from an alternate audio
    /// rendition's segments, from audio-only segments, or, muxed with video, from the segments' bytes split by the
    /// sizes of the audio and video packets demuxed from them. −1 when not known (a file).
    public internal(set) var averageAudioBitrate: Double = -1
    /// The number of video frames dropped.
    public internal(set) var numberOfDroppedVideoFrames: Int = -1
    /// How long playback took to start, in seconds; −1 when not known.
    public internal(set) var startupTime: TimeInterval = -1
    /// The number of media requests whose download took longer than the media they carried (a segment that
    /// arrived slower than real time; "c-overdue"). The download time is the network's: from the request to its last
    /// byte, whether or not playback was reading (paused, or its buffer full). −1 when not known (a file).
    public internal(set) var downloadOverdue: Int = -1
    /// The lowest bit rate observed over one media request (bits per second); −1 when not known.
    @available(*, deprecated, message: "Apple deprecated it (iOS 15, macOS 12): use observedBitrate")
    public var observedMinBitrate: Double { observedMinimum }
    /// The highest bit rate observed over one media request (bits per second); −1 when not known.
    @available(*, deprecated, message: "Apple deprecated it (iOS 15, macOS 12): use observedBitrate")
    public var observedMaxBitrate: Double { observedMaximum }
    /// Storage of ``observedMinBitrate``.
    var observedMinimum: Double = -1
    /// Storage of ``observedMaxBitrate``.
    var observedMaximum: Double = -1
    /// The standard deviation of the observed bit rate; −1 when not known.
    public internal(set) var observedBitrateStandardDeviation: Double = -1
    /// The bit rate of a variant switch; −1 when not known.
    public internal(set) var switchBitrate: Double = -1
    /// The number of media requests over cellular (WWAN) networks: 0 for streams (Linux has no interface the player
    /// tells apart as cellular), −1 for files.
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

    /// The log in the W3C Extended Log File Format, as Apple's players write it: the header of the access log's,
    /// then one line per event under Apple's `#Fields: date time uri cs-guid s-ip status domain comment cs-iftype`
    /// (domain and comment quoted; `cs-iftype`, the network interface type, is `-` here).
    open func extendedLogData() -> Data? {
        var text = W3C.header()
        guard !events.isEmpty else { return Data(text.utf8) }
        text += "\n#Fields: date time uri cs-guid s-ip status domain comment cs-iftype\n"
        for e in events {
            let fields: [String] = [
                e.uri ?? "-", e.playbackSessionID ?? "-", e.serverAddress ?? "-", "\(e.errorStatusCode)",
                W3C.quoted(e.errorDomain), W3C.quoted(e.errorComment), "-",
            ]
            text += W3C.dateTime(e.date) + " " + fields.joined(separator: " ") + "\n"
        }
        return Data(text.utf8)
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
    /// The header fields of the failed response, nil when no response came (a transport failure, a local error).
    public let allHTTPResponseHeaderFields: [String: String]?

    init(
        date: Date?, uri: String?, serverAddress: String?, playbackSessionID: String?, errorStatusCode: Int,
        errorDomain: String, errorComment: String?, allHTTPResponseHeaderFields: [String: String]? = nil
    ) {
        self.allHTTPResponseHeaderFields = allHTTPResponseHeaderFields
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

/// Apple's W3C Extended Log File Format conventions.
enum W3C {
    /// The access log's fields, in Apple's order.
    static let accessFields = [
        "date", "time", "uri", "cs-guid", "s-ip", "s-ip-changes", "sc-count", "c-duration-downloaded", "c-start-time",
        "c-duration-watched", "bytes", "c-observed-bitrate", "sc-indicated-bitrate", "c-stalls", "c-frames-dropped",
        "c-startup-time", "c-overdue", "c-reason", "c-observed-min-bitrate", "c-observed-max-bitrate",
        "c-observed-bitrate-sd", "s-playback-type", "sc-wwan-count", "c-switch-bitrate", "sc-indicated-avg-bitrate",
        "c-avg-video-bitrate", "c-avg-audio-bitrate",
    ]

    /// What the `#Software` line names: the player, as its user agent would.
    static let software = "OpenAVFoundation/1.0 (Linux)"

    /// `#Version`, `#Software` and `#Date` (now), without a final newline.
    static func header(now: Date = Date()) -> String {
        "#Version: 1.0\n#Software: \(software)\n#Date: \(date(now))"
    }

    /// `yyyy/MM/dd HH:mm:ss.SSS` in the local time zone, as Apple writes its dates.
    static func date(_ d: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone.current
        f.dateFormat = "yyyy/MM/dd HH:mm:ss.SSS"
        return f.string(from: d)
    }

    /// The `date time` fields, `- -` when unknown.
    static func dateTime(_ d: Date?) -> String { d.map(date) ?? "- -" }

    /// A measured quantity with three decimals, `-` when unknown (negative).
    static func number(_ v: Double) -> String { v < 0 || !v.isFinite ? "-" : String(format: "%.3f", v) }

    /// A whole number, `-` when unknown (negative).
    static func count<T: BinaryInteger>(_ v: T) -> String { v < 0 ? "-" : "\(v)" }

    /// A bit rate Apple writes as a whole number, `-` when unknown (negative).
    static func count(_ v: Double) -> String { v < 0 || !v.isFinite ? "-" : "\(Int64(v.rounded()))" }

    /// A string in double quotes (inner quotes become single ones), `-` when absent.
    static func quoted(_ s: String?) -> String {
        s.map { "\"" + $0.replacingOccurrences(of: "\"", with: "'") + "\"" } ?? "-"
    }
}
