// Flags for locking a pixel buffer's base address (CVPixelBuffer.h).

/// Flags passed to `CVPixelBufferLockBaseAddress` and `CVPixelBufferUnlockBaseAddress`, as Apple's
/// `CVPixelBufferLockFlags`. Pass the same flags to both calls.
public struct CVPixelBufferLockFlags: OptionSet, Sendable {
    /// The raw flag bits.
    public let rawValue: CVOptionFlags

    /// Creates flags from raw bits.
    public init(rawValue: CVOptionFlags) {
        self.rawValue = rawValue
    }

    /// The caller will only read the pixels (`kCVPixelBufferLock_ReadOnly`, 1).
    public static let readOnly = CVPixelBufferLockFlags(rawValue: 1)
}
