import CoreMedia
import Foundation
import OAVFLocking

/// A live (or event) media playlist made from a VOD media playlist, for tests of live HLS: a "now" that moves over
/// the VOD's segments, explicitly (`advance(segments:)`) or with a clock, and a window of the latest segments that
/// `playlist()` renders as `#EXTM3U` text.
///
/// - Sliding (`.sliding(segments: K)`): the last K published segments, `EXT-X-MEDIA-SEQUENCE` counting the ones
///   that slid out, `EXT-X-DISCONTINUITY-SEQUENCE` the discontinuities that slid out with them.
/// - Event (`.event`): every published segment from the first, `EXT-X-PLAYLIST-TYPE:EVENT`.
/// - At the VOD's end (`EndBehavior`): add `EXT-X-ENDLIST` (`.endList`), stay live without new segments (`.stall`:
///   a playlist that stops updating), or loop the VOD with an `EXT-X-DISCONTINUITY` before each repeat (`.loop`).
/// - Dates: when the VOD's first segment has an `EXT-X-PROGRAM-DATE-TIME`, every rendered segment gets one: that
///   date plus the durations of all segments before it (loops included).
///
/// The VOD is read minimally (this is test scaffolding, independent of the HLS module's parser): `EXTINF` and URI
/// lines make the segments; the first `EXT-X-PROGRAM-DATE-TIME` gives the start date; `EXT-X-MAP`, `EXT-X-KEY` and
/// `EXT-X-INDEPENDENT-SEGMENTS` before the first segment are carried over to the top of every rendering (a looped
/// key needs an explicit IV, since the IV otherwise follows the media sequence number). Other tags are dropped.
///
/// Thread-safe (one lock), so `serve(on:at:)` can answer from the server's connection threads.
///
/// ```swift
/// let live = try HLSLiveWindow(contentsOf: Fixtures.directory().appendingPathComponent("hls/ts/360p.m3u8"))
/// live.serve(on: server, at: "/hls/ts/live_360p.m3u8")   // same folder: the segment URIs stay relative
/// live.advance(segments: 1)
/// ```
public final class HLSLiveWindow: @unchecked Sendable {
    /// Which published segments a rendering lists.
    public enum Window: Sendable, Equatable {
        /// The latest `segments` ones.
        case sliding(segments: Int)
        /// All of them, from the first (`EXT-X-PLAYLIST-TYPE:EVENT`).
        case event
    }

    /// What happens once every VOD segment is published.
    public enum EndBehavior: Sendable, Equatable {
        /// The playlist gets `EXT-X-ENDLIST`.
        case endList
        /// The playlist stays live but no segment is added again.
        case stall
        /// The VOD repeats, each repeat after an `EXT-X-DISCONTINUITY`.
        case loop
    }

    /// How "now" moves.
    public enum Advance: Sendable {
        /// Only through `advance(segments:)`.
        case manual
        /// Also with `now()`: a segment is published once its whole duration has passed since the window was made
        /// (after the initial ones). Tests pass a clock they move themselves.
        case realTime(now: @Sendable () -> Date)
        /// As `.realTime`, with the time `clock` reads: a `VirtualClock` assigned to the player too
        /// (`AVPlayer.sourceClock`, `.manual`) moves the window, the player's reloads and its playback together, so a
        /// test advancing it by a target duration publishes one segment and lets one reload find it.
        case clock(CMClock)
    }

    /// One VOD segment.
    public struct Segment: Sendable, Equatable {
        /// The URI line as the VOD has it.
        public var uri: String
        /// Its `EXTINF` duration in seconds.
        public var duration: Double
    }

    /// Why a VOD playlist cannot make a live window.
    public enum ParseError: Error, Sendable, Equatable {
        /// No `#EXTM3U` first line.
        case notAPlaylist
        /// No segments (or an `EXTINF` without a URI after it).
        case noSegments
        /// A multivariant playlist (`EXT-X-STREAM-INF`): give one of its media playlists.
        case multivariant
    }

