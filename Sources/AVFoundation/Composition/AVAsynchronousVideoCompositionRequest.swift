import Foundation
import OAVFLocking

/// One picture a custom compositor is asked to compose (Apple's `AVAsynchronousVideoCompositionRequest`).
///
/// Finish it exactly once — with ``finish(withComposedVideoFrame:)``, ``finish(with:)`` or
/// ``finishCancelledRequest()`` — on any thread; later calls are ignored. Differs from Apple: a second finish is
/// ignored rather than raising; an error or a cancellation drops the picture (the item does not fail).
open class AVAsynchronousVideoCompositionRequest: NSObject, NSCopying, @unchecked Sendable {
    /// How a request ended.
    enum Outcome {
        /// Composed: the picture to show.
        case composed(CVPixelBuffer)
        /// Failed with an error.
        case failed(any Error)
        /// Cancelled by the compositor.
        case cancelled
    }

    /// The context the compositor renders in.
    public let renderContext: AVVideoCompositionRenderContext
    /// The item time of the picture.
    public let compositionTime: CMTime
    /// The IDs (`NSNumber`s) of the tracks with a source frame for this picture.
    public let sourceTrackIDs: [NSNumber]
    /// The instruction active at ``compositionTime``.
    public let videoCompositionInstruction: any AVVideoCompositionInstructionProtocol
    /// Source frames by track ID, in the compositor's source format.
    private let sourceFrames: [CMPersistentTrackID: CVPixelBuffer]

    /// Guards `outcome` and `finishCalls`. The compositor finishes a request on any thread while the renderer (engine
    /// thread) waits for the outcome. Not an engine command: the answer comes from the app's compositor, which must be
    /// able to finish from any thread.
    private let lock = ConditionLock()
    private let finished = DispatchSemaphore(value: 0)
    private var outcome: Outcome?
    /// How many finish calls arrived (only the first counts).
    private var finishCalls = 0

    init(
        renderContext: AVVideoCompositionRenderContext, compositionTime: CMTime,
        instruction: any AVVideoCompositionInstructionProtocol, sourceFrames: [CMPersistentTrackID: CVPixelBuffer]
    ) {
        self.renderContext = renderContext
        self.compositionTime = compositionTime
        self.videoCompositionInstruction = instruction
        self.sourceFrames = sourceFrames
        self.sourceTrackIDs = sourceFrames.keys.sorted().map { NSNumber(value: $0) }
        super.init()
    }

    /// Track IDs of timed-metadata sources: none here.
    open var sourceSampleDataTrackIDs: [NSNumber] { [] }

    /// The source picture of track `trackID` at ``compositionTime``, in the compositor's source format; nil for a
    /// track without one.
    open func sourceFrame(byTrackID trackID: CMPersistentTrackID) -> CVPixelBuffer? {
        sourceFrames[trackID]
    }

    /// Finishes with the composed picture (what the item's outputs and layer receive).
    open func finish(withComposedVideoFrame composedVideoFrame: CVPixelBuffer) {
        complete(.composed(composedVideoFrame))
    }

    /// Finishes with an error: the picture is not shown.
    open func finish(with error: any Error) {
        complete(.failed(error))
    }

    /// Finishes a request the compositor cancelled: the picture is not shown.
    open func finishCancelledRequest() {
        complete(.cancelled)
    }

    /// The request itself (requests are immutable apart from their single completion).
    open func copy(with zone: NSZone? = nil) -> Any { self }

    private func complete(_ result: Outcome) {
        let first: Bool = lock.withLock {
            finishCalls += 1
            guard outcome == nil else { return false }
            outcome = result
            return true
        }
        if first { finished.signal() }
    }

    /// Waits up to `timeout` seconds for the compositor to finish; nil when it did not.
    func wait(timeout: TimeInterval) -> Outcome? {
        guard finished.wait(timeout: .now() + timeout) == .success else { return nil }
        return lock.withLock { outcome }
    }

    /// How many times a finish method was called (tests check it is one).
    var finishCallCount: Int { lock.withLock { finishCalls } }

    /// Whether the request was finished.
    var isFinished: Bool { lock.withLock { outcome != nil } }
}
