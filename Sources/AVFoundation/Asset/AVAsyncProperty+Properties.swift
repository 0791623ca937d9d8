import CoreMedia
import Foundation

// The loadable properties, declared as Apple does: static members of `AVAsyncProperty`
// constrained on the root type, so `asset.load(.duration)` resolves for any `AVAsset` subclass.

extension AVAsyncProperty where Root: AVAsset, Value == CMTime {
    public static var duration: AVAsyncProperty<Root, CMTime> {
        .init(key: "duration") { try $0.description().duration }
    }
    public static var minimumTimeOffsetFromLive: AVAsyncProperty<Root, CMTime> {
        .init(key: "minimumTimeOffsetFromLive") { $0.minimumTimeOffsetFromLive }
    }
    public static var overallDurationHint: AVAsyncProperty<Root, CMTime> {
        .init(key: "overallDurationHint") { $0.overallDurationHint }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [AVAssetTrack] {
    public static var tracks: AVAsyncProperty<Root, [AVAssetTrack]> {
        .init(key: "tracks") { a in
            _ = try a.description()
            return a.tracks
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == Bool {
    public static var isPlayable: AVAsyncProperty<Root, Bool> {
        .init(key: "playable") { try $0.description().isPlayable }
    }
    public static var providesPreciseDurationAndTiming: AVAsyncProperty<Root, Bool> {
        .init(key: "providesPreciseDurationAndTiming") { try $0.description().providesPreciseDurationAndTiming }
    }
    public static var hasProtectedContent: AVAsyncProperty<Root, Bool> {
        .init(key: "hasProtectedContent") { $0.hasProtectedContent }
    }
    public static var isExportable: AVAsyncProperty<Root, Bool> { .init(key: "exportable") { $0.isExportable } }
    public static var isReadable: AVAsyncProperty<Root, Bool> { .init(key: "readable") { $0.isReadable } }
    public static var isComposable: AVAsyncProperty<Root, Bool> { .init(key: "composable") { $0.isComposable } }
    public static var isCompatibleWithAirPlayVideo: AVAsyncProperty<Root, Bool> {
        .init(key: "compatibleWithAirPlayVideo") { $0.isCompatibleWithAirPlayVideo }
    }
    public static var canContainFragments: AVAsyncProperty<Root, Bool> {
        .init(key: "canContainFragments") { $0.canContainFragments }
    }
    public static var containsFragments: AVAsyncProperty<Root, Bool> {
        .init(key: "containsFragments") { $0.containsFragments }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == Float {
    public static var preferredRate: AVAsyncProperty<Root, Float> { .init(key: "preferredRate") { $0.preferredRate } }
    public static var preferredVolume: AVAsyncProperty<Root, Float> {
        .init(key: "preferredVolume") { $0.preferredVolume }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == CGAffineTransform {
    public static var preferredTransform: AVAsyncProperty<Root, CGAffineTransform> {
        .init(key: "preferredTransform") { $0.preferredTransform }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [AVMetadataItem] {
    public static var metadata: AVAsyncProperty<Root, [AVMetadataItem]> {
        .init(key: "metadata") { a in
            _ = try a.description()
            return a.metadata
        }
    }
    public static var commonMetadata: AVAsyncProperty<Root, [AVMetadataItem]> {
        .init(key: "commonMetadata") { a in
            _ = try a.description()
            return a.commonMetadata
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [AVMetadataFormat] {
    public static var availableMetadataFormats: AVAsyncProperty<Root, [AVMetadataFormat]> {
        .init(key: "availableMetadataFormats") { a in
            _ = try a.description()
            return a.availableMetadataFormats
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == AVMetadataItem? {
    public static var creationDate: AVAsyncProperty<Root, AVMetadataItem?> {
        .init(key: "creationDate") { a in
            _ = try a.description()
            return a.creationDate
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [AVMediaCharacteristic] {
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
    public static var preferredMediaSelection: AVAsyncProperty<Root, AVMediaSelection> {
        .init(key: "preferredMediaSelection") { a in
            _ = try a.description()
            return a.preferredMediaSelection
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [AVMediaSelection] {
    public static var allMediaSelections: AVAsyncProperty<Root, [AVMediaSelection]> {
        .init(key: "allMediaSelections") { a in
            _ = try a.description()
            return a.allMediaSelections
        }
    }
}

extension AVAsyncProperty where Root: AVAsset, Value == [Locale] {
    public static var availableChapterLocales: AVAsyncProperty<Root, [Locale]> {
        .init(key: "availableChapterLocales") { $0.availableChapterLocales }
    }
}

// MARK: AVAssetTrack

extension AVAsyncProperty where Root: AVAssetTrack, Value == CGSize {
    public static var naturalSize: AVAsyncProperty<Root, CGSize> { .init(key: "naturalSize") { $0.info.naturalSize } }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == CGAffineTransform {
    public static var preferredTransform: AVAsyncProperty<Root, CGAffineTransform> {
        .init(key: "preferredTransform") { $0.info.preferredTransform }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == Float {
    public static var nominalFrameRate: AVAsyncProperty<Root, Float> {
        .init(key: "nominalFrameRate") { $0.info.nominalFrameRate }
    }
    public static var estimatedDataRate: AVAsyncProperty<Root, Float> {
        .init(key: "estimatedDataRate") { $0.info.estimatedDataRate }
    }
    public static var preferredVolume: AVAsyncProperty<Root, Float> {
        .init(key: "preferredVolume") { $0.preferredVolume }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == CMTimeRange {
    public static var timeRange: AVAsyncProperty<Root, CMTimeRange> { .init(key: "timeRange") { $0.info.timeRange } }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == CMTime {
    public static var minFrameDuration: AVAsyncProperty<Root, CMTime> {
        .init(key: "minFrameDuration") { $0.info.minFrameDuration }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == CMTimeScale {
    public static var naturalTimeScale: AVAsyncProperty<Root, CMTimeScale> {
        .init(key: "naturalTimeScale") { $0.info.naturalTimeScale }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == [CMFormatDescription] {
    public static var formatDescriptions: AVAsyncProperty<Root, [CMFormatDescription]> {
        .init(key: "formatDescriptions") { [$0.info.formatDescription] }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == Bool {
    public static var isPlayable: AVAsyncProperty<Root, Bool> { .init(key: "playable") { $0.info.isPlayable } }
    public static var isDecodable: AVAsyncProperty<Root, Bool> { .init(key: "decodable") { $0.info.isPlayable } }
    public static var isEnabled: AVAsyncProperty<Root, Bool> { .init(key: "enabled") { $0.info.isEnabled } }
    public static var isSelfContained: AVAsyncProperty<Root, Bool> { .init(key: "selfContained") { _ in true } }
    public static var requiresFrameReordering: AVAsyncProperty<Root, Bool> {
        .init(key: "requiresFrameReordering") { $0.info.requiresFrameReordering }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == String? {
    public static var languageCode: AVAsyncProperty<Root, String?> {
        .init(key: "languageCode") { $0.info.languageCode }
    }
    public static var extendedLanguageTag: AVAsyncProperty<Root, String?> {
        .init(key: "extendedLanguageTag") { $0.info.extendedLanguageTag }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == [AVMediaCharacteristic] {
    public static var mediaCharacteristics: AVAsyncProperty<Root, [AVMediaCharacteristic]> {
        .init(key: "mediaCharacteristics") { $0.info.mediaCharacteristics }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == Int64 {
    public static var totalSampleDataLength: AVAsyncProperty<Root, Int64> {
        .init(key: "totalSampleDataLength") { $0.totalSampleDataLength }
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == [AVMetadataItem] {
    public static var metadata: AVAsyncProperty<Root, [AVMetadataItem]> { .init(key: "metadata") { $0.metadata } }
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
    public static var value: AVAsyncProperty<Root, (any NSCopying & NSObjectProtocol)?> {
        .init(key: "value") { $0.value }
    }
}

extension AVAsyncProperty where Root: AVMetadataItem, Value == String? {
    public static var stringValue: AVAsyncProperty<Root, String?> { .init(key: "stringValue") { $0.stringValue } }
}

extension AVAsyncProperty where Root: AVMetadataItem, Value == NSNumber? {
    public static var numberValue: AVAsyncProperty<Root, NSNumber?> { .init(key: "numberValue") { $0.numberValue } }
}

extension AVAsyncProperty where Root: AVMetadataItem, Value == Date? {
    public static var dateValue: AVAsyncProperty<Root, Date?> { .init(key: "dateValue") { $0.dateValue } }
}

extension AVAsyncProperty where Root: AVMetadataItem, Value == Data? {
    public static var dataValue: AVAsyncProperty<Root, Data?> { .init(key: "dataValue") { $0.dataValue } }
}
