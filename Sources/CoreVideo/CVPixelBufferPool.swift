// A recycling source of identical pixel buffers (CVPixelBufferPool.h).

/// A pool of pixel buffers that share one size and format, as Apple's `CVPixelBufferPool`. Create it with
/// `CVPixelBufferPoolCreate` and take buffers with `CVPixelBufferPoolCreatePixelBuffer`.
///
/// A buffer from the pool borrows one memory block; when the buffer is deinitialised (on any thread) the block
/// goes back to the pool, so a decoder or output that keeps a steady number of frames in flight stops allocating
/// after warm-up. Unused blocks are freed after `kCVPixelBufferPoolMaximumBufferAgeKey` seconds (default 1),
/// checked whenever the pool is used or flushed, never fewer than `kCVPixelBufferPoolMinimumBufferCountKey`.
///
/// Differs from Apple: `Sendable` (Apple's pool is not); buffers may outlive the pool, and their memory is then
/// freed rather than recycled. There is no `kCVPixelBufferPoolFreeBufferNotification`.
public final class CVPixelBufferPool: Hashable, Sendable {
    /// The layout shared by every buffer of the pool.
    package let layout: PixelBufferLayout
    /// The pixel-buffer attributes the pool was created with.
    package let pixelBufferAttributes: PixelBufferAttributes
    /// The pool attributes as given, for `CVPixelBufferPoolGetAttributes`.
    package let poolAttributeEntries: [String: SendableObject]
    private let store: PixelBufferPoolStore

    /// Creates a pool from attribute dictionaries as `CVPixelBufferPoolCreate` does.
    ///
    /// The pixel-buffer attributes must give `kCVPixelBufferWidthKey`, `kCVPixelBufferHeightKey` and
    /// `kCVPixelBufferPixelFormatTypeKey` (a number or an array; the first format CoreVideo can allocate is used).
    ///
    /// - Parameter clock: monotonic seconds used to age unused buffers; tests inject a fake one.
    /// - Throws: `invalidPixelBufferAttributes` when width, height or format is missing or malformed,
    ///   `invalidPixelFormat` when no requested format can be allocated, `invalidPoolAttributes` for a malformed
    ///   pool attribute, `invalidSize` when the buffers would be too large.
    package init(
        poolAttributes: [String: Any]?,
        pixelBufferAttributes: [String: Any]?,
        clock: @escaping @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }
    ) throws(CoreVideoError) {
        let attributes = try PixelBufferAttributes(pixelBufferAttributes)
        guard let width = attributes.width, let height = attributes.height, !attributes.pixelFormatTypes.isEmpty
        else { throw .invalidPixelBufferAttributes }
        guard let format = attributes.pixelFormatTypes.first(where: { PixelFormatLayout.forPixelFormatType($0) != nil })
        else { throw .invalidPixelFormat }
        let layout = try PixelBufferLayout(
            width: width, height: height, pixelFormatType: format, attributes: attributes)

        let poolAttributes = poolAttributes ?? [:]
        let minimumBufferCount = try Self.number(poolAttributes[kCVPixelBufferPoolMinimumBufferCountKey]) ?? 0
        let maximumBufferAge =
            try Self.number(poolAttributes[kCVPixelBufferPoolMaximumBufferAgeKey])
            ?? Self.defaultMaximumBufferAge

        self.layout = layout
        self.pixelBufferAttributes = attributes
        self.poolAttributeEntries = poolAttributes.mapValues { SendableObject($0) }
        self.store = PixelBufferPoolStore(
            byteCount: layout.dataSize, minimumBufferCount: Int(minimumBufferCount),
            maximumBufferAge: maximumBufferAge, clock: clock)
    }

    deinit {
        store.close()
    }

    /// Apple's default age after which an unused buffer is freed, in seconds.
    package static let defaultMaximumBufferAge = 1.0

    /// Vends a buffer, reusing a returned block when one is free. Its attachments start as the pixel-buffer
    /// attributes' `kCVBufferPropagatedAttachmentsKey` / `kCVBufferNonPropagatedAttachmentsKey`; pixel contents
    /// are whatever the block last held.
    ///
    /// - Throws: `wouldExceedAllocationThreshold` when no block is free and `allocationThreshold` blocks exist;
    ///   `kCVReturnPoolAllocationFailed` when memory is exhausted.
    package func makePixelBuffer(allocationThreshold: Int? = nil) throws(CoreVideoError) -> CVPixelBuffer {
        let memory = try store.take(allocationThreshold: allocationThreshold)
        return CVBuffer(
            layout: layout, memory: memory, owned: false, attachments: pixelBufferAttributes.initialAttachments,
            release: { [store] in store.recycle(memory) })
    }

    /// Frees unused buffers: all of them with `.excessBuffers`, otherwise those that aged out.
    package func flush(_ options: CVPixelBufferPoolFlushFlags) {
        store.flush(excessBuffers: options.contains(.excessBuffers))
    }

    /// The pool's memory counters.
    package var statistics: PixelBufferPoolStatistics {
        store.statistics
    }

    /// A non-negative number attribute, or `nil` when absent.
    private static func number(_ value: Any?) throws(CoreVideoError) -> Double? {
        guard let value else { return nil }
        guard let number = value as? NSNumber, number.doubleValue >= 0 else { throw .invalidPoolAttributes }
        return number.doubleValue
    }

    // MARK: Equatable, Hashable

    /// Pools are equal only when they are the same pool, as CF's `CFEqual`.
    public static func == (lhs: CVPixelBufferPool, rhs: CVPixelBufferPool) -> Bool {
        lhs === rhs
    }

    /// Hashes the pool's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

extension CVPixelBufferPool {
    /// A `width` × `height` buffer of `pixelFormatType` from `pool`, or from a new pool (stored in `pool`) when the
    /// old one makes buffers of another size or format — the converters' "one pool per output size" pattern.
    package static func makeBuffer(
        reusing pool: inout CVPixelBufferPool?, width: Int, height: Int, pixelFormatType: OSType
    ) throws -> CVPixelBuffer {
        if let pool, pool.layout.width == width, pool.layout.height == height,
            pool.layout.pixelFormat.pixelFormatType == pixelFormatType
        {
            return try pool.makePixelBuffer()
        }
        let newPool = try CVPixelBufferPool(
            poolAttributes: nil,
            pixelBufferAttributes: [
                kCVPixelBufferWidthKey: width, kCVPixelBufferHeightKey: height,
                kCVPixelBufferPixelFormatTypeKey: Int(pixelFormatType),
            ])
        pool = newPool
        return try newPool.makePixelBuffer()
    }
}
