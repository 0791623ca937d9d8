/// Seconds on the monotonic clock, for timeouts inside the engine's threads (never for media time,
/// which comes from the injected clock).
package enum MonotonicTime {
    /// Seconds since an arbitrary fixed point (`CLOCK_MONOTONIC`, as ``HostClock``).
    package static var now: Double {
        Double(HostClock.now()) / 1e9
    }
}
