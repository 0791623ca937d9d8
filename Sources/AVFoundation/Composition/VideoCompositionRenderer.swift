import Foundation
import OAVFLocking
import PlaybackEngine

/// Composes an item's presented pictures for one video composition: with the built-in compositor, or by asking a
/// custom compositor (``AVVideoCompositing``) and waiting for its answer. What `ItemSession.videoCompositor` calls.
///
/// Custom compositors get ``AVVideoCompositing/renderContextChanged(_:)`` first, then one request per picture, all
/// on a private serial queue ("oavf.video-compositor"); the engine thread waits up to ``requestTimeout`` for each
/// and drops the picture when the request is not finished by then (the compositor is then asked to cancel its
/// pending requests), fails, or is cancelled. An instruction whose `passthroughTrackID` is the item's track shows
/// the decoded picture as it is.
///
/// Thread-safe: ``compose(_:at:trackID:)`` is serialised by a lock (the engine thread calls it).
final class VideoCompositionRenderer: @unchecked Sendable {
    /// How long the engine thread waits for a custom compositor's answer (seconds): long enough for a slow CPU
    /// compositor, short enough that a stuck one cannot freeze playback for good.
    static let requestTimeout: TimeInterval = 1

    /// The composition (the item's copy).
    let composition: AVVideoComposition
    /// The custom compositor, or nil for the built-in one.
    let compositor: (any AVVideoCompositing)?
    /// Where custom compositors are called.
    private let queue = DispatchQueue(label: "oavf.video-compositor")
    /// Guards the values below; held for a whole composition. Taken by the engine thread composing a picture and by the
    /// app's thread replacing the composition. Not an engine command: composing runs inside the engine's presentation
    /// step, which cannot wait for its own mailbox.
    private let lock = ConditionLock()
    /// The custom compositor's render context.
    private let renderContext: AVVideoCompositionRenderContext?
    /// The format custom compositors get source frames in; nil: the decoded format.
    private let sourceFormat: OSType?
    /// Guarded by `lock`.
    private let builtIn = BuiltInVideoCompositor()
    private var sourceConverter: PixelConverter?
    /// The instruction requests carry when none covers their time (custom compositors only).
    private let fallbackInstruction: AVVideoCompositionInstruction = {
        let instruction = AVMutableVideoCompositionInstruction()
        instruction.timeRange = CMTimeRange(start: .negativeInfinity, end: .positiveInfinity)
        return instruction
    }()

    /// A renderer for `composition`, using `compositor` when given (its render context is set now, on the
    /// compositor queue).
    init(composition: AVVideoComposition, compositor: (any AVVideoCompositing)?) {
        self.composition = composition
        self.compositor = compositor
        if let compositor {
            let context = AVVideoCompositionRenderContext(
                videoComposition: composition, attributes: compositor.requiredPixelBufferAttributesForRenderContext)
            renderContext = context
            sourceFormat = AVPlayerItemVideoOutput.chooseFormat(
                compositor.sourcePixelBufferAttributes?[kCVPixelBufferPixelFormatTypeKey])
            queue.async { compositor.renderContextChanged(context) }
        } else {
            renderContext = nil
            sourceFormat = nil
        }
    }

    /// The picture to show for `frame` (track `trackID`, item time `time`), or nil to show nothing.
    func compose(_ frame: VideoFrame, at time: CMTime, trackID: CMPersistentTrackID) -> VideoFrame? {
        lock.withLock {
            let buffer: CVPixelBuffer?
            if let compositor, let renderContext {
                buffer = composeCustom(frame.pixelBuffer, at: time, trackID: trackID, compositor, renderContext)
            } else {
                buffer = try? builtIn.compose(frame.pixelBuffer, at: time, trackID: trackID, composition: composition)
            }
            guard let buffer else { return nil }
            var composed = frame
            composed.pixelBuffer = buffer
            return composed
        }
    }

    /// Asks the custom compositor for one picture and waits for it.
    private func composeCustom(
        _ source: CVPixelBuffer, at time: CMTime, trackID: CMPersistentTrackID, _ compositor: any AVVideoCompositing,
        _ context: AVVideoCompositionRenderContext
    ) -> CVPixelBuffer? {
        let instruction = composition.instruction(at: time) ?? fallbackInstruction
        if instruction.passthroughTrackID != kCMPersistentTrackID_Invalid && instruction.passthroughTrackID == trackID {
            return source
        }
        var frames: [CMPersistentTrackID: CVPixelBuffer] = [:]
        let required = instruction.requiredSourceTrackIDs?.compactMap { ($0 as? NSNumber)?.int32Value }
        if required == nil || required!.contains(trackID) {
            guard let converted = convertSource(source) else { return nil }
            frames[trackID] = converted
        }
        let request = AVAsynchronousVideoCompositionRequest(
            renderContext: context, compositionTime: time, instruction: instruction, sourceFrames: frames)
        queue.async { compositor.startRequest(request) }
        switch request.wait(timeout: Self.requestTimeout) {
        case .composed(let buffer)?:
            return buffer
        case .failed?, .cancelled?:
            return nil
        case nil:
            queue.async { compositor.cancelAllPendingVideoCompositionRequests() }
            return nil
        }
    }

    /// `source` in the compositor's source format (itself when it already is, or when no format was asked for).
    private func convertSource(_ source: CVPixelBuffer) -> CVPixelBuffer? {
        guard let sourceFormat, source.pixelFormatType != sourceFormat else { return source }
        do {
            let converter = try sourceConverter ?? PixelConverter(outputPixelFormatType: sourceFormat, threads: 1)
            sourceConverter = converter
            return try converter.convert(source)
        } catch {
            return nil
        }
    }
}
