/// The parts of an ASS script header (libavcodec's `subtitle_header`) that style events: the play resolution and
/// the styles by name.
package struct ASSScript: Sendable, Equatable {
    /// One `Style:` line.
    package struct Style: Sendable, Equatable {
        package var name = "Default"
        package var fontName: String?
        package var fontSize: Double?
        /// `PrimaryColour` as alpha, red, green, blue (0…1); ASS alpha 0 is opaque, so alpha here is 1 − ASS alpha.
        package var colour: [Double]?
        package var bold = false
        package var italic = false
        package var underline = false
        /// Numpad alignment: 1–3 bottom (left, centre, right), 4–6 middle, 7–9 top.
        package var alignment = 2
        package var marginLeft = 0.0
        package var marginRight = 0.0
        package var marginVertical = 0.0

        package init() {}
    }

    /// The coordinate space of positions and margins (`PlayResX`, `PlayResY`; libass's default 384×288).
    package var playResX = 384.0
    package var playResY = 288.0
    package var styles: [String: Style] = [:]

    package init() {}

    /// Parses `header`; what it lacks keeps the defaults.
    package init(header: String) {
        var format: [String] = []
        var section = ""
        for raw in header.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingSpaces()
            if line.hasPrefix("[") {
                section = line.lowercased()
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingSpaces().lowercased()
            let value = line[line.index(after: colon)...].trimmingSpaces()
            if section == "[script info]" {
                if key == "playresx", let v = Double(value), v > 0 { playResX = v }
                if key == "playresy", let v = Double(value), v > 0 { playResY = v }
            } else if section.hasSuffix("styles]") {
                if key == "format" {
                    format = value.split(separator: ",").map { $0.trimmingSpaces().lowercased() }
                } else if key == "style" {
                    let fields = value.split(separator: ",", omittingEmptySubsequences: false).map {
                        $0.trimmingSpaces()
                    }
                    let style = Self.style(fields: fields, format: format)
                    styles[style.name] = style
                }
            }
        }
    }

    private static func style(fields: [String], format: [String]) -> Style {
        var s = Style()
        for (name, value) in zip(format, fields) {
            switch name {
            case "name": s.name = value
            case "fontname": s.fontName = value
            case "fontsize": s.fontSize = Double(value)
            case "primarycolour", "primarycolor": s.colour = colour(value)
            case "bold": s.bold = (Int(value) ?? 0) != 0
            case "italic": s.italic = (Int(value) ?? 0) != 0
            case "underline": s.underline = (Int(value) ?? 0) != 0
            case "alignment": s.alignment = Int(value).flatMap { (1...9).contains($0) ? $0 : nil } ?? 2
            case "marginl": s.marginLeft = Double(value) ?? 0
            case "marginr": s.marginRight = Double(value) ?? 0
            case "marginv": s.marginVertical = Double(value) ?? 0
            default: break
            }
        }
        return s
    }

    /// An ASS colour (`&HAABBGGRR`, `&HBBGGRR&`, or decimal) as alpha, red, green, blue (0…1).
    package static func colour(_ text: some StringProtocol) -> [Double]? {
        var t = Substring(text).trimmingSpaces()[...]
        while t.hasPrefix("&") { t = t.dropFirst() }
        while t.hasSuffix("&") { t = t.dropLast() }
        let value: UInt32?
        if t.hasPrefix("H") || t.hasPrefix("h") {
            value = UInt32(t.dropFirst(), radix: 16)
        } else {
            value = UInt32(t) ?? Int64(t).map { UInt32(truncatingIfNeeded: $0) }
        }
        guard let v = value else { return nil }
        let alpha = 1 - Double((v >> 24) & 0xFF) / 255
        return [alpha, Double(v & 0xFF) / 255, Double((v >> 8) & 0xFF) / 255, Double((v >> 16) & 0xFF) / 255]
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