    /// The VOD's segments, in order.
    public let segments: [Segment]
    /// The VOD's first EXT-X-PROGRAM-DATE-TIME, if any.
    public let firstProgramDate: Date?
    /// Tags carried to the top of every rendering (`EXT-X-MAP`, `EXT-X-KEY`, `EXT-X-INDEPENDENT-SEGMENTS`).
    public let carriedTags: [String]
    public let window: Window
    public let endBehavior: EndBehavior
    /// Prepended to every segment URI (e.g. `"/hls/ts/"` when the live playlist is served from another folder).
    public let uriPrefix: String
    /// `EXT-X-TARGETDURATION`: the longest `EXTINF` rounded to the nearest integer (RFC 8216 4.3.3.1), at least 1.
    public let targetDuration: Int

    /// Guards `manuallyPublished`: the test advances it, the test server's threads render playlists. Test support, no
    /// engine.
    private let lock = ConditionLock()
    /// Segments published by `advance` and at the start (a virtual index: segment n is VOD segment n mod count).
    /// Guarded by `lock`.
    private var manuallyPublished: Int
    /// Seconds since the window was made, for `.realTime` and `.clock` (nil: `.manual`).
    private let elapsed: (@Sendable () -> Double)?
    /// The segments published at the start.
    private let initialCount: Int

