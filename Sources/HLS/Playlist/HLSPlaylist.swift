import Foundation

/// A parsed playlist: either a multivariant playlist (RFC 8216 section 4.3.4, the "master" playlist, listing variants
/// and renditions) or a media playlist (section 4.3.3, listing one rendition's segments).
package enum HLSPlaylist: Sendable, Equatable {
    case multivariant(HLSMultivariantPlaylist)
    case media(HLSMediaPlaylist)

    /// Where the playlist was read from; relative URIs in it resolved against this.
    package var url: URL {
        switch self {
        case .multivariant(let playlist): playlist.url
        case .media(let playlist): playlist.url
        }
    }
}

/// `#EXT-X-START`: where a client should begin playing (RFC 8216 section 4.3.5.2).
package struct HLSStartPoint: Sendable, Equatable {
    /// Seconds from the start of the playlist, or, when negative, back from the end of the last segment.
    package var timeOffset: Double
    /// `PRECISE=YES`: start exactly there instead of at the start of the segment that holds it.
    package var precise: Bool

    package init(timeOffset: Double, precise: Bool = false) {
        self.timeOffset = timeOffset
        self.precise = precise
    }
}

/// A `RESOLUTION` attribute.
package struct HLSResolution: Sendable, Equatable, Hashable {
    package var width: Int
    package var height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A byte range of a resource: `#EXT-X-BYTERANGE`, or the `BYTERANGE` of `#EXT-X-MAP`.
package struct HLSByteRange: Sendable, Equatable, Hashable {
    package var length: Int
    /// The first byte's offset from the start of the resource (always known after parsing: an omitted offset is
    /// resolved from the previous sub-range of the same URI, as RFC 8216 section 4.3.2.2 says).
    package var offset: Int

    package init(length: Int, offset: Int) {
        self.length = length
        self.offset = offset
    }

    /// The HTTP `Range` header value for these bytes (`bytes=first-last`, inclusive), `nil` when empty.
    package var httpRangeHeader: String? {
        length > 0 ? "bytes=\(offset)-\(offset + length - 1)" : nil
    }
}
