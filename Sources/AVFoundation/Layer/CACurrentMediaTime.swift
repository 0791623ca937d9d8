import CoreVideo
import Foundation

/// The current host time in seconds, as QuartzCore's `CACurrentMediaTime()` (which Apple's AVFoundation brings in
/// with `AVPlayerLayer`): the time base of `AVPlayerItemVideoOutput.itemTime(forHostTime:)`.
///
/// On Linux the host clock is `CLOCK_MONOTONIC`, so this is `Double(CVGetCurrentHostTime()) / 1e9`.
public func CACurrentMediaTime() -> CFTimeInterval {
    Double(CVGetCurrentHostTime()) / 1_000_000_000
}
