// The ASCII bytes the playlist grammar is written in (RFC 8216 section 4), for the byte-level scanners.
extension UInt8 {
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let equals = UInt8(ascii: "=")
    static let comma = UInt8(ascii: ",")
    static let quote = UInt8(ascii: "\"")
    static let minus = UInt8(ascii: "-")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let hash = UInt8(ascii: "#")

    var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    var isAttributeNameCharacter: Bool {
        isDigit || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z")) || self == .minus
    }
}
