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

    /// The service `INSTREAM-ID` names; nil when it names none (not `CC1`…`CC4` or `SERVICE1`…`SERVICE63`).
    package var service: ClosedCaptionService? { ClosedCaptionService(instreamID: instreamID) }
}

/// A closed-caption service carried in a video stream's SEI (ATSC A/53 `cc_data`): a CEA-608 channel or a CEA-708
/// service. A value: any thread.
package enum ClosedCaptionService: Sendable, Hashable {
    /// CEA-608 channel 1…4 (CC1…CC4), decoded by libavcodec's `ccaption`.
    case cea608(channel: Int)
    /// CEA-708 (DTVCC) service 1…63, decoded by ``CEA708Decoder``.
    case cea708(service: Int)

    /// The service of an HLS `INSTREAM-ID`: `CC1`…`CC4` or `SERVICE1`…`SERVICE63`; nil for anything else.
    package init?(instreamID: String) {
        if instreamID.count == 3, instreamID.hasPrefix("CC"), let n = Int(instreamID.dropFirst(2)), (1...4).contains(n)
        {
            self = .cea608(channel: n)
        } else if instreamID.hasPrefix("SERVICE"), instreamID.dropFirst(7).allSatisfy({ ("0"..."9").contains($0) }),
            !instreamID.dropFirst(7).hasPrefix("0"), instreamID.count <= 9, let n = Int(instreamID.dropFirst(7)),
            (1...63).contains(n)
        {
            self = .cea708(service: n)
        } else {
            return nil
        }
    }
}
