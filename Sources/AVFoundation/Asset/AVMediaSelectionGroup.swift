import Foundation
import PlaybackEngine

/// A set of mutually exclusive media options, e.g. the audio languages or the subtitle tracks.
///
/// Built from the asset's tracks: an audible group when there are two or more audio tracks, a
/// legible group when there is any subtitle track (legible groups allow an empty selection, so
/// subtitles are off by default). Option names come from track titles, else language names.
open class AVMediaSelectionGroup: NSObject, NSCopying, @unchecked Sendable {
    /// The group's options, in track order.
    public let options: [AVMediaSelectionOption]
    /// The option selected when the app has chosen none (the default track), if any.
    public let defaultOption: AVMediaSelectionOption?
    /// Whether the group can have no option selected (subtitles off).
    public let allowsEmptySelection: Bool
    /// The characteristic the group is for (`.audible`, `.legible`).
    let characteristic: AVMediaCharacteristic

    init(characteristic: AVMediaCharacteristic, options: [AVMediaSelectionOption], allowsEmptySelection: Bool) {
        self.characteristic = characteristic
        self.options = options
        self.allowsEmptySelection = allowsEmptySelection
        if allowsEmptySelection {
            // Subtitles: on by default only when the container says so.
            defaultOption = options.first { $0.isDefault }
        } else {
            defaultOption = options.first { $0.isDefault } ?? options.first
        }
        super.init()
        for o in options { o.group = self }
    }

    /// Returns the object itself: it is immutable, so it is its own copy.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// The option a property list (from ``AVMediaSelectionOption/propertyList()``) stands for.
    open func mediaSelectionOption(withPropertyList plist: Any) -> AVMediaSelectionOption? {
        guard let dict = plist as? [String: Any], let id = dict["AVMediaSelectionOptionTrackID"] as? Int else {
            return nil
        }
        return options.first { Int($0.trackID) == id }
    }

    /// The options that are playable.
    open class func playableMediaSelectionOptions(
        from mediaSelectionOptions: [AVMediaSelectionOption]
    )
        -> [AVMediaSelectionOption]
    {
        mediaSelectionOptions.filter(\.isPlayable)
    }

    /// Options whose language matches `preferredLanguages` (BCP 47), most preferred first.
    open class func mediaSelectionOptions(
        from mediaSelectionOptions: [AVMediaSelectionOption],
        filteredAndSortedAccordingToPreferredLanguages preferredLanguages: [String]
    ) -> [AVMediaSelectionOption] {
        var result: [AVMediaSelectionOption] = []
        for language in preferredLanguages {
            let wanted = LanguageCode.bcp47(fromISO639: LanguageCode.iso639_2T(language))
            for o in mediaSelectionOptions where !result.contains(o) && o.extendedLanguageTag == wanted {
                result.append(o)
            }
        }
        return result
    }

    /// The options whose language is one of the preferred languages (BCP 47), most preferred first.
    open class func mediaSelectionOptions(
        from mediaSelectionOptions: [AVMediaSelectionOption], with locale: Locale
    )
        -> [AVMediaSelectionOption]
    {
        let code = locale.identifier.split(whereSeparator: { $0 == "_" || $0 == "-" }).first.map(String.init)
        return mediaSelectionOptions.filter {
            $0.extendedLanguageTag == LanguageCode.bcp47(fromISO639: LanguageCode.iso639_2T(code))
        }
    }

    /// The options in a locale's language.
    open class func mediaSelectionOptions(
        from mediaSelectionOptions: [AVMediaSelectionOption],
        withMediaCharacteristics mediaCharacteristics: [AVMediaCharacteristic]
    ) -> [AVMediaSelectionOption] {
        mediaSelectionOptions.filter { o in mediaCharacteristics.allSatisfy { o.hasMediaCharacteristic($0) } }
    }

    /// The options that have, or lack, media characteristics.
    open class func mediaSelectionOptions(
        from mediaSelectionOptions: [AVMediaSelectionOption],
        withoutMediaCharacteristics mediaCharacteristics: [AVMediaCharacteristic]
    ) -> [AVMediaSelectionOption] {
        mediaSelectionOptions.filter { o in !mediaCharacteristics.contains { o.hasMediaCharacteristic($0) } }
    }

