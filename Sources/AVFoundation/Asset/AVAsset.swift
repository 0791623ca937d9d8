import CoreMedia
import Foundation
import OAVFLocking
import PlaybackEngine

#if canImport(FoundationNetworking)
import FoundationNetworking  // HTTPCookie (AVURLAssetHTTPCookiesKey)
#endif

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
    /// Built once from the description; any thread loading the asset (and the loader's own queue) reads or builds it.
    /// Not an engine command: an asset belongs to no player.
    private let objects = Locked<Objects?>(nil)

    /// Creates an asset for `URL`; nothing is read until a value is requested.
    public convenience init(url URL: URL) {
        self.init(url: URL, loaderOptions: [:])
    }

    init(url: URL, loaderOptions: [String: any Sendable]) {
        loader = AssetLoader(url: url, options: loaderOptions)
        super.init()
    }

    /// Returns the object itself: it is immutable, so it is its own copy.
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
            var (metadata, format) = AVMetadataItem.items(fromContainer: d.containerMetadata, formatName: d.formatName)
            metadata += d.artwork.map { AVMetadataItem.artwork($0.data, codecName: $0.codecName, format: format) }
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

    /// The rate the asset prefers to play at: a QuickTime / MP4 file's movie header (`mvhd`) says; 1 for other
    /// containers. (A player does not apply it by itself: apps set `rate` from it.)
    @available(iOS, deprecated: 16.0, message: "Use load(.preferredRate) instead")
    open var preferredRate: Float { (try? description().movieHeader).flatMap { $0.map { Float($0.rate) } } ?? 1 }

    /// The volume the asset prefers to play at (0…1): a QuickTime / MP4 file's movie header says; 1 otherwise.
    @available(iOS, deprecated: 16.0, message: "Use load(.preferredVolume) instead")
    open var preferredVolume: Float { (try? description().movieHeader).flatMap { $0.map { Float($0.volume) } } ?? 1 }

    /// The transform the asset prefers for display: a QuickTime / MP4 file's movie matrix (`mvhd`); the identity
    /// otherwise. Track transforms are on ``AVAssetTrack``.
    @available(iOS, deprecated: 16.0, message: "Use load(.preferredTransform) instead")
    open var preferredTransform: CGAffineTransform {
        guard let header = (try? description())?.movieHeader, header.matrix.count == 9 else { return .identity }
        let m = header.matrix
        return CGAffineTransform(a: m[0], b: m[1], c: m[3], d: m[4], tx: m[6], ty: m[7])
    }

    /// Whether the duration and timing are precise: false only when libavformat estimated the duration from the bit
    /// rate.
    @available(iOS, deprecated: 16.0, message: "Use load(.providesPreciseDurationAndTiming) instead")
    open var providesPreciseDurationAndTiming: Bool { (try? description().providesPreciseDurationAndTiming) ?? false }

    /// Whether the asset has protected content: always false (no DRM is read here).
    @available(iOS, deprecated: 16.0, message: "Use load(.hasProtectedContent) instead")
    open var hasProtectedContent: Bool { false }

    /// The asset's metadata items, in the key space of its container.
    @available(iOS, deprecated: 16.0, message: "Use load(.metadata) instead")
    open var metadata: [AVMetadataItem] { objectsOrEmpty()?.metadata ?? [] }

    /// The metadata items that have a common key.
    @available(iOS, deprecated: 16.0, message: "Use load(.commonMetadata) instead")
    open var commonMetadata: [AVMetadataItem] { objectsOrEmpty()?.commonMetadata ?? [] }

    /// The metadata formats the asset has items in (none or one: its container's).
    @available(iOS, deprecated: 16.0, message: "Use load(.availableMetadataFormats) instead")
    open var availableMetadataFormats: [AVMetadataFormat] {
        guard let o = objectsOrEmpty(), !o.metadata.isEmpty else { return [] }
        return [o.metadataFormat]
    }

    /// The creation date item of the common metadata, if any.
    @available(iOS, deprecated: 16.0, message: "Use load(.creationDate) instead")
    open var creationDate: AVMetadataItem? {
        commonMetadata.first { $0.commonKey == .commonKeyCreationDate }
    }

    /// The media characteristics that have media-selection groups (audible, legible).
    @available(iOS, deprecated: 16.0, message: "Use load(.availableMediaCharacteristicsWithMediaSelectionOptions)")
    open var availableMediaCharacteristicsWithMediaSelectionOptions: [AVMediaCharacteristic] {
        objectsOrEmpty()?.groups.map(\.characteristic) ?? []
    }

    /// The default selection in each media-selection group.
    @available(iOS, deprecated: 16.0, message: "Use load(.preferredMediaSelection) instead")
    open var preferredMediaSelection: AVMediaSelection {
        AVMediaSelection(asset: self, groups: objectsOrEmpty()?.groups ?? [], selections: [:])
    }

    /// Every combination of options of the media-selection groups (with "none" where a group allows an empty
    /// selection).
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

    /// The locales of the chapter titles (from each chapter's language tag; `und` for titles without one), empty
    /// when the container has no chapters.
    @available(iOS, deprecated: 16.0, message: "Use load(.availableChapterLocales) instead")
    open var availableChapterLocales: [Locale] {
        var seen: [String] = []
        for chapter in (try? description())?.chapters ?? [] {
            let tag = Self.chapterLanguage(chapter)
            if !seen.contains(tag) { seen.append(tag) }
        }
        return seen.map { Locale(identifier: $0) }
    }

    /// A hint of the overall duration: always `.invalid` (the duration is loaded instead).
    @available(iOS, deprecated: 16.0, message: "Use load(.overallDurationHint) instead")
    open var overallDurationHint: CMTime { .invalid }

    /// How far behind the live edge playback should stay: always `.invalid` for an asset.
    @available(iOS, deprecated: 16.0, message: "Use load(.minimumTimeOffsetFromLive) instead")
    open var minimumTimeOffsetFromLive: CMTime { .invalid }

    /// Playback only: this framework does not export, compose or write.
    @available(iOS, deprecated: 16.0, message: "Use load(.isExportable) instead")
    open var isExportable: Bool { false }

    /// Whether the asset's media can be read: true when the input opens and probes.
    @available(iOS, deprecated: 16.0, message: "Use load(.isReadable) instead")
    open var isReadable: Bool { (try? description()) != nil }

    /// Whether the asset can be used in a composition: always false (no editing here).
    @available(iOS, deprecated: 16.0, message: "Use load(.isComposable) instead")
    open var isComposable: Bool { false }

    /// Whether the asset can be played over AirPlay: always false (no AirPlay on Linux).
    @available(iOS, deprecated: 16.0, message: "Use load(.isCompatibleWithAirPlayVideo) instead")
    open var isCompatibleWithAirPlayVideo: Bool { false }

    /// Whether the asset could contain fragments: always false.
    @available(iOS, deprecated: 16.0, message: "Use load(.canContainFragments) instead")
    open var canContainFragments: Bool { false }

    /// Whether the asset contains fragments: always false.
    @available(iOS, deprecated: 16.0, message: "Use load(.containsFragments) instead")
    open var containsFragments: Bool { false }

    /// The tracks of a media type (empty until the tracks are loaded).
    @available(iOS, deprecated: 16.0, message: "Use loadTracks(withMediaType:) instead")
    open func tracks(withMediaType mediaType: AVMediaType) -> [AVAssetTrack] {
        tracks.filter { $0.mediaType == mediaType }
    }

    /// The track with an ID, if any (nil until the tracks are loaded).
    @available(iOS, deprecated: 16.0, message: "Use loadTrack(withTrackID:) instead")
    open func track(withTrackID trackID: CMPersistentTrackID) -> AVAssetTrack? {
        tracks.first { $0.trackID == trackID }
    }

    /// The tracks that have a media characteristic (empty until the tracks are loaded).
    @available(iOS, deprecated: 16.0, message: "Use loadTracks(withMediaCharacteristic:) instead")
    open func tracks(withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic) -> [AVAssetTrack] {
        tracks.filter { $0.hasMediaCharacteristic(mediaCharacteristic) }
    }

    /// The media-selection group of a characteristic (audible, legible), if the asset has one.
    @available(iOS, deprecated: 16.0, message: "Use loadMediaSelectionGroup(for:) instead")
    open func mediaSelectionGroup(
        forMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic
    )
        -> AVMediaSelectionGroup?
    {
        objectsOrEmpty()?.groups.first { $0.characteristic == mediaCharacteristic }
    }

    /// The metadata items in a format (empty when the container's format is another).
    @available(iOS, deprecated: 16.0, message: "Use loadMetadata(for:) instead")
    open func metadata(forFormat format: AVMetadataFormat) -> [AVMetadataItem] {
        guard let o = objectsOrEmpty(), o.metadataFormat == format else { return [] }
        return o.metadata
    }

    // MARK: Asynchronous methods

    /// Loads the tracks and returns those of a media type.
    public func loadTracks(withMediaType mediaType: AVMediaType) async throws -> [AVAssetTrack] {
        try await awaitValues(forKeys: ["tracks"])
        return tracks(withMediaType: mediaType)
    }

    /// Loads the tracks and calls the handler with those of a media type, or with the error.
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

    /// Loads the tracks and returns those that have a media characteristic.
    public func loadTracks(
        withMediaCharacteristic mediaCharacteristic: AVMediaCharacteristic
    ) async throws
        -> [AVAssetTrack]
    {
        try await awaitValues(forKeys: ["tracks"])
        return tracks(withMediaCharacteristic: mediaCharacteristic)
    }

    /// Loads the tracks and calls the handler with those that have a media characteristic, or with the error.
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

    /// Loads the tracks and returns the one with an ID, if any.
    public func loadTrack(withTrackID trackID: CMPersistentTrackID) async throws -> AVAssetTrack? {
        try await awaitValues(forKeys: ["tracks"])
        return track(withTrackID: trackID)
    }

    /// Loads the tracks and calls the handler with the one with an ID (nil when none has it), or with the error.
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

    /// Loads the media-selection groups and returns the one of a characteristic, if any.
    public func loadMediaSelectionGroup(
        for mediaCharacteristic: AVMediaCharacteristic
    ) async throws
        -> AVMediaSelectionGroup?
    {
        try await awaitValues(forKeys: ["availableMediaCharacteristicsWithMediaSelectionOptions"])
        return mediaSelectionGroup(forMediaCharacteristic: mediaCharacteristic)
    }

    /// Loads the media-selection groups and calls the handler with the one of a characteristic, or with the error.
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

    /// Loads the metadata and returns the items in a format.
    public func loadMetadata(for format: AVMetadataFormat) async throws -> [AVMetadataItem] {
        try await awaitValues(forKeys: ["metadata"])
        return metadata(forFormat: format)
    }

    /// Loads the metadata and calls the handler with the items of a format, or with the error.
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
/// An `AVURLAsset` option that overrides the MIME type: accepted and ignored (libavformat probes the content).
public let AVURLAssetOverrideMIMETypeKey = "AVURLAssetOverrideMIMETypeKey"
/// An `AVURLAsset` option: the `User-Agent` header of HTTP requests (a `String`).
public let AVURLAssetHTTPUserAgentKey = "AVURLAssetHTTPUserAgentKey"
/// An `AVURLAsset` option: the cookies (`[HTTPCookie]`) its HTTP requests may carry. Each request of the asset (the
/// probe, playback, an HLS presentation's playlists, keys and segments, on whatever host) carries those that apply
/// to its URL by the cookie's domain, path, secure flag and expiry; none come from a shared cookie store.
public let AVURLAssetHTTPCookiesKey = "AVURLAssetHTTPCookiesKey"
/// An `AVURLAsset` option to allow cellular access: accepted; Linux has no notion of a cellular interface for an
/// app, so every network the machine routes through is used.
public let AVURLAssetAllowsCellularAccessKey = "AVURLAssetAllowsCellularAccessKey"
/// An `AVURLAsset` option to allow expensive networks: accepted; Linux does not tell an app which networks are
/// expensive, so any is used.
public let AVURLAssetAllowsExpensiveNetworkAccessKey = "AVURLAssetAllowsExpensiveNetworkAccessKey"
/// An `AVURLAsset` option to allow networks in Low Data Mode: accepted; Linux has no Low Data Mode, so any network
/// is used.
public let AVURLAssetAllowsConstrainedNetworkAccessKey = "AVURLAssetAllowsConstrainedNetworkAccessKey"
/// An `AVURLAsset` option restricting references to other files: accepted and ignored.
public let AVURLAssetReferenceRestrictionsKey = "AVURLAssetReferenceRestrictionsKey"

