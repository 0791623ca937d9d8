import Foundation

/// Apple's bridge between a video composition and Core Animation layers (export only; an AVPlayerItem raises on
/// it). Linux has no Core Animation, so the type exists only to say so at compile time.
@available(*, unavailable, message: "Core Animation is not available on Linux; compose with layer instructions")
public final class AVVideoCompositionCoreAnimationTool {}

extension AVVideoComposition {
    /// Apple's Core Animation post-processing tool: unavailable (no Core Animation on Linux).
    @available(*, unavailable, message: "Core Animation is not available on Linux; compose with layer instructions")
    public var animationTool: AVVideoCompositionCoreAnimationTool? {
        get { nil }
        set {}
    }
}
