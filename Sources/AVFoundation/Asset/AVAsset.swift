import CoreMedia
import Foundation
import Synchronization

/// A timed audiovisual resource: a file or a stream that libavformat can open.
///
/// Values load asynchronously: use `try await asset.load(.duration, .tracks)` or the older
/// ``loadValuesAsynchronously(forKeys:completionHandler:)`` with ``statusOfValue(forKey:error:)``.
/// One probe of the input loads every key at once (tracks, durations, metadata, media selection);
/// loading never blocks the caller's thread. The deprecated synchronous getters (``duration``,
/// ``tracks`` …) block until loaded, as Apple's do.
///
/// Differs from Apple: `AVAsset(url:)` returns a plain `AVAsset` that behaves like an `AVURLAsset`
/// (a Swift initializer cannot return a subclass); use `AVURLAsset(url:)` when you need `url`.
open class AVAsset: NSObject, NSCopying, AVAsynchronousKeyValueLoading, @unchecked Sendable {
    let loader: AssetLoader

    /// Objects built once from the loaded description, so their identity is stable.
    private struct Objects {
        var tracks: [AVAssetTrack]
        var metadata: [AVMetadataItem]
        var metadataFormat: AVMetadataFormat
        var commonMetadata: [AVMetadataItem]
        var groups: [AVMediaSelectionGroup]
    }
    private let objects = Mutex<Objects?>(nil)

    /// Creates an asset for `URL`; nothing is read until a value is requested.
    public convenience init(url URL: URL) {
        self.init(url: URL, loaderOptions: [:])
    }

