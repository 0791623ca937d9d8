import CoreMedia
import Foundation

/// One track of an asset. Its values are known as soon as the asset's tracks are loaded, so
/// `load(_:)` and ``statusOfValue(forKey:error:)`` answer at once.
open class AVAssetTrack: NSObject, NSCopying, AVAsynchronousKeyValueLoading, @unchecked Sendable {
    /// The asset the track belongs to (weak, as Apple's).
    public private(set) weak var asset: AVAsset?
    /// The track's persistent identifier: the container's track ID (MP4 `tkhd`, Matroska track
    /// number, MPEG-TS PID) or, for containers without one, the stream's index + 1.
    public let trackID: CMPersistentTrackID
    /// The track's media type (video, audio, subtitle, …).
    public let mediaType: AVMediaType
    let info: AssetDescription.Track

    init(asset: AVAsset, description: AssetDescription.Track) {
        self.asset = asset
        self.trackID = description.trackID
        self.mediaType = description.mediaType
        self.info = description
        super.init()
    }

    /// Returns the object itself: it is immutable, so it is its own copy.
    public func copy(with zone: NSZone? = nil) -> Any { self }

    /// The index of the stream in the container (not Apple's; the engine uses it).
    var streamIndex: Int { info.streamIndex }

    static let loadableKeys: Set<String> = [
        "naturalSize", "preferredTransform", "nominalFrameRate", "timeRange", "formatDescriptions", "playable",
        "decodable", "enabled", "minFrameDuration", "naturalTimeScale", "estimatedDataRate", "languageCode",
        "extendedLanguageTag", "preferredVolume", "mediaCharacteristics", "requiresFrameReordering",
        "totalSampleDataLength", "metadata", "commonMetadata", "availableMetadataFormats", "selfContained",
        "segments", "hasAudioSampleDependencies", "availableTrackAssociationTypes",
    ]

