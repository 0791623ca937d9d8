// Core Media's text-markup attributes (CMTextMarkup.h): the keys of the attributed strings legible outputs
// deliver and of `AVTextStyleRule.textMarkupAttributes`.
//
// Differs from Apple: the constants are `String`s (Apple's are `CFString`s, which Linux Swift does not bridge);
// `NSAttributedString.Key(kCMTextMarkupAttribute_BoldStyle as String)` compiles on both. Values follow Apple's
// types as Foundation bridges them: colours an array of four `NSNumber`s (alpha, red, green, blue, 0…1, sRGB),
// styles an `NSNumber` holding a Bool, percentages an `NSNumber`, alignment one of the `kCMTextMarkupAlignmentType_`
// strings.

/// The text colour: four `NSNumber`s, alpha, red, green, blue (0…1).
public let kCMTextMarkupAttribute_ForegroundColorARGB = "ForegroundColorARGB"
/// The colour of the box around the text: four `NSNumber`s, alpha, red, green, blue (0…1).
public let kCMTextMarkupAttribute_BackgroundColorARGB = "BackgroundColorARGB"
/// The colour behind each character: four `NSNumber`s, alpha, red, green, blue (0…1).
public let kCMTextMarkupAttribute_CharacterBackgroundColorARGB = "CharacterBackgroundColorARGB"
/// Bold: an `NSNumber` holding a Bool.
public let kCMTextMarkupAttribute_BoldStyle = "BoldStyle"
/// Italic: an `NSNumber` holding a Bool.
public let kCMTextMarkupAttribute_ItalicStyle = "ItalicStyle"
/// Underlined: an `NSNumber` holding a Bool.
public let kCMTextMarkupAttribute_UnderlineStyle = "UnderlineStyle"
/// The font family's name.
public let kCMTextMarkupAttribute_FontFamilyName = "FontFamilyName"
/// The font size as a percentage of the video's height: an `NSNumber`.
public let kCMTextMarkupAttribute_BaseFontSizePercentageRelativeToVideoHeight =
    "BaseFontSizePercentageRelativeToVideoHeight"
/// The font size relative to the base size, in percent: an `NSNumber`.
public let kCMTextMarkupAttribute_RelativeFontSize = "RelativeFontSize"
/// Where the text is aligned in its line: a `kCMTextMarkupAlignmentType_` value.
public let kCMTextMarkupAttribute_Alignment = "Alignment"
/// Where the text's line sits across the writing direction (vertically, for horizontal text), as a percentage
/// of the video's height from the top: an `NSNumber`.
public let kCMTextMarkupAttribute_OrthogonalLinePositionPercentageRelativeToWritingDirection =
    "OrthogonalLinePositionPercentageRelativeToWritingDirection"
/// Where the text sits along the writing direction (horizontally), as a percentage of the video's width from the
/// left: an `NSNumber`.
public let kCMTextMarkupAttribute_TextPositionPercentageRelativeToWritingDirection =
    "TextPositionPercentageRelativeToWritingDirection"
/// The width of the text's box along the writing direction, as a percentage of the video's width: an `NSNumber`.
public let kCMTextMarkupAttribute_WritingDirectionSizePercentage = "WritingDirectionSizePercentage"

/// Alignment at the start of the line (left for left-to-right text).
public let kCMTextMarkupAlignmentType_Start = "start"
/// Centred.
public let kCMTextMarkupAlignmentType_Middle = "middle"
/// Alignment at the end of the line.
public let kCMTextMarkupAlignmentType_End = "end"
/// Left.
public let kCMTextMarkupAlignmentType_Left = "left"
/// Right.
public let kCMTextMarkupAlignmentType_Right = "right"