    init(url: URL, loaderOptions: [String: any Sendable]) {
        loader = AssetLoader(url: url, options: loaderOptions)
        super.init()
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    // MARK: Key-value loading

    /// The keys this asset loads (Apple's key names).
    static let loadableKeys: Set<String> = [
        "duration", "tracks", "playable", "hasProtectedContent", "commonMetadata", "metadata",
        "availableMetadataFormats", "availableMediaCharacteristicsWithMediaSelectionOptions", "preferredRate",
        "preferredVolume", "preferredTransform", "naturalSize", "providesPreciseDurationAndTiming", "creationDate",
        "lyrics", "availableChapterLocales", "exportable", "readable", "composable", "allMediaSelections",
        "preferredMediaSelection", "overallDurationHint", "minimumTimeOffsetFromLive", "referenceRestrictions",
        "canContainFragments", "containsFragments", "compatibleWithAirPlayVideo", "trackGroups",
    ]

    open func statusOfValue(forKey key: String, error outError: NSErrorPointer) -> AVKeyValueStatus {
        let (status, error) = loadingStatus(forKey: key)
        if let error, let outError { outError.pointee = error as NSError }
        return status
    }

    open func loadValuesAsynchronously(forKeys keys: [String], completionHandler handler: (@Sendable () -> Void)?) {
        if keys.isEmpty || keys.allSatisfy({ !Self.loadableKeys.contains($0) }) {
            handler?()
            return
        }
        loader.request { _ in handler?() }
    }

    /// Cancels loading in progress; pending handlers are called and keys report `.cancelled`.
    open func cancelLoading() {
        loader.cancel()
    }

    // MARK: Loaded objects

    func description() throws(AVError) -> AssetDescription {
        try loader.wait().get()
    }

    private func loadedObjects(_ d: AssetDescription) -> Objects {
        objects.withLock { cached in
            if let cached { return cached }
            let tracks = d.tracks.map { AVAssetTrack(asset: self, description: $0) }
            let (metadata, format) = AVMetadataItem.items(fromContainer: d.containerMetadata, formatName: d.formatName)
            let built = Objects(
                tracks: tracks, metadata: metadata, metadataFormat: format,
                commonMetadata: AVMetadataItem.commonItems(from: metadata),
                groups: AVMediaSelectionGroup.groups(for: tracks))
            cached = built
            return built
        }
    }

    private func objectsOrEmpty() -> Objects? {
        guard let d = try? description() else { return nil }
        return loadedObjects(d)
    }

    // MARK: Properties (the deprecated synchronous getters; they block until loaded)

    /// The asset's duration (`.indefinite` until known; `.invalid` when loading failed).
    @available(iOS, deprecated: 16.0, message: "Use load(.duration) instead")
    open var duration: CMTime { (try? description().duration) ?? .invalid }

    /// The tracks, in container order.
    @available(iOS, deprecated: 16.0, message: "Use load(.tracks) instead")
    open var tracks: [AVAssetTrack] { objectsOrEmpty()?.tracks ?? [] }

    /// Whether the asset has at least one audio or video track this build can decode.
    @available(iOS, deprecated: 16.0, message: "Use load(.isPlayable) instead")
    open var isPlayable: Bool { (try? description().isPlayable) ?? false }

    @available(iOS, deprecated: 16.0, message: "Use load(.preferredRate) instead")
    open var preferredRate: Float { 1.0 }

    @available(iOS, deprecated: 16.0, message: "Use load(.preferredVolume) instead")
    open var preferredVolume: Float { 1.0 }

    @available(iOS, deprecated: 16.0, message: "Use load(.preferredTransform) instead")
    open var preferredTransform: CGAffineTransform { .identity }

    @available(iOS, deprecated: 16.0, message: "Use load(.providesPreciseDurationAndTiming) instead")
    open var providesPreciseDurationAndTiming: Bool { (try? description().providesPreciseDurationAndTiming) ?? false }

    @available(iOS, deprecated: 16.0, message: "Use load(.hasProtectedContent) instead")
    open var hasProtectedContent: Bool { false }

    @available(iOS, deprecated: 16.0, message: "Use load(.metadata) instead")
    open var metadata: [AVMetadataItem] { objectsOrEmpty()?.metadata ?? [] }

    @available(iOS, deprecated: 16.0, message: "Use load(.commonMetadata) instead")
    open var commonMetadata: [AVMetadataItem] { objectsOrEmpty()?.commonMetadata ?? [] }

    @available(iOS, deprecated: 16.0, message: "Use load(.availableMetadataFormats) instead")
    open var availableMetadataFormats: [AVMetadataFormat] {
        guard let o = objectsOrEmpty(), !o.metadata.isEmpty else { return [] }
        return [o.metadataFormat]
    }

    @available(iOS, deprecated: 16.0, message: "Use load(.creationDate) instead")
    open var creationDate: AVMetadataItem? {
        commonMetadata.first { $0.commonKey == .commonKeyCreationDate }
    }

    @available(iOS, deprecated: 16.0, message: "Use load(.availableMediaCharacteristicsWithMediaSelectionOptions)")
    open var availableMediaCharacteristicsWithMediaSelectionOptions: [AVMediaCharacteristic] {
        objectsOrEmpty()?.groups.map(\.characteristic) ?? []
    }

    @available(iOS, deprecated: 16.0, message: "Use load(.preferredMediaSelection) instead")
    open var preferredMediaSelection: AVMediaSelection {
        AVMediaSelection(asset: self, groups: objectsOrEmpty()?.groups ?? [], selections: [:])
    }

    @available(iOS, deprecated: 16.0, message: "Use load(.allMediaSelections) instead")
    open var allMediaSelections: [AVMediaSelection] {
        let groups = objectsOrEmpty()?.groups ?? []
        var combos: [[ObjectIdentifier: AVMediaSelectionOption?]] = [[:]]
        for g in groups {
            var choices: [AVMediaSelectionOption?] = g.options
            if g.allowsEmptySelection { choices.append(nil) }
            combos = combos.flatMap { c in choices.map { o in c.merging([ObjectIdentifier(g): o]) { $1 } } }
        }
        return combos.map { AVMediaSelection(asset: self, groups: groups, selections: $0) }
    }

    @available(iOS, deprecated: 16.0, message: "Use load(.availableChapterLocales) instead")
    open var availableChapterLocales: [Locale] { [] }

    @available(iOS, deprecated: 16.0, message: "Use load(.overallDurationHint) instead")
    open var overallDurationHint: CMTime { .invalid }

    @available(iOS, deprecated: 16.0, message: "Use load(.minimumTimeOffsetFromLive) instead")
    open var minimumTimeOffsetFromLive: CMTime { .invalid }

    /// Playback only: this framework does not export, compose or write.
    @available(iOS, deprecated: 16.0, message: "Use load(.isExportable) instead")
    open var isExportable: Bool { false }

    @available(iOS, deprecated: 16.0, message: "Use load(.isReadable) instead")
    open var isReadable: Bool { (try? description()) != nil }

    @available(iOS, deprecated: 16.0, message: "Use load(.isComposable) instead")
    open var isComposable: Bool { false }

    @available(iOS, deprecated: 16.0, message: "Use load(.isCompatibleWithAirPlayVideo) instead")
    open var isCompatibleWithAirPlayVideo: Bool { false }

    @available(iOS, deprecated: 16.0, message: "Use load(.canContainFragments) instead")
    open var canContainFragments: Bool { false }

    @available(iOS, deprecated: 16.0, message: "Use load(.containsFragments) instead")
    open var containsFragments: Bool { false }

    @available(iOS, deprecated: 16.0, message: "Use loadTracks(withMediaType:) instead")
    open func tracks(withMediaType mediaType: AVMediaType) -> [AVAssetTrack] {
        tracks.filter { $0.mediaType == mediaType }
    }

    @available(iOS, deprecated: 16.0, message: "Use loadTrack(withTrackID:) instead")
    open func track(withTrackID trackID: CMPersistentTrackID) -> AVAssetTrack? {
        tracks.first { $0.trackID == trackID }
    }

    @available(iOS, deprecated: 16.0, message: "Use loadTracks(withMediaCharacteristic:) instead")
    open func tracks(withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) -> [AVAssetTrack] {
        tracks.filter { $0.hasMediaCharacteristic(mediaCharacteristic) }
    }

    @available(iOS, deprecated: 16.0, message: "Use loadMediaSelectionGroup(for:) instead")
    open func mediaSelectionGroup(
        forMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic
    )
        -> AVMediaSelectionGroup?
    {
        objectsOrEmpty()?.groups.first { $0.characteristic == mediaCharacteristic }
    }

    @available(iOS, deprecated: 16.0, message: "Use loadMetadata(for:) instead")
    open func metadata(forFormat format: AVMetadataFormat) -> [AVMetadataItem] {
        guard let o = objectsOrEmpty(), o.metadataFormat == format else { return [] }
        return o.metadata
    }

    // MARK: Asynchronous methods

    public func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVAssetTrack] {
        try await awaitValues(forKeys: ["tracks"])
        return tracks(withMediaType: mediaType)
    }