    /// The groups an asset with these tracks offers.
    static func groups(for tracks: [AVAssetTrack]) -> [AVMediaSelectionGroup] {
        var groups: [AVMediaSelectionGroup] = []
        let audio = tracks.filter { $0.mediaType == .audio }
        if audio.count >= 2 {
            groups.append(
                AVMediaSelectionGroup(
                    characteristic: .audible, options: audio.map(AVMediaSelectionOption.init(track:)),
                    allowsEmptySelection: false))
        }
        let legible = tracks.filter {
            $0.mediaType == .subtitle || $0.mediaType == .text || $0.mediaType == .closedCaption
        }
        if !legible.isEmpty {
            groups.append(
                AVMediaSelectionGroup(
                    characteristic: .legible, options: legible.map(AVMediaSelectionOption.init(track:)),
                    allowsEmptySelection: true))
        }
        return groups
    }

    /// A description for debugging.
    open override var description: String {
        "<AVMediaSelectionGroup \(characteristic.rawValue) options=\(options.map(\.displayName))>"
    }
}

/// One choice in a media selection group (an audio language, a subtitle track).
open class AVMediaSelectionOption: NSObject, NSCopying, @unchecked Sendable {
    /// The option's media type.
    public let mediaType: AVMediaType
    /// Codec four-character codes of the option's track.
    public let mediaSubTypes: [NSNumber]
    /// Whether the option's track can be played.
    public let isPlayable: Bool
    /// BCP 47 tag ("en", "fr"); nil when the track's language is undetermined.
    public let extendedLanguageTag: String?
    /// The track behind the option (not Apple's API; the engine selects streams by it).
    let trackID: CMPersistentTrackID
    let streamIndex: Int
    let isDefault: Bool
    /// A closed-caption option's service (a CEA-608 channel or a CEA-708 service; nil: none the engine knows).
    let closedCaptionService: ClosedCaptionService?
    /// Whether automatic media selection may choose the option (HLS `AUTOSELECT`).
    let isAutoselectable: Bool
    private let title: String?
    private let characteristics: [AVMediaCharacteristic]
    weak var group: AVMediaSelectionGroup?

    init(track: AVAssetTrack) {
        let info = track.info
        mediaType = track.mediaType
        mediaSubTypes = [NSNumber(value: info.formatDescription.mediaSubType.rawValue)]
        isPlayable = info.isPlayable
        extendedLanguageTag = info.extendedLanguageTag
        trackID = info.trackID
        streamIndex = info.streamIndex
        isDefault = info.isDefault
        closedCaptionService = info.closedCaptionService
        isAutoselectable = info.isAutoselectable
        title = info.title
        characteristics = info.mediaCharacteristics
        super.init()
    }

    /// Returns the object itself: it is immutable, so it is its own copy.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// The language as a locale, nil when undetermined.
    public var locale: Locale? { extendedLanguageTag.map { Locale(identifier: $0) } }

    /// The track's title when it has one ("Français"), else the language's English name
    /// ("French"), else "Unknown language" / "Track N".
    public var displayName: String {
        if let title, !title.isEmpty { return title }
        if let name = LanguageCode.displayName(bcp47: extendedLanguageTag) { return name }
        return extendedLanguageTag == nil ? "Track \(trackID)" : "Unknown language"
    }

    /// The display name in `locale`'s language (titles are returned as stored).
    public func displayName(with locale: Locale) -> String {
        if let title, !title.isEmpty { return title }
        if let tag = extendedLanguageTag, let name = locale.localizedString(forLanguageCode: tag) { return name }
        return displayName
    }

    /// The option's metadata items that have a common key (its title).
    public var commonMetadata: [AVMetadataItem] {
        var items: [AVMetadataItem] = []
        if let title {
            items.append(AVMetadataItem(keySpace: .common, key: "title", value: title, commonKey: .commonKeyTitle))
        }
        return items
    }

    /// The metadata formats of the option: always empty.
    public var availableMetadataFormats: [String] { [] }

    /// The option's metadata in a format: always empty.
    public func metadata(forFormat format: String) -> [AVMetadataItem] { [] }

    /// Whether the option has a media characteristic.
    public func hasMediaCharacteristic(_ mediaCharacteristic: AVMediaCharacteristic) -> Bool {
        characteristics.contains(mediaCharacteristic)
    }

