import CoreMedia
import Foundation
import PlaybackEngine

/// A collection of metadata items (Apple's `AVMetadataGroup`): the base of timed and date-range groups.
open class AVMetadataGroup: NSObject, @unchecked Sendable {
    /// The group's items.
    open var items: [AVMetadataItem] { storedItems }
    /// A label classifying the group, if any.
    open var classifyingLabel: String? { nil }
    /// An identifier unique within its asset, if any.
    open var uniqueID: String? { nil }

    let storedItems: [AVMetadataItem]

    init(items: [AVMetadataItem]) {
        storedItems = items
    }
}

/// Metadata items that apply over a time range (Apple's `AVTimedMetadataGroup`): a chapter's title, or timed
/// metadata.
open class AVTimedMetadataGroup: AVMetadataGroup, @unchecked Sendable {
    /// The range of item time the items apply to.
    open var timeRange: CMTimeRange { storedTimeRange }

    private let storedTimeRange: CMTimeRange

    /// A group of `items` applying over `timeRange`.
    public init(items: [AVMetadataItem], timeRange: CMTimeRange) {
        storedTimeRange = timeRange
        super.init(items: items)
    }
}

/// Tracks of an asset that are alternatives to each other (Apple's `AVAssetTrackGroup`): here the audio tracks of
/// an asset with two or more, and likewise its subtitle tracks — the tracks a media-selection group chooses among.
open class AVAssetTrackGroup: NSObject, NSCopying, @unchecked Sendable {
    /// The IDs of the group's tracks.
    public let trackIDs: [NSNumber]

    init(trackIDs: [NSNumber]) {
        self.trackIDs = trackIDs
    }

    /// The group itself (it is immutable).
    public func copy(with zone: NSZone? = nil) -> Any { self }
}

extension AVAsset {
    /// A chapter's language tag: its `language` tag (ISO 639-2, as containers write it), `und` without one.
    static func chapterLanguage(_ chapter: ChapterDescription) -> String {
        chapter.metadata["language"].flatMap { $0.isEmpty ? nil : $0 } ?? "und"
    }

    /// Whether a chapter's title language suits `locale`: the same language, or a title of undetermined language
    /// (most containers give chapters none), which suits any locale.
    private static func chapter(_ chapter: ChapterDescription, suits locale: Locale) -> Bool {
        let tag = chapterLanguage(chapter)
        if tag == "und" { return true }
        let wanted = locale.language.languageCode
        let have = Locale(identifier: tag).language.languageCode
        return wanted == nil || have == wanted
    }

    /// The chapters as timed metadata groups: each chapter's title (`commonIdentifierTitle`, with the chapter's
    /// language) over the chapter's time range.
    private func chapterGroups(
        where suits: (ChapterDescription) -> Bool, commonKeys: [AVMetadataKey]?
    )
        -> [AVTimedMetadataGroup]
    {
        guard let chapters = (try? description())?.chapters else { return [] }
        let wantsTitle = commonKeys.map { $0.isEmpty || $0.contains(.commonKeyTitle) } ?? true
        return chapters.filter(suits).map { chapter in
            let range = CMTimeRange(start: chapter.start, end: max(chapter.start, chapter.end))
            var items: [AVMetadataItem] = []
            if wantsTitle, let title = chapter.metadata["title"] {
                let item = AVMutableMetadataItem()
                item.identifier = .commonIdentifierTitle
                item.value = NSString(string: title)
                item.dataType = "com.apple.metadata.datatype.UTF-8"
                item.extendedLanguageTag = Self.chapterLanguage(chapter) == "und" ? nil : Self.chapterLanguage(chapter)
                item.time = range.start
                item.duration = range.duration
                items.append(item.copy() as? AVMetadataItem ?? item)
            }
            return AVTimedMetadataGroup(items: items, timeRange: range)
        }
    }

    /// The chapters whose titles are in `locale`'s language (or of undetermined language), each a group with the
    /// items of `commonKeys` (nil or empty: every item; the title is what containers give). Blocks until loaded.
    @available(
        iOS, deprecated: 16.0,
        message: "Use loadChapterMetadataGroups(withTitleLocale:containingItemsWithCommonKeys:) instead"
    )
    public func chapterMetadataGroups(
        withTitleLocale locale: Locale, containingItemsWithCommonKeys commonKeys: [AVMetadataKey]?
    ) -> [AVTimedMetadataGroup] {
        chapterGroups(where: { Self.chapter($0, suits: locale) }, commonKeys: commonKeys)
    }

