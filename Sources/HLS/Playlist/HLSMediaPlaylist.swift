import Foundation

/// `#EXT-X-PLAYLIST-TYPE`.
package enum HLSPlaylistType: String, Sendable, Equatable {
    /// `VOD`: the playlist never changes.
    case vod = "VOD"
    /// `EVENT`: segments are only appended until `#EXT-X-ENDLIST`.
    case event = "EVENT"
}

/// A media playlist (RFC 8216 section 4.3.3): the segments of one rendition, with the timing a source needs.
///
/// Segment start offsets are summed once when the playlist is made, so `startOffset(ofSegment:)` is O(1) and
/// `segmentIndex(containing:)` O(log n).
package struct HLSMediaPlaylist: Sendable, Equatable {
    package var url: URL
    package var version: Int?
    /// `#EXT-X-TARGETDURATION` in seconds. When the tag is missing (the RFC requires it, but ffmpeg's and hls.js's
    /// demuxers play such playlists) it is derived as the longest segment rounded up, at least 1 s, and
    /// `targetDurationIsDerived` is `true`: it only paces reloads, and refusing a playable VOD over a missing hint
    /// helps nobody.
    package var targetDuration: Double
    package var targetDurationIsDerived: Bool
    /// `#EXT-X-MEDIA-SEQUENCE` (0 when absent): the sequence number of the first listed segment.
    package var mediaSequence: Int
    /// `#EXT-X-DISCONTINUITY-SEQUENCE` (0 when absent).
    package var discontinuitySequence: Int
    package var playlistType: HLSPlaylistType?
    /// `#EXT-X-ENDLIST`: no segments will be added.
    package var hasEndList: Bool
    /// `#EXT-X-I-FRAMES-ONLY`: each segment is one I-frame.
    package var iFramesOnly: Bool
    /// `#EXT-X-INDEPENDENT-SEGMENTS`: every segment decodes without the ones before it.
    package var independentSegments: Bool
    package var start: HLSStartPoint?
    /// The segments in playlist order; set through `init` so the start offsets stay true.
    package private(set) var segments: [HLSSegment]
    /// `#EXT-X-DATERANGE` tags in playlist order.
    package var dateRanges: [HLSDateRange]
    /// `startOffsets[i]` is the start of segment `i`; `startOffsets[segments.count]` is `duration`.
    private var startOffsets: [Double]

    package init(
        url: URL, version: Int? = nil, targetDuration: Double, targetDurationIsDerived: Bool = false,
        mediaSequence: Int = 0, discontinuitySequence: Int = 0, playlistType: HLSPlaylistType? = nil,
        hasEndList: Bool = false, iFramesOnly: Bool = false, independentSegments: Bool = false,
        start: HLSStartPoint? = nil, segments: [HLSSegment] = [], dateRanges: [HLSDateRange] = []
    ) {
        self.url = url
        self.version = version
        self.targetDuration = targetDuration
        self.targetDurationIsDerived = targetDurationIsDerived
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.playlistType = playlistType
        self.hasEndList = hasEndList
        self.iFramesOnly = iFramesOnly
        self.independentSegments = independentSegments
        self.start = start
        self.segments = segments
        self.dateRanges = dateRanges
        var offsets = [Double]()
        offsets.reserveCapacity(segments.count + 1)
        var sum = 0.0
        offsets.append(0)
        for segment in segments {
            sum += segment.duration
            offsets.append(sum)
        }
        startOffsets = offsets
    }

    /// The sum of the segment durations, in seconds.
    package var duration: Double { startOffsets[segments.count] }

    /// Whether segments may still be added: no `#EXT-X-ENDLIST` (an `EVENT` playlist without it is live too).
    package var isLive: Bool { !hasEndList }

    /// The start of segment `index` in seconds from the start of the first listed segment; `index == segments.count`
    /// gives `duration`. O(1).
    package func startOffset(ofSegment index: Int) -> Double {
        precondition(
            startOffsets.indices.contains(index), "segment \(index) is outside 0...\(segments.count) (\(#function))")
        return startOffsets[index]
    }

    /// The segment that holds `seconds` (from the start of the first listed segment): the last segment starting at
    /// or before it. Times before the start give the first segment, times at or after the end the last; `nil` when
    /// there are no segments or `seconds` is NaN. O(log n).
    package func segmentIndex(containing seconds: Double) -> Int? {
        guard !segments.isEmpty, !seconds.isNaN else { return nil }
        if seconds >= duration { return segments.count - 1 }
        // The last i in 0..<count with startOffsets[i] <= seconds.
        var low = 0
        var high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if startOffsets[mid] <= seconds { low = mid } else { high = mid - 1 }
        }
        return low
    }
}
