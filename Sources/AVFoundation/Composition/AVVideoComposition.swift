import Foundation
import OAVFLocking

/// How an item's video tracks are combined into the pictures a player shows (Apple's `AVVideoComposition`):
/// the render size, the instructions that apply over time and, optionally, a custom compositor class.
///
/// Set a composition on ``AVPlayerItem/videoComposition`` (the item keeps a copy). Every picture the item
/// presents is then composed before it reaches the item's video outputs and layer: by the built-in compositor
/// (``AVVideoCompositionInstruction`` with layer instructions: transform, opacity, crop, over black) into a
/// 32-bit BGRA buffer of ``renderSize`` × ``renderScale``, or by an instance of ``customVideoCompositorClass``.
/// Make one with ``AVMutableVideoComposition`` or ``videoComposition(withPropertiesOf:)``.
///
/// Differs from Apple:
/// - One picture is composed per decoded frame of the item's played video track (the item plays one video track);
///   ``frameDuration`` and ``sourceTrackIDForFrameTiming`` are stored but do not change the output rate.
/// - No `animationTool` (no Core Animation), no `backgroundColor` on instructions, no CIFilter handler form.
///   Colour properties are stored but the output is not colour-converted.
/// - No validation (`isValid(for:timeRange:validationDelegate:)`): a time no instruction covers is drawn black.
///
/// Thread-safe: a lock guards every value.
open class AVVideoComposition: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    /// Guards the stored values below. The public object's values, set and read by the app on any thread; the item
    /// keeps a copy. Not an engine command: a composition is a value the app builds.
    let lock = ConditionLock()
    /// Guarded by `lock`.
    var storedFrameDuration = CMTime.invalid
    var storedRenderSize = CGSize.zero
    var storedRenderScale: Float = 1
    var storedInstructions: [any AVVideoCompositionInstructionProtocol] = []
    var storedSourceTrackIDForFrameTiming = kCMPersistentTrackID_Invalid
    var storedCustomVideoCompositorClass: (any AVVideoCompositing.Type)?
    var storedColorPrimaries: String?
    var storedColorTransferFunction: String?
    var storedColorYCbCrMatrix: String?

    /// An empty composition: invalid frame duration, zero render size, scale 1, no instructions.
    public override init() {
        super.init()
    }

    /// A composition that shows `asset` as it is, as Apple's: one instruction over the asset's duration with a
    /// layer instruction per video track (its `preferredTransform`), ``renderSize`` the union of the tracks'
    /// transformed natural sizes, ``frameDuration`` one frame at the highest nominal frame rate (1/30 s when no
    /// track has one).
    ///
    /// - Throws: the asset's loading error.
    open class func videoComposition(withPropertiesOf asset: AVAsset) async throws -> AVVideoComposition {
        try await loadedComposition(withPropertiesOf: asset).copy() as! AVVideoComposition
    }

    /// The completion-handler form of ``videoComposition(withPropertiesOf:)``: the handler receives the
    /// composition, or nil and the loading error, on an arbitrary queue.
    open class func videoComposition(
        withPropertiesOf asset: AVAsset,
        completionHandler: @escaping @Sendable (AVVideoComposition?, (any Error)?) -> Void
    ) {
        loadComposition(withPropertiesOf: asset) { composition, error in
            completionHandler(composition?.copy() as? AVVideoComposition, error)
        }
    }

    /// The interval at which the composition should render pictures (stored; see the type's notes).
    open var frameDuration: CMTime { lock.withLock { storedFrameDuration } }

    /// The size, in pixels, of the composed pictures (before ``renderScale``).
    open var renderSize: CGSize { lock.withLock { storedRenderSize } }

    /// A scale applied to ``renderSize`` for playback (composed pictures are `renderSize × renderScale`).
    open var renderScale: Float { lock.withLock { storedRenderScale } }

    /// The instructions, in time order, covering the item's duration.
    open var instructions: [any AVVideoCompositionInstructionProtocol] { lock.withLock { storedInstructions } }

    /// The track whose frame timing drives composition (stored; see the type's notes).
    open var sourceTrackIDForFrameTiming: CMPersistentTrackID {
        lock.withLock { storedSourceTrackIDForFrameTiming }
    }

    /// The class of a custom compositor the item instantiates, or nil for the built-in compositor.
    open var customVideoCompositorClass: (any AVVideoCompositing.Type)? {
        lock.withLock { storedCustomVideoCompositorClass }
    }

    /// The colour primaries of composed pictures (`AVVideoColorPrimaries_…`); nil keeps the source's (stored only).
    open var colorPrimaries: String? { lock.withLock { storedColorPrimaries } }

    /// The transfer function of composed pictures; nil keeps the source's (stored only).
    open var colorTransferFunction: String? { lock.withLock { storedColorTransferFunction } }

    /// The YCbCr matrix of composed pictures; nil keeps the source's (stored only).
    open var colorYCbCrMatrix: String? { lock.withLock { storedColorYCbCrMatrix } }

    /// Track IDs of timed-metadata tracks sent to the compositor: none here.
    open var sourceSampleDataTrackIDs: [NSNumber] { [] }

    /// An immutable copy (built-in instructions are copied too).
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = AVVideoComposition()
        copyState(to: copy)
        return copy
    }

    /// A mutable copy (built-in instructions are copied too).
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = AVMutableVideoComposition()
        copyState(to: copy)
        return copy
    }

    func copyState(to other: AVVideoComposition) {
        let values = lock.withLock {
            (
                storedFrameDuration, storedRenderSize, storedRenderScale, storedInstructions,
                storedSourceTrackIDForFrameTiming, storedCustomVideoCompositorClass, storedColorPrimaries,
                storedColorTransferFunction, storedColorYCbCrMatrix
            )
        }
        let instructions = values.3.map { instruction -> any AVVideoCompositionInstructionProtocol in
            (instruction as? AVVideoCompositionInstruction)?.copy() as? AVVideoCompositionInstruction ?? instruction
        }
        other.lock.withLock {
            other.storedFrameDuration = values.0
            other.storedRenderSize = values.1
            other.storedRenderScale = values.2
            other.storedInstructions = instructions
            other.storedSourceTrackIDForFrameTiming = values.4
            other.storedCustomVideoCompositorClass = values.5
            other.storedColorPrimaries = values.6
            other.storedColorTransferFunction = values.7
            other.storedColorYCbCrMatrix = values.8
        }
    }

    /// The active instruction at `time`: the first whose time range contains it.
    func instruction(at time: CMTime) -> (any AVVideoCompositionInstructionProtocol)? {
        instructions.first { $0.timeRange.isValid && $0.timeRange.containsTime(time) }
    }

    /// ``renderScale`` when it is positive and finite, else 1.
    var pixelScale: Float {
        let scale = renderScale
        return scale > 0 && scale.isFinite ? scale : 1
    }

    /// The size of composed pictures in pixels: `renderSize × renderScale`, rounded, at least 1×1.
    var pixelSize: (width: Int, height: Int) {
        let size = renderSize
        let s = CGFloat(pixelScale)
        let w = (size.width * s).rounded()
        let h = (size.height * s).rounded()
        return (w.isFinite ? max(1, min(Int(w), 16384)) : 1, h.isFinite ? max(1, min(Int(h), 16384)) : 1)
    }
}