    public func loadTracks(
        withMediaType mediaType: AVMediaType,
        completionHandler: @escaping @Sendable ([AVAssetTrack]?, (any Error)?) -> Void
    ) {
        loader.request { [self] r in
            switch r {
            case .success: completionHandler(tracks(withMediaType: mediaType), nil)
            case .failure(let e): completionHandler(nil, e)
            }
        }
    }

    public func loadTracks(
        withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic
    ) async throws
        -> [AVAssetTrack]
    {
        try await awaitValues(forKeys: ["tracks"])
        return tracks(withMediaCharacteristic: mediaCharacteristic)
    }

    public func loadTracks(
        withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic,
        completionHandler: @escaping @Sendable ([AVAssetTrack]?, (any Error)?) -> Void
    ) {
        loader.request { [self] r in
            switch r {
            case .success: completionHandler(tracks(withMediaCharacteristic: mediaCharacteristic), nil)
            case .failure(let e): completionHandler(nil, e)
            }
        }
    }

    public func loadTrack(withTrackID trackID: CMPersistentTrackID) async throws -> AVAssetTrack? {
        try await awaitValues(forKeys: ["tracks"])
        return track(withTrackID: trackID)
    }

    public func loadTrack(
        withTrackID trackID: CMPersistentTrackID,
        completionHandler: @escaping @Sendable (AVAssetTrack?, (any Error)?) -> Void
    ) {
        loader.request { [self] r in
            switch r {
            case .success: completionHandler(track(withTrackID: trackID), nil)
            case .failure(let e): completionHandler(nil, e)
            }
        }
    }

    public func loadMediaSelectionGroup(
        for mediaCharacteristic: AVMediaCharacteristic
    ) async throws
        -> AVMediaSelectionGroup?
    {
        try await awaitValues(forKeys: ["availableMediaCharacteristicsWithMediaSelectionOptions"])
        return mediaSelectionGroup(forMediaCharacteristic: mediaCharacteristic)
    }

    public func loadMediaSelectionGroup(
        for mediaCharacteristic: AVMediaCharacteristic,
        completionHandler: @escaping @Sendable (AVMediaSelectionGroup?, (any Error)?) -> Void
    ) {
        loader.request { [self] r in
            switch r {
            case .success: completionHandler(mediaSelectionGroup(forMediaCharacteristic: mediaCharacteristic), nil)
            case .failure(let e): completionHandler(nil, e)
            }
        }
    }

