import Foundation

/// The error domain of AVFoundation errors.
public let AVFoundationErrorDomain: String = "AVFoundationErrorDomain"

/// An AVFoundation error: a code in ``AVFoundationErrorDomain`` plus user info.
///
/// Errors the framework hands out (`AVPlayerItem.error`, `AVAsset.load` throws,
/// `statusOfValue(forKey:error:)`) are `AVError`s. As on Apple's systems, bridge to `NSError` with
/// `error as NSError` to read `domain`, `code` and `userInfo`, or match with `catch let e as AVError`.
///
/// User info: `NSLocalizedDescriptionKey` says in words what failed (this differs from Apple,
/// whose descriptions are terse, e.g. "Cannot Open"); `NSLocalizedFailureReasonErrorKey` says why;
/// `NSUnderlyingErrorKey` holds the FFmpeg error (domain ``AVError/ffmpegErrorDomain``, code = the
/// `AVERROR` value, `NSLocalizedDescriptionKey` = FFmpeg's message), or a POSIX error; `NSURLErrorKey`
/// the URL involved.
public struct AVError: CustomNSError, Hashable, Error, @unchecked Sendable {
    /// The codes Apple's `AVError.h` defines, with Apple's raw values.
    public enum Code: Int, Sendable {
        /// An unknown error (`-11800`).
        case unknown = -11800
        /// Out of memory (`-11801`).
        case outOfMemory = -11801
        /// Session not running (`-11803`).
        case sessionNotRunning = -11803
        /// Device already used by another session (`-11804`).
        case deviceAlreadyUsedByAnotherSession = -11804
        /// No data captured (`-11805`).
        case noDataCaptured = -11805
        /// Session configuration changed (`-11806`).
        case sessionConfigurationChanged = -11806
        /// Disk full (`-11807`).
        case diskFull = -11807
        /// Device was disconnected (`-11808`).
        case deviceWasDisconnected = -11808
        /// Media changed (`-11809`).
        case mediaChanged = -11809
        /// Maximum duration reached (`-11810`).
        case maximumDurationReached = -11810
        /// Maximum file size reached (`-11811`).
        case maximumFileSizeReached = -11811
        /// Media discontinuity (`-11812`).
        case mediaDiscontinuity = -11812
        /// Maximum number of samples for file format reached (`-11813`).
        case maximumNumberOfSamplesForFileFormatReached = -11813
        /// Device not connected (`-11814`).
        case deviceNotConnected = -11814
        /// Device in use by another application (`-11815`).
        case deviceInUseByAnotherApplication = -11815
        /// Device locked for configuration by another process (`-11817`).
        case deviceLockedForConfigurationByAnotherProcess = -11817
        /// Session was interrupted (`-11818`).
        case sessionWasInterrupted = -11818
        /// Media services were reset (`-11819`).
        case mediaServicesWereReset = -11819
        /// Export failed (`-11820`).
        case exportFailed = -11820
        /// Decode failed (`-11821`).
        case decodeFailed = -11821
        /// Invalid source media (`-11822`).
        case invalidSourceMedia = -11822
        /// File already exists (`-11823`).
        case fileAlreadyExists = -11823
        /// Composition track segments not contiguous (`-11824`).
        case compositionTrackSegmentsNotContiguous = -11824
        /// Invalid composition track segment duration (`-11825`).
        case invalidCompositionTrackSegmentDuration = -11825
        /// Invalid composition track segment source start time (`-11826`).
        case invalidCompositionTrackSegmentSourceStartTime = -11826
        /// Invalid composition track segment source duration (`-11827`).
        case invalidCompositionTrackSegmentSourceDuration = -11827
        /// The input is not a media file this player recognizes: a directory, an empty file, text (`-11828`).
        case fileFormatNotRecognized = -11828
        /// The file is damaged or incomplete: a truncated MP4 without `moov`, a corrupt header (`-11829`).
        case fileFailedToParse = -11829
        /// Maximum still image capture requests exceeded (`-11830`).
        case maximumStillImageCaptureRequestsExceeded = -11830
        /// Content is protected (`-11831`).
        case contentIsProtected = -11831
        /// No image at time (`-11832`).
        case noImageAtTime = -11832
        /// No decoder for the codec of a track that is played (`-11833`).
        case decoderNotFound = -11833
        /// Encoder not found (`-11834`).
        case encoderNotFound = -11834
        /// Permission denied: unreadable file, or HTTP 401–403 (`-11835`).
        case contentIsNotAuthorized = -11835
        /// Application is not authorized (`-11836`).
        case applicationIsNotAuthorized = -11836
        /// Device is not available in background (`-11837`).
        case deviceIsNotAvailableInBackground = -11837
        /// Operation not supported for asset (`-11838`).
        case operationNotSupportedForAsset = -11838
        /// Decoder temporarily unavailable (`-11839`).
        case decoderTemporarilyUnavailable = -11839
        /// Encoder temporarily unavailable (`-11840`).
        case encoderTemporarilyUnavailable = -11840
        /// Invalid video composition (`-11841`).
        case invalidVideoComposition = -11841
        /// Reference forbidden by reference policy (`-11842`).
        case referenceForbiddenByReferencePolicy = -11842
        /// Invalid output URL path extension (`-11843`).
        case invalidOutputURLPathExtension = -11843
        /// Screen capture failed (`-11844`).
        case screenCaptureFailed = -11844
        /// Display was disabled (`-11845`).
        case displayWasDisabled = -11845
        /// Torch level unavailable (`-11846`).
        case torchLevelUnavailable = -11846
        /// Operation interrupted (`-11847`).
        case operationInterrupted = -11847
        /// Incompatible asset (`-11848`).
        case incompatibleAsset = -11848
        /// Failed to load media data (`-11849`).
        case failedToLoadMediaData = -11849
        /// The server answered with an error: HTTP 5xx (`-11850`).
        case serverIncorrectlyConfigured = -11850
        /// Application is not authorized to use device (`-11852`).
        case applicationIsNotAuthorizedToUseDevice = -11852
        /// Failed to parse (`-11853`).
        case failedToParse = -11853
        /// File type does not support sample references (`-11854`).
        case fileTypeDoesNotSupportSampleReferences = -11854
        /// Undecodable media data (`-11855`).
        case undecodableMediaData = -11855
        /// Air play controller requires internet (`-11856`).
        case airPlayControllerRequiresInternet = -11856
        /// Air play receiver requires internet (`-11857`).
        case airPlayReceiverRequiresInternet = -11857
        /// Video compositor failed (`-11858`).
        case videoCompositorFailed = -11858
        /// Recording already in progress (`-11859`).
        case recordingAlreadyInProgress = -11859
        /// Unsupported output settings (`-11861`).
        case unsupportedOutputSettings = -11861
        /// Operation not allowed (`-11862`).
        case operationNotAllowed = -11862
        /// The content is not there: a missing file, HTTP 404, a refused or dead connection (`-11863`).
        case contentIsUnavailable = -11863
        /// The URL's scheme or the format is not supported (`-11864`).
        case formatUnsupported = -11864
        /// Malformed depth (`-11865`).
        case malformedDepth = -11865
        /// Content not updated (`-11866`).
        case contentNotUpdated = -11866
        /// No longer playable (`-11867`).
        case noLongerPlayable = -11867
        /// No compatible alternates for external display (`-11868`).
        case noCompatibleAlternatesForExternalDisplay = -11868
        /// No source track (`-11869`).
        case noSourceTrack = -11869
        /// External playback not supported for asset (`-11870`).
        case externalPlaybackNotSupportedForAsset = -11870
        /// Operation not supported for preset (`-11871`).
        case operationNotSupportedForPreset = -11871
        /// Session hardware cost overage (`-11872`).
        case sessionHardwareCostOverage = -11872
        /// Unsupported device active format (`-11873`).
        case unsupportedDeviceActiveFormat = -11873
        /// Incorrectly configured (`-11875`).
        case incorrectlyConfigured = -11875
        /// Segment started with non sync sample (`-11876`).
        case segmentStartedWithNonSyncSample = -11876
        /// Rosetta not installed (`-11877`).
        case rosettaNotInstalled = -11877
        /// Loading was cancelled (`cancelLoading()`), or a network read stalled for 15 s (`-11878`).
        case operationCancelled = -11878
        /// Request cancelled (`-11879`).
        case requestCancelled = -11879
        /// Invalid sample cursor (`-11880`).
        case invalidSampleCursor = -11880
        /// Failed to load sample data (`-11881`).
        case failedToLoadSampleData = -11881
        /// Air play receiver temporarily unavailable (`-11882`).
        case airPlayReceiverTemporarilyUnavailable = -11882
        /// A picture could not be encoded, e.g. by `OAVFWritePNG(_:to:)` (`-11883`).
        case encodeFailed = -11883
        /// Sandbox extension denied (`-11884`).
        case sandboxExtensionDenied = -11884
        /// Tone mapping failed (`-11885`).
        case toneMappingFailed = -11885
        /// Media extension disabled (`-11886`).
        case mediaExtensionDisabled = -11886
        /// Media extension conflict (`-11887`).
        case mediaExtensionConflict = -11887
    }

