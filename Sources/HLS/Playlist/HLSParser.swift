import Foundation

/// Parses HLS playlists (RFC 8216 and the 8216bis tags players meet) into `HLSPlaylist` values.
///
/// Pure: it reads a string or bytes and touches nothing else. Relative URIs resolve against the URL the text was
/// fetched from, and a resolved URI whose scheme that URL does not allow is refused (`forbiddenURI`): a playlist read
/// over `http` or `https` may only name `http` and `https` resources; one read from a `file:` URL may also name
/// `file:` resources. So a remote playlist can never make the player read a local file or use another scheme.
///
/// Hostile input costs time and memory linear in its size: the byte size is checked before decoding, and one scan
/// of the bytes checks every line's length and counts the segment, variant, rendition, date-range and session tags
/// against `limits` before any model is built. Unknown tags and comments are ignored, as the RFC says.
package struct HLSParser: Sendable {
    package var limits: HLSParserLimits

    package init(limits: HLSParserLimits = HLSParserLimits()) {
        self.limits = limits
    }

    /// Parses UTF-8 `data` (a leading byte order mark is skipped) fetched from `url` (after redirects). The size is
    /// checked before the bytes are decoded. `definitions` are the variables of the multivariant playlist that led
    /// here (`HLSMultivariantPlaylist.definitions`), for `#EXT-X-DEFINE:IMPORT`.
    package func parse(
        _ data: Data, url: URL, importing definitions: [String: String] = [:]
    ) throws(HLSPlaylistError) -> HLSPlaylist {
        guard data.count <= limits.maxBytes else { throw tooLarge(data.count) }
        guard let text = String(data: data, encoding: .utf8) else {
            throw HLSPlaylistError(.notAPlaylist, "the playlist is not UTF-8 text")
        }
        return try parse(text, url: url, importing: definitions)
    }

    /// Parses `text` fetched from `url` (after redirects); relative URIs resolve against `url`. `definitions` are
    /// the variables of the multivariant playlist that led here, for `#EXT-X-DEFINE:IMPORT`.
    package func parse(
        _ text: String, url: URL, importing definitions: [String: String] = [:]
    ) throws(HLSPlaylistError) -> HLSPlaylist {
        guard text.utf8.count <= limits.maxBytes else { throw tooLarge(text.utf8.count) }
        var text = text
        let result = text.withUTF8 { bytes -> Result<HLSPlaylist, HLSPlaylistError> in
            do throws(HLSPlaylistError) {
                return .success(try parse(bytes: bytes, url: url, importing: definitions))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func tooLarge(_ size: Int) -> HLSPlaylistError {
        HLSPlaylistError(.tooLarge, "the playlist is \(size) bytes, more than the limit of \(limits.maxBytes)")
    }

    private func parse(
        bytes: UnsafeBufferPointer<UInt8>, url: URL, importing definitions: [String: String]
    ) throws(HLSPlaylistError) -> HLSPlaylist {
        var lines = LineScanner(bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { lines.position = 3 }
        let body = lines.position
        guard let first = lines.next(), first.trimmingBlanks().elementsEqual("#EXTM3U".utf8) else {
            throw HLSPlaylistError(.notAPlaylist, line: 1, "the first line is not #EXTM3U")
        }
        lines.position = body
        try checkLimits(&lines)

        lines.position = body
        _ = lines.next()
        var reader = HLSPlaylistReader(url: url, limits: limits, importing: definitions)
        var number = 1
        while let line = lines.next() {
            number += 1
            try reader.read(String(decoding: line.trimmingBlanks(), as: UTF8.self), line: number)
        }
        return try reader.finish()
    }

    /// The cheap pass: line lengths and entry counts, before anything is built.
    private func checkLimits(_ lines: inout LineScanner) throws(HLSPlaylistError) {
        var counts = [Int](repeating: 0, count: CountedTag.allCases.count)
        var number = 0
        while let line = lines.next() {
            number += 1
            guard line.count <= limits.maxLineLength else {
                throw HLSPlaylistError(
                    .lineTooLong, line: number,
                    "the line is \(line.count) bytes long, more than the limit of \(limits.maxLineLength)")
            }
            guard line.count > 7, line.first == .hash,
                let group = CountedTag.table.first(where: { line.starts(with: $0.prefix) })?.group
            else { continue }
            counts[group.rawValue] += 1
            let limit = group.limit(limits)
            if counts[group.rawValue] > limit {
                throw HLSPlaylistError(.tooManyEntries, line: number, "more than \(limit) \(group.noun)")
            }
        }
    }

    /// Tags counted against the limits, by the prefix of their line.
    private enum CountedTag: CaseIterable {
        case segment, variant, iFrameVariant, rendition, dateRange, sessionData, sessionKey

        /// Each tag's line prefix and group, made once.
        static let table = allCases.map { (prefix: $0.prefix, group: $0.group) }

        var prefix: [UInt8] {
            switch self {
            case .segment: Array("#EXTINF:".utf8)
            case .variant: Array("#EXT-X-STREAM-INF:".utf8)
            case .iFrameVariant: Array("#EXT-X-I-FRAME-STREAM-INF:".utf8)
            case .rendition: Array("#EXT-X-MEDIA:".utf8)
            case .dateRange: Array("#EXT-X-DATERANGE:".utf8)
            case .sessionData: Array("#EXT-X-SESSION-DATA:".utf8)
            case .sessionKey: Array("#EXT-X-SESSION-KEY:".utf8)
            }
        }

        var group: Group {
            switch self {
            case .segment: .segments
            case .variant, .iFrameVariant: .variants
            case .rendition: .renditions
            case .dateRange: .dateRanges
            case .sessionData, .sessionKey: .sessionEntries
            }
        }

        enum Group: Int {
            case segments, variants, renditions, dateRanges, sessionEntries

            func limit(_ limits: HLSParserLimits) -> Int {
                switch self {
                case .segments: limits.maxSegments
                case .variants: limits.maxVariants
                case .renditions: limits.maxRenditions
                case .dateRanges: limits.maxDateRanges
                case .sessionEntries: limits.maxSessionEntries
                }
            }

            var noun: String {
                switch self {
                case .segments: "segments (#EXTINF)"
                case .variants: "variants (#EXT-X-STREAM-INF, #EXT-X-I-FRAME-STREAM-INF)"
                case .renditions: "renditions (#EXT-X-MEDIA)"
                case .dateRanges: "date ranges (#EXT-X-DATERANGE)"
                case .sessionEntries: "session entries (#EXT-X-SESSION-DATA, #EXT-X-SESSION-KEY)"
                }
            }
        }
    }
}

extension Slice where Base == UnsafeBufferPointer<UInt8> {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingBlanks() -> Self {
        var trimmed = self
        while let first = trimmed.first, first == .space || first == .tab { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, last == .space || last == .tab { trimmed = trimmed.dropLast() }
        return trimmed
    }
}

/// Splits bytes into lines at LF, dropping a CR before it (RFC 8216 section 4.1 allows LF and CRLF).
private struct LineScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The next line without its terminator, or `nil` at the end.
    mutating func next() -> UnsafeBufferPointer<UInt8>.SubSequence? {
        guard position < bytes.count, let base = bytes.baseAddress else { return nil }
        let start = position
        var end: Int
        if let found = memchr(base + start, Int32(UInt8.newline), bytes.count - start) {
            end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            position = end + 1
        } else {
            end = bytes.count
            position = end
        }
        if end > start, bytes[end - 1] == .carriageReturn { end -= 1 }
        return bytes[start..<end]
    }
}
