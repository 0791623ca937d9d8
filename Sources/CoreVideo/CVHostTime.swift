#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Host time: the clock CoreVideo, CoreMedia (`CMClockGetHostTimeClock()`) and the playback engine share.

/// A time interval in seconds, as CoreFoundation's `CFTimeInterval` (`Double`).
///
/// Differs from Apple: swift-corelibs-foundation does not export `CFTimeInterval` through `import Foundation`,
/// so CoreVideo (re-exported by AVFoundation) defines it.
public typealias CFTimeInterval = Double

/// The current host time, as Apple's `CVGetCurrentHostTime()`.
///
/// Differs from Apple: host time is `CLOCK_MONOTONIC` in nanoseconds (Apple: `mach_absolute_time` units). It is the
/// same time base as `CMClockGetHostTimeClock()` (whose system units are nanoseconds, so
/// `CMClockMakeHostTimeFromSystemUnits(CVGetCurrentHostTime())` is the host clock's time) and the playback engine's
/// real-time clock. Like `mach_absolute_time`, it does not advance while the machine sleeps. Any thread.
public func CVGetCurrentHostTime() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
}

/// Host time units per second, as Apple's `CVGetHostClockFrequency()`: always 1e9 here (nanoseconds).
public func CVGetHostClockFrequency() -> Double {
    1_000_000_000
}

/// The smallest possible increment in host time, as Apple's `CVGetHostClockMinimumTimeDelta()`: the resolution of
/// `CLOCK_MONOTONIC` in nanoseconds (normally 1).
public func CVGetHostClockMinimumTimeDelta() -> UInt32 {
    var resolution = timespec()
    guard clock_getres(CLOCK_MONOTONIC, &resolution) == 0 else { return 1 }
    let nanoseconds = UInt64(resolution.tv_sec) &* 1_000_000_000 &+ UInt64(resolution.tv_nsec)
    return UInt32(clamping: max(1, nanoseconds))
}
