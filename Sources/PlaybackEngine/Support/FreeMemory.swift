import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Gives the C allocator's free memory back to the system once a player has nothing left to play (its queue emptied).
///
/// Why: glibc's malloc keeps what an item's pipeline freed — packets, decoded pictures, codec and filter state — in
/// its arenas (one per thread that allocated while another held an arena, up to 8 per CPU), and returns pages only
/// from the top of each heap; pictures above its mmap threshold stop being mapped once one was freed (the threshold
/// rises to the largest block freed, up to 32 MiB), so they stay in arenas too. After five 1080p items were played
/// and released, 0.7 MiB was still in use but the arenas held 30–38 MiB of resident free memory; `malloc_trim(0)`
/// hands the free pages of every arena back (`madvise`, keeping the address space), and the idle player then sits at
/// 74–85 MiB instead of 107–108 (README "Idle memory"; `make bench` row 15). The next item faults its pages in again.
/// Only an empty queue trims: a player changing items reuses that memory at once.
///
/// `malloc_trim` is looked up with `dlsym` (the Swift Glibc module does not import `<malloc.h>`); a C library without
/// it (musl) gives nothing back. Any thread; it takes each arena's lock in turn while it walks that arena's free
/// blocks (a few milliseconds for tens of MiB).
package enum FreeMemory {
    private typealias Trim = @convention(c) (Int) -> Int32

    /// glibc's `malloc_trim`, nil when the C library has none.
    private static let trim: Trim? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
        #else
        return nil
        #endif
    }()

    /// How many times ``release()`` ran; any thread. One counter, so an `Atomic`, not a lock.
    private static let count = Atomic<Int>(0)

    /// How many times ``release()`` ran since the process started (tests count them).
    package static var releases: Int { count.load(ordering: .relaxed) }

    /// Returns the allocator's free memory to the system: `malloc_trim(0)`. Counted even when the C library cannot.
    package static func release() {
        count.add(1, ordering: .relaxed)
        _ = trim?(0)
    }
}