    /// The chapters whose titles best match `preferredLanguages` (the first language any title is in; titles of
    /// undetermined language match every language). Blocks until loaded.
    @available(iOS, deprecated: 16.0, message: "Use loadChapterMetadataGroups(bestMatchingPreferredLanguages:) instead")
    public func chapterMetadataGroups(
        bestMatchingPreferredLanguages preferredLanguages: [String]
    ) -> [AVTimedMetadataGroup] {
        let chapters = (try? description())?.chapters ?? []
        for language in preferredLanguages {
            let locale = Locale(identifier: language)
            if chapters.contains(where: { Self.chapterLanguage($0) != "und" && Self.chapter($0, suits: locale) }) {
                return chapterGroups(where: { Self.chapter($0, suits: locale) }, commonKeys: nil)
            }
        }
        return chapterGroups(where: { Self.chapterLanguage($0) == "und" }, commonKeys: nil)
    }

    /// Loads the chapters and returns those whose titles are in `locale`'s language (see
    /// ``chapterMetadataGroups(withTitleLocale:containingItemsWithCommonKeys:)``).
    public func loadChapterMetadataGroups(
        withTitleLocale locale: Locale, containingItemsWithCommonKeys commonKeys: [AVMetadataKey] = []
    ) async throws -> [AVTimedMetadataGroup] {
        try await awaitValues(forKeys: ["availableChapterLocales"])
        return chapterGroups(where: { Self.chapter($0, suits: locale) }, commonKeys: commonKeys)
    }

    /// Loads the chapters and calls the handler with those whose titles are in `locale`'s language, or the error.
    public func loadChapterMetadataGroups(
        withTitleLocale locale: Locale, containingItemsWithCommonKeys commonKeys: [AVMetadataKey],
        completionHandler: @escaping @Sendable ([AVTimedMetadataGroup]?, (any Error)?) -> Void
    ) {
        loader.request { [self] r in
            switch r {
            case .success:
                completionHandler(
                    chapterGroups(where: { Self.chapter($0, suits: locale) }, commonKeys: commonKeys), nil)
            case .failure(let e): completionHandler(nil, e)
            }
        }
    }

    /// Loads the chapters and returns those best matching `preferredLanguages` (see
    /// ``chapterMetadataGroups(bestMatchingPreferredLanguages:)``).
    public func loadChapterMetadataGroups(
        bestMatchingPreferredLanguages preferredLanguages: [String]
    ) async throws
        -> [AVTimedMetadataGroup]
    {
        try await awaitValues(forKeys: ["availableChapterLocales"])
        return chapterMetadataGroups(bestMatchingPreferredLanguages: preferredLanguages)
    }

    /// Loads the chapters and calls the handler with those best matching `preferredLanguages`, or the error.
    public func loadChapterMetadataGroups(
        bestMatchingPreferredLanguages preferredLanguages: [String],
        completionHandler: @escaping @Sendable ([AVTimedMetadataGroup]?, (any Error)?) -> Void
    ) {
        loader.request { [self] r in
            switch r {
            case .success:
                completionHandler(chapterMetadataGroups(bestMatchingPreferredLanguages: preferredLanguages), nil)
            case .failure(let e): completionHandler(nil, e)
            }
        }
    }

    /// The groups of alternative tracks: the audio tracks when there are two or more, and likewise the subtitle
    /// tracks. Blocks until loaded.
    @available(iOS, deprecated: 16.0, message: "Use load(.trackGroups) instead")
    public var trackGroups: [AVAssetTrackGroup] {
        let tracks = self.tracks
        var groups: [AVAssetTrackGroup] = []
        for kinds in [[AVMediaType.audio], [.subtitle, .text, .closedCaption]] {
            let members = tracks.filter { kinds.contains($0.mediaType) }
            if members.count >= 2 {
                groups.append(AVAssetTrackGroup(trackIDs: members.map { NSNumber(value: $0.trackID) }))
            }
        }
        return groups
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [AVAssetTrackGroup] {
    /// The asset's ``AVAsset/trackGroups``, to load with `load(_:)`.
    public static var trackGroups: AVAsyncProperty<Root, [AVAssetTrackGroup]> {
        .init(key: "trackGroups") { a in
            _ = try a.description()
            return a.trackGroups
        }
    }
}
