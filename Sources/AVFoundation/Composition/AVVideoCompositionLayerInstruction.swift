import Foundation
import OAVFLocking

/// How the built-in compositor draws one source track during an instruction: its transform, opacity and crop
/// rectangle over time, each held or ramped (Apple's `AVVideoCompositionLayerInstruction`).
///
/// Before the first value set, the transform is the identity, the opacity 1 and there is no crop; after a ramp
/// ends its end value holds until the next change. Transforms map the track's picture (pixels, origin at the top
/// left, y down) into the composition's render area; crop rectangles are in the track's own pixel coordinates.
/// Make changes through ``AVMutableVideoCompositionLayerInstruction``.
///
/// Thread-safe: a lock guards every value.
open class AVVideoCompositionLayerInstruction: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    /// Guards the stored values below. Set and read by the app on any thread. Not an engine command: an instruction is
    /// a value the app builds.
    let lock = ConditionLock()
    /// Guarded by `lock`.
    var storedTrackID: CMPersistentTrackID = kCMPersistentTrackID_Invalid
    var transforms = CompositionTimeline<CGAffineTransform>()
    var opacities = CompositionTimeline<Float>()
    var crops = CompositionTimeline<CGRect>()

    /// An instruction for no track, with default values (Apple's plain `init()`).
    public override init() {
        super.init()
    }

    /// The ID of the source track the instruction applies to.
    open var trackID: CMPersistentTrackID {
        lock.withLock { storedTrackID }
    }

    /// The transform ramp in effect at `time` (or the first one after it), as Apple's
    /// `getTransformRamp(for:start:end:timeRange:)`: a transform set at a time reports equal start and end values
    /// and a range lasting until the next change. False when `time` is past the last ramp's end.
    open func getTransformRamp(
        for time: CMTime, start startTransform: UnsafeMutablePointer<CGAffineTransform>?,
        end endTransform: UnsafeMutablePointer<CGAffineTransform>?, timeRange: UnsafeMutablePointer<CMTimeRange>?
    ) -> Bool {
        guard let ramp = lock.withLock({ transforms.ramp(for: time) }) else { return false }
        startTransform?.pointee = ramp.start
        endTransform?.pointee = ramp.end
        timeRange?.pointee = ramp.timeRange
        return true
    }

    /// The opacity ramp in effect at `time` (or the first one after it), as Apple's
    /// `getOpacityRamp(for:startOpacity:endOpacity:timeRange:)`. False when `time` is past the last ramp's end.
    open func getOpacityRamp(
        for time: CMTime, startOpacity: UnsafeMutablePointer<Float>?, endOpacity: UnsafeMutablePointer<Float>?,
        timeRange: UnsafeMutablePointer<CMTimeRange>?
    ) -> Bool {
        guard let ramp = lock.withLock({ opacities.ramp(for: time) }) else { return false }
        startOpacity?.pointee = ramp.start
        endOpacity?.pointee = ramp.end
        timeRange?.pointee = ramp.timeRange
        return true
    }

    /// The crop-rectangle ramp in effect at `time` (or the first one after it), as Apple's
    /// `getCropRectangleRamp(for:startCropRectangle:endCropRectangle:timeRange:)`. False when `time` is past the
    /// last ramp's end.
    open func getCropRectangleRamp(
        for time: CMTime, startCropRectangle: UnsafeMutablePointer<CGRect>?,
        endCropRectangle: UnsafeMutablePointer<CGRect>?, timeRange: UnsafeMutablePointer<CMTimeRange>?
    ) -> Bool {
        guard let ramp = lock.withLock({ crops.ramp(for: time) }) else { return false }
        startCropRectangle?.pointee = ramp.start
        endCropRectangle?.pointee = ramp.end
        timeRange?.pointee = ramp.timeRange
        return true
    }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any {
        let copy = AVVideoCompositionLayerInstruction()
        copyState(to: copy)
        return copy
    }

    /// A mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = AVMutableVideoCompositionLayerInstruction()
        copyState(to: copy)
        return copy
    }

    private func copyState(to other: AVVideoCompositionLayerInstruction) {
        let (id, t, o, c) = lock.withLock { (storedTrackID, transforms, opacities, crops) }
        other.lock.withLock {
            other.storedTrackID = id
            other.transforms = t
            other.opacities = o
            other.crops = c
        }
    }

    // MARK: Rendering (package side)

    /// The transform at `time` (identity before the first change).
    func transform(at time: CMTime) -> CGAffineTransform {
        lock.withLock { transforms.value(at: time, interpolate: interpolateTransform) } ?? .identity
    }

    /// The opacity at `time` (1 before the first change), clamped to 0…1.
    func opacity(at time: CMTime) -> Float {
        let value = lock.withLock { opacities.value(at: time, interpolate: interpolateOpacity) } ?? 1
        return min(max(value, 0), 1)
    }

    /// The crop rectangle at `time` (nil: no crop).
    func cropRectangle(at time: CMTime) -> CGRect? {
        lock.withLock { crops.value(at: time, interpolate: interpolateRect) }
    }
}
