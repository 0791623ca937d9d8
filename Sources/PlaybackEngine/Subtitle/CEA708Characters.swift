/// The CEA-708 character sets (CEA-708-E §7.1.4–7.1.7): G0 (ASCII with a music note), G1 (ISO 8859-1), and the
/// extended sets G2 and G3 reached through `EXT1`.
enum CEA708Characters {
    /// The G0 character of `code` (0x20…0x7F): ASCII, except 0x7F, the music note.
    static func g0(_ code: UInt8) -> Character {
        code == 0x7F ? "\u{266A}" : Character(Unicode.Scalar(code))
    }

    /// The G1 character of `code` (0xA0…0xFF): ISO 8859-1 Latin-1, whose code points are Unicode's.
    static func g1(_ code: UInt8) -> Character {
        Character(Unicode.Scalar(code))
    }

    /// The G2 character of `code` (0x20…0x7F, after `EXT1`; CEA-708-E Table 17); nil for the codes G2 leaves
    /// unassigned (a decoder shows nothing for them). The transparent space (0x20) and non-breaking transparent
    /// space (0x21) are drawn as spaces: windows here have no fill of their own to show through.
    static func g2(_ code: UInt8) -> Character? {
        switch code {
        case 0x20: return " "
        case 0x21: return "\u{00A0}"
        case 0x25: return "\u{2026}"  // …
        case 0x2A: return "\u{0160}"  // Š
        case 0x2C: return "\u{0152}"  // Œ
        case 0x30: return "\u{2588}"  // █
        case 0x31: return "\u{2018}"  // ‘
        case 0x32: return "\u{2019}"  // ’
        case 0x33: return "\u{201C}"  // “
        case 0x34: return "\u{201D}"  // ”
        case 0x35: return "\u{2022}"  // •
        case 0x39: return "\u{2122}"  // ™
        case 0x3A: return "\u{0161}"  // š
        case 0x3C: return "\u{0153}"  // œ
        case 0x3D: return "\u{2120}"  // ℠
        case 0x3F: return "\u{0178}"  // Ÿ
        case 0x76: return "\u{215B}"  // ⅛
        case 0x77: return "\u{215C}"  // ⅜
        case 0x78: return "\u{215D}"  // ⅝
        case 0x79: return "\u{215E}"  // ⅞
        case 0x7A: return "\u{2502}"  // │
        case 0x7B: return "\u{2510}"  // ┐
        case 0x7C: return "\u{2514}"  // └
        case 0x7D: return "\u{2500}"  // ─
        case 0x7E: return "\u{2518}"  // ┘
        case 0x7F: return "\u{250C}"  // ┌
        default: return nil
        }
    }

    /// The G3 character of `code` (0xA0…0xFF, after `EXT1`): only 0xA0, the closed-caption icon, is assigned; it is
    /// drawn as U+1F16D CIRCLED CC. Nil for the rest.
    static func g3(_ code: UInt8) -> Character? {
        code == 0xA0 ? "\u{1F16D}" : nil
    }
}