    /// The domain of errors from FFmpeg found under `NSUnderlyingErrorKey` (not Apple's).
    public static let ffmpegErrorDomain = "org.ffmpeg.AVERROR"

    /// The error domain, ``AVFoundationErrorDomain``.
    public static var errorDomain: String { AVFoundationErrorDomain }

    /// The error's code.
    public let code: Code
    /// The user info: description, failure reason, underlying error, URL.
    public let errorUserInfo: [String: Any]

    /// An error with a code and user info.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.errorUserInfo = userInfo
    }

    /// The code's raw value, the `NSError` code.
    public var errorCode: Int { code.rawValue }

    /// The underlying error, if any.
    public var underlyingError: (any Error)? { errorUserInfo[NSUnderlyingErrorKey] as? any Error }

    /// Whether two errors have the same code and equal user info.
    public static func == (lhs: AVError, rhs: AVError) -> Bool {
        lhs.code == rhs.code && (lhs as NSError).isEqual(rhs as NSError)
    }

    /// Hashes the code.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    // Apple exposes each code as a static on AVError too (`AVError.fileFormatNotRecognized`).
    /// The ``Code-swift.enum/unknown`` code, as Apple also spells it on `AVError` (`AVError.unknown`).
    public static var unknown: Code { .unknown }
    /// The ``Code-swift.enum/outOfMemory`` code, as Apple also spells it on `AVError` (`AVError.outOfMemory`).
    public static var outOfMemory: Code { .outOfMemory }
    /// The ``Code-swift.enum/mediaServicesWereReset`` code, as Apple also spells it on `AVError`
    /// (`AVError.mediaServicesWereReset`).
    public static var mediaServicesWereReset: Code { .mediaServicesWereReset }
    /// The ``Code-swift.enum/decodeFailed`` code, as Apple also spells it on `AVError` (`AVError.decodeFailed`).
    public static var decodeFailed: Code { .decodeFailed }
    /// The ``Code-swift.enum/invalidSourceMedia`` code, as Apple also spells it on `AVError`
    /// (`AVError.invalidSourceMedia`).
    public static var invalidSourceMedia: Code { .invalidSourceMedia }
    /// The ``Code-swift.enum/fileFormatNotRecognized`` code, as Apple also spells it on `AVError`
    /// (`AVError.fileFormatNotRecognized`).
    public static var fileFormatNotRecognized: Code { .fileFormatNotRecognized }
    /// The ``Code-swift.enum/fileFailedToParse`` code, as Apple also spells it on `AVError`
    /// (`AVError.fileFailedToParse`).
    public static var fileFailedToParse: Code { .fileFailedToParse }
    /// The ``Code-swift.enum/contentIsProtected`` code, as Apple also spells it on `AVError`
    /// (`AVError.contentIsProtected`).
    public static var contentIsProtected: Code { .contentIsProtected }
    /// The ``Code-swift.enum/decoderNotFound`` code, as Apple also spells it on `AVError` (`AVError.decoderNotFound`).
    public static var decoderNotFound: Code { .decoderNotFound }
    /// The ``Code-swift.enum/contentIsNotAuthorized`` code, as Apple also spells it on `AVError`
    /// (`AVError.contentIsNotAuthorized`).
    public static var contentIsNotAuthorized: Code { .contentIsNotAuthorized }
    /// The ``Code-swift.enum/operationNotSupportedForAsset`` code, as Apple also spells it on `AVError`
    /// (`AVError.operationNotSupportedForAsset`).
    public static var operationNotSupportedForAsset: Code { .operationNotSupportedForAsset }
    /// The ``Code-swift.enum/decoderTemporarilyUnavailable`` code, as Apple also spells it on `AVError`
    /// (`AVError.decoderTemporarilyUnavailable`).
    public static var decoderTemporarilyUnavailable: Code { .decoderTemporarilyUnavailable }
    /// The ``Code-swift.enum/incompatibleAsset`` code, as Apple also spells it on `AVError`
    /// (`AVError.incompatibleAsset`).
    public static var incompatibleAsset: Code { .incompatibleAsset }
    /// The ``Code-swift.enum/failedToLoadMediaData`` code, as Apple also spells it on `AVError`
    /// (`AVError.failedToLoadMediaData`).
    public static var failedToLoadMediaData: Code { .failedToLoadMediaData }
    /// The ``Code-swift.enum/serverIncorrectlyConfigured`` code, as Apple also spells it on `AVError`
    /// (`AVError.serverIncorrectlyConfigured`).
    public static var serverIncorrectlyConfigured: Code { .serverIncorrectlyConfigured }
    /// The ``Code-swift.enum/undecodableMediaData`` code, as Apple also spells it on `AVError`
    /// (`AVError.undecodableMediaData`).
    public static var undecodableMediaData: Code { .undecodableMediaData }
    /// The ``Code-swift.enum/contentIsUnavailable`` code, as Apple also spells it on `AVError`
    /// (`AVError.contentIsUnavailable`).
    public static var contentIsUnavailable: Code { .contentIsUnavailable }
    /// The ``Code-swift.enum/formatUnsupported`` code, as Apple also spells it on `AVError`
    /// (`AVError.formatUnsupported`).
    public static var formatUnsupported: Code { .formatUnsupported }
    /// The ``Code-swift.enum/noLongerPlayable`` code, as Apple also spells it on `AVError`
    /// (`AVError.noLongerPlayable`).
    public static var noLongerPlayable: Code { .noLongerPlayable }
    /// The ``Code-swift.enum/noSourceTrack`` code, as Apple also spells it on `AVError` (`AVError.noSourceTrack`).
    public static var noSourceTrack: Code { .noSourceTrack }
    /// The ``Code-swift.enum/operationCancelled`` code, as Apple also spells it on `AVError`
    /// (`AVError.operationCancelled`).
    public static var operationCancelled: Code { .operationCancelled }
    /// The ``Code-swift.enum/operationInterrupted`` code, as Apple also spells it on `AVError`
    /// (`AVError.operationInterrupted`).
    public static var operationInterrupted: Code { .operationInterrupted }
}
