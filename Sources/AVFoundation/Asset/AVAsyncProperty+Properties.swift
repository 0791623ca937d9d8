import CoreMedia
import Foundation

// The loadable properties, declared as Apple does: static members of `AVAsyncProperty`
// constrained on the root type, so `asset.load(.duration)` resolves for any `AVAsset` subclass.

extension AVAsyncProperty where Root: AVAsset, Value == CMTime {
    /// The asset's ``AVAsset/duration``, to load with `load(_:)`.
    public static var duration: AVAsyncProperty<Root, CMTime> {
        .init(key: "duration") { try $0.description().duration }
    }
    /// The asset's ``AVAsset/minimumTimeOffsetFromLive``, to load with `load(_:)`.
    public static var minimumTimeOffsetFromLive: AVAsyncProperty<Root, CMTime> {
        .init(key: "minimumTimeOffsetFromLive") { $0.minimumTimeOffsetFromLive }
    }
    /// The asset's ``AVAsset/overallDurationHint``, to load with `load(_:)`.
    public static var overallDurationHint: AVAsyncProperty<Root, CMTime> {
        .init(key: "overallDurationHint") { $0.overallDurationHint }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [AVAssetTrack] {
    /// The asset's ``AVAsset/tracks``, to load with `load(_:)`.
    public static var tracks: AVAsyncProperty<Root, [AVAssetTrack]> {
        .init(key: "tracks") { a in
            _ = try a.description()
            return a.tracks
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == Bool {
    /// The asset's ``AVAsset/isPlayable``, to load with `load(_:)`.
    public static var isPlayable: AVAsyncProperty<Root, Bool> {
        .init(key: "playable") { try $0.description().isPlayable }
    }
    /// The asset's ``AVAsset/providesPreciseDurationAndTiming``, to load with `load(_:)`.
    public static var providesPreciseDurationAndTiming: AVAsyncProperty<Root, Bool> {
        .init(key: "providesPreciseDurationAndTiming") { try $0.description().providesPreciseDurationAndTiming }
    }
    /// The asset's ``AVAsset/hasProtectedContent``, to load with `load(_:)`.
    public static var hasProtectedContent: AVAsyncProperty<Root, Bool> {
        .init(key: "hasProtectedContent") { $0.hasProtectedContent }
    }
    /// The asset's ``AVAsset/isExportable``, to load with `load(_:)`.
    public static var isExportable: AVAsyncProperty<Root, Bool> { .init(key: "exportable") { $0.isExportable } }
    /// The asset's ``AVAsset/isReadable``, to load with `load(_:)`.
    public static var isReadable: AVAsyncProperty<Root, Bool> { .init(key: "readable") { $0.isReadable } }
    /// The asset's ``AVAsset/isComposable``, to load with `load(_:)`.
    public static var isComposable: AVAsyncProperty<Root, Bool> { .init(key: "composable") { $0.isComposable } }
    /// The asset's ``AVAsset/isCompatibleWithAirPlayVideo``, to load with `load(_:)`.
    public static var isCompatibleWithAirPlayVideo: AVAsyncProperty<Root, Bool> {
        .init(key: "compatibleWithAirPlayVideo") { $0.isCompatibleWithAirPlayVideo }
    }
    /// The asset's ``AVAsset/canContainFragments``, to load with `load(_:)`.
    public static var canContainFragments: AVAsyncProperty<Root, Bool> {
        .init(key: "canContainFragments") { $0.canContainFragments }
    }
    /// The asset's ``AVAsset/containsFragments``, to load with `load(_:)`.
    public static var containsFragments: AVAsyncProperty<Root, Bool> {
        .init(key: "containsFragments") { $0.containsFragments }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == Float {
    /// The asset's ``AVAsset/preferredRate``, to load with `load(_:)`.
    public static var preferredRate: AVAsyncProperty<Root, Float> { .init(key: "preferredRate") { $0.preferredRate } }
    /// The asset's ``AVAsset/preferredVolume``, to load with `load(_:)`.
    public static var preferredVolume: AVAsyncProperty<Root, Float> {
        .init(key: "preferredVolume") { $0.preferredVolume }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == CGAffineTransform {
    /// The asset's ``AVAsset/preferredTransform``, to load with `load(_:)`.
    public static var preferredTransform: AVAsyncProperty<Root, CGAffineTransform> {
        .init(key: "preferredTransform") { $0.preferredTransform }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [AVMetadataItem] {
    /// The asset's ``AVAsset/metadata``, to load with `load(_:)`.
    public static var metadata: AVAsyncProperty<Root, [AVMetadataItem]> {
        .init(key: "metadata") { a in
            _ = try a.description()
            return a.metadata
        }
    }
    /// The asset's ``AVAsset/commonMetadata``, to load with `load(_:)`.
    public static var commonMetadata: AVAsyncProperty<Root, [AVMetadataItem]> {
        .init(key: "commonMetadata") { a in
            _ = try a.description()
            return a.commonMetadata
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [AVMetadataFormat] {
    /// The asset's ``AVAsset/availableMetadataFormats``, to load with `load(_:)`.
    public static var availableMetadataFormats: AVAsyncProperty<Root, [AVMetadataFormat]> {
        .init(key: "availableMetadataFormats") { a in
            _ = try a.description()
            return a.availableMetadataFormats
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == AVMetadataItem? {
    /// The asset's ``AVAsset/creationDate``, to load with `load(_:)`.
    public static var creationDate: AVAsyncProperty<Root, AVMetadataItem?> {
        .init(key: "creationDate") { a in
            _ = try a.description()
            return a.creationDate
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [AVMediaCharacteristic] {
    /// The asset's ``AVAsset/availableMediaCharacteristicsWithMediaSelectionOptions``, to load with `load(_:)`.
    public static var availableMediaCharacteristicsWithMediaSelectionOptions:
        AVAsyncProperty<Root, [AVMediaCharacteristic]>
    {
        .init(key: "availableMediaCharacteristicsWithMediaSelectionOptions") { a in
            _ = try a.description()
            return a.availableMediaCharacteristicsWithMediaSelectionOptions
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == AVMediaSelection {
    /// The asset's ``AVAsset/preferredMediaSelection``, to load with `load(_:)`.
    public static var preferredMediaSelection: AVAsyncProperty<Root, AVMediaSelection> {
        .init(key: "preferredMediaSelection") { a in
            _ = try a.description()
            return a.preferredMediaSelection
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [AVMediaSelection] {
    /// The asset's ``AVAsset/allMediaSelections``, to load with `load(_:)`.
    public static var allMediaSelections: AVAsyncProperty<Root, [AVMediaSelection]> {
        .init(key: "allMediaSelections") { a in
            _ = try a.description()
            return a.allMediaSelections
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [Locale] {
    /// The asset's ``AVAsset/availableChapterLocales``, to load with `load(_:)`.
    public static var availableChapterLocales: AVAsyncProperty<Root, [Locale]> {
        .init(key: "availableChapterLocales") { $0.availableChapterLocales }
    }
}

// MARK: AVAssetTrack

extension AVAsyncProperty where Root: AVAssetTrack, Value == CGSize {
    /// The track's ``AVAssetTrack/naturalSize``, to load with `load(_:)`.
    public static var naturalSize: AVAsyncProperty<Root, CGSize> { .init(key: "naturalSize") { $0.info.naturalSize } }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == CGAffineTransform {
    /// The track's ``AVAssetTrack/preferredTransform``, to load with `load(_:)`.
    public static var preferredTransform: AVAsyncProperty<Root, CGAffineTransform> {
        .init(key: "preferredTransform") { $0.info.preferredTransform }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == Float {
    /// The track's ``AVAssetTrack/nominalFrameRate``, to load with `load(_:)`.
    public static var nominalFrameRate: AVAsyncProperty<Root, Float> {
        .init(key: "nominalFrameRate") { $0.info.nominalFrameRate }
    }
    /// The track's ``AVAssetTrack/estimatedDataRate``, to load with `load(_:)`.
    public static var estimatedDataRate: AVAsyncProperty<Root, Float> {
        .init(key: "estimatedDataRate") { $0.info.estimatedDataRate }
    }
    /// The track's ``AVAssetTrack/preferredVolume``, to load with `load(_:)`.
    public static var preferredVolume: AVAsyncProperty<Root, Float> {
        .init(key: "preferredVolume") { $0.preferredVolume }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == CMTimeRange {
    /// The track's ``AVAssetTrack/timeRange``, to load with `load(_:)`.
    public static var timeRange: AVAsyncProperty<Root, CMTimeRange> { .init(key: "timeRange") { $0.info.timeRange } }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == CMTime {
    /// The track's ``AVAssetTrack/minFrameDuration``, to load with `load(_:)`.
    public static var minFrameDuration: AVAsyncProperty<Root, CMTime> {
        .init(key: "minFrameDuration") { $0.info.minFrameDuration }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == CMTimeScale {
    /// The track's ``AVAssetTrack/naturalTimeScale``, to load with `load(_:)`.
    public static var naturalTimeScale: AVAsyncProperty<Root, CMTimeScale> {
        .init(key: "naturalTimeScale") { $0.info.naturalTimeScale }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == [CMFormatDescription] {
    /// The track's ``AVAssetTrack/formatDescriptions``, to load with `load(_:)`.
    public static var formatDescriptions: AVAsyncProperty<Root, [CMFormatDescription]> {
        .init(key: "formatDescriptions") { [$0.info.formatDescription] }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == Bool {
    /// The track's ``AVAssetTrack/isPlayable``, to load with `load(_:)`.
    public static var isPlayable: AVAsyncProperty<Root, Bool> { .init(key: "playable") { $0.info.isPlayable } }
    /// The track's ``AVAssetTrack/isDecodable``, to load with `load(_:)`.
    public static var isDecodable: AVAsyncProperty<Root, Bool> { .init(key: "decodable") { $0.info.isPlayable } }
    /// The track's ``AVAssetTrack/isEnabled``, to load with `load(_:)`.
    public static var isEnabled: AVAsyncProperty<Root, Bool> { .init(key: "enabled") { $0.info.isEnabled } }
    /// The track's ``AVAssetTrack/isSelfContained``, to load with `load(_:)`.
    public static var isSelfContained: AVAsyncProperty<Root, Bool> { .init(key: "selfContained") { _ in true } }
    /// The track's ``AVAssetTrack/requiresFrameReordering``, to load with `load(_:)`.
    public static var requiresFrameReordering: AVAsyncProperty<Root, Bool> {
        .init(key: "requiresFrameReordering") { $0.info.requiresFrameReordering }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == String? {
    /// The track's ``AVAssetTrack/languageCode``, to load with `load(_:)`.
    public static var languageCode: AVAsyncProperty<Root, String?> {
        .init(key: "languageCode") { $0.info.languageCode }
    }
    /// The track's ``AVAssetTrack/extendedLanguageTag``, to load with `load(_:)`.
    public static var extendedLanguageTag: AVAsyncProperty<Root, String?> {
        .init(key: "extendedLanguageTag") { $0.info.extendedLanguageTag }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == [AVMediaCharacteristic] {
    /// The track's ``AVAssetTrack/mediaCharacteristics``, to load with `load(_:)`.
    public static var mediaCharacteristics: AVAsyncProperty<Root, [AVMediaCharacteristic]> {
        .init(key: "mediaCharacteristics") { $0.info.mediaCharacteristics }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == Int64 {
    /// The track's ``AVAssetTrack/totalSampleDataLength``, to load with `load(_:)`.
    public static var totalSampleDataLength: AVAsyncProperty<Root, Int64> {
        .init(key: "totalSampleDataLength") { $0.totalSampleDataLength }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == [AVMetadataItem] {
    /// The track's ``AVAssetTrack/metadata``, to load with `load(_:)`.
    public static var metadata: AVAsyncProperty<Root, [AVMetadataItem]> { .init(key: "metadata") { $0.metadata } }
    /// The track's ``AVAssetTrack/commonMetadata``, to load with `load(_:)`.
    public static var commonMetadata: AVAsyncProperty<Root, [AVMetadataItem]> {
        .init(key: "commonMetadata") { $0.commonMetadata }
    }
}

// MARK: AVMetadataItem

extension AVMetadataItem: AVAsynchronousKeyValueLoading {
    public func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus { .loaded }

    public func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (@Sendable () -> Void)?) {
        handler?()
    }
}

extension AVAsyncProperty where Root: AVMetadataItem, Value == (any NSCopying & NSObjectProtocol)? {
    /// The item's ``AVMetadataItem/value``, to load with `load(_:)`.
    public static var value: AVAsyncProperty<Root, (any NSCopying & NSObjectProtocol)?> {
        .init(key: "value") { $0.value }
    }
}

extension AVAsyncProperty where Root: AVMetadataItem, Value == String? {
    /// The item's ``AVMetadataItem/stringValue``, to load with `load(_:)`.
    public static var stringValue: AVAsyncProperty<Root, String?> { .init(key: "stringValue") { $0.stringValue } }
}

extension AVAsyncProperty where Root: AVMetadataItem, Value == NSNumber? {
    /// The item's ``AVMetadataItem/numberValue``, to load with `load(_:)`.
    public static var numberValue: AVAsyncProperty<Root, NSNumber?> { .init(key: "numberValue") { $0.numberValue } }
}

extension AVAsyncProperty where Root: AVMetadataItem, Value == Date? {
    /// The item's ``AVMetadataItem/dateValue``, to load with `load(_:)`.
    public static var dateValue: AVAsyncProperty<Root, Date?> { .init(key: "dateValue") { $0.dateValue } }
}

extension AVAsyncProperty where Root: AVMetadataItem, Value == Data? {
    /// The item's ``AVMetadataItem/dataValue``, to load with `load(_:)`.
    public static var dataValue: AVAsyncProperty<Root, Data?> { .init(key: "dataValue") { $0.dataValue } }
}
