import Foundation

/// Variable substitution (8216bis section 4.3): `#EXT-X-DEFINE` and `{$name}` references in URI lines, quoted-string
/// and hexadecimal attribute values.
///
/// A playlist that defines no variable is read literally. A reference to an undefined variable, a name defined
/// twice, and `IMPORT` of a name the multivariant playlist did not define are refused, as the draft says. Expansion
/// is bounded: a substituted line may not exceed `maxLineLength`, and all substituted text together not `maxBytes`,
/// so a short playlist cannot reference a long value into gigabytes.
extension HLSPlaylistReader {
    /// `#EXT-X-DEFINE`: `NAME` and `VALUE`, `IMPORT` (media playlists: a variable of the multivariant playlist), or
    /// `QUERYPARAM` (a query parameter of the playlist's URL).
    mutating func define(_ attributes: HLSAttributeList) throws(HLSPlaylistError) {
        let forms = ["NAME", "IMPORT", "QUERYPARAM"].filter { attributes[$0] != nil }
        guard forms.count == 1 else { throw attributes.error("needs exactly one of NAME, IMPORT and QUERYPARAM") }
        let name = try attributes.require(attributes.quotedString(forms[0]), forms[0])
        guard !name.isEmpty, name.utf8.allSatisfy(\.isVariableNameCharacter) else {
            throw attributes.error("\"\(name)\" is not a variable name (A-Z, a-z, 0-9, - and _)")
        }
        guard definitions[name] == nil else { throw attributes.error("the variable \(name) is defined twice") }
        switch forms[0] {
        case "NAME":
            definitions[name] = try attributes.require(attributes.quotedString("VALUE"), "VALUE")
        case "IMPORT":
            guard let value = importedDefinitions[name] else {
                throw attributes.error("IMPORT=\"\(name)\": the multivariant playlist defines no such variable")
            }
            definitions[name] = value
            importLine = importLine ?? line
        default:
            let query = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems
            guard let value = query?.first(where: { $0.name == name })?.value else {
                throw attributes.error("QUERYPARAM=\"\(name)\": the playlist URL has no such query parameter")
            }
            definitions[name] = value
        }
    }

    /// An attribute list with its variables substituted.
    mutating func attributeList(_ value: Substring, _ tag: Tag) throws(HLSPlaylistError) -> HLSAttributeList {
        var attributes = try HLSAttributeList(parsing: value, tag: tag.rawValue, line: line)
        guard !definitions.isEmpty else { return attributes }
        for (index, attribute) in attributes.attributes.enumerated()
        where attribute.isQuoted || attribute.value.hasPrefix("0x") || attribute.value.hasPrefix("0X") {
            let substituted = try substitutingVariables(in: attribute.value)
            if substituted != attribute.value { attributes.replaceValue(at: index, with: substituted) }
        }
        return attributes
    }

    /// `text` with its `{$name}` references replaced; unchanged when the playlist defines no variables. A `{$` that
    /// does not start a reference (no name, no closing brace) is kept.
    mutating func substitutingVariables(in text: String) throws(HLSPlaylistError) -> String {
        guard !definitions.isEmpty, text.contains("{$") else { return text }
        var result = ""
        var rest = text[...]
        while let open = rest.range(of: "{$") {
            result += rest[..<open.lowerBound]
            let afterOpen = rest[open.upperBound...]
            guard let close = afterOpen.firstIndex(of: "}"), case let name = afterOpen[..<close], !name.isEmpty,
                name.utf8.allSatisfy(\.isVariableNameCharacter)
            else {
                result += "{$"
                rest = afterOpen
                continue
            }
            guard let value = definitions[String(name)] else {
                throw error(.invalidTag, "the variable {$\(name)} is not defined by an earlier #EXT-X-DEFINE")
            }
            result += value
            rest = afterOpen[afterOpen.index(after: close)...]
            guard result.utf8.count <= limits.maxLineLength else {
                throw error(
                    .lineTooLong, "variable substitution makes the line longer than \(limits.maxLineLength) bytes")
            }
        }
        result += rest
        substitutedBytes += result.utf8.count
        guard substitutedBytes <= limits.maxBytes else {
            throw error(.tooLarge, "variable substitution makes the playlist larger than \(limits.maxBytes) bytes")
        }
        return result
    }
}

extension UInt8 {
    /// A variable name's characters: `[a-zA-Z0-9-_]`.
    fileprivate var isVariableNameCharacter: Bool {
        isDigit || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z"))
            || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "z")) || self == .minus || self == UInt8(ascii: "_")
    }
}
