import Foundation

/// A multivariant playlist (RFC 8216 section 4.3.4, the "master playlist"): the variants of one presentation and the
/// renditions they draw on.
package struct HLSMultivariantPlaylist: Sendable, Equatable {
    package var url: URL
    package var version: Int?
    /// `#EXT-X-STREAM-INF` variants in playlist order.
    package var variants: [HLSVariant]
    /// `#EXT-X-I-FRAME-STREAM-INF` variants in playlist order (`isIFrameOnly` is `true`).
    package var iFrameVariants: [HLSVariant]
    /// `#EXT-X-MEDIA` renditions in playlist order.
    package var renditions: [HLSRendition]
    package var independentSegments: Bool
    package var start: HLSStartPoint?
    /// `#EXT-X-SESSION-KEY` tags: keys to preload.
    package var sessionKeys: [HLSKey]
    /// `#EXT-X-SESSION-DATA` tags.
    package var sessionData: [HLSSessionData]
    /// The `#EXT-X-DEFINE` variables (8216bis), by name: pass them to `HLSParser.parse(_:url:importing:)` when
    /// parsing this playlist's media playlists, for their `IMPORT`s.
    package var definitions: [String: String]

    package init(
        url: URL, version: Int? = nil, variants: [HLSVariant] = [], iFrameVariants: [HLSVariant] = [],
        renditions: [HLSRendition] = [], independentSegments: Bool = false, start: HLSStartPoint? = nil,
        sessionKeys: [HLSKey] = [], sessionData: [HLSSessionData] = [], definitions: [String: String] = [:]
    ) {
        self.url = url
        self.version = version
        self.variants = variants
        self.iFrameVariants = iFrameVariants
        self.renditions = renditions
        self.independentSegments = independentSegments
        self.start = start
        self.sessionKeys = sessionKeys
        self.sessionData = sessionData
        self.definitions = definitions
    }

    /// The renditions of `type` in group `groupID`, in playlist order.
    package func renditions(ofType type: HLSRenditionType, inGroup groupID: String) -> [HLSRendition] {
        renditions.filter { $0.type == type && $0.groupID == groupID }
    }
}

/// `#EXT-X-SESSION-DATA` (RFC 8216 section 4.3.4.4): arbitrary session data, inline or at a JSON URI.
package struct HLSSessionData: Sendable, Equatable {
    /// `DATA-ID`, reverse-DNS (`com.example.title`).
    package var id: String
    /// `VALUE`; exactly one of `value` and `uri` is set.
    package var value: String?
    package var uri: URL?
    package var language: String?

    package init(id: String, value: String? = nil, uri: URL? = nil, language: String? = nil) {
        self.id = id
        self.value = value
        self.uri = uri
        self.language = language
    }
}
