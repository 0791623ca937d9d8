import Foundation

/// A video composition whose properties can be set (Apple's `AVMutableVideoComposition`).
///
///     let composition = AVMutableVideoComposition()
///     composition.renderSize = CGSize(width: 640, height: 360)
///     composition.frameDuration = CMTime(value: 1, timescale: 30)
///     composition.instructions = [instruction]
///     item.videoComposition = composition
///
/// See ``AVVideoComposition`` for what playback honours.
open class AVMutableVideoComposition: AVVideoComposition, @unchecked Sendable {
    /// A composition with the asset's video properties, loading the asset synchronously (Apple's deprecated
    /// `init(propertiesOf:)`); see ``AVVideoComposition/videoComposition(withPropertiesOf:)``. An asset that fails
    /// to load gives an empty composition.
    @available(*, deprecated, message: "Use videoComposition(withPropertiesOf:) instead")
    public convenience init(propertiesOf asset: AVAsset) {
        self.init()
        if case .success = asset.loader.wait() {
            Self.configure(self, from: asset)
        }
    }

    /// A mutable composition with `asset`'s video properties (see
    /// ``AVVideoComposition/videoComposition(withPropertiesOf:)``).
    ///
    /// - Throws: the asset's loading error.
    open override class func videoComposition(
        withPropertiesOf asset: AVAsset
    ) async throws -> AVMutableVideoComposition {
        try await loadedComposition(withPropertiesOf: asset)
    }

    /// The completion-handler form of ``videoComposition(withPropertiesOf:)``, giving a mutable composition.
    open override class func videoComposition(
        withPropertiesOf asset: AVAsset,
        completionHandler: @escaping @Sendable (AVMutableVideoComposition?, (any Error)?) -> Void
    ) {
        loadComposition(withPropertiesOf: asset, completionHandler: completionHandler)
    }

    /// The interval at which the composition should render pictures (stored; see ``AVVideoComposition``).
    open override var frameDuration: CMTime {
        get { super.frameDuration }
        set { lock.withLock { storedFrameDuration = newValue } }
    }

    /// The size, in pixels, of the composed pictures (before ``renderScale``).
    open override var renderSize: CGSize {
        get { super.renderSize }
        set { lock.withLock { storedRenderSize = newValue } }
    }

    /// A scale applied to ``renderSize`` for playback.
    open override var renderScale: Float {
        get { super.renderScale }
        set { lock.withLock { storedRenderScale = newValue } }
    }

    /// The instructions, in time order (kept as given, not copied).
    open override var instructions: [any AVVideoCompositionInstructionProtocol] {
        get { super.instructions }
        set { lock.withLock { storedInstructions = newValue } }
    }

    /// The track whose frame timing drives composition (stored).
    open override var sourceTrackIDForFrameTiming: CMPersistentTrackID {
        get { super.sourceTrackIDForFrameTiming }
        set { lock.withLock { storedSourceTrackIDForFrameTiming = newValue } }
    }

    /// The class of a custom compositor, or nil for the built-in compositor.
    open override var customVideoCompositorClass: (any AVVideoCompositing.Type)? {
        get { super.customVideoCompositorClass }
        set { lock.withLock { storedCustomVideoCompositorClass = newValue } }
    }

    /// The colour primaries of composed pictures (stored only).
    open override var colorPrimaries: String? {
        get { super.colorPrimaries }
        set { lock.withLock { storedColorPrimaries = newValue } }
    }

    /// The transfer function of composed pictures (stored only).
    open override var colorTransferFunction: String? {
        get { super.colorTransferFunction }
        set { lock.withLock { storedColorTransferFunction = newValue } }
    }

    /// The YCbCr matrix of composed pictures (stored only).
    open override var colorYCbCrMatrix: String? {
        get { super.colorYCbCrMatrix }
        set { lock.withLock { storedColorYCbCrMatrix = newValue } }
    }
}
