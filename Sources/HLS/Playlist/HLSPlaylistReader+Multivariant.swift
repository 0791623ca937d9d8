import Foundation

/// Multivariant playlist tags (RFC 8216 section 4.3.4).
extension HLSPlaylistReader {
    mutating func readMultivariantTag(_ tag: Tag, _ value: Substring) throws(HLSPlaylistError) {
        let attributes = try attributeList(value, tag)
        switch tag {
        case .streamInf:
            try checkVariantCount()
            // Check the attributes now, so an error names this line; the variant is made at its URI line.
            _ = try variant(attributes, uri: url, isIFrameOnly: false)
            pendingVariant = attributes
        case .iFrameStreamInf:
            try checkVariantCount()
            let uri = try resolve(attributes.require(attributes.quotedString("URI"), "URI"), "I-frame playlist URI")
            iFrameVariants.append(try variant(attributes, uri: uri, isIFrameOnly: true))
        case .media:
            guard renditions.count < limits.maxRenditions else {
                throw error(.tooManyEntries, "more than \(limits.maxRenditions) renditions")
            }
            renditions.append(try rendition(attributes))
        case .sessionData:
            try checkSessionCount()
            let id = try attributes.require(attributes.quotedString("DATA-ID"), "DATA-ID")
            let value = try attributes.quotedString("VALUE")
            let uri = try attributes.quotedString("URI")
            guard (value == nil) != (uri == nil) else {
                throw attributes.error("exactly one of VALUE and URI must be present")
            }
            sessionData.append(
                HLSSessionData(
                    id: id, value: value,
                    uri: try uri.map { (text) throws(HLSPlaylistError) in
                        try resolve(text, "session data URI")
                    }, language: try attributes.quotedString("LANGUAGE")))
        case .sessionKey:
            try checkSessionCount()
            let key = try key(attributes)
            guard key.method != .none else { throw attributes.error("METHOD must not be NONE") }
            sessionKeys.append(key)
        default:
            preconditionFailure("#\(tag.rawValue) is not a multivariant playlist tag (\(#function))")
        }
    }

    private func checkVariantCount() throws(HLSPlaylistError) {
        guard variants.count + iFrameVariants.count < limits.maxVariants else {
            throw error(.tooManyEntries, "more than \(limits.maxVariants) variants")
        }
    }

    private func checkSessionCount() throws(HLSPlaylistError) {
        guard sessionData.count + sessionKeys.count < limits.maxSessionEntries else {
            throw error(.tooManyEntries, "more than \(limits.maxSessionEntries) session entries")
        }
    }

    /// `#EXT-X-STREAM-INF` (with the URI line that followed it) or `#EXT-X-I-FRAME-STREAM-INF`.
    func variant(_ attributes: HLSAttributeList, uri: URL, isIFrameOnly: Bool) throws(HLSPlaylistError) -> HLSVariant {
        var closedCaptions = HLSClosedCaptions.unspecified
        if !isIFrameOnly, let attribute = attributes["CLOSED-CAPTIONS"] {
            if attribute.isQuoted {
                closedCaptions = .group(attribute.value)
            } else if attribute.value == "NONE" {
                closedCaptions = .none
            } else {
                throw attributes.error("CLOSED-CAPTIONS=\(attribute.value) is neither a quoted group nor NONE")
            }
        }
        return HLSVariant(
            uri: uri, bandwidth: try attributes.require(attributes.decimalInteger("BANDWIDTH"), "BANDWIDTH"),
            averageBandwidth: try attributes.decimalInteger("AVERAGE-BANDWIDTH"),
            codecs: Self.list(try attributes.quotedString("CODECS")),
            resolution: try attributes.resolution("RESOLUTION"),
            frameRate: try attributes.decimalFloat("FRAME-RATE"),
            hdcpLevel: try attributes.enumeratedString("HDCP-LEVEL"),
            videoRange: try attributes.enumeratedString("VIDEO-RANGE"),
            // Section 4.3.4.3: an I-frame variant has no AUDIO, SUBTITLES or CLOSED-CAPTIONS; they are ignored.
            audioGroup: isIFrameOnly ? nil : try attributes.quotedString("AUDIO"),
            videoGroup: try attributes.quotedString("VIDEO"),
            subtitlesGroup: isIFrameOnly ? nil : try attributes.quotedString("SUBTITLES"),
            closedCaptions: closedCaptions, isIFrameOnly: isIFrameOnly)
    }

    /// `#EXT-X-MEDIA` (section 4.3.4.1).
    private func rendition(_ attributes: HLSAttributeList) throws(HLSPlaylistError) -> HLSRendition {
        let typeText = try attributes.require(attributes.enumeratedString("TYPE"), "TYPE")
        guard let type = HLSRenditionType(rawValue: typeText) else {
            throw attributes.error("TYPE=\(typeText) is not AUDIO, VIDEO, SUBTITLES or CLOSED-CAPTIONS")
        }
        let uriText = try attributes.quotedString("URI")
        var instreamID = try attributes.quotedString("INSTREAM-ID")
        switch type {
        case .closedCaptions:
            guard uriText == nil else { throw attributes.error("a CLOSED-CAPTIONS rendition must not have a URI") }
            instreamID = try attributes.require(instreamID, "INSTREAM-ID")
        case .subtitles:
            _ = try attributes.require(uriText, "URI")
        case .audio, .video:
            break
        }
        return HLSRendition(
            type: type, groupID: try attributes.require(attributes.quotedString("GROUP-ID"), "GROUP-ID"),
            name: try attributes.require(attributes.quotedString("NAME"), "NAME"),
            language: try attributes.quotedString("LANGUAGE"),
            associatedLanguage: try attributes.quotedString("ASSOC-LANGUAGE"),
            isDefault: try attributes.boolean("DEFAULT") ?? false,
            autoselect: try attributes.boolean("AUTOSELECT") ?? false,
            forced: try attributes.boolean("FORCED") ?? false,
            characteristics: Self.list(try attributes.quotedString("CHARACTERISTICS")),
            uri: try uriText.map { (text) throws(HLSPlaylistError) in try resolve(text, "rendition URI") },
            instreamID: instreamID, channels: try attributes.quotedString("CHANNELS"))
    }

    /// A comma-separated quoted list (`CODECS`, `CHARACTERISTICS`), trimmed, without empty items.
    private static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
