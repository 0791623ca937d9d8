import Foundation

/// One frame of an ID3v2 tag, decoded as far as its kind says (ID3v2.4.0 "native frames" §4; v2.3 frames have
/// the same layout).
package struct ID3Frame: Sendable, Equatable {
    /// The four-character frame ID ("TIT2", "TXXX", "PRIV" …).
    package var id: String
    /// The text of a text frame (`T…`; several values, as v2.4 separates them with NULs, joined by "/"); the value
    /// of `TXXX`; the URL of a `W…` frame; the text of `COMM`. Nil for frames without text.
    package var text: String?
    /// `TXXX`'s and `WXXX`'s description, `COMM`'s description, `PRIV`'s owner identifier.
    package var info: String?
    /// The frame's body as stored (for `PRIV`: the private data after the owner).
    package var data: [UInt8]
}

/// Parses ID3v2.2–2.4 tags (the `timed_id3` packets of MPEG-TS and HTTP Live Streaming carry one whole tag each).
///
/// Tolerant: a damaged frame ends the parse with the frames before it; nothing traps on any input.
package enum ID3Tag {
    /// The frames of the tag at the start of `bytes` (empty when it is not an ID3v2 tag).
    package static func frames(_ bytes: [UInt8]) -> [ID3Frame] {
        guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33 else { return [] }
        let version = bytes[3]
        guard (2...4).contains(version) else { return [] }
        let flags = bytes[5]
        guard let size = syncSafe(bytes, at: 6) else { return [] }
        var body = Array(bytes[10..<min(bytes.count, 10 + size)])
        // Whole-tag unsynchronisation (v2.2/2.3: the tag; v2.4 marks frames instead).
        if flags & 0x80 != 0 && version < 4 { body = resynchronised(body) }
        var offset = 0
        // An extended header is skipped (its size counts itself in v2.4, not in v2.3).
        if flags & 0x40 != 0 && version >= 3 {
            guard body.count >= 4 else { return [] }
            let extended =
                version == 4
                ? syncSafe(body, at: 0) ?? body.count
                : 4 + (Int(body[0]) << 24 | Int(body[1]) << 16 | Int(body[2]) << 8 | Int(body[3]))
            offset = extended
        }
        let headerSize = version == 2 ? 6 : 10
        let idSize = version == 2 ? 3 : 4
        var frames: [ID3Frame] = []
        while offset + headerSize <= body.count {
            let idBytes = body[offset..<offset + idSize]
            guard idBytes.allSatisfy({ (0x30...0x39).contains($0) || (0x41...0x5a).contains($0) }) else { break }
            let id = String(decoding: idBytes, as: UTF8.self)
            let frameSize: Int
            var frameFlags: UInt8 = 0
            switch version {
            case 2:
                frameSize = Int(body[offset + 3]) << 16 | Int(body[offset + 4]) << 8 | Int(body[offset + 5])
            case 3:
                frameSize =
                    Int(body[offset + 4]) << 24 | Int(body[offset + 5]) << 16 | Int(body[offset + 6]) << 8
                    | Int(body[offset + 7])
            default:
                guard let s = syncSafe(body, at: offset + 4) else { return frames }
                frameSize = s
                frameFlags = body[offset + 9]
            }
            let start = offset + headerSize
            guard frameSize >= 0, start + frameSize <= body.count else { break }
            var content = Array(body[start..<start + frameSize])
            offset = start + frameSize
            if version == 4 {
                // Compressed or encrypted frames are not read; a data-length indicator is skipped.
                if frameFlags & 0x0c != 0 { continue }
                if frameFlags & 0x02 != 0 { content = resynchronised(content) }
                if frameFlags & 0x01 != 0 { content = Array(content.dropFirst(4)) }
            }
            frames.append(frame(id: id, content: content))
        }
        return frames
    }

    /// A frame's fields from its body.
    static func frame(id: String, content: [UInt8]) -> ID3Frame {
        var f = ID3Frame(id: id, text: nil, info: nil, data: content)
        switch id {
        case "TXXX", "WXXX", "TXX", "WXX":
            guard let encoding = content.first else { break }
            let parts = split(Array(content.dropFirst()), encoding: encoding, limit: 1)
            f.info = decode(parts.first ?? [], encoding: encoding)
            let rest = parts.count > 1 ? parts[1] : []
            f.text = id.hasPrefix("W") ? decode(rest, encoding: 0) : decode(rest, encoding: encoding)
        case "COMM", "COM", "USLT", "ULT":
            guard content.count >= 4 else { break }
            let encoding = content[0]
            let parts = split(Array(content.dropFirst(4)), encoding: encoding, limit: 1)
            f.info = decode(parts.first ?? [], encoding: encoding)
            f.text = decode(parts.count > 1 ? parts[1] : [], encoding: encoding)
        case "PRIV":
            let end = content.firstIndex(of: 0) ?? content.count
            f.info = decode(Array(content[..<end]), encoding: 0)
            f.data = end < content.count ? Array(content[(end + 1)...]) : []
        default:
            if id.hasPrefix("T"), let encoding = content.first {
                let values = split(Array(content.dropFirst()), encoding: encoding, limit: Int.max)
                    .map { decode($0, encoding: encoding) }.filter { !$0.isEmpty }
                f.text = values.joined(separator: "/")
            } else if id.hasPrefix("W") {
                f.text = decode(content, encoding: 0)
            }
        }
        return f
    }

    /// `bytes` split at NUL terminators of `encoding` (two-byte NULs on even offsets for UTF-16), at most `limit`
    /// times.
    private static func split(_ bytes: [UInt8], encoding: UInt8, limit: Int) -> [[UInt8]] {
        let wide = encoding == 1 || encoding == 2
        var parts: [[UInt8]] = []
        var start = 0
        var i = 0
        while i < bytes.count, parts.count < limit {
            if wide {
                if i + 1 < bytes.count, bytes[i] == 0, bytes[i + 1] == 0, (i - start) % 2 == 0 {
                    parts.append(Array(bytes[start..<i]))
                    start = i + 2
                    i += 2
                    continue
                }
            } else if bytes[i] == 0 {
                parts.append(Array(bytes[start..<i]))
                start = i + 1
            }
            i += 1
        }
        parts.append(Array(bytes[min(start, bytes.count)...]))
        return parts
    }

    /// Text in ID3 encoding `encoding`: 0 Latin-1, 1 UTF-16 with BOM, 2 UTF-16BE, 3 UTF-8. Trailing NULs dropped.
    static func decode(_ bytes: [UInt8], encoding: UInt8) -> String {
        let b = bytes
        let text: String
        switch encoding {
        case 1, 2:
            var bigEndian = encoding == 2
            var units = b
            if units.count >= 2 && ((units[0] == 0xff && units[1] == 0xfe) || (units[0] == 0xfe && units[1] == 0xff)) {
                bigEndian = units[0] == 0xfe
                units.removeFirst(2)
            }
            var codeUnits: [UInt16] = []
            var i = 0
            while i + 1 < units.count {
                codeUnits.append(
                    bigEndian
                        ? UInt16(units[i]) << 8 | UInt16(units[i + 1]) : UInt16(units[i + 1]) << 8 | UInt16(units[i]))
                i += 2
            }
            text = String(decoding: codeUnits, as: UTF16.self)
        case 3:
            text = String(decoding: b, as: UTF8.self)
        default:
            text = String(String.UnicodeScalarView(b.map { Unicode.Scalar($0) }))
        }
        var trimmed = Substring(text)
        while trimmed.last == "\0" { trimmed.removeLast() }
        return String(trimmed)
    }

    /// A 28-bit sync-safe integer at `offset`; nil when a byte has its top bit set or the bytes run out.
    private static func syncSafe(_ bytes: [UInt8], at offset: Int) -> Int? {
        guard offset + 4 <= bytes.count else { return nil }
        var n = 0
        for b in bytes[offset..<offset + 4] {
            guard b & 0x80 == 0 else { return nil }
            n = n << 7 | Int(b)
        }
        return n
    }

    /// `bytes` with unsynchronisation undone (every 0xFF 0x00 becomes 0xFF).
    private static func resynchronised(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            out.append(bytes[i])
            if bytes[i] == 0xff, i + 1 < bytes.count, bytes[i + 1] == 0 { i += 1 }
            i += 1
        }
        return out
    }
}