    /// Makes a live window over the VOD media playlist `text`, with `initialSegments` published (default: a sliding
    /// window's size, or 1 for an event).
    public init(
        vodPlaylist text: String, window: Window = .sliding(segments: 3), initialSegments: Int? = nil,
        atEnd endBehavior: EndBehavior = .endList, advance: Advance = .manual, uriPrefix: String = ""
    ) throws(ParseError) {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard lines.first?.hasPrefix("#EXTM3U") == true else { throw .notAPlaylist }
        var segments: [Segment] = []
        var carried: [String] = []
        var firstDate: Date?
        var pendingDuration: Double?
        for line in lines.dropFirst() where !line.isEmpty {
            if line.hasPrefix("#EXT-X-STREAM-INF") { throw .multivariant }
            if line.hasPrefix("#EXTINF:") {
                pendingDuration = Double(line.dropFirst(8).prefix { $0 != "," }.trimmingCharacters(in: .whitespaces))
            } else if line.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") {
                if segments.isEmpty, firstDate == nil { firstDate = Self.parseDate(String(line.dropFirst(25))) }
            } else if line.hasPrefix("#EXT-X-MAP:") || line.hasPrefix("#EXT-X-KEY:")
                || line == "#EXT-X-INDEPENDENT-SEGMENTS"
            {
                if segments.isEmpty { carried.append(line) }
            } else if !line.hasPrefix("#") {
                guard let duration = pendingDuration, duration >= 0 else { throw .noSegments }
                segments.append(Segment(uri: line, duration: duration))
                pendingDuration = nil
            }
        }
        guard !segments.isEmpty else { throw .noSegments }
        self.segments = segments
        self.firstProgramDate = firstDate
        self.carriedTags = carried
        self.window = window
        self.endBehavior = endBehavior
        self.uriPrefix = uriPrefix
        self.targetDuration = max(1, segments.map { Int($0.duration.rounded()) }.max() ?? 1)
        let defaultInitial: Int
        switch window {
        case .sliding(let size): defaultInitial = max(1, size)
        case .event: defaultInitial = 1
        }
        self.initialCount = max(1, initialSegments ?? defaultInitial)
        self.manuallyPublished = initialCount
        switch advance {
        case .manual:
            elapsed = nil
        case .realTime(let now):
            let start = now()
            elapsed = { now().timeIntervalSince(start) }
        case .clock(let clock):
            let start = clock.time
            elapsed = { (clock.time - start).seconds }
        }
    }

    /// Reads the VOD media playlist at `url` (a file).
    public convenience init(
        contentsOf url: URL, window: Window = .sliding(segments: 3), initialSegments: Int? = nil,
        atEnd endBehavior: EndBehavior = .endList, advance: Advance = .manual, uriPrefix: String = ""
    ) throws {
        try self.init(
            vodPlaylist: try String(contentsOf: url, encoding: .utf8), window: window, initialSegments: initialSegments,
            atEnd: endBehavior, advance: advance, uriPrefix: uriPrefix)
    }

    /// Publishes `n` more segments (none past the VOD's end unless it loops).
    public func advance(segments n: Int = 1) {
        lock.withLock { manuallyPublished += max(0, n) }
    }

    /// The number of segments published so far (counting repeats when looping).
    public var publishedCount: Int {
        lock.withLock { published() }
    }

    /// Whether the whole VOD is published and the playlist says `EXT-X-ENDLIST`.
    public var hasEnded: Bool {
        endBehavior == .endList && publishedCount >= segments.count
    }

    /// The playlist as of now.
    public func playlist() -> String {
        let count = lock.withLock { published() }
        return render(published: count)
    }

    /// Answers `path` on `server` with `playlist()` (`application/vnd.apple.mpegurl`).
    public func serve(on server: HTTPTestServer, at path: String) {
        server.route(path) { [self] _ in HTTPTestResponse(text: playlist()) }
    }

    // MARK: Rendering

    /// Published segments now: the initial and advanced ones plus, in real time (or on the clock), those after the
    /// initial ones whose whole duration has passed since the start; capped at the VOD's length unless looping. Call
    /// with `lock` held.
    private func published() -> Int {
        var count = manuallyPublished
        if let elapsed = self.elapsed {
            var elapsed = elapsed()
            var n = initialCount
            let limit = endBehavior == .loop ? initialCount + 100_000 : segments.count
            while n < limit {
                let duration = segment(n).duration
                guard elapsed >= duration else { break }
                elapsed -= duration
                n += 1
            }
            count += max(0, n - initialCount)
        }
        return endBehavior == .loop ? count : min(count, segments.count)
    }

    /// Virtual segment `n`: VOD segment `n mod count`.
    private func segment(_ n: Int) -> Segment {
        segments[n % segments.count]
    }

    /// Whether virtual segment `n` starts a repeat of the VOD (and so follows a discontinuity).
    private func isDiscontinuity(_ n: Int) -> Bool {
        endBehavior == .loop && n > 0 && n % segments.count == 0
    }

    /// The seconds from the start of virtual segment 0 to the start of virtual segment `n`.
    private func offset(ofSegment n: Int) -> Double {
        let loopDuration = segments.reduce(0) { $0 + $1.duration }
        let loops = n / segments.count
        return Double(loops) * loopDuration + segments.prefix(n % segments.count).reduce(0) { $0 + $1.duration }
    }

    private func render(published count: Int) -> String {
        let first: Int
        switch window {
        case .sliding(let size): first = max(0, count - max(1, size))
        case .event: first = 0
        }
        // Discontinuities attached to segments before the window (repeat starts at multiples of the VOD's length).
        let removedDiscontinuities = endBehavior == .loop && first > 0 ? (first - 1) / segments.count : 0
        var lines = [
            "#EXTM3U",
            "#EXT-X-VERSION:\(carriedTags.contains { $0.hasPrefix("#EXT-X-MAP:") } ? 6 : 3)",
            "#EXT-X-TARGETDURATION:\(targetDuration)",
            "#EXT-X-MEDIA-SEQUENCE:\(first)",
            "#EXT-X-DISCONTINUITY-SEQUENCE:\(removedDiscontinuities)",
        ]
        if window == .event { lines.append("#EXT-X-PLAYLIST-TYPE:EVENT") }
        lines += carriedTags
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for n in first..<count {
            if isDiscontinuity(n) { lines.append("#EXT-X-DISCONTINUITY") }
            if let firstProgramDate {
                let date = firstProgramDate.addingTimeInterval(offset(ofSegment: n))
                lines.append("#EXT-X-PROGRAM-DATE-TIME:\(formatter.string(from: date))")
            }
            let segment = segment(n)
            lines.append("#EXTINF:\(String(format: "%.6f", segment.duration)),")
            lines.append(uriPrefix + segment.uri)
        }
        if endBehavior == .endList && count >= segments.count { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
