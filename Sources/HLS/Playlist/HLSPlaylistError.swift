/// Why a playlist was refused (RFC 8216 section 6.3.1 says when a client must fail to parse one), with the line that
/// caused it.
///
/// Every refusal carries a `code` for callers that react to the kind of failure, the 1-based `line` when one line is
/// to blame, and a `message` in words that name the tag, attribute or URI at fault.
package struct HLSPlaylistError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    package enum Code: Sendable, Equatable, Hashable {
        /// The first line is not `#EXTM3U`, or the bytes are not UTF-8.
        case notAPlaylist
        /// The text is larger than `HLSParserLimits.maxBytes`.
        case tooLarge
        /// A line is longer than `HLSParserLimits.maxLineLength`.
        case lineTooLong
        /// More segments, variants, renditions, date ranges or session entries than the limits allow.
        case tooManyEntries
        /// A tag that is malformed, repeated where the RFC forbids it, or out of place.
        case invalidTag
        /// An attribute list or attribute value that does not follow RFC 8216 section 4.2, or a required attribute
        /// that is missing.
        case invalidAttribute
        /// A negative, non-numeric, infinite or absurd (`HLSParserLimits.maxSegmentDuration`) duration.
        case invalidDuration
        /// `#EXT-X-STREAM-INF` or `#EXTINF` without the URI line that must follow it.
        case missingURI
        /// A URI that cannot be parsed or resolved.
        case invalidURI
        /// A URI whose scheme the playlist's own scheme does not allow (a remote playlist may only name `http` and
        /// `https` resources).
        case forbiddenURI
        /// Both multivariant tags and media-segment tags in one playlist (RFC 8216 section 4.1 forbids it).
        case mixedPlaylist
    }

    package var code: Code
    /// The 1-based line at fault, `nil` when the whole text is (size, encoding).
    package var line: Int?
    package var message: String

    package init(_ code: Code, line: Int? = nil, _ message: String) {
        self.code = code
        self.line = line
        self.message = message
    }

    package var description: String {
        if let line { "HLS playlist line \(line): \(message)" } else { "HLS playlist: \(message)" }
    }
}
