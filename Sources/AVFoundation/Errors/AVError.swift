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
        case unknown = -11800
        case outOfMemory = -11801
        case sessionNotRunning = -11803
        case deviceAlreadyUsedByAnotherSession = -11804
        case noDataCaptured = -11805
        case sessionConfigurationChanged = -11806
        case diskFull = -11807
        case deviceWasDisconnected = -11808
        case mediaChanged = -11809
        case maximumDurationReached = -11810
        case maximumFileSizeReached = -11811
        case mediaDiscontinuity = -11812
        case maximumNumberOfSamplesForFileFormatReached = -11813
        case deviceNotConnected = -11814
        case deviceInUseByAnotherApplication = -11815
        case deviceLockedForConfigurationByAnotherProcess = -11817
        case sessionWasInterrupted = -11818
        case mediaServicesWereReset = -11819
        case exportFailed = -11820
        case decodeFailed = -11821
        case invalidSourceMedia = -11822
        case fileAlreadyExists = -11823
        case compositionTrackSegmentsNotContiguous = -11824
        case invalidCompositionTrackSegmentDuration = -11825
        case invalidCompositionTrackSegmentSourceStartTime = -11826
        case invalidCompositionTrackSegmentSourceDuration = -11827
        case fileFormatNotRecognized = -11828
        case fileFailedToParse = -11829
        case maximumStillImageCaptureRequestsExceeded = -11830
        case contentIsProtected = -11831
        case noImageAtTime = -11832
        case decoderNotFound = -11833
        case encoderNotFound = -11834
        case contentIsNotAuthorized = -11835
        case applicationIsNotAuthorized = -11836
        case deviceIsNotAvailableInBackground = -11837
        case operationNotSupportedForAsset = -11838
        case decoderTemporarilyUnavailable = -11839
        case encoderTemporarilyUnavailable = -11840
        case invalidVideoComposition = -11841
        case referenceForbiddenByReferencePolicy = -11842
        case invalidOutputURLPathExtension = -11843
        case screenCaptureFailed = -11844
        case displayWasDisabled = -11845
        case torchLevelUnavailable = -11846
        case operationInterrupted = -11847
        case incompatibleAsset = -11848
        case failedToLoadMediaData = -11849
        case serverIncorrectlyConfigured = -11850
        case applicationIsNotAuthorizedToUseDevice = -11852
        case failedToParse = -11853
        case fileTypeDoesNotSupportSampleReferences = -11854
        case undecodableMediaData = -11855
        case airPlayControllerRequiresInternet = -11856
        case airPlayReceiverRequiresInternet = -11857
        case videoCompositorFailed = -11858
        case recordingAlreadyInProgress = -11859
        case unsupportedOutputSettings = -11861
        case operationNotAllowed = -11862
        case contentIsUnavailable = -11863
        case formatUnsupported = -11864
        case malformedDepth = -11865
        case contentNotUpdated = -11866
        case noLongerPlayable = -11867
        case noCompatibleAlternatesForExternalDisplay = -11868
        case noSourceTrack = -11869
        case externalPlaybackNotSupportedForAsset = -11870
        case operationNotSupportedForPreset = -11871
        case sessionHardwareCostOverage = -11872
        case unsupportedDeviceActiveFormat = -11873
        case incorrectlyConfigured = -11875
        case segmentStartedWithNonSyncSample = -11876
        case rosettaNotInstalled = -11877
        case operationCancelled = -11878
        case requestCancelled = -11879
        case invalidSampleCursor = -11880
        case failedToLoadSampleData = -11881
        case airPlayReceiverTemporarilyUnavailable = -11882
        case encodeFailed = -11883
        case sandboxExtensionDenied = -11884
        case toneMappingFailed = -11885
        case mediaExtensionDisabled = -11886
        case mediaExtensionConflict = -11887
    }

    /// The domain of errors from FFmpeg found under `NSUnderlyingErrorKey` (not Apple's).
    public static let ffmpegErrorDomain = "org.ffmpeg.AVERROR"

    public static var errorDomain: String { AVFoundationErrorDomain }

    public let code: Code
    public let errorUserInfo: [String: Any]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.errorUserInfo = userInfo
    }

    public var errorCode: Int { code.rawValue }

    /// The underlying error, if any.
    public var underlyingError: (any Error)? { errorUserInfo[NSUnderlyingErrorKey] as? any Error }

    public static func == (lhs: AVError, rhs: AVError) -> Bool {
        lhs.code == rhs.code && (lhs as NSError).isEqual(rhs as NSError)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    // Apple exposes each code as a static on AVError too (`AVError.fileFormatNotRecognized`).
    public static var unknown: Code { .unknown }
    public static var outOfMemory: Code { .outOfMemory }
    public static var mediaServicesWereReset: Code { .mediaServicesWereReset }
    public static var decodeFailed: Code { .decodeFailed }
    public static var invalidSourceMedia: Code { .invalidSourceMedia }
    public static var fileFormatNotRecognized: Code { .fileFormatNotRecognized }
    public static var fileFailedToParse: Code { .fileFailedToParse }
    public static var contentIsProtected: Code { .contentIsProtected }
    public static var decoderNotFound: Code { .decoderNotFound }
    public static var contentIsNotAuthorized: Code { .contentIsNotAuthorized }
    public static var operationNotSupportedForAsset: Code { .operationNotSupportedForAsset }
    public static var decoderTemporarilyUnavailable: Code { .decoderTemporarilyUnavailable }
    public static var incompatibleAsset: Code { .incompatibleAsset }
    public static var failedToLoadMediaData: Code { .failedToLoadMediaData }
    public static var serverIncorrectlyConfigured: Code { .serverIncorrectlyConfigured }
    public static var undecodableMediaData: Code { .undecodableMediaData }
    public static var contentIsUnavailable: Code { .contentIsUnavailable }
    public static var formatUnsupported: Code { .formatUnsupported }
    public static var noLongerPlayable: Code { .noLongerPlayable }
    public static var noSourceTrack: Code { .noSourceTrack }
    public static var operationCancelled: Code { .operationCancelled }
    public static var operationInterrupted: Code { .operationInterrupted }
}
