/// Bounds that keep a hostile or broken playlist from costing unbounded memory or time.
///
/// The parser checks the byte size before it decodes anything, and the line lengths and entry counts in one cheap
/// pass before it builds any model, so a refusal costs a scan of the text and nothing more. Every default is far
/// beyond what a real playlist needs; each carries its reason.
package struct HLSParserLimits: Sendable, Equatable {
    /// The largest playlist accepted, in bytes. 16 MiB: a 24-hour live window of 2 s segments with long signed URLs
    /// and a date per segment is about 10 MB.
    package var maxBytes: Int
    /// The longest line accepted, in bytes (without its terminator). 256 KiB: the longest real lines are signed CDN
    /// URLs (a few KiB) and `#EXT-X-DATERANGE` tags with SCTE-35 payloads (a splice_info_section is at most 4 KiB,
    /// 8 KiB in hex) or client attributes; 256 KiB is 30 times that, and still refuses a binary or minified file
    /// posing as a playlist at its first long line.
    package var maxLineLength: Int
    /// The most media segments in one media playlist. 200 000: 11 days of 5 s segments.
    package var maxSegments: Int
    /// The longest `#EXTINF` and `#EXT-X-TARGETDURATION` accepted, in seconds. 24 hours: longer is a typo or an
    /// attack on arithmetic that sums durations.
    package var maxSegmentDuration: Double
    /// The most variants (`#EXT-X-STREAM-INF` and `#EXT-X-I-FRAME-STREAM-INF` together) in a multivariant playlist.
    /// 1 024: large ladders have a few dozen.
    package var maxVariants: Int
    /// The most `#EXT-X-MEDIA` renditions. 1 024: a hundred languages times a few roles.
    package var maxRenditions: Int
    /// The most `#EXT-X-DATERANGE` tags in one media playlist. 100 000: one per segment of a long event window.
    package var maxDateRanges: Int
    /// The most `#EXT-X-SESSION-DATA` and `#EXT-X-SESSION-KEY` tags together. 1 024.
    package var maxSessionEntries: Int

    package init(
        maxBytes: Int = 16 << 20, maxLineLength: Int = 256 << 10, maxSegments: Int = 200_000,
        maxSegmentDuration: Double = 24 * 60 * 60, maxVariants: Int = 1_024, maxRenditions: Int = 1_024,
        maxDateRanges: Int = 100_000, maxSessionEntries: Int = 1_024
    ) {
        self.maxBytes = maxBytes
        self.maxLineLength = maxLineLength
        self.maxSegments = maxSegments
        self.maxSegmentDuration = maxSegmentDuration
        self.maxVariants = maxVariants
        self.maxRenditions = maxRenditions
        self.maxDateRanges = maxDateRanges
        self.maxSessionEntries = maxSessionEntries
    }
}
