import Foundation
import OAVFLocking

/// An instruction for the built-in compositor: during ``timeRange`` draw the tracks of ``layerInstructions``
/// (the first on top) over a black background (Apple's `AVVideoCompositionInstruction`). Make one with
/// ``AVMutableVideoCompositionInstruction``.
///
/// Differs from Apple: there is no `backgroundColor` (Core Graphics colours are not available on Linux); the
/// background is always opaque black. ``requiredSourceTrackIDs`` is optional, as the protocol's (Apple's class
/// declares it non-optional). Not `NSSecureCoding`.
///
/// Thread-safe: a lock guards every value.
open class AVVideoCompositionInstruction: NSObject, AVVideoCompositionInstructionProtocol, NSCopying,
    NSMutableCopying, @unchecked Sendable
{
    /// Guards the stored values below. Set and read by the app on any thread. Not an engine command: an instruction is
    /// a value the app builds.
    let lock = ConditionLock()
    /// Guarded by `lock`.
    var storedTimeRange = CMTimeRange.invalid
    var storedLayerInstructions: [AVVideoCompositionLayerInstruction] = []
    var storedEnablePostProcessing = true

    /// An instruction with an invalid time range and no layer instructions.
    public override init() {
        super.init()
    }

    /// The time range the instruction applies to.
    open var timeRange: CMTimeRange { lock.withLock { storedTimeRange } }

    /// How each source track is drawn, top-most first; tracks without one are not drawn.
    open var layerInstructions: [AVVideoCompositionLayerInstruction] { lock.withLock { storedLayerInstructions } }

    /// Whether Core Animation post-processing is needed (stored; there is no post-processing here).
    open var enablePostProcessing: Bool { lock.withLock { storedEnablePostProcessing } }

    /// Always true, as Apple's built-in instructions report.
    open var containsTweening: Bool { true }

    /// The track IDs of the layer instructions, as `NSNumber`s.
    open var requiredSourceTrackIDs: [NSValue]? {
        layerInstructions.map { NSNumber(value: $0.trackID) }
    }

    /// `kCMPersistentTrackID_Invalid`: the built-in instruction always composes.
    open var passthroughTrackID: CMPersistentTrackID { kCMPersistentTrackID_Invalid }

    /// An immutable copy (layer instructions are copied too).
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = AVVideoCompositionInstruction()
        copyState(to: copy)
        return copy
    }

    /// A mutable copy (layer instructions are copied too).
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = AVMutableVideoCompositionInstruction()
        copyState(to: copy)
        return copy
    }

    private func copyState(to other: AVVideoCompositionInstruction) {
        let (range, layers, post) = lock.withLock {
            (storedTimeRange, storedLayerInstructions, storedEnablePostProcessing)
        }
        let copies = layers.map { $0.copy() as! AVVideoCompositionLayerInstruction }
        other.lock.withLock {
            other.storedTimeRange = range
            other.storedLayerInstructions = copies
            other.storedEnablePostProcessing = post
        }
    }
}
