import Foundation

/// One media segment of a media playlist: its URI line and the tags that apply to it.
package struct HLSSegment: Sendable, Equatable {
    package var uri: URL
    /// `#EXTINF` duration in seconds (finite, non-negative, at most `HLSParserLimits.maxSegmentDuration`).
    package var duration: Double
    /// `#EXTINF` title, `nil` when empty.
    package var title: String?
    /// `EXT-X-MEDIA-SEQUENCE` plus the segment's index in the playlist.
    package var sequenceNumber: Int
    /// `EXT-X-DISCONTINUITY-SEQUENCE` plus the `#EXT-X-DISCONTINUITY` tags up to and including this segment's.
    package var discontinuitySequence: Int
    /// `#EXT-X-DISCONTINUITY` precedes this segment: timestamps, format or encoding may change here.
    package var isDiscontinuity: Bool
    /// `#EXT-X-BYTERANGE`: only these bytes of `uri` are the segment.
    package var byteRange: HLSByteRange?
    /// The `#EXT-X-PROGRAM-DATE-TIME` of this segment's first sample: the tag's date, or, for a segment without the
    /// tag, the previous segment's date plus its duration (until a discontinuity without a date). Segments before
    /// the first dated one get its date minus the durations between, back to a discontinuity; `nil` when no tag
    /// reaches the segment.
    package var programDateTime: Date?
    /// The `#EXT-X-KEY` in effect (`nil` or `.none` method: not encrypted).
    package var key: HLSKey?
    /// The `#EXT-X-MAP` in effect: the initialization section (fMP4 `ftyp`+`moov`) to feed before this segment.
    package var map: HLSMap?
    /// `#EXT-X-GAP`: the segment is missing; it must not be fetched.
    package var isGap: Bool
    /// The `#EXT-X-BITRATE` in effect, bits per second (not applied to byte-range segments, as 8216bis says).
    package var bitrate: Int?

    package init(
        uri: URL, duration: Double, title: String? = nil, sequenceNumber: Int = 0, discontinuitySequence: Int = 0,
        isDiscontinuity: Bool = false, byteRange: HLSByteRange? = nil, programDateTime: Date? = nil,
        key: HLSKey? = nil, map: HLSMap? = nil, isGap: Bool = false, bitrate: Int? = nil
    ) {
        self.uri = uri
        self.duration = duration
        self.title = title
        self.sequenceNumber = sequenceNumber
        self.discontinuitySequence = discontinuitySequence
        self.isDiscontinuity = isDiscontinuity
        self.byteRange = byteRange
        self.programDateTime = programDateTime
        self.key = key
        self.map = map
        self.isGap = isGap
        self.bitrate = bitrate
    }
}

/// `#EXT-X-MAP`: the media initialization section of the segments that follow (RFC 8216 section 4.3.2.5).
package struct HLSMap: Sendable, Equatable {
    package var uri: URL
    /// `BYTERANGE`; `nil` means the whole resource. An omitted offset is 0.
    package var byteRange: HLSByteRange?

    package init(uri: URL, byteRange: HLSByteRange? = nil) {
        self.uri = uri
        self.byteRange = byteRange
    }
}
