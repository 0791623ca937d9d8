/// One ASS event line as libavcodec produces it for every text subtitle format
/// (`ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`), split into runs of equally styled text.
///
/// Override tags understood: `\b`, `\i`, `\u`, `\c` / `\1c`, `\an`, `\a` (legacy), `\pos`, `\r`; `\N`, `\n` are
/// line breaks and `\h` a hard space. Other tags are dropped from the text.
package struct ASSEvent: Sendable, Equatable {
    /// Styling of one run of text.
    package struct RunStyle: Sendable, Equatable {
        package var bold = false
        package var italic = false
        package var underline = false
        /// Alpha, red, green, blue (0…1); nil: the renderer's default.
        package var colour: [Double]?
    }

    /// Text with one style.
    package struct Run: Sendable, Equatable {
        package var text: String
        package var style: RunStyle
    }

    /// The event's style (from the script), by name.
    package var styleName: String
    package var runs: [Run]
    /// Numpad alignment: the style's unless an `\an` tag set it.
    package var alignment: Int
    /// Whether the event's own tags set ``alignment``.
    package var overridesAlignment: Bool
    /// `\pos(x, y)` in the script's play resolution, if given.
    package var position: (x: Double, y: Double)?

    /// The text without markup.
    package var plainText: String { runs.map(\.text).joined() }

    package static func == (a: ASSEvent, b: ASSEvent) -> Bool {
        a.styleName == b.styleName && a.runs == b.runs && a.alignment == b.alignment
            && a.overridesAlignment == b.overridesAlignment && a.position?.x == b.position?.x
            && a.position?.y == b.position?.y
    }

    /// Parses an event line, styled from `script`.
    package init(line: String, script: ASSScript) {
        let fields = line.split(separator: ",", maxSplits: 8, omittingEmptySubsequences: false)
        let text = fields.count == 9 ? String(fields[8]) : line
        styleName = fields.count == 9 ? fields[2].trimmingSpaces() : "Default"
        let style = script.styles[styleName] ?? script.styles["Default"] ?? ASSScript.Style()
        let base = RunStyle(bold: style.bold, italic: style.italic, underline: style.underline, colour: style.colour)
        alignment = style.alignment
        overridesAlignment = false
        position = nil
        runs = []
        var current = base
        var buffer = ""
        var i = text.startIndex
        func flush() {
            guard !buffer.isEmpty else { return }
            if let last = runs.last, last.style == current {
                runs[runs.count - 1].text += buffer
            } else {
                runs.append(Run(text: buffer, style: current))
            }
            buffer = ""
        }
        while i < text.endIndex {
            let c = text[i]
            if c == "{", let close = text[i...].firstIndex(of: "}") {
                let block = text[text.index(after: i)..<close]
                var next = current
                apply(block, to: &next, base: base)
                if next != current {
                    flush()
                    current = next
                }
                i = text.index(after: close)
                continue
            }
            if c == "\\", text.index(after: i) < text.endIndex {
                let n = text[text.index(after: i)]
                if n == "N" || n == "n" {
                    buffer += "\n"
                    i = text.index(i, offsetBy: 2)
                    continue
                }
                if n == "h" {
                    buffer += "\u{00A0}"
                    i = text.index(i, offsetBy: 2)
                    continue
                }
            }
            buffer.append(c)
            i = text.index(after: i)
        }
        flush()
    }

    /// Applies the tags of one `{…}` block.
    private mutating func apply(_ block: Substring, to style: inout RunStyle, base: RunStyle) {
        for tag in block.split(separator: "\\").map({ $0.trimmingSpaces() }) where !tag.isEmpty {
            if tag.hasPrefix("pos(") {
                let numbers = tag.dropFirst(4).prefix { $0 != ")" }.split(separator: ",").compactMap {
                    Double($0.trimmingSpaces())
                }
                if numbers.count == 2 { position = (numbers[0], numbers[1]) }
            } else if tag.hasPrefix("an"), let n = Int(tag.dropFirst(2)), (1...9).contains(n) {
                alignment = n
                overridesAlignment = true
            } else if tag.hasPrefix("a"), let n = Int(tag.dropFirst(1)) {
                // Legacy SSA alignment: 1–3 bottom, +4 top, +8 middle.
                let column = ((n - 1) & 3) + 1
                let row = n & 8 != 0 ? 3 : n & 4 != 0 ? 6 : 0
                if (1...3).contains(column) {
                    alignment = column + row
                    overridesAlignment = true
                }
            } else if tag.hasPrefix("1c") {
                style.colour = ASSScript.colour(tag.dropFirst(2)).map { mergeAlpha($0, style.colour) }
            } else if tag.hasPrefix("c&") || tag.hasPrefix("cH") {
                style.colour = ASSScript.colour(tag.dropFirst(1)).map { mergeAlpha($0, style.colour) }
            } else if tag.hasPrefix("b"), let n = Int(tag.dropFirst()) {
                style.bold = n == 1 || n >= 500
            } else if tag.hasPrefix("i"), let n = Int(tag.dropFirst()) {
                style.italic = n != 0
            } else if tag.hasPrefix("u"), let n = Int(tag.dropFirst()) {
                style.underline = n != 0
            } else if tag == "r" || tag.hasPrefix("r") && !tag.hasPrefix("rnd") {
                style = base
            }
        }
    }

    /// `\c` sets only the colour (`&HBBGGRR&`): the alpha stays what it was.
    private func mergeAlpha(_ colour: [Double], _ old: [Double]?) -> [Double] {
        var c = colour
        c[0] = old?[0] ?? 1
        return c
    }
}
