import Foundation

/// The one-pass state machine behind `HLSParser`: fed one trimmed line at a time (the `#EXTM3U` line excepted), it
/// keeps the tags that apply to the next URI line and those in effect until replaced, and builds the playlist at the
/// end.
///
/// Whether the playlist is a media or a multivariant playlist is decided by its first tag that belongs to only one
/// kind (`#EXTINF`, `#EXT-X-TARGETDURATION`, … or `#EXT-X-STREAM-INF`, `#EXT-X-MEDIA`, …); a later tag of the other
/// kind is refused (`mixedPlaylist`), because RFC 8216 section 4.1 says a client must fail to parse a playlist that
/// is both, and guessing which half the author meant could play the wrong thing. `#EXT-X-VERSION`,
/// `#EXT-X-INDEPENDENT-SEGMENTS` and `#EXT-X-START` belong to both. A playlist with no such tag is an empty media
/// playlist.
struct HLSPlaylistReader {
    let url: URL
    let limits: HLSParserLimits
    /// The URI schemes this playlist may reference (see `HLSParser`).
    let allowedSchemes: Set<String>
    /// The line being read.
    var line = 0

    enum Kind { case media, multivariant }
    var kind: Kind?
    /// The tag and line that decided `kind`, for the mixed-playlist error.
    var kindEvidence = ""

    // Tags of both kinds.
    /// `#EXT-X-DEFINE` variables by name.
    var definitions: [String: String] = [:]
    /// The variables of the multivariant playlist, for `IMPORT`.
    let importedDefinitions: [String: String]
    /// The first `IMPORT` (refused in a multivariant playlist).
    var importLine: Int?
    /// Bytes produced by variable substitution so far.
    var substitutedBytes = 0
    var version: Int?
    var independentSegments = false
    var start: HLSStartPoint?

    // Media playlist state.
    var targetDuration: Double?
    var mediaSequence: Int?
    var discontinuitySequence: Int?
    var playlistType: HLSPlaylistType?
    var hasEndList = false
    var iFramesOnly = false
    var segments: [HLSSegment] = []
    var dateRanges: [HLSDateRange] = []
    var dateRangeIndexByID: [String: Int] = [:]
    /// Tags that apply to the next URI line only.
    var pending = PendingSegment()
    /// `#EXT-X-KEY` in effect, per `KEYFORMAT` (a key applies until the next key of the same format, RFC 8216
    /// section 4.3.2.4), and the format set last.
    var keysByFormat: [String: HLSKey] = [:]
    var lastKeyFormat: String?
    var map: HLSMap?
    var bitrate: Int?
    /// `#EXT-X-DISCONTINUITY` tags applied so far.
    var discontinuities = 0

    // Multivariant playlist state.
    var variants: [HLSVariant] = []
    var iFrameVariants: [HLSVariant] = []
    var renditions: [HLSRendition] = []
    var sessionKeys: [HLSKey] = []
    var sessionData: [HLSSessionData] = []
    /// An `#EXT-X-STREAM-INF` waiting for its URI line.
    var pendingVariant: HLSAttributeList?

    struct PendingSegment {
        var duration: Double?
        var title: String?
        var durationLine = 0
        var isDiscontinuity = false
        var byteRange: (length: Int, offset: Int?)?
        var programDateTime: Date?
        var isGap = false
    }

    init(url: URL, limits: HLSParserLimits, importing importedDefinitions: [String: String]) {
        self.url = url
        self.limits = limits
        self.importedDefinitions = importedDefinitions
        allowedSchemes = url.isFileURL ? ["file", "http", "https"] : ["http", "https"]
    }

    /// An error at the current line.
    func error(_ code: HLSPlaylistError.Code, _ message: String) -> HLSPlaylistError {
        HLSPlaylistError(code, line: line, message)
    }

    /// Reads one line, already trimmed of surrounding blanks.
    mutating func read(_ text: String, line: Int) throws(HLSPlaylistError) {
        self.line = line
        if text.isEmpty { return }
        guard text.hasPrefix("#") else { return try readURI(substitutingVariables(in: text)) }
        guard text.hasPrefix("#EXT") else { return }  // a comment
        let colon = text.firstIndex(of: ":")
        let name = text[text.index(after: text.startIndex)..<(colon ?? text.endIndex)]
        let value = colon.map { text[text.index(after: $0)...] } ?? ""
        guard let tag = Tag.byName[name] else { return }  // unknown tags are ignored (section 6.3.1)
        if let pendingVariant {
            throw HLSPlaylistError(
                .missingURI, line: pendingVariant.line,
                "#EXT-X-STREAM-INF is followed by #\(name) at line \(line) instead of its URI line")
        }
        try decideKind(tag)
        switch tag.kind {
        case .media: try readMediaTag(tag, value)
        case .multivariant: try readMultivariantTag(tag, value)
        case .both: try readSharedTag(tag, value)
        }
    }

