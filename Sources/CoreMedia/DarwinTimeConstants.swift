// Darwin's time-unit constants (`<dispatch/time.h>`), which player code passes to `CMTime` and `DispatchTime`:
// `CMTime(seconds: 0.5, preferredTimescale: CMTimeScale(NSEC_PER_SEC))`. On Apple's systems `import CoreMedia` and
// `import AVFoundation` bring them through Darwin; Glibc does not define them and swift-corelibs-libdispatch keeps
// its copy in the C module it does not re-export, so CoreMedia declares them here (and AVFoundation re-exports
// CoreMedia). Same names, type (`UInt64`, as Swift imports Darwin's `ull` macros) and values.

/// Nanoseconds per second (Darwin's `NSEC_PER_SEC`).
public let NSEC_PER_SEC: UInt64 = 1_000_000_000

/// Nanoseconds per millisecond (Darwin's `NSEC_PER_MSEC`).
public let NSEC_PER_MSEC: UInt64 = 1_000_000

/// Microseconds per second (Darwin's `USEC_PER_SEC`).
public let USEC_PER_SEC: UInt64 = 1_000_000

/// Nanoseconds per microsecond (Darwin's `NSEC_PER_USEC`).
public let NSEC_PER_USEC: UInt64 = 1_000