    /// The option of `mediaSelectionGroup` associated with this one: an audible option's is the forced-only legible
    /// option (``AVMediaCharacteristic/containsOnlyForcedSubtitles``) of the same language, and a forced-only legible
    /// option's is the audible option of its language (Apple: "audible options are typically associated with
    /// forced-only subtitle options with the same locale"); nil for other options, or when none matches. Languages
    /// match by their primary subtag (`en-US` and `en`).
    public func associatedMediaSelectionOption(in mediaSelectionGroup: AVMediaSelectionGroup) -> AVMediaSelectionOption?
    {
        guard let language = primaryLanguage else { return nil }
        if mediaType == .audio {
            return mediaSelectionGroup.options.first {
                $0 !== self && $0.hasMediaCharacteristic(.containsOnlyForcedSubtitles) && $0.primaryLanguage == language
            }
        }
        guard hasMediaCharacteristic(.containsOnlyForcedSubtitles) else { return nil }
        return mediaSelectionGroup.options.first { $0.mediaType == .audio && $0.primaryLanguage == language }
    }

    /// The language tag's primary subtag, lowercased; nil without a language or for `und`.
    var primaryLanguage: String? {
        guard let tag = extendedLanguageTag?.split(separator: "-").first?.lowercased(), tag != "und" else {
            return nil
        }
        return tag
    }

    /// A serializable stand-in for the option, for ``AVMediaSelectionGroup/mediaSelectionOption(withPropertyList:)``.
    public func propertyList() -> Any {
        ["AVMediaSelectionOptionTrackID": Int(trackID)] as [String: Any]
    }

    /// A description for debugging.
    open override var description: String {
        "<AVMediaSelectionOption \(mediaType.rawValue) \(displayName) lang=\(extendedLanguageTag ?? "und")>"
    }
}

/// A choice of option per group of an asset.
open class AVMediaSelection: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    /// The asset the selection belongs to (weak).
    public private(set) weak var asset: AVAsset?
    let groups: [AVMediaSelectionGroup]
    /// Explicit choices by group; a group absent here uses its automatic choice.
    var selections: [ObjectIdentifier: AVMediaSelectionOption?]
    /// Choices a player's selection criteria made (automatic selection); a group absent here uses its default.
    var automatic: [ObjectIdentifier: AVMediaSelectionOption] = [:]

    init(
        asset: AVAsset?, groups: [AVMediaSelectionGroup], selections: [ObjectIdentifier: AVMediaSelectionOption?],
        automatic: [ObjectIdentifier: AVMediaSelectionOption] = [:]
    ) {
        self.asset = asset
        self.groups = groups
        self.selections = selections
        self.automatic = automatic
        super.init()
    }

    /// Returns an immutable copy.
    public func copy(with zone: NSZone? = nil) -> Any {
        AVMediaSelection(asset: asset, groups: groups, selections: selections, automatic: automatic)
    }

    /// Returns a mutable copy.
    public func mutableCopy(with zone: NSZone? = nil) -> Any {
        AVMutableMediaSelection(asset: asset, groups: groups, selections: selections, automatic: automatic)
    }

    /// The selected option in `group`, or nil for an empty selection.
    open func selectedMediaOption(in mediaSelectionGroup: AVMediaSelectionGroup) -> AVMediaSelectionOption? {
        if let explicit = selections[ObjectIdentifier(mediaSelectionGroup)] { return explicit }
        return automatic[ObjectIdentifier(mediaSelectionGroup)] ?? mediaSelectionGroup.defaultOption
    }

    /// True until an option of the group is selected explicitly.
    open func mediaSelectionCriteriaCanBeAppliedAutomatically(to mediaSelectionGroup: AVMediaSelectionGroup) -> Bool {
        selections[ObjectIdentifier(mediaSelectionGroup)] == nil
    }
}

/// A media selection that can be changed.
open class AVMutableMediaSelection: AVMediaSelection, @unchecked Sendable {
    /// Selects `option` (nil for none, where the group allows it) in `group`.
    open func select(_ mediaSelectionOption: AVMediaSelectionOption?, in mediaSelectionGroup: AVMediaSelectionGroup) {
        if let o = mediaSelectionOption, !mediaSelectionGroup.options.contains(o) { return }
        if mediaSelectionOption == nil && !mediaSelectionGroup.allowsEmptySelection { return }
        selections[ObjectIdentifier(mediaSelectionGroup)] = .some(mediaSelectionOption)
    }
}
