import Foundation

/// What a video composition does during one time range (Apple's `AVVideoCompositionInstructionProtocol`).
///
/// ``AVVideoCompositionInstruction`` adopts it for the built-in compositor; a custom compositor (see
/// ``AVVideoCompositing``) may use its own instruction classes and reads them from
/// ``AVAsynchronousVideoCompositionRequest/videoCompositionInstruction``.
///
/// Differs from Apple: the optional `requiredSourceSampleDataTrackIDs` requirement is a regular one with a default
/// implementation (an empty array), since Swift on Linux has no optional protocol requirements.
public protocol AVVideoCompositionInstructionProtocol: NSObjectProtocol, Sendable {
    /// The time range the instruction applies to.
    var timeRange: CMTimeRange { get }
    /// Whether post-processing (Core Animation) is needed; there is none here, so it has no effect.
    var enablePostProcessing: Bool { get }
    /// Whether the output changes from frame to frame when the source frames do not (false lets a compositor
    /// reuse its previous result).
    var containsTweening: Bool { get }
    /// The track IDs (as `NSNumber`s) whose frames the instruction needs; nil for all of the composition's tracks.
    var requiredSourceTrackIDs: [NSValue]? { get }
    /// A track whose frames are passed through unchanged (no compositor call), or `kCMPersistentTrackID_Invalid`.
    var passthroughTrackID: CMPersistentTrackID { get }
    /// Track IDs of timed-metadata tracks the instruction needs (none are delivered here).
    var requiredSourceSampleDataTrackIDs: [NSNumber] { get }
}

extension AVVideoCompositionInstructionProtocol {
    /// No timed-metadata tracks (Apple's optional requirement, defaulted).
    public var requiredSourceSampleDataTrackIDs: [NSNumber] { [] }
}
