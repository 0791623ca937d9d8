import Foundation

// A CEA-708 window as an ASS event line, the shape every text subtitle takes here (libavcodec's for the formats it
// decodes): placed with `\an` and `\pos` in the script of ``CEA708Decoder/assHeader``, styled with `\i`, `\u`, `\c`.
extension CEA708Window {
    /// The script's coordinate space (libass's default, as libavcodec's `ccaption` uses).
    static let playResX = 384.0
    static let playResY = 288.0
    /// The grid a window's size is counted in: 15 rows and 42 columns (16:9) fill the safe title area.
    static let gridRows = 15.0
    static let gridColumns = 42.0
    /// The anchor grid of absolute positioning: 75 × 210 (16:9).
    static let anchorRows = 75.0
    static let anchorColumns = 210.0
    /// The safe title area: the middle 80 % of the picture each way.
    static let safeAreaInset = 10.0

    /// The event line showing the window: nil when it is hidden or holds no text.
    ///
    /// Rows from the first written to the last, each from its first written cell (common indentation kept as an
    /// offset of a left-justified window) to its last, trailing spaces trimmed; rows joined with `\N`. The window's
    /// box (its anchor, anchor point, rows and columns) is placed in the safe title area; the text is set from the
    /// first written row down, at the left edge, the centre or the right edge as justified (full justification is
    /// drawn left).
    func eventLine() -> String? {
        guard isVisible else { return nil }
        var lines: [[Cell?]] = []
        var indent = Self.maximumColumns
        for row in rows {
            guard let first = row.firstIndex(where: { $0 != nil }) else {
                lines.append([])
                continue
            }
            var last = row.lastIndex(where: { $0 != nil })!
            while last >= first, row[last]?.character == " " { last -= 1 }
            indent = min(indent, first)
            lines.append(last >= first ? Array(row[...last]) : [])
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        var firstRow = 0
        while lines.first?.isEmpty == true {
            lines.removeFirst()
            firstRow += 1
        }
        guard !lines.isEmpty else { return nil }

        var text = ""
        var current = Pen()
        for (n, line) in lines.enumerated() {
            if n > 0 { text += "\\N" }
            let start = justification == .left || justification == .full ? indent : line.firstIndex { $0 != nil } ?? 0
            for cell in line.dropFirst(start) {
                let pen = cell?.pen ?? current
                text += Self.tags(from: current, to: pen)
                current = pen
                text += Self.escaped(cell?.character ?? " ")
            }
        }
        let (x, y, alignment) = placement(
            row: firstRow, indent: justification == .left || justification == .full ? indent : 0)
        return "0,0,Default,,0,0,0,,{\\an\(alignment)\\pos(\(x),\(y))}" + text
    }

    /// The ASS override tags that change styling `from` to `to` (empty when they are the same).
    private static func tags(from: Pen, to: Pen) -> String {
        var tags = ""
        if from.italic != to.italic { tags += to.italic ? "\\i1" : "\\i0" }
        if from.underline != to.underline { tags += to.underline ? "\\u1" : "\\u0" }
        if from.colour != to.colour {
            func hex(_ v: UInt8) -> String { ["00", "55", "AA", "FF"][Int(v & 3)] }
            tags += "\\c&H\(hex(to.colour.blue))\(hex(to.colour.green))\(hex(to.colour.red))&"
        }
        return tags.isEmpty ? "" : "{\(tags)}"
    }

    /// `character` as ASS text: braces escaped, a backslash kept literal (as ``SubtitleRenderer/eventLine(for:)``
    /// escapes plain text).
    private static func escaped(_ character: Character) -> String {
        switch character {
        case "\\": return "\\\u{2060}"
        case "{": return "\\{"
        case "}": return "\\}"
        default: return String(character)
        }
    }

    /// Where the text goes: `\pos` coordinates (rounded to whole units of the play resolution) and the `\an`
    /// alignment (top left, top centre, top right) for the justification; `row` rows down from the box's top,
    /// `indent` columns in from its left.
    private func placement(row: Int, indent: Int) -> (x: Int, y: Int, alignment: Int) {
        // The box in percent of the safe title area.
        let vertical = Double(anchorVertical) / (relativePositioning ? 100 : Self.anchorRows) * 100
        let horizontal = Double(anchorHorizontal) / (relativePositioning ? 100 : Self.anchorColumns) * 100
        let height = min(100, Double(rowCount) / Self.gridRows * 100)
        let width = min(100, Double(columnCount) / Self.gridColumns * 100)
        var top = vertical - Double(anchorPoint / 3) * height / 2
        var left = horizontal - Double(anchorPoint % 3) * width / 2
        top = max(0, min(top, 100 - height))
        left = max(0, min(left, 100 - width))
        let y = top + min(Double(row) / Self.gridRows * 100, height)
        let x: Double
        let alignment: Int
        switch justification {
        case .left, .full:
            x = left + min(Double(indent) / Self.gridColumns * 100, width)
            alignment = 7
        case .centre:
            x = left + width / 2
            alignment = 8
        case .right:
            x = left + width
            alignment = 9
        }
        // Safe-area percent to the picture's, then to the play resolution.
        func picture(_ percent: Double, _ size: Double) -> Int {
            Int(((Self.safeAreaInset + percent * (100 - 2 * Self.safeAreaInset) / 100) * size / 100).rounded())
        }
        return (picture(x, Self.playResX), picture(y, Self.playResY), alignment)
    }
}
