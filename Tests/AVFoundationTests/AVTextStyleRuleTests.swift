import Foundation
import PlaybackEngine
import XCTest

@testable import AVFoundation

/// `AVTextStyleRule`: Apple's initializers and property-list pair, and what the rules say about drawing text.
final class AVTextStyleRuleTests: XCTestCase {
    func test_rule_keepsItsAttributesAndSelector_andRoundTripsThroughAPropertyList() throws {
        let all = try XCTUnwrap(
            AVTextStyleRule(textMarkupAttributes: [kCMTextMarkupAttribute_ItalicStyle: true]))
        XCTAssertNil(all.textSelector)
        XCTAssertEqual(all.textMarkupAttributes[kCMTextMarkupAttribute_ItalicStyle] as? Bool, true)
        let some = try XCTUnwrap(
            AVTextStyleRule(
                textMarkupAttributes: [kCMTextMarkupAttribute_RelativeFontSize: 120], textSelector: "speaker"))
        XCTAssertEqual(some.textSelector, "speaker")
        XCTAssertTrue(all.copy() as AnyObject === all, "immutable: a copy is the rule itself")

        let plist = AVTextStyleRule.propertyList(for: [all, some])
        let back = try XCTUnwrap(AVTextStyleRule.textStyleRules(fromPropertyList: plist))
        XCTAssertEqual(back.map(\.textSelector), [nil, "speaker"])
        XCTAssertEqual(back[0].textMarkupAttributes[kCMTextMarkupAttribute_ItalicStyle] as? Bool, true)
        XCTAssertEqual(back[1].textMarkupAttributes[kCMTextMarkupAttribute_RelativeFontSize] as? Int, 120)
        XCTAssertNil(AVTextStyleRule.textStyleRules(fromPropertyList: "not a list"))
        XCTAssertNil(AVTextStyleRule.textStyleRules(fromPropertyList: [["textSelector": "x"]]))
    }

    func test_rulesWithoutASelector_becomeTheStyleDrawn_laterOverEarlier() throws {
        let rules = [
            try XCTUnwrap(
                AVTextStyleRule(textMarkupAttributes: [
                    kCMTextMarkupAttribute_ForegroundColorARGB: [NSNumber(value: 1), 1, 0, 0],
                    kCMTextMarkupAttribute_BoldStyle: NSNumber(value: true),
                    kCMTextMarkupAttribute_BaseFontSizePercentageRelativeToVideoHeight: 8,
                ])),
            try XCTUnwrap(
                AVTextStyleRule(textMarkupAttributes: [
                    kCMTextMarkupAttribute_ItalicStyle: true, kCMTextMarkupAttribute_BoldStyle: false,
                    kCMTextMarkupAttribute_FontFamilyName: "DejaVu Serif",
                    kCMTextMarkupAttribute_RelativeFontSize: 150.0,
                ])),
            // A selector matches nothing here: ignored.
            try XCTUnwrap(
                AVTextStyleRule(
                    textMarkupAttributes: [kCMTextMarkupAttribute_UnderlineStyle: true], textSelector: "c.loud")),
        ]
        let style = SubtitleTextStyle(rules)
        XCTAssertEqual(style.foregroundColour, [1, 1, 0, 0])
        XCTAssertEqual(style.bold, false)
        XCTAssertEqual(style.italic, true)
        XCTAssertNil(style.underline)
        XCTAssertEqual(style.fontFamily, "DejaVu Serif")
        XCTAssertEqual(style.fontSizePercentOfHeight, 8)
        XCTAssertEqual(style.relativeFontSize, 150)
        XCTAssertTrue(SubtitleTextStyle([]).isEmpty)
    }
}