/// An asset at a URL: a local file, or anything libavformat reads (http, https, …).
///
/// Options honoured: `AVURLAssetHTTPUserAgentKey`, `"AVURLAssetHTTPHeaderFieldsKey"` (`[String: String]`),
/// `AVURLAssetHTTPCookiesKey` (`[HTTPCookie]`, each request carries those that apply to its URL) and
/// `AVURLAssetPreferPreciseDurationAndTimingKey` (durations are always taken from timestamps where the container has
/// them; with the key, one that libavformat could only estimate from the bit rate is made exact by reading the input
/// once). The network-access keys (cellular, expensive, constrained) are accepted: Linux does not tell an app which
/// network is which.
open class AVURLAsset: AVAsset, @unchecked Sendable {
    /// The URL the asset was created with.
    public let url: URL

    /// An asset for the media at a URL, with options (see ``AVURLAsset``).
    public init(url URL: URL, options: [String: Any]? = nil) {
        self.url = URL
        var sendable: [String: any Sendable] = [:]
        for (k, v) in options ?? [:] {
            if let s = v as? String {
                sendable[k] = s
            } else if let d = v as? [String: String] {
                sendable[k] = d
            } else if let cookies = v as? [HTTPCookie] {
                sendable[k] = cookies.map { c in
                    SourceCookie(
                        name: c.name, value: c.value, domain: c.domain, path: c.path, isSecure: c.isSecure,
                        expiresDate: c.expiresDate)
                }
            } else if k == Self.oavfNetworkTransportKey, let transport = v as? any NetworkTransport {
                sendable[k] = NetworkTransportReference(transport)
            } else if let b = v as? Bool {
                sendable[k] = b
            } else if let n = v as? NSNumber {
                sendable[k] = n.boolValue
            }
        }
        // Every HTTP request of the asset names its session, as Apple's do (a header the app sets wins).
        let session = UUID()
        httpSessionIdentifier = session
        var headers = sendable["AVURLAssetHTTPHeaderFieldsKey"] as? [String: String] ?? [:]
        if !headers.keys.contains(where: { $0.caseInsensitiveCompare(Self.sessionHeader) == .orderedSame }) {
            headers[Self.sessionHeader] = session.uuidString
        }
        sendable["AVURLAssetHTTPHeaderFieldsKey"] = headers
        // A URL the player can't load itself gets its bytes from the resource loader's delegate.
        let resourceLoader = AVAssetResourceLoader()
        self.resourceLoader = resourceLoader
        sendable[Self.resourceLoaderOptionKey] = CustomInputReference(resourceLoader)
        super.init(url: URL, loaderOptions: sendable)
    }

