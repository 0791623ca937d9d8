import Foundation

/// `#EXT-X-MEDIA`'s `TYPE`.
package enum HLSRenditionType: String, Sendable, Equatable, Hashable {
    case audio = "AUDIO"
    case video = "VIDEO"
    case subtitles = "SUBTITLES"
    case closedCaptions = "CLOSED-CAPTIONS"
}

/// An alternative rendition: `#EXT-X-MEDIA` (RFC 8216 section 4.3.4.1).
package struct HLSRendition: Sendable, Equatable {
    package var type: HLSRenditionType
    /// `GROUP-ID`: the group variants name in `AUDIO`, `VIDEO`, `SUBTITLES` or `CLOSED-CAPTIONS`.
    package var groupID: String
    /// `NAME`: human-readable.
    package var name: String
    /// `LANGUAGE`: an RFC 5646 tag.
    package var language: String?
    /// `ASSOC-LANGUAGE`.
    package var associatedLanguage: String?
    /// `DEFAULT=YES`.
    package var isDefault: Bool
    /// `AUTOSELECT=YES`.
    package var autoselect: Bool
    /// `FORCED=YES` (subtitles only).
    package var forced: Bool
    /// `CHARACTERISTICS`, split at commas (`public.accessibility.describes-video`).
    package var characteristics: [String]
    /// `URI`: the rendition's media playlist; `nil` when the rendition is in the variant's own stream (always for
    /// closed captions).
    package var uri: URL?
    /// `INSTREAM-ID` (closed captions: `CC1`…`CC4`, `SERVICE1`…`SERVICE63`).
    package var instreamID: String?
    /// `CHANNELS` (audio: `"2"`, `"6/JOC"`).
    package var channels: String?

    package init(
        type: HLSRenditionType, groupID: String, name: String, language: String? = nil,
        associatedLanguage: String? = nil, isDefault: Bool = false, autoselect: Bool = false, forced: Bool = false,
        characteristics: [String] = [], uri: URL? = nil, instreamID: String? = nil, channels: String? = nil
    ) {
        self.type = type
        self.groupID = groupID
        self.name = name
        self.language = language
        self.associatedLanguage = associatedLanguage
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.forced = forced
        self.characteristics = characteristics
        self.uri = uri
        self.instreamID = instreamID
        self.channels = channels
    }
}
