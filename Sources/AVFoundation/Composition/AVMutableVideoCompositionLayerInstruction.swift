import Foundation

/// A layer instruction whose track, transform, opacity and crop rectangle can be set (Apple's
/// `AVMutableVideoCompositionLayerInstruction`).
///
///     let layer = AVMutableVideoCompositionLayerInstruction(assetTrack: track)
///     layer.setTransform(CGAffineTransform(scaleX: 0.5, y: 0.5), at: .zero)
///     layer.setOpacityRamp(fromStartOpacity: 1, toEndOpacity: 0, timeRange: fadeOut)
///
/// Setting a value or ramp that starts at the same time as an earlier one replaces it.
open class AVMutableVideoCompositionLayerInstruction: AVVideoCompositionLayerInstruction, @unchecked Sendable {
    /// An instruction for `track` (its `trackID`) with default values.
    public convenience init(assetTrack track: AVAssetTrack) {
        self.init()
        storedTrackID = track.trackID
    }

    /// The ID of the source track the instruction applies to.
    open override var trackID: CMPersistentTrackID {
        get { super.trackID }
        set { lock.withLock { storedTrackID = newValue } }
    }

    /// Holds `transform` from `time` until the next change.
    open func setTransform(_ transform: CGAffineTransform, at time: CMTime) {
        lock.withLock { transforms.set(transform, at: time) }
    }

    /// Interpolates the transform linearly (coefficient by coefficient) from `startTransform` to `endTransform`
    /// across `timeRange`; the end value holds afterwards until the next change.
    open func setTransformRamp(
        fromStart startTransform: CGAffineTransform, toEnd endTransform: CGAffineTransform, timeRange: CMTimeRange
    ) {
        lock.withLock { transforms.setRamp(from: startTransform, to: endTransform, timeRange: timeRange) }
    }

    /// Holds `opacity` (0…1) from `time` until the next change.
    open func setOpacity(_ opacity: Float, at time: CMTime) {
        lock.withLock { opacities.set(opacity, at: time) }
    }

    /// Interpolates the opacity linearly from `startOpacity` to `endOpacity` across `timeRange`.
    open func setOpacityRamp(
        fromStartOpacity startOpacity: Float, toEndOpacity endOpacity: Float, timeRange: CMTimeRange
    ) {
        lock.withLock { opacities.setRamp(from: startOpacity, to: endOpacity, timeRange: timeRange) }
    }

    /// Shows only `cropRectangle` of the track's picture (track pixel coordinates) from `time` on.
    open func setCropRectangle(_ cropRectangle: CGRect, at time: CMTime) {
        lock.withLock { crops.set(cropRectangle, at: time) }
    }

    /// Interpolates the crop rectangle linearly from `startCropRectangle` to `endCropRectangle` across `timeRange`.
    open func setCropRectangleRamp(
        fromStartCropRectangle startCropRectangle: CGRect, toEndCropRectangle endCropRectangle: CGRect,
        timeRange: CMTimeRange
    ) {
        lock.withLock { crops.setRamp(from: startCropRectangle, to: endCropRectangle, timeRange: timeRange) }
    }
}
