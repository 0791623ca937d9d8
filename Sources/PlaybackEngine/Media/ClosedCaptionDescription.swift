/// A closed-caption service that a streamed presentation announces in its video (an HLS
/// `EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS` of the played variant's group): what the public layer makes a closed-caption
/// option of the legible media selection group of. A value: any thread.
package struct ClosedCaptionDescription: Sendable, Equatable {
    /// The video stream whose SEI carries the captions (container index).
    package var streamIndex: Int
    /// `INSTREAM-ID`: `CC1`…`CC4` (CEA-608 channels) or `SERVICE1`…`SERVICE63` (CEA-708 services).
    package var instreamID: String
    /// `NAME`.
    package var name: String
    /// `LANGUAGE` (an RFC 5646 tag), if given.
    package var language: String?
    /// `DEFAULT=YES`.
    package var isDefault: Bool
    /// `AUTOSELECT=YES`.
    package var autoselect: Bool
    /// `CHARACTERISTICS` (Uniform Type Identifiers such as `public.accessibility.transcribes-spoken-dialog`).
    package var characteristics: [String]

    package init(
        streamIndex: Int, instreamID: String, name: String, language: String? = nil, isDefault: Bool = false,
        autoselect: Bool = false, characteristics: [String] = []
    ) {
        self.streamIndex = streamIndex
        self.instreamID = instreamID
        self.name = name
        self.language = language
        self.isDefault = isDefault
        self.autoselect = autoselect
        self.characteristics = characteristics
    }

    /// The CEA-608 channel (1…4) for `CC1`…`CC4`; nil for a CEA-708 service, which is not decoded.
    package var channel: Int? {
        guard instreamID.count == 3, instreamID.hasPrefix("CC"), let n = Int(instreamID.dropFirst(2)),
            (1...4).contains(n)
        else { return nil }
        return n
    }
}
