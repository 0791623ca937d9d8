/// The attribute list of a tag (RFC 8216 section 4.2): `NAME=value` pairs separated by commas, in order.
///
/// Tokenizing keeps each value's text and whether it was quoted; the typed accessors then read it as one of the
/// RFC's value types and refuse a value of the wrong type with `HLSPlaylistError.Code.invalidAttribute` naming the
/// tag, the attribute and the line. A quoted string may hold commas and `=`; it runs to the next `"`.
///
/// Tolerated beyond the RFC: spaces and tabs around names and around unquoted values, a trailing comma, and an
/// enumerated string in quotes (`DEFAULT="YES"`, which some packagers write). Refused: an empty or lower-case name, a
/// name without `=`, an empty unquoted value, an unterminated quote, text between a closing quote and the next comma,
/// and a name given twice (the RFC says an attribute list must not repeat one).
package struct HLSAttributeList: Sendable, Equatable {
    /// One `NAME=value` pair.
    package struct Attribute: Sendable, Equatable {
        package var name: String
        /// The value's text, without the quotes of a quoted string.
        package var value: String
        package var isQuoted: Bool

        package init(name: String, value: String, isQuoted: Bool) {
            self.name = name
            self.value = value
            self.isQuoted = isQuoted
        }
    }

    /// The attributes in the order written.
    package private(set) var attributes: [Attribute]
    /// The tag the list belongs to (`EXT-X-KEY`), for messages.
    package let tag: String
    /// The 1-based line of the tag, for errors.
    package let line: Int?
    private var indexByName: [String: Int]

    /// Tokenizes `text`, the part of a tag line after the first `:`.
    package init(parsing text: some StringProtocol, tag: String = "", line: Int? = nil) throws(HLSPlaylistError) {
        self.tag = tag
        self.line = line
        attributes = []
        indexByName = [:]
        let bytes = Array(text.utf8)
        var i = 0
        func skipBlanks() {
            while i < bytes.count, bytes[i] == .space || bytes[i] == .tab { i += 1 }
        }
        while true {
            skipBlanks()
            if i == bytes.count { break }
            let nameStart = i
            while i < bytes.count, bytes[i] != .equals, bytes[i] != .comma { i += 1 }
            var nameEnd = i
            while nameEnd > nameStart, bytes[nameEnd - 1] == .space || bytes[nameEnd - 1] == .tab { nameEnd -= 1 }
            let nameBytes = bytes[nameStart..<nameEnd]
            let name = String(decoding: nameBytes, as: UTF8.self)
            guard !nameBytes.isEmpty, nameBytes.allSatisfy(\.isAttributeNameCharacter) else {
                throw error("malformed attribute name \"\(name)\" (A-Z, 0-9 and - only)")
            }
            guard i < bytes.count, bytes[i] == .equals else { throw error("attribute \(name) has no value") }
            i += 1
            skipBlanks()
            let value: String
            let isQuoted: Bool
            if i < bytes.count, bytes[i] == .quote {
                let valueStart = i + 1
                guard let close = bytes[valueStart...].firstIndex(of: .quote) else {
                    throw error("attribute \(name) has an unterminated quoted string")
                }
                value = String(decoding: bytes[valueStart..<close], as: UTF8.self)
                isQuoted = true
                i = close + 1
                skipBlanks()
                guard i == bytes.count || bytes[i] == .comma else {
                    throw error("attribute \(name) has text after its closing quote")
                }
            } else {
                let valueStart = i
                while i < bytes.count, bytes[i] != .comma { i += 1 }
                var valueEnd = i
                while valueEnd > valueStart, bytes[valueEnd - 1] == .space || bytes[valueEnd - 1] == .tab {
                    valueEnd -= 1
                }
                let valueBytes = bytes[valueStart..<valueEnd]
                guard !valueBytes.isEmpty else { throw error("attribute \(name) has an empty value") }
                guard !valueBytes.contains(.quote) else { throw error("attribute \(name) has a stray quote") }
                value = String(decoding: valueBytes, as: UTF8.self)
                isQuoted = false
            }
            guard indexByName[name] == nil else { throw error("attribute \(name) appears twice") }
            indexByName[name] = attributes.count
            attributes.append(Attribute(name: name, value: value, isQuoted: isQuoted))
            if i < bytes.count { i += 1 }  // the comma
        }
    }

    /// Replaces the value of the attribute at `index` (variable substitution).
    package mutating func replaceValue(at index: Int, with value: String) {
        attributes[index].value = value
    }

    /// The attribute called `name`, if present.
    package subscript(name: String) -> Attribute? {
        indexByName[name].map { attributes[$0] }
    }

    /// An error about this list's tag at its line.
    package func error(_ message: String, _ code: HLSPlaylistError.Code = .invalidAttribute) -> HLSPlaylistError {
        HLSPlaylistError(code, line: line, tag.isEmpty ? message : "#\(tag): \(message)")
    }

    /// `value`, or a `missing attribute` error.
    package func require<T>(_ value: T?, _ name: String) throws(HLSPlaylistError) -> T {
        guard let value else { throw error("required attribute \(name) is missing") }
        return value
    }

    // MARK: Typed values (RFC 8216 section 4.2)

    /// A quoted-string; refuses an unquoted value.
    package func quotedString(_ name: String) throws(HLSPlaylistError) -> String? {
        guard let attribute = self[name] else { return nil }
        guard attribute.isQuoted else { throw error("\(name)=\(attribute.value) must be a quoted string") }
        return attribute.value
    }

    /// An enumerated-string (tolerated in quotes; see the type's doc).
    package func enumeratedString(_ name: String) throws(HLSPlaylistError) -> String? {
        guard let attribute = self[name] else { return nil }
        guard !attribute.value.isEmpty, !attribute.value.utf8.contains(where: { $0 == .space || $0 == .tab }) else {
            throw error("\(name)=\"\(attribute.value)\" is not an enumerated string")
        }
        return attribute.value
    }

    /// An enumerated `YES` or `NO`; refuses anything else.
    package func boolean(_ name: String) throws(HLSPlaylistError) -> Bool? {
        switch try enumeratedString(name) {
        case nil: return nil
        case "YES": return true
        case "NO": return false
        case let other?: throw error("\(name)=\(other) must be YES or NO")
        }
    }

    /// A decimal-integer: 1 to 20 digits, no sign; refuses values beyond `Int.max`.
    package func decimalInteger(_ name: String) throws(HLSPlaylistError) -> Int? {
        guard let attribute = try unquoted(name) else { return nil }
        guard let value = HLSAttributeList.decimalInteger(attribute) else {
            throw error("\(name)=\(attribute) is not a decimal integer in 0...\(Int.max)")
        }
        return value
    }

    /// A decimal-floating-point: digits and at most one `.`, no sign or exponent; always finite.
    package func decimalFloat(_ name: String) throws(HLSPlaylistError) -> Double? {
        guard let attribute = try unquoted(name) else { return nil }
        guard let value = HLSAttributeList.decimalFloat(attribute, signed: false) else {
            throw error("\(name)=\(attribute) is not a non-negative decimal number")
        }
        return value
    }

    /// A signed-decimal-floating-point: a decimal-floating-point with an optional leading `-`.
    package func signedDecimalFloat(_ name: String) throws(HLSPlaylistError) -> Double? {
        guard let attribute = try unquoted(name) else { return nil }
        guard let value = HLSAttributeList.decimalFloat(attribute, signed: true) else {
            throw error("\(name)=\(attribute) is not a decimal number")
        }
        return value
    }

    /// A hexadecimal-sequence (`0x` or `0X` and hex digits) as big-endian bytes; an odd digit count gets a leading
    /// zero nibble.
    package func hexadecimal(_ name: String) throws(HLSPlaylistError) -> [UInt8]? {
        guard let attribute = try unquoted(name) else { return nil }
        guard let bytes = HLSAttributeList.hexadecimal(attribute) else {
            throw error("\(name)=\(attribute) is not a hexadecimal sequence")
        }
        return bytes
    }

    /// A decimal-resolution: `<width>x<height>`.
    package func resolution(_ name: String) throws(HLSPlaylistError) -> HLSResolution? {
        guard let attribute = try unquoted(name) else { return nil }
        let parts = attribute.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = HLSAttributeList.decimalInteger(parts[0]),
            let height = HLSAttributeList.decimalInteger(parts[1])
        else { throw error("\(name)=\(attribute) is not a resolution like 1280x720") }
        return HLSResolution(width: width, height: height)
    }

    /// The value of `name` typed by its spelling, for attributes whose type the RFC leaves to the writer (the `X-`
    /// client attributes of `#EXT-X-DATERANGE`): quoted → string, `0x` → hexadecimal, a number → number, else
    /// enumerated.
    package func inferredValue(_ name: String) throws(HLSPlaylistError) -> HLSAttributeValue? {
        guard let attribute = self[name] else { return nil }
        if attribute.isQuoted { return .string(attribute.value) }
        if attribute.value.hasPrefix("0x") || attribute.value.hasPrefix("0X") {
            guard let bytes = HLSAttributeList.hexadecimal(attribute.value) else {
                throw error("\(name)=\(attribute.value) is not a hexadecimal sequence")
            }
            return .hexadecimal(bytes)
        }
        if let number = HLSAttributeList.decimalFloat(attribute.value, signed: true) { return .number(number) }
        return .enumerated(attribute.value)
    }

    private func unquoted(_ name: String) throws(HLSPlaylistError) -> String? {
        guard let attribute = self[name] else { return nil }
        guard !attribute.isQuoted else { throw error("\(name)=\"\(attribute.value)\" must not be quoted") }
        return attribute.value
    }

    // MARK: Value grammars, shared with the tags whose values are not attribute lists (#EXTINF, #EXT-X-BYTERANGE)

    /// 1 to 20 ASCII digits that fit in an `Int`.
    package static func decimalInteger(_ text: some StringProtocol) -> Int? {
        let utf8 = text.utf8
        guard (1...20).contains(utf8.count) else { return nil }
        var value = 0
        for byte in utf8 {
            guard byte.isDigit else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(byte - .zero))
            guard !o1, !o2 else { return nil }
            value = sum
        }
        return value
    }

    /// Digits with at most one `.` and at least one digit (a leading `-` when `signed`); finite.
    package static func decimalFloat(_ text: some StringProtocol, signed: Bool) -> Double? {
        var utf8 = Substring(text).utf8[...]
        if signed, utf8.first == .minus { utf8 = utf8.dropFirst() }
        var digits = 0
        var dots = 0
        for byte in utf8 {
            if byte.isDigit {
                digits += 1
            } else if byte == .dot {
                dots += 1
            } else {
                return nil
            }
        }
        guard digits > 0, dots <= 1, let value = Double(String(text)), value.isFinite else { return nil }
        return value
    }

    /// `0x`/`0X` and at least one hex digit, as big-endian bytes.
    package static func hexadecimal(_ text: some StringProtocol) -> [UInt8]? {
        var nibbles: [UInt8] = []
        let utf8 = Array(text.utf8)
        guard utf8.count > 2, utf8[0] == .zero, utf8[1] == UInt8(ascii: "x") || utf8[1] == UInt8(ascii: "X") else {
            return nil
        }
        nibbles.reserveCapacity(utf8.count - 1)
        if utf8.count % 2 == 1 { nibbles.append(0) }
        for byte in utf8[2...] {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibbles.append(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibbles.append(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibbles.append(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        return stride(from: 0, to: nibbles.count, by: 2).map { nibbles[$0] << 4 | nibbles[$0 + 1] }
    }
}

/// A value of a client-defined attribute (RFC 8216 section 4.3.2.7.1: `X-` attributes of `#EXT-X-DATERANGE`).
package enum HLSAttributeValue: Sendable, Equatable {
    case string(String)
    case number(Double)
    case hexadecimal([UInt8])
    /// Not allowed for client attributes by the RFC, kept rather than refused.
    case enumerated(String)
}
