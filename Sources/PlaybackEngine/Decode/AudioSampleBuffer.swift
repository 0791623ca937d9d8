/// Pooled storage for interleaved float samples. When the last reference goes away (on any thread,
/// typically the audio device's), the memory returns to its ``AudioBufferPool`` instead of being
/// freed, so steady-state decoding allocates no sample memory.
///
/// `@unchecked Sendable`: the decode thread fills it before publishing it through a `FrameQueue`
/// (whose lock orders the writes before any read); afterwards it is only read.
import OAVFLocking

package final class AudioSampleBuffer: @unchecked Sendable {
    /// The first sample.
    package let baseAddress: UnsafeMutablePointer<Float>
    /// How many floats the storage holds.
    package let capacity: Int
    /// Where the storage goes back; nil for an unpooled buffer (freed in `deinit`).
    private let store: AudioBufferStore?

    /// Wraps storage from `store`, or owned storage when `store` is nil.
    fileprivate init(baseAddress: UnsafeMutablePointer<Float>, capacity: Int, store: AudioBufferStore?) {
        self.baseAddress = baseAddress
        self.capacity = capacity
        self.store = store
    }

    /// An unpooled buffer of `capacity` floats (uninitialised), for tests and one-off uses.
    package convenience init(capacity: Int) {
        self.init(baseAddress: .allocate(capacity: max(1, capacity)), capacity: max(1, capacity), store: nil)
    }

    /// Calls `body` with the whole storage (``capacity`` floats; only the frame's first
    /// `frameCount * channelCount` are valid samples).
    package func withUnsafeBufferPointer<Result, Failure: Error>(
        _ body: (UnsafeBufferPointer<Float>) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try body(UnsafeBufferPointer(start: baseAddress, count: capacity))
    }

    /// Returns the storage to its pool (or frees it), on whichever thread dropped the last reference.
    deinit {
        if let store {
            store.recycle(baseAddress, capacity: capacity)
        } else {
            baseAddress.deallocate()
        }
    }
}

/// A recycling source of ``AudioSampleBuffer`` storage, one per audio decoder.
///
/// Capacities are rounded up to ``granule`` floats so that frames of slightly different lengths (AAC
/// 1024, Opus 960, MP3 1152, resampled lengths ±1) share storage.
///
/// Thread-safe: the decode thread takes, any thread returns (by dropping a buffer).
package final class AudioBufferPool: Sendable {
    /// Storage is allocated in multiples of this many floats (8 KB: one stereo AAC frame).
    package static let granule = 2048
    /// Free blocks kept at most (a full 9-frame queue, what a sink holds, and slack); beyond that
    /// returned storage is freed.
    package static let defaultMaximumFreeCount = 32

    /// The pool's counters, for tests and diagnostics.
    package struct Statistics: Sendable, Equatable {
        /// Storage blocks allocated over the pool's lifetime. Flat in steady state.
        package var allocationCount: Int
        /// Blocks lent to live buffers.
        package var outstandingCount: Int
        /// Blocks waiting for reuse.
        package var freeCount: Int
    }

    /// The shared free list, kept alive by outstanding buffers.
    private let store: AudioBufferStore

    /// An empty pool keeping at most `maximumFreeCount` free blocks.
    package init(maximumFreeCount: Int = AudioBufferPool.defaultMaximumFreeCount) {
        store = AudioBufferStore(maximumFreeCount: maximumFreeCount)
    }

    /// A buffer holding at least `minimumCapacity` floats (contents undefined).
    package func makeBuffer(minimumCapacity: Int) -> AudioSampleBuffer {
        let capacity = max(1, (minimumCapacity + Self.granule - 1) / Self.granule) * Self.granule
        let address = store.take(capacity: capacity) ?? .allocate(capacity: capacity)
        return AudioSampleBuffer(baseAddress: address, capacity: capacity, store: store)
    }

    /// The current counters.
    package var statistics: Statistics {
        store.statistics
    }
}

/// The free list behind an ``AudioBufferPool``; guarded by its lock.
private final class AudioBufferStore: @unchecked Sendable {
    /// Free blocks kept at most.
    let maximumFreeCount: Int
    /// Guards the fields below. The decode thread takes buffers, whichever thread drops a sample returns them. Not an
    /// engine command: memory recycling on the data path.
    private let lock = ConditionLock()
    /// Free blocks and their capacities; guarded by `lock`.
    private var free: [(address: UnsafeMutablePointer<Float>, capacity: Int)] = []
    /// Guarded by `lock`.
    private var allocationCount = 0
    /// Guarded by `lock`.
    private var outstandingCount = 0

    /// An empty store keeping at most `maximumFreeCount` free blocks.
    init(maximumFreeCount: Int) {
        self.maximumFreeCount = maximumFreeCount
    }

    /// Frees the free blocks. Runs only once no buffer is outstanding, since buffers keep the store alive.
    deinit {
        for block in free { block.address.deallocate() }
    }

    /// A free block of exactly `capacity`, or nil after counting a new allocation the caller makes.
    func take(capacity: Int) -> UnsafeMutablePointer<Float>? {
        lock.withLock {
            outstandingCount += 1
            if let index = free.firstIndex(where: { $0.capacity == capacity }) {
                return free.remove(at: index).address
            }
            allocationCount += 1
            return nil
        }
    }

    /// Takes a block back, or frees it when enough are free.
    func recycle(_ address: UnsafeMutablePointer<Float>, capacity: Int) {
        let keep = lock.withLock { () -> Bool in
            outstandingCount -= 1
            guard free.count < maximumFreeCount else { return false }
            free.append((address, capacity))
            return true
        }
        if !keep { address.deallocate() }
    }

    /// The current counters.
    var statistics: AudioBufferPool.Statistics {
        lock.withLock {
            AudioBufferPool.Statistics(
                allocationCount: allocationCount, outstandingCount: outstandingCount, freeCount: free.count)
        }
    }
}
