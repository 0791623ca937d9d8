// The recycling memory behind a CVPixelBufferPool.
import Foundation
import OAVFLocking

/// Counters describing a pool's memory, for tests and the engine's diagnostics (package API).
package struct PixelBufferPoolStatistics: Sendable, Equatable {
    /// Memory blocks allocated over the pool's lifetime. Flat in steady state: buffers reuse returned blocks.
    package var allocationCount: Int
    /// Blocks that currently exist: lent to live buffers plus waiting in the free list.
    package var liveAllocationCount: Int
    /// Blocks waiting in the free list.
    package var freeBufferCount: Int
}

/// The memory of one pool: a free list of equal-sized blocks. A buffer vended by the pool borrows a block and
/// returns it from its `deinit` (on whatever thread drops the last reference), so steady-state use allocates
/// nothing. Buffers keep the store alive, so a block returned after the pool itself is gone is simply freed.
///
/// Unused blocks age out: a block that waited `maximumBufferAge` seconds is freed the next time the pool is used
/// or flushed (there is no timer thread), keeping at least `minimumBufferCount` blocks.
///
/// Thread safety: every method may be called from any thread (decoders take, any thread recycles, apps flush);
/// the mutable state is guarded by `lock`. `@unchecked Sendable` for that lock-guarded `var`.
final class PixelBufferPoolStore: @unchecked Sendable {
    /// Size of every block.
    let byteCount: Int
    /// Blocks kept even when they age out.
    let minimumBufferCount: Int
    /// Seconds an unused block may wait before it is freed; 0 disables aging.
    let maximumBufferAge: Double
    /// Monotonic time in seconds; injected so tests can age buffers without sleeping.
    let clock: @Sendable () -> Double

    private struct FreeBlock: Sendable {
        let memory: PixelMemory
        /// `clock()` when the block came back.
        let returnedAt: Double
    }

    private struct State: Sendable {
        /// Returned blocks, oldest first; vending takes the newest (warmest in cache).
        var free: [FreeBlock] = []
        var liveAllocations = 0
        var totalAllocations = 0
        /// Set when the pool object is gone: returned blocks are freed instead of kept.
        var isClosed = false
    }

    /// Guards `state`. Held for a few instructions per call, never while allocating or freeing memory (blocks
    /// leaving the pool are handed out of the critical section and freed after it). Not an engine command: pools
    /// belong to no engine; decoders, converters and the app's threads take and return buffers.
    private let lock = ConditionLock()
    /// The free list and counters. Guarded by `lock`; reach it through `withState(_:)`.
    private var state = State()

    init(byteCount: Int, minimumBufferCount: Int, maximumBufferAge: Double, clock: @escaping @Sendable () -> Double) {
        self.byteCount = byteCount
        self.minimumBufferCount = minimumBufferCount
        self.maximumBufferAge = maximumBufferAge
        self.clock = clock
    }

    /// Takes a free block or allocates a new one.
    ///
    /// - Throws: `wouldExceedAllocationThreshold` when no block is free and `allocationThreshold` blocks already
    ///   exist; `kCVReturnPoolAllocationFailed` when memory is exhausted.
    func take(allocationThreshold: Int?) throws(CoreVideoError) -> PixelMemory {
        let now = clock()
        // (a free block, blocks that aged out, whether a new block may be allocated)
        let (reused, expired, mayAllocate) = withState { state -> (PixelMemory?, [FreeBlock], Bool) in
            let expired = Self.ageOut(&state, now: now, maximumAge: maximumBufferAge, keeping: minimumBufferCount)
            if let block = state.free.popLast() {
                return (block.memory, expired, false)
            }
            if let allocationThreshold, state.liveAllocations >= allocationThreshold {
                return (nil, expired, false)
            }
            state.liveAllocations += 1
            state.totalAllocations += 1
            return (nil, expired, true)
        }
        withExtendedLifetime(expired) {}  // freed here, outside the lock
        if let reused {
            return reused
        }
        guard mayAllocate else { throw .wouldExceedAllocationThreshold }
        guard let memory = PixelMemory(byteCount: byteCount) else {
            withState {
                $0.liveAllocations -= 1
                $0.totalAllocations -= 1
            }
            throw CoreVideoError(kCVReturnPoolAllocationFailed)
        }
        return memory
    }

    /// Takes back a block from a buffer being deinitialised.
    func recycle(_ memory: PixelMemory) {
        let now = clock()
        let dropped = withState { state -> [FreeBlock] in
            if state.isClosed {
                state.liveAllocations -= 1
                return [FreeBlock(memory: memory, returnedAt: now)]
            }
            state.free.append(FreeBlock(memory: memory, returnedAt: now))
            return Self.ageOut(&state, now: now, maximumAge: maximumBufferAge, keeping: minimumBufferCount)
        }
        withExtendedLifetime(dropped) {}  // freed here, outside the lock
    }

    /// Frees unused blocks: all of them when `excessBuffers`, otherwise only those that aged out.
    func flush(excessBuffers: Bool) {
        let now = clock()
        let dropped = withState { state -> [FreeBlock] in
            if excessBuffers {
                let all = state.free
                state.free.removeAll()
                state.liveAllocations -= all.count
                return all
            }
            return Self.ageOut(&state, now: now, maximumAge: maximumBufferAge, keeping: minimumBufferCount)
        }
        withExtendedLifetime(dropped) {}  // freed here, outside the lock
    }

    /// Called when the pool object goes away: frees the free list; blocks still lent are freed when returned.
    func close() {
        let dropped = withState { state -> [FreeBlock] in
            state.isClosed = true
            let all = state.free
            state.free.removeAll()
            state.liveAllocations -= all.count
            return all
        }
        withExtendedLifetime(dropped) {}  // freed here, outside the lock
    }

    /// The pool's counters, read in one step.
    var statistics: PixelBufferPoolStatistics {
        withState {
            PixelBufferPoolStatistics(
                allocationCount: $0.totalAllocations, liveAllocationCount: $0.liveAllocations,
                freeBufferCount: $0.free.count)
        }
    }

    /// Runs `body` on the state under `lock`. `body` must not free blocks (return them instead).
    private func withState<Result>(_ body: (inout State) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    /// Removes blocks older than `maximumAge` from the front of the free list while more than `keeping` blocks
    /// exist, and returns them so the caller frees them outside the lock.
    private static func ageOut(
        _ state: inout State,
        now: Double,
        maximumAge: Double,
        keeping minimum: Int
    ) -> [FreeBlock] {
        guard maximumAge > 0 else { return [] }
        var expiredCount = 0
        while expiredCount < state.free.count, now - state.free[expiredCount].returnedAt >= maximumAge,
            state.liveAllocations - expiredCount > minimum
        {
            expiredCount += 1
        }
        guard expiredCount > 0 else { return [] }
        let expired = Array(state.free.prefix(expiredCount))
        state.free.removeFirst(expiredCount)
        state.liveAllocations -= expiredCount
        return expired
    }
}
