/// Styling laid over every text subtitle drawn in a window (the public layer's `AVPlayerItem.textStyleRules`, as
/// far as they are known here): each set field replaces that property in every style of the script (the
/// `[V4+ Styles]` lines), so the cue's own override tags (`{\i1}` from SubRip's `<i>`, a `\c` colour) still apply
/// to their runs, as inline styling does over a style sheet.
///
/// A value type: any thread.
package struct SubtitleTextStyle: Sendable, Equatable {
    /// The text colour: alpha, red, green, blue (0…1).
    package var foregroundColour: [Double]?
    /// Bold or not.
    package var bold: Bool?
    /// Italic or not.
    package var italic: Bool?
    /// Underlined or not.
    package var underline: Bool?
    /// The font family.
    package var fontFamily: String?
    /// The font size as a percentage of the video's height.
    package var fontSizePercentOfHeight: Double?
    /// The font size as a percentage of the size otherwise used (100: unchanged).
    package var relativeFontSize: Double?

    /// No styling laid over the script's.
    package init() {}

    /// Whether nothing is set.
    package var isEmpty: Bool { self == SubtitleTextStyle() }
}

/// The subtitles a window draws: the cues of one stream and the styling laid over them.
package struct SubtitleSelection: Sendable {
    /// The cues (nil: none are drawn).
    package var cues: SubtitleCueStore?
    package var style: SubtitleTextStyle

    package init(cues: SubtitleCueStore?, style: SubtitleTextStyle = SubtitleTextStyle()) {
        self.cues = cues
        self.style = style
    }
}
