// Options for flushing a pixel buffer pool (CVPixelBufferPool.h).

/// Options for `CVPixelBufferPoolFlush`, as Apple's `CVPixelBufferPoolFlushFlags`. An empty set frees only
/// buffers that aged out.
public struct CVPixelBufferPoolFlushFlags: OptionSet, Sendable {
    /// The raw flag bits.
    public let rawValue: CVOptionFlags

    /// Creates flags from raw bits.
    public init(rawValue: CVOptionFlags) {
        self.rawValue = rawValue
    }

    /// Free every unused buffer regardless of age (`kCVPixelBufferPoolFlushExcessBuffers`, 1).
    public static let excessBuffers = CVPixelBufferPoolFlushFlags(rawValue: 1)
}