    public func loadMetadata(for format: AVMetadataFormat) async throws -> [AVMetadataItem] {
        try await awaitValues(forKeys: ["metadata"])
        return metadata(forFormat: format)
    }

    public func loadMetadata(
        for format: AVMetadataFormat, completionHandler: @escaping @Sendable ([AVMetadataItem]?, (any Error)?) -> Void
    ) {
        loader.request { [self] r in
            switch r {
            case .success: completionHandler(metadata(forFormat: format), nil)
            case .failure(let e): completionHandler(nil, e)
            }
        }
    }

    /// The error that prevents playback (no decodable audio or video), for the player item.
    func playabilityError() -> AVError? {
        switch loader.wait() {
        case .success(let d): return d.playabilityError
        case .failure(let e): return e
        }
    }
}

extension AVAsset: AsyncLoadingHost {
    func awaitValues(forKeys keys: [String]) async throws {
        _ = try await loader.value()
    }

    func loadingStatus(forKey key: String) -> (AVKeyValueStatus, (any Error)?) {
        guard Self.loadableKeys.contains(key) else {
            return (
                .failed,
                AVError.media(.operationNotSupportedForAsset, "“\(key)” is not a key an asset can load.")
            )
        }
        switch loader.phase {
        case .idle: return (.unknown, nil)
        case .loading: return (.loading, nil)
        case .loaded: return (.loaded, nil)
        case .failed(let e): return (.failed, e)
        case .cancelled: return (.cancelled, nil)
        }
    }
}

/// Options for `AVURLAsset(url:options:)` (Apple's key strings).
public let AVURLAssetPreferPreciseDurationAndTimingKey = "AVURLAssetPreferPreciseDurationAndTimingKey"
public let AVURLAssetOverrideMIMETypeKey = "AVURLAssetOverrideMIMETypeKey"
public let AVURLAssetHTTPUserAgentKey = "AVURLAssetHTTPUserAgentKey"
public let AVURLAssetHTTPCookiesKey = "AVURLAssetHTTPCookiesKey"
public let AVURLAssetAllowsCellularAccessKey = "AVURLAssetAllowsCellularAccessKey"
public let AVURLAssetReferenceRestrictionsKey = "AVURLAssetReferenceRestrictionsKey"

/// An asset at a URL: a local file, or anything libavformat reads (http, https, …).
///
/// Options honoured: `AVURLAssetHTTPUserAgentKey`, `"AVURLAssetHTTPHeaderFieldsKey"`
/// (`[String: String]`). `AVURLAssetPreferPreciseDurationAndTimingKey` is accepted; durations are
/// always taken from timestamps where the container has them (see `providesPreciseDurationAndTiming`).
open class AVURLAsset: AVAsset, @unchecked Sendable {
    /// The URL the asset was created with.
    public let url: URL

    public init(url URL: URL, options: [String: Any]? = nil) {
        self.url = URL
        var sendable: [String: any Sendable] = [:]
        for (k, v) in options ?? [:] {
            if let s = v as? String {
                sendable[k] = s
            } else if let d = v as? [String: String] {
                sendable[k] = d
            } else if let b = v as? Bool {
                sendable[k] = b
            } else if let n = v as? NSNumber {
                sendable[k] = n.boolValue
            }
        }
        super.init(url: URL, loaderOptions: sendable)
    }

    public convenience init(url URL: URL) {
        self.init(url: URL, options: nil)
    }

    /// File types this framework can play (a representative list; libavformat reads many more).
    open class func audiovisualTypes() -> [AVFileType] {
        [.mov, .mp4, .m4v, .m4a, .mp3, .wav, .aiff, .caf, .ac3, .mobile3GPP]
    }

    open class func audiovisualMIMETypes() -> [String] {
        [
            "video/mp4", "video/quicktime", "audio/mp4", "audio/mpeg", "audio/wav", "audio/flac", "video/webm",
            "audio/webm", "video/x-matroska", "video/mp2t", "application/vnd.apple.mpegurl", "audio/ogg",
        ]
    }

    open class func isPlayableExtendedMIMEType(_ extendedMIMEType: String) -> Bool {
        let base = extendedMIMEType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return audiovisualMIMETypes().contains(base.lowercased())
    }
}