    private mutating func decideKind(_ tag: Tag) throws(HLSPlaylistError) {
        let tagKind: Kind
        switch tag.kind {
        case .both: return
        case .media: tagKind = .media
        case .multivariant: tagKind = .multivariant
        }
        guard let kind else {
            kind = tagKind
            kindEvidence = "#\(tag.rawValue) at line \(line)"
            return
        }
        guard kind == tagKind else {
            throw error(
                .mixedPlaylist,
                "#\(tag.rawValue) is a \(tagKind == .media ? "media" : "multivariant") playlist tag, but "
                    + "\(kindEvidence) made this a \(kind == .media ? "media" : "multivariant") playlist; RFC 8216 "
                    + "section 4.1 forbids mixing them")
        }
    }

    private mutating func readURI(_ text: String) throws(HLSPlaylistError) {
        if let attributes = pendingVariant {
            pendingVariant = nil
            let uri = try resolve(text, "variant URI")
            variants.append(try variant(attributes, uri: uri, isIFrameOnly: false))
            return
        }
        guard kind != .multivariant else {
            throw error(.invalidTag, "the URI line \"\(text)\" follows no #EXT-X-STREAM-INF")
        }
        guard pending.duration != nil else {
            throw error(.invalidTag, "the URI line \"\(text)\" follows no #EXTINF")
        }
        try appendSegment(uri: resolve(text, "segment URI"))
    }

    private mutating func readSharedTag(_ tag: Tag, _ value: Substring) throws(HLSPlaylistError) {
        switch tag {
        case .version:
            // Section 6.3.1: a client must fail to parse a playlist with more than one EXT-X-VERSION.
            guard version == nil else { throw error(.invalidTag, "#EXT-X-VERSION appears twice") }
            guard let number = HLSAttributeList.decimalInteger(value) else {
                throw error(.invalidTag, "#EXT-X-VERSION:\(value) is not a decimal integer")
            }
            version = number
        case .independentSegments:
            independentSegments = true
        case .define:
            try define(attributeList(value, tag))
        case .start:
            guard start == nil else { throw error(.invalidTag, "#EXT-X-START appears twice") }
            let attributes = try attributeList(value, tag)
            start = HLSStartPoint(
                timeOffset: try attributes.require(attributes.signedDecimalFloat("TIME-OFFSET"), "TIME-OFFSET"),
                precise: try attributes.boolean("PRECISE") ?? false)
        default:
            preconditionFailure("#\(tag.rawValue) is not a shared tag (\(#function))")
        }
    }

    /// `text` resolved against the playlist URL, refused unless its scheme is allowed.
    func resolve(_ text: String, _ what: String) throws(HLSPlaylistError) -> URL {
        guard !text.isEmpty, let resolved = URL(string: text, relativeTo: url)?.absoluteURL else {
            throw error(.invalidURI, "the \(what) \"\(text)\" is not a valid URI")
        }
        let scheme = resolved.scheme?.lowercased() ?? ""
        guard allowedSchemes.contains(scheme) else {
            let allowed = allowedSchemes.sorted().joined(separator: ", ")
            throw error(
                .forbiddenURI,
                "the \(what) \"\(text)\" names a \(scheme.isEmpty ? "scheme-less" : scheme) resource "
                    + "(\(resolved.absoluteString)); a playlist read from \(url.scheme ?? "?") may only reference "
                    + allowed)
        }
        if scheme == "http" || scheme == "https", resolved.host?.isEmpty ?? true {
            throw error(.invalidURI, "the \(what) \"\(text)\" names no host (\(resolved.absoluteString))")
        }
        return resolved
    }

