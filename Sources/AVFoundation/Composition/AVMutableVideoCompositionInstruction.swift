import Foundation

/// A built-in compositor instruction whose time range and layer instructions can be set (Apple's
/// `AVMutableVideoCompositionInstruction`).
///
///     let instruction = AVMutableVideoCompositionInstruction()
///     instruction.timeRange = CMTimeRange(start: .zero, duration: duration)
///     instruction.layerInstructions = [layer]
open class AVMutableVideoCompositionInstruction: AVVideoCompositionInstruction, @unchecked Sendable {
    /// The time range the instruction applies to.
    open override var timeRange: CMTimeRange {
        get { super.timeRange }
        set { lock.withLock { storedTimeRange = newValue } }
    }

    /// How each source track is drawn, top-most first (kept as given, not copied).
    open override var layerInstructions: [AVVideoCompositionLayerInstruction] {
        get { super.layerInstructions }
        set { lock.withLock { storedLayerInstructions = newValue } }
    }

    /// Whether Core Animation post-processing is needed (stored; there is no post-processing here).
    open override var enablePostProcessing: Bool {
        get { super.enablePostProcessing }
        set { lock.withLock { storedEnablePostProcessing = newValue } }
    }
}
