import Foundation
import PlaybackEngine

/// Text styling for subtitles, as Apple's `AVTextStyleRule`: Core Media text-markup attributes
/// (`kCMTextMarkupAttribute_…` keys) and the text they apply to. Given to `AVPlayerItem.textStyleRules`.
///
/// Values follow Apple's types: colours four numbers (alpha, red, green, blue, 0…1), styles Bools, sizes
/// percentages; `NSNumber`s or Swift numbers both work.
///
/// Differs from Apple: a `textSelector` is kept but matches nothing here (see `AVPlayerItem.textStyleRules`).
///
/// Immutable: any thread.
open class AVTextStyleRule: NSObject, NSCopying, @unchecked Sendable {
    /// The text markup attributes of the rule, as Apple's `textMarkupAttributes`.
    public let textMarkupAttributes: [String: Any]
    /// The selector of the text the rule applies to (nil: all), as Apple's `textSelector`.
    public let textSelector: String?

    /// A rule for all text, as Apple's `init(textMarkupAttributes:)`.
    public convenience init?(textMarkupAttributes: [String: Any] = [:]) {
        self.init(textMarkupAttributes: textMarkupAttributes, textSelector: nil)
    }

    /// A rule for the text `textSelector` names (nil: all), as Apple's `init(textMarkupAttributes:textSelector:)`.
    public init?(textMarkupAttributes: [String: Any] = [:], textSelector: String?) {
        self.textMarkupAttributes = textMarkupAttributes
        self.textSelector = textSelector
        super.init()
    }

    /// The rule itself (it is immutable), as Apple's `copy(with:)`.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    /// `rules` as a property list (an array of dictionaries), as Apple's `propertyList(for:)`.
    open class func propertyList(for textStyleRules: [AVTextStyleRule]) -> Any {
        textStyleRules.map { rule -> [String: Any] in
            var entry: [String: Any] = ["textMarkupAttributes": rule.textMarkupAttributes]
            if let selector = rule.textSelector { entry["textSelector"] = selector }
            return entry
        }
    }

    /// The rules a property list made by ``propertyList(for:)`` describes, as Apple's
    /// `textStyleRules(fromPropertyList:)`; nil when it is not such a list.
    open class func textStyleRules(fromPropertyList plist: Any) -> [AVTextStyleRule]? {
        guard let entries = plist as? [Any] else { return nil }
        var rules: [AVTextStyleRule] = []
        for case let entry as [String: Any] in entries {
            guard let attributes = entry["textMarkupAttributes"] as? [String: Any],
                let rule = AVTextStyleRule(
                    textMarkupAttributes: attributes, textSelector: entry["textSelector"] as? String)
            else { return nil }
            rules.append(rule)
        }
        return rules.count == entries.count ? rules : nil
    }
}

extension SubtitleTextStyle {
    /// What `rules` without a selector say about drawing text, later rules over earlier ones.
    init(_ rules: [AVTextStyleRule]) {
        self.init()
        for rule in rules where rule.textSelector == nil {
            let a = rule.textMarkupAttributes
            if let c = a[kCMTextMarkupAttribute_ForegroundColorARGB] as? [Any] {
                let values = c.compactMap(Self.number)
                if values.count == 4 { foregroundColour = values }
            }
            if let v = a[kCMTextMarkupAttribute_BoldStyle].flatMap(Self.flag) { bold = v }
            if let v = a[kCMTextMarkupAttribute_ItalicStyle].flatMap(Self.flag) { italic = v }
            if let v = a[kCMTextMarkupAttribute_UnderlineStyle].flatMap(Self.flag) { underline = v }
            if let v = a[kCMTextMarkupAttribute_FontFamilyName] as? String, !v.isEmpty { fontFamily = v }
            if let v = a[kCMTextMarkupAttribute_BaseFontSizePercentageRelativeToVideoHeight].flatMap(Self.number) {
                fontSizePercentOfHeight = v
            }
            if let v = a[kCMTextMarkupAttribute_RelativeFontSize].flatMap(Self.number) { relativeFontSize = v }
        }
    }

    private static func number(_ value: Any) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case let v as Int: return Double(v)
        case let v as CGFloat: return Double(v)
        case let v as NSNumber: return v.doubleValue
        default: return nil
        }
    }

    private static func flag(_ value: Any) -> Bool? {
        if let v = value as? Bool { return v }
        return number(value).map { $0 != 0 }
    }
}
