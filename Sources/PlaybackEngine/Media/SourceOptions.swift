import Foundation

/// How to open a network input: what the public layer takes from an asset's options, and the engine turns into
/// libavformat protocol options (``libavformatOptions(isLocal:)``) for probing and for playback alike.
///
/// A value type: any thread.
package struct SourceOptions: Sendable, Hashable {
    /// Microseconds a network read may stall before it fails: a dead server must not hang a load or playback.
    package static let defaultReadTimeoutMicroseconds: Int64 = 15_000_000

    /// The HTTP `User-Agent` to send; nil: libavformat's own.
    package var userAgent: String?
    /// Extra HTTP header fields to send with every request (name → value).
    package var headers: [String: String]
    /// Cookies sent with the requests they apply to (``SourceCookie/matches(_:now:)``), every request of the source:
    /// the probe, playback, an HLS presentation's playlists, keys and segments.
    package var cookies: [SourceCookie] = []
    /// Whether a duration libavformat only estimated is made exact by reading the whole input once
    /// (`AVURLAssetPreferPreciseDurationAndTimingKey`; ``MediaProbe/scanPreciseDurations(of:url:options:cancellation:)``).
    package var prefersPreciseDuration = false
    /// Microseconds a network read may stall before it fails (`rw_timeout`).
    package var readTimeoutMicroseconds: Int64
    /// Whether a dropped HTTP connection is reopened at the same offset (`reconnect`).
    package var reconnects: Bool
    /// A streamed presentation's variants above this peak bit rate are not chosen (`preferredPeakBitRate`); nil: no
    /// limit.
    package var maximumPeakBitRate: Double?
    /// Nor those larger than this, in pixels (`preferredMaximumResolution`); nil: no limit.
    package var maximumResolution: PixelSize?
    /// How many seconds before the live edge a live presentation starts (`configuredTimeOffsetFromLive`); nil: the
    /// presentation's own start (`EXT-X-START`, else three target durations).
    package var liveStartOffset: Double?
    /// The clock a source's schedules and timed waits run on (an HLS source's live reloads, its unchanged-playlist
    /// rule and its retry back-off): the host clock unless the engine playing the source gives it its own
    /// (``MediaClock/forSources(of:)``). Network I/O timeouts (``readTimeoutMicroseconds``) and transfer timings
    /// stay in real time (transfer timings on the ``transport``'s clock when one is given): they measure a server, not
    /// media. Compared like the other options, except by the public
    /// layer's shelf of sources opened by an asset's loading: a source taken from it adopts the taker's clock.
    package var clock = MediaClock.host
    /// The bandwidth (bits per second) an earlier item of the same player measured of this presentation's host
    /// (``BandwidthHistory``): a streamed source starts on the variant it carries and decides its first segments on
    /// it until it has measured one of its own; nil: none known (the first variant listed within the caps starts).
    package var initialBitRateEstimate: Double?
    /// Whether a streamed presentation starts on the first variant listed within the caps even when an estimate is
    /// known (`startsOnFirstEligibleVariant`); the estimate still decides the next segments.
    package var startsOnFirstEligibleVariant = false
    /// How a streamed source's requests reach their server and the clock its transfers are timed on; nil: its own
    /// `URLSession`, timed on the monotonic host clock (see ``NetworkTransport``).
    package var transport: NetworkTransportReference?
    /// Who supplies the bytes of locations no libavformat protocol reads (an asset's resource loader); nil: none,
    /// libavformat opens every location (see ``CustomInputProvider``).
    package var customInput: CustomInputReference?

    /// A width and height in pixels.
    package struct PixelSize: Sendable, Hashable {
        package var width: Int
        package var height: Int
        package init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// Options with the given user agent and headers, the default read timeout, and reconnection on.
    package init(
        userAgent: String? = nil, headers: [String: String] = [:],
        readTimeoutMicroseconds: Int64 = SourceOptions.defaultReadTimeoutMicroseconds, reconnects: Bool = true
    ) {
        self.userAgent = userAgent
        self.headers = headers
        self.readTimeoutMicroseconds = readTimeoutMicroseconds
        self.reconnects = reconnects
    }

    /// The libavformat options (`AVDictionary` entries) for an input at `location`: none for a local file
    /// (`isLocal`), else the read timeout, reconnection, the user agent and the header fields (one `Name: value\r\n`
    /// line each, sorted), with a `Cookie` field of the ``cookies`` that apply to `location`. (libavformat's own
    /// `cookies` option compares the cookie's domain with the host *and port*, so it never matches a server on a port
    /// of its own: the field is computed here instead, and sent on redirects too.)
    package func libavformatOptions(isLocal: Bool, location: String? = nil) -> [String: String] {
        guard !isLocal else { return [:] }
        var options: [String: String] = ["rw_timeout": String(readTimeoutMicroseconds)]
        if reconnects { options["reconnect"] = "1" }
        if let userAgent { options["user_agent"] = userAgent }
        var fields = headers
        if let location, let url = URL(string: location), let cookie = SourceCookie.header(for: url, from: cookies),
            !fields.keys.contains(where: { $0.caseInsensitiveCompare("Cookie") == .orderedSame })
        {
            fields["Cookie"] = cookie
        }
        if !fields.isEmpty {
            options["headers"] = fields.map { "\($0.key): \($0.value)\r\n" }.sorted().joined()
        }
        return options
    }
}
