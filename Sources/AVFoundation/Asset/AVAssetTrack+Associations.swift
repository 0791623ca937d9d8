import CoreMedia
import Foundation

extension AVAssetTrack {
    /// Kinds of association between tracks (the QuickTime track reference types).
    public struct AssociationType: RawRepresentable, Hashable, Sendable {
        /// The type's four-character code (the track reference type).
        public let rawValue: String
        /// The association type with the code `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The associated track has the same content in a more widely supported format.
        public static let audioFallback = AssociationType(rawValue: "fall")
        /// The associated track holds the base track's chapters.
        public static let chapterList = AssociationType(rawValue: "chap")
        /// From a subtitle track with forced and non-forced subtitles to one with the forced ones only.
        public static let forcedSubtitlesOnly = AssociationType(rawValue: "forc")
        /// From a metadata track to the track it describes.
        public static let metadataReferent = AssociationType(rawValue: "cdsc")
        /// The associated track's selection follows the base track's.
        public static let selectionFollower = AssociationType(rawValue: "folw")
        /// The associated track holds the base track's timecode.
        public static let timecode = AssociationType(rawValue: "tmcd")
    }

    /// The association types this track has associated tracks for. Only `.forcedSubtitlesOnly` is known: a subtitle
    /// track that is not forced-only is associated with the forced-only subtitle tracks of its language (Matroska
    /// and MP4 `forced` dispositions); libavformat exposes no other track reference (chapters are read as chapters,
    /// not as a track).
    @available(iOS, deprecated: 16.0, message: "Use load(.availableTrackAssociationTypes) instead")
    public var availableTrackAssociationTypes: [AssociationType] {
        forcedSubtitleTracks.isEmpty ? [] : [.forcedSubtitlesOnly]
    }

    /// The tracks associated with this one by `trackAssociationType` (see ``availableTrackAssociationTypes``).
    @available(iOS, deprecated: 16.0, message: "Use loadAssociatedTracks(ofType:) instead")
    public func associatedTracks(ofType trackAssociationType: AssociationType) -> [AVAssetTrack] {
        trackAssociationType == .forcedSubtitlesOnly ? forcedSubtitleTracks : []
    }

    /// ``associatedTracks(ofType:)``, loaded.
    public func loadAssociatedTracks(ofType trackAssociationType: AssociationType) async throws -> [AVAssetTrack] {
        associatedTracks(ofType: trackAssociationType)
    }

    /// ``associatedTracks(ofType:)``, loaded, with a completion handler.
    public func loadAssociatedTracks(
        ofType trackAssociationType: AssociationType,
        completionHandler: @escaping @Sendable ([AVAssetTrack]?, (any Error)?) -> Void
    ) {
        completionHandler(associatedTracks(ofType: trackAssociationType), nil)
    }

    /// The presentation time of the media sample played at `trackTime`: the time mapped through the track's segment
    /// (its only one maps the track's time range to itself, see ``AVAssetTrackSegment``), so `trackTime` itself.
    @available(iOS, deprecated: 16.0, message: "Use loadSamplePresentationTime(forTrackTime:) instead")
    public func samplePresentationTime(forTrackTime trackTime: CMTime) -> CMTime {
        guard let segment = segment(forTrackTime: trackTime), !segment.isEmpty else { return .invalid }
        let mapping = segment.timeMapping
        return mapping.source.start + (trackTime - mapping.target.start)
    }

    /// ``samplePresentationTime(forTrackTime:)``, loaded.
    public func loadSamplePresentationTime(forTrackTime trackTime: CMTime) async throws -> CMTime {
        samplePresentationTime(forTrackTime: trackTime)
    }

    /// ``samplePresentationTime(forTrackTime:)``, loaded, with a completion handler.
    public func loadSamplePresentationTime(
        forTrackTime trackTime: CMTime, completionHandler: @escaping @Sendable (CMTime, (any Error)?) -> Void
    ) {
        completionHandler(samplePresentationTime(forTrackTime: trackTime), nil)
    }

    /// For a subtitle track that is not forced-only: the forced-only subtitle tracks of its language.
    private var forcedSubtitleTracks: [AVAssetTrack] {
        guard mediaType == .subtitle || mediaType == .text, !hasMediaCharacteristic(.containsOnlyForcedSubtitles),
            let language = primaryLanguage, let asset
        else { return [] }
        return asset.tracks.filter {
            $0 !== self && $0.mediaType == mediaType && $0.hasMediaCharacteristic(.containsOnlyForcedSubtitles)
                && $0.primaryLanguage == language
        }
    }

    /// The language tag's primary subtag, lowercased; nil without a language or for `und`.
    private var primaryLanguage: String? {
        guard let tag = extendedLanguageTag?.split(separator: "-").first?.lowercased(), tag != "und" else {
            return nil
        }
        return tag
    }
}

extension AVAsyncProperty where Root: AVAssetTrack, Value == [AVAssetTrack.AssociationType] {
    /// The track's ``AVAssetTrack/availableTrackAssociationTypes``.
    public static var availableTrackAssociationTypes: AVAsyncProperty<Root, [AVAssetTrack.AssociationType]> {
        .init(key: "availableTrackAssociationTypes") { $0.availableTrackAssociationTypes }
    }
}