    /// Builds the playlist once every line is read.
    func finish() throws(HLSPlaylistError) -> HLSPlaylist {
        if let pendingVariant {
            throw HLSPlaylistError(.missingURI, line: pendingVariant.line, "#EXT-X-STREAM-INF has no URI line after it")
        }
        if pending.duration != nil {
            throw HLSPlaylistError(.missingURI, line: pending.durationLine, "#EXTINF has no URI line after it")
        }
        switch kind {
        case .multivariant:
            if let importLine {
                throw HLSPlaylistError(
                    .invalidTag, line: importLine, "#EXT-X-DEFINE:IMPORT is for media playlists, not multivariant ones")
            }
            return .multivariant(
                HLSMultivariantPlaylist(
                    url: url, version: version, variants: variants, iFrameVariants: iFrameVariants,
                    renditions: renditions, independentSegments: independentSegments, start: start,
                    sessionKeys: sessionKeys, sessionData: sessionData, definitions: definitions))
        case .media, nil:
            let derivedTarget = max(1, (segments.map(\.duration).max() ?? 0).rounded(.up))
            return .media(
                HLSMediaPlaylist(
                    url: url, version: version, targetDuration: targetDuration ?? derivedTarget,
                    targetDurationIsDerived: targetDuration == nil, mediaSequence: mediaSequence ?? 0,
                    discontinuitySequence: discontinuitySequence ?? 0, playlistType: playlistType,
                    hasEndList: hasEndList, iFramesOnly: iFramesOnly, independentSegments: independentSegments,
                    start: start, segments: Self.backfillingDates(segments), dateRanges: dateRanges))
        }
    }

    /// Dates the segments before the first dated one, back from it by their durations, as far as the previous
    /// discontinuity (hls.js does the same): a live window that has slid past the segment that carried the tag
    /// still knows its dates.
    static func backfillingDates(_ segments: [HLSSegment]) -> [HLSSegment] {
        guard let first = segments.firstIndex(where: { $0.programDateTime != nil }), first > 0 else { return segments }
        var segments = segments
        var index = first
        while index > 0, !segments[index].isDiscontinuity, let date = segments[index].programDateTime {
            index -= 1
            segments[index].programDateTime = date.addingTimeInterval(-segments[index].duration)
        }
        return segments
    }
}

extension HLSPlaylistReader {
    /// The tags the reader knows, and which kind of playlist each belongs to.
    enum Tag: String, CaseIterable {
        // Both kinds (RFC 8216 sections 4.3.1, 4.3.5).
        case version = "EXT-X-VERSION"
        case independentSegments = "EXT-X-INDEPENDENT-SEGMENTS"
        case start = "EXT-X-START"
        case define = "EXT-X-DEFINE"
        // Media playlists (sections 4.3.2, 4.3.3; EXT-X-GAP and EXT-X-BITRATE from 8216bis).
        case inf = "EXTINF"
        case byteRange = "EXT-X-BYTERANGE"
        case discontinuity = "EXT-X-DISCONTINUITY"
        case key = "EXT-X-KEY"
        case map = "EXT-X-MAP"
        case programDateTime = "EXT-X-PROGRAM-DATE-TIME"
        case dateRange = "EXT-X-DATERANGE"
        case gap = "EXT-X-GAP"
        case bitrate = "EXT-X-BITRATE"
        case targetDuration = "EXT-X-TARGETDURATION"
        case mediaSequence = "EXT-X-MEDIA-SEQUENCE"
        case discontinuitySequence = "EXT-X-DISCONTINUITY-SEQUENCE"
        case endList = "EXT-X-ENDLIST"
        case playlistType = "EXT-X-PLAYLIST-TYPE"
        case iFramesOnly = "EXT-X-I-FRAMES-ONLY"
        // Multivariant playlists (section 4.3.4).
        case media = "EXT-X-MEDIA"
        case streamInf = "EXT-X-STREAM-INF"
        case iFrameStreamInf = "EXT-X-I-FRAME-STREAM-INF"
        case sessionData = "EXT-X-SESSION-DATA"
        case sessionKey = "EXT-X-SESSION-KEY"

        enum Kind { case both, media, multivariant }

        /// The tags by name, for a hashed lookup per line.
        static let byName: [Substring: Tag] = Dictionary(
            uniqueKeysWithValues: allCases.map { (Substring($0.rawValue), $0) })

        var kind: Kind {
            switch self {
            case .version, .independentSegments, .start, .define: .both
            case .media, .streamInf, .iFrameStreamInf, .sessionData, .sessionKey: .multivariant
            default: .media
            }
        }
    }
}
