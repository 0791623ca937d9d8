#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Seconds on the monotonic clock, for timeouts inside the engine's threads (never for media time,
/// which comes from the injected clock).
package enum MonotonicTime {
    /// Seconds since an arbitrary fixed point (`CLOCK_MONOTONIC`).
    package static var now: Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