    /// The asset's resource loader, as Apple's: its delegate supplies the bytes of a URL whose scheme is not `file`,
    /// `http` or `https` (see ``AVAssetResourceLoader``). One per asset.
    public let resourceLoader: AVAssetResourceLoader

    /// Where the asset's options carry its resource loader to the engine (``SourceOptions/customInput``).
    static let resourceLoaderOptionKey = "OAVFResourceLoader"

    /// The identifier of the HTTP session the asset's requests belong to: sent with each of them (media playlists,
    /// segments, keys, progressive downloads) as `X-Playback-Session-Id`, as Apple's players do.
    public let httpSessionIdentifier: UUID

    /// The request header that carries ``httpSessionIdentifier``.
    static let sessionHeader = "X-Playback-Session-Id"

    /// Not Apple's, and not public: the options key whose value (a `NetworkTransport`) carries the asset's requests
    /// instead of URLSession and times its transfers on its own clock — how a test plays a stream over a recorded
    /// network trace on the player's virtual clock (`SourceOptions.transport`).
    static let oavfNetworkTransportKey = "oavfNetworkTransport"

    public convenience init(url URL: URL) {
        self.init(url: URL, options: nil)
    }

    /// File types this framework can play (a representative list; libavformat reads many more).
    open class func audiovisualTypes() -> [AVFileType] {
        [.mov, .mp4, .m4v, .m4a, .mp3, .wav, .aiff, .caf, .ac3, .mobile3GPP]
    }

    /// MIME types this framework can play (a representative list; libavformat reads many more).
    open class func audiovisualMIMETypes() -> [String] {
        [
            "video/mp4", "video/quicktime", "audio/mp4", "audio/mpeg", "audio/wav", "audio/flac", "video/webm",
            "audio/webm", "video/x-matroska", "video/mp2t", "application/vnd.apple.mpegurl", "audio/ogg",
        ]
    }

    /// Whether a MIME type, with or without parameters (`video/mp4; codecs=…`), is in ``audiovisualMIMETypes()``.
    open class func isPlayableExtendedMIMEType(_ extendedMIMEType: String) -> Bool {
        let base = extendedMIMEType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return audiovisualMIMETypes().contains(base.lowercased())
    }
}
