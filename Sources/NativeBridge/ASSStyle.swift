/// The fields of a libass style (`ASS_Style`) that can be changed through ``ASSTrack/updateStyle(at:_:)``.
///
/// A copy, not the C struct: a value type, any thread.
package struct ASSStyle: Sendable, Equatable {
    /// `FontName`: the font family.
    package var fontName: String
    /// `FontSize`, in script pixels (of `PlayResY`).
    package var fontSize: Double
    /// `PrimaryColour`: red, green, blue, then the alpha byte as transparency (0 opaque), most significant first.
    package var primaryColour: UInt32
    /// `Bold`: 0 or 1 (scripts may also give -1 or a weight).
    package var bold: Int
    /// `Italic`: 0 or 1.
    package var italic: Int
    /// `Underline`: 0 or 1.
    package var underline: Int

    /// A style with these fields.
    package init(fontName: String, fontSize: Double, primaryColour: UInt32, bold: Int, italic: Int, underline: Int) {
        self.fontName = fontName
        self.fontSize = fontSize
        self.primaryColour = primaryColour
        self.bold = bold
        self.italic = italic
        self.underline = underline
    }
}
