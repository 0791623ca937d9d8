import Foundation

/// Where a custom compositor renders (Apple's `AVVideoCompositionRenderContext`): the output size and scale, and
/// a pool of output buffers.
///
/// Made by the player item for a composition and a compositor's
/// ``AVVideoCompositing/requiredPixelBufferAttributesForRenderContext``; immutable afterwards.
///
/// Differs from Apple: ``highQualityRendering`` is always false (playback), pixels are square, edge widths are
/// zero.
open class AVVideoCompositionRenderContext: NSObject, @unchecked Sendable {
    /// The composition the context was made for.
    public let videoComposition: AVVideoComposition
    /// The output size in pixels (the composition's `renderSize × renderScale`).
    public let size: CGSize
    /// The composition's render scale.
    public let renderScale: Float
    /// Output buffers: `size`, the compositor's required attributes; nil when they cannot be allocated.
    private let pool: CVPixelBufferPool?

    /// A context for `videoComposition` vending buffers with `attributes` (the pixel format; size is the
    /// composition's).
    init(videoComposition: AVVideoComposition, attributes: [String: any Sendable]) {
        self.videoComposition = videoComposition
        let (width, height) = videoComposition.pixelSize
        self.size = CGSize(width: width, height: height)
        self.renderScale = videoComposition.pixelScale
        var pixelAttributes: [String: Any] = [:]
        for (key, value) in attributes { pixelAttributes[key] = value }
        if pixelAttributes[kCVPixelBufferPixelFormatTypeKey] == nil {
            pixelAttributes[kCVPixelBufferPixelFormatTypeKey] = Int(kCVPixelFormatType_32BGRA)
        }
        pixelAttributes[kCVPixelBufferWidthKey] = width
        pixelAttributes[kCVPixelBufferHeightKey] = height
        self.pool = try? CVPixelBufferPool(poolAttributes: nil, pixelBufferAttributes: pixelAttributes)
        super.init()
    }

    /// The transform from render-size coordinates to output pixels: a scale by ``renderScale``.
    open var renderTransform: CGAffineTransform {
        CGAffineTransform(scaleX: CGFloat(renderScale), y: CGFloat(renderScale))
    }

    /// Square pixels (1:1).
    open var pixelAspectRatio: AVPixelAspectRatio {
        AVPixelAspectRatio(horizontalSpacing: 1, verticalSpacing: 1)
    }

    /// No edges (zero widths).
    open var edgeWidths: AVEdgeWidths { AVEdgeWidths() }

    /// False: playback favours speed.
    open var highQualityRendering: Bool { false }

    /// A buffer of ``size`` in the compositor's required format, from a pool (recycled when released); nil when
    /// the format cannot be allocated.
    open func newPixelBuffer() -> CVPixelBuffer? {
        try? pool?.makePixelBuffer()
    }
}