    public func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        if Self.loadableKeys.contains(key) { return .loaded }
        outError?.pointee = AVError.media(.operationNotSupportedForAsset, "“\(key)” is not a track key.") as NSError
        return .failed
    }

    public func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (@Sendable () -> Void)?) {
        handler?()
    }

    // MARK: Properties (deprecated synchronous getters; values are already known)

    /// Display dimensions before `preferredTransform`, with the pixel aspect ratio applied.
    @available(iOS, deprecated: 16.0, message: "Use load(.naturalSize) instead")
    open var naturalSize: CGSize { info.naturalSize }

    /// The transform from the container's display matrix (rotation/mirroring), as Apple builds it.
    @available(iOS, deprecated: 16.0, message: "Use load(.preferredTransform) instead")
    open var preferredTransform: CGAffineTransform { info.preferredTransform }

    /// Average frames per second for video (0 for other media).
    @available(iOS, deprecated: 16.0, message: "Use load(.nominalFrameRate) instead")
    open var nominalFrameRate: Float { info.nominalFrameRate }

    /// The track's time range in its own timescale (start may be > 0).
    @available(iOS, deprecated: 16.0, message: "Use load(.timeRange) instead")
    open var timeRange: CMTimeRange { info.timeRange }

    /// The track's format descriptions: one `CMFormatDescription` of its codec.
    @available(iOS, deprecated: 16.0, message: "Use load(.formatDescriptions) instead")
    open var formatDescriptions: [Any] { [info.formatDescription] }

    /// Whether this build can decode and play the track.
    @available(iOS, deprecated: 16.0, message: "Use load(.isPlayable) instead")
    open var isPlayable: Bool { info.isPlayable }

    /// Whether this build can decode the track (the same as ``isPlayable``).
    @available(iOS, deprecated: 16.0, message: "Use load(.isDecodable) instead")
    open var isDecodable: Bool { info.isPlayable }

    /// Whether the container marks the track enabled (default). Toggle playback per track with
    /// `AVPlayerItemTrack.isEnabled`.
    @available(iOS, deprecated: 16.0, message: "Use load(.isEnabled) instead")
    open var isEnabled: Bool { info.isEnabled }

    /// Whether the track's media is in the asset's own file: always true.
    @available(iOS, deprecated: 16.0, message: "Use load(.isSelfContained) instead")
    open var isSelfContained: Bool { true }

    /// The shortest frame duration (video), from the stream's frame rate.
    @available(iOS, deprecated: 16.0, message: "Use load(.minFrameDuration) instead")
    open var minFrameDuration: CMTime { info.minFrameDuration }

    /// The timescale of the track's media (the stream's time base).
    @available(iOS, deprecated: 16.0, message: "Use load(.naturalTimeScale) instead")
    open var naturalTimeScale: CMTimeScale { info.naturalTimeScale }

    /// Bits per second (0 when the container does not say).
    @available(iOS, deprecated: 16.0, message: "Use load(.estimatedDataRate) instead")
    open var estimatedDataRate: Float { info.estimatedDataRate }

    /// ISO 639-2/T language code ("eng", "fra"), nil when undetermined.
    @available(iOS, deprecated: 16.0, message: "Use load(.languageCode) instead")
    open var languageCode: String? { info.languageCode }

    /// BCP 47 language tag ("en", "fr"), nil when undetermined.
    @available(iOS, deprecated: 16.0, message: "Use load(.extendedLanguageTag) instead")
    open var extendedLanguageTag: String? { info.extendedLanguageTag }

    /// The volume the track prefers: 1 for audio, 0 for other tracks.
    @available(iOS, deprecated: 16.0, message: "Use load(.preferredVolume) instead")
    open var preferredVolume: Float { mediaType == .audio ? 1 : 0 }

    /// The track's media characteristics (visual, audible, legible, …).
    @available(iOS, deprecated: 16.0, message: "Use load(.mediaCharacteristics) instead")
    open var mediaCharacteristics: [AVMediaCharacteristic] { info.mediaCharacteristics }

    /// Whether samples are stored in decoding order different from display order (B-frames).
    @available(iOS, deprecated: 16.0, message: "Use load(.requiresFrameReordering) instead")
    open var requiresFrameReordering: Bool { info.requiresFrameReordering }

    /// 0: unknown without reading every sample.
    @available(iOS, deprecated: 16.0, message: "Use load(.totalSampleDataLength) instead")
    open var totalSampleDataLength: Int64 { 0 }

    /// The track's metadata items.
    @available(iOS, deprecated: 16.0, message: "Use load(.metadata) instead")
    open var metadata: [AVMetadataItem] { trackMetadata.items }

    /// The track's metadata items that have a common key.
    @available(iOS, deprecated: 16.0, message: "Use load(.commonMetadata) instead")
    open var commonMetadata: [AVMetadataItem] { AVMetadataItem.commonItems(from: trackMetadata.items) }

    /// The metadata formats the track has items in.
    @available(iOS, deprecated: 16.0, message: "Use load(.availableMetadataFormats) instead")
    open var availableMetadataFormats: [AVMetadataFormat] {
        trackMetadata.items.isEmpty ? [] : [trackMetadata.format]
    }

    private var trackMetadata: (items: [AVMetadataItem], format: AVMetadataFormat) {
        var tags = info.metadata
        tags.removeValue(forKey: "language")
        tags.removeValue(forKey: "handler_name")
        tags.removeValue(forKey: "vendor_id")
        tags.removeValue(forKey: "encoder")
        tags = tags.filter { !$0.key.hasPrefix("duration") && !$0.key.hasPrefix("_statistics") }
        return AVMetadataItem.items(fromContainer: tags, formatName: "track")
    }

    /// Whether the track has a media characteristic.
    open func hasMediaCharacteristic(_ mediaCharacteristic: AVMediaCharacteristic) -> Bool {
        info.mediaCharacteristics.contains(mediaCharacteristic)
    }

    /// A description for debugging.
    open override var description: String {
        "<AVAssetTrack trackID=\(trackID) mediaType=\(mediaType.rawValue) codec=\(info.codecName)>"
    }
}
