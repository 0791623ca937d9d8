import Foundation

/// One of the eight windows of a CEA-708 service (CEA-708-E §8.4): where it is (`DefineWindow`), how its text is
/// justified (`SetWindowAttributes`), the pen that writes into it and the text written, cell by cell.
///
/// What is kept of the pen is what a cue can carry: italic and underline (`SetPenAttributes`) and the foreground
/// colour (`SetPenColor`). Fill, border, opacity, edge, font, size, print and scroll direction, word wrap and
/// display effects are read and dropped.
struct CEA708Window: Sendable, Equatable {
    /// The pen's styling of one character.
    struct Pen: Sendable, Equatable {
        var italic = false
        var underline = false
        /// Red, green, blue, each 0…3 (CEA-708's two bits per component).
        var colour: (red: UInt8, green: UInt8, blue: UInt8) = (3, 3, 3)

        static func == (a: Pen, b: Pen) -> Bool {
            a.italic == b.italic && a.underline == b.underline && a.colour.red == b.colour.red
                && a.colour.green == b.colour.green && a.colour.blue == b.colour.blue
        }
    }

    /// One written character and the pen it was written with.
    struct Cell: Sendable, Equatable {
        var character: Character
        var pen: Pen
    }

    /// How rows are justified in the window (`SetWindowAttributes`).
    enum Justification: Sendable, Equatable {
        case left, right, centre, full
    }

    /// The most rows a window has (4-bit row count and pen row).
    static let maximumRows = 16
    /// The most columns a window has (6-bit column count and pen column).
    static let maximumColumns = 64

    var isVisible = false
    /// Which point of the window the anchor is (0…8: top left, top centre, …, bottom right).
    var anchorPoint = 0
    /// Whether ``anchorVertical`` and ``anchorHorizontal`` are percentages (0…99) of the safe title area, rather
    /// than the grid's coordinates (0…74 vertically, 0…209 horizontally for 16:9).
    var relativePositioning = false
    var anchorVertical = 0
    var anchorHorizontal = 0
    /// Rows and columns (1…16, 1…64).
    var rowCount = 1
    var columnCount = 32
    var justification = Justification.left
    /// The pen's current styling.
    var pen = Pen()
    /// The pen's position.
    var penRow = 0
    var penColumn = 0
    /// The text: ``maximumRows`` rows of ``maximumColumns`` cells (nil: nothing written there).
    var rows: [[Cell?]] = Self.emptyRows

    private static let emptyRows = [[Cell?]](
        repeating: [Cell?](repeating: nil, count: maximumColumns), count: maximumRows)

    /// Applies `DefineWindow`'s six parameter bytes; `isNew` when the command creates the window (style IDs 0 then
    /// mean style 1; on an existing window they mean "unchanged").
    mutating func define(_ p: ArraySlice<UInt8>, isNew: Bool) {
        let b = Array(p)
        guard b.count == 6 else { return }
        isVisible = b[0] & 0x20 != 0
        relativePositioning = b[1] & 0x80 != 0
        anchorVertical = Int(b[1] & 0x7F)
        anchorHorizontal = Int(b[2])
        let point = Int(b[3] >> 4)
        anchorPoint = point <= 8 ? point : 0
        rowCount = Int(b[3] & 0x0F) + 1
        columnCount = Int(b[4] & 0x3F) + 1
        let windowStyle = Int((b[5] >> 3) & 0x07)
        let penStyle = Int(b[5] & 0x07)
        if windowStyle != 0 || isNew {
            // Predefined window styles 3 and 6 are centred (CEA-708-E Table 26); the others left-justified.
            justification = windowStyle == 3 || windowStyle == 6 ? .centre : .left
        }
        if penStyle != 0 || isNew {
            // Every predefined pen style writes white, upright, not underlined (Table 27).
            pen = Pen()
        }
        penRow = min(penRow, rowCount - 1)
    }

    /// Applies `SetWindowAttributes`' four parameter bytes (only the justification is kept).
    mutating func setAttributes(_ p: ArraySlice<UInt8>) {
        let b = Array(p)
        guard b.count == 4 else { return }
        justification = [.left, .right, .centre, .full][Int(b[2] & 0x03)]
    }

    /// Applies `SetPenAttributes`' two parameter bytes (italic, underline).
    mutating func setPenAttributes(_ p: ArraySlice<UInt8>) {
        let b = Array(p)
        guard b.count == 2 else { return }
        pen.italic = b[1] & 0x80 != 0
        pen.underline = b[1] & 0x40 != 0
    }

    /// Applies `SetPenColor`'s three parameter bytes (the foreground colour).
    mutating func setPenColour(_ p: ArraySlice<UInt8>) {
        let b = Array(p)
        guard b.count == 3 else { return }
        pen.colour = ((b[0] >> 4) & 0x03, (b[0] >> 2) & 0x03, b[0] & 0x03)
    }

    /// Applies `SetPenLocation`'s two parameter bytes.
    mutating func setPenLocation(_ p: ArraySlice<UInt8>) {
        let b = Array(p)
        guard b.count == 2 else { return }
        penRow = min(Int(b[0] & 0x0F), Self.maximumRows - 1)
        penColumn = min(Int(b[1] & 0x3F), Self.maximumColumns - 1)
    }

    /// Writes `character` at the pen and moves the pen one column on (characters past the last column are dropped).
    mutating func write(_ character: Character) {
        guard penColumn < Self.maximumColumns else { return }
        rows[penRow][penColumn] = Cell(character: character, pen: pen)
        penColumn += 1
    }

    /// Backspace: moves the pen back one column and erases what is there.
    mutating func backspace() {
        guard penColumn > 0 else { return }
        penColumn -= 1
        rows[penRow][penColumn] = nil
    }

    /// Carriage return: the pen to the start of the next row, scrolling the rows up one when it is on the last.
    mutating func carriageReturn() {
        penColumn = 0
        if penRow + 1 < rowCount {
            penRow += 1
            return
        }
        rows.removeFirst()
        rows.insert([Cell?](repeating: nil, count: Self.maximumColumns), at: min(penRow, Self.maximumRows - 1))
    }

    /// Horizontal carriage return: erases the pen's row and moves the pen to its start.
    mutating func horizontalCarriageReturn() {
        rows[penRow] = [Cell?](repeating: nil, count: Self.maximumColumns)
        penColumn = 0
    }

    /// Erases the text (`ClearWindows`); the pen stays where it is.
    mutating func clear() {
        rows = Self.emptyRows
    }

    /// Form feed: erases the text and moves the pen to the top left.
    mutating func formFeed() {
        clear()
        penRow = 0
        penColumn = 0
    }
}
