import FFmpegBridge
import OAVFLocking

/// Recycles `Packet` objects (each owns one `AVPacket` allocation) so that the demux → decode path
/// allocates no packet structures in steady state: the demuxer takes a blank packet, moves the
/// demuxed payload into it, the decoder hands it back through ``PacketQueue/recycle(_:)``.
///
/// The payload buffers themselves are reference-counted by libavformat and freed when a packet is
/// unreferenced; what the pool saves is the `av_packet_alloc`/`av_packet_free` pair per packet.
///
/// Thread-safe: the demux thread takes, decode threads and the engine recycle.
package final class PacketPool: @unchecked Sendable {
    /// Blank packets kept for reuse at most; beyond that a burst's packets are freed rather than
    /// hoarded (256 shells are ~60 KB, about 8 s of 30 fps video plus its AAC).
    package static let defaultMaximumFreeCount = 256

    /// The pool's counters, for tests and diagnostics.
    package struct Statistics: Sendable, Equatable {
        /// `Packet`s allocated over the pool's lifetime. Flat in steady state.
        package var allocationCount: Int
        /// Blank packets waiting for reuse.
        package var freeCount: Int
    }

    /// How many blank packets the pool keeps at most.
    package let maximumFreeCount: Int
    /// Guards `free` and `allocationCount`. The demux thread takes, decode threads return. Not an engine command:
    /// memory recycling on the data path.
    private let lock = ConditionLock()
    /// Blank packets; guarded by `lock`.
    private var free: [Packet] = []
    /// Allocations so far; guarded by `lock`.
    private var allocationCount = 0

    /// An empty pool keeping at most `maximumFreeCount` blank packets.
    package init(maximumFreeCount: Int = PacketPool.defaultMaximumFreeCount) {
        self.maximumFreeCount = maximumFreeCount
        free.reserveCapacity(maximumFreeCount)
    }

    /// A blank packet: a recycled one when available, else a new allocation.
    package func take() -> Packet {
        let reused: Packet? = lock.withLock {
            if let packet = free.popLast() { return packet }
            allocationCount += 1
            return nil
        }
        return reused ?? Packet()
    }

    /// Drops `packet`'s payload and keeps the packet for reuse (or frees it when the pool is full).
    /// The caller must not touch the packet afterwards.
    package func recycle(_ packet: Packet) {
        packet.unref()
        lock.withLock {
            if free.count < maximumFreeCount { free.append(packet) }
        }
    }

    /// The current counters.
    package var statistics: Statistics {
        lock.withLock { Statistics(allocationCount: allocationCount, freeCount: free.count) }
    }
}
