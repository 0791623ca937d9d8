import Foundation
import PlaybackEngine

// Cues as attributed strings with Core Media's text-markup attributes.
extension AVPlayerItemLegibleOutput {
    /// `cue`'s text with its styling; nil for a cue without text (a picture).
    ///
    /// Per run of text: `kCMTextMarkupAttribute_ForegroundColorARGB` where the source gives a colour (an ASS
    /// style's or a `\c` tag), and `BoldStyle`, `ItalicStyle`, `UnderlineStyle` (true) where set. For the whole
    /// string, when the source places the text (an ASS style aligned elsewhere than bottom centre, `\an`, `\pos`):
    /// `Alignment` (left, middle, right), `OrthogonalLinePositionPercentageRelativeToWritingDirection` (the line's
    /// distance from the top, percent of the height) and, for `\pos`, `TextPositionPercentageRelativeToWritingDirection`
    /// (percent of the width from the left). Then the attributes of each text style rule without a selector.
    static func attributedString(
        for cue: SubtitleCue, script: ASSScript, rules: [AVTextStyleRule]
    )
        -> NSAttributedString?
    {
        let events: [ASSEvent] = cue.regions.compactMap { region in
            switch region {
            case .ass(let line): return ASSEvent(line: line, script: script)
            case .text(let text):
                return ASSEvent(line: text.replacingOccurrences(of: "\n", with: "\\N"), script: ASSScript())
            case .bitmap: return nil
            }
        }
        guard !events.isEmpty else { return nil }
        let result = NSMutableAttributedString(string: "")
        for (i, event) in events.enumerated() {
            if i > 0 { result.append(NSAttributedString(string: "\n")) }
            for run in event.runs {
                result.append(NSAttributedString(string: run.text, attributes: attributes(of: run.style)))
            }
        }
        let whole = NSRange(location: 0, length: result.length)
        if let event = events.first {
            result.addAttributes(placement(of: event, script: script), range: whole)
        }
        for rule in rules where rule.textSelector == nil {
            var extra: [NSAttributedString.Key: Any] = [:]
            for (key, value) in rule.textMarkupAttributes { extra[NSAttributedString.Key(key)] = value }
            result.addAttributes(extra, range: whole)
        }
        return result
    }

    private static func attributes(of style: ASSEvent.RunStyle) -> [NSAttributedString.Key: Any] {
        var a: [NSAttributedString.Key: Any] = [:]
        if let c = style.colour {
            a[NSAttributedString.Key(kCMTextMarkupAttribute_ForegroundColorARGB)] = c.map { NSNumber(value: $0) }
        }
        if style.bold { a[NSAttributedString.Key(kCMTextMarkupAttribute_BoldStyle)] = NSNumber(value: true) }
        if style.italic { a[NSAttributedString.Key(kCMTextMarkupAttribute_ItalicStyle)] = NSNumber(value: true) }
        if style.underline {
            a[NSAttributedString.Key(kCMTextMarkupAttribute_UnderlineStyle)] = NSNumber(value: true)
        }
        return a
    }

    /// Alignment and position for the whole string, when the source places the text.
    private static func placement(of event: ASSEvent, script: ASSScript) -> [NSAttributedString.Key: Any] {
        guard event.overridesAlignment || event.alignment != 2 || event.position != nil else { return [:] }
        let style = script.styles[event.styleName] ?? script.styles["Default"] ?? ASSScript.Style()
        var a: [NSAttributedString.Key: Any] = [:]
        let column = (event.alignment - 1) % 3
        a[NSAttributedString.Key(kCMTextMarkupAttribute_Alignment)] =
            [kCMTextMarkupAlignmentType_Left, kCMTextMarkupAlignmentType_Middle, kCMTextMarkupAlignmentType_Right][
                column]
        let line: Double
        if let p = event.position {
            line = p.y / script.playResY * 100
            a[NSAttributedString.Key(kCMTextMarkupAttribute_TextPositionPercentageRelativeToWritingDirection)] =
                NSNumber(value: p.x / script.playResX * 100)
        } else {
            switch (event.alignment - 1) / 3 {
            case 2: line = style.marginVertical / script.playResY * 100
            case 1: line = 50
            default: line = (script.playResY - style.marginVertical) / script.playResY * 100
            }
        }
        a[NSAttributedString.Key(kCMTextMarkupAttribute_OrthogonalLinePositionPercentageRelativeToWritingDirection)] =
            NSNumber(value: line)
        return a
    }
}
