import CoreVideo
import Foundation

/// A status code, as Apple's `OSStatus` (`MacTypes.h`): 0 for success, negative for errors.
public typealias OSStatus = Int32

/// A timeline under application control: its time moves at `rate` relative to a source clock (Apple's
/// `CMTimebase`). Rate 0 holds the time; rate 1 follows the clock; rate −1 runs backwards.
///
/// Linux design:
/// - A class rather than a Core Foundation type; the C-style functions (`CMTimebaseGetTime(_:)`, …) and the Swift
///   members (`time`, `rate`, `setTime(_:)`, `setRate(_:)`) are both here.
/// - `AVPlayerItem.timebase` is a read-only timebase that follows the item's playback; setting its time or rate
///   fails with `kCMTimebaseError_ReadOnly`, as on Apple's systems where the player owns it.
/// - Timers (`addTimer`), notifications and source timebases are not provided.
/// - Thread-safe: every member may be called from any thread.
open class CMTimebase: @unchecked Sendable {
    private let lock = NSLock()
    /// The clock time moves against; nil for a timebase that follows a player.
    public let sourceClock: CMClock?
    /// Reads a followed timeline (time and rate) for a player's timebase.
    private let follow: (@Sendable () -> (time: CMTime, rate: Double))?
    // Guarded by `lock`: the timebase's time was `anchorTime` when the source clock read `anchorSource`.
    private var anchorTime = CMTime.zero
    private var anchorSource = CMTime.zero
    private var storedRate: Float64 = 0

    /// A timebase on `sourceClock`, at time 0 and rate 0 (Apple: `CMTimebase(sourceClock:)`).
    public init(sourceClock: CMClock) throws {
        self.sourceClock = sourceClock
        follow = nil
        anchorSource = sourceClock.time
    }

    /// A read-only timebase that reports what `read` returns (a player item's playback).
    package init(following read: @escaping @Sendable () -> (time: CMTime, rate: Double)) {
        sourceClock = nil
        follow = read
    }

    /// The timebase's current time.
    public var time: CMTime {
        if let follow { return follow().time }
        guard let sourceClock else { return .invalid }
        let now = sourceClock.time
        return lock.withLock {
            guard storedRate != 0, now.isNumeric, anchorSource.isNumeric else { return anchorTime }
            return anchorTime + CMTimeMultiplyByFloat64(now - anchorSource, multiplier: storedRate)
        }
    }

    /// The rate relative to the source clock.
    public var rate: Float64 {
        if let follow { return follow().rate }
        return lock.withLock { storedRate }
    }

    /// The rate relative to the ultimate source clock (the same as ``rate``: timebases here have no source timebase).
    public var effectiveRate: Float64 { rate }

    /// Sets the current time (the rate is kept). Throws for a player's timebase, which is read-only.
    public func setTime(_ time: CMTime) throws {
        guard let sourceClock, follow == nil else { throw CMTimebase.error(kCMTimebaseError_ReadOnly) }
        guard time.isNumeric else { throw CMTimebase.error(kCMTimebaseError_InvalidParameter) }
        let now = sourceClock.time
        lock.withLock {
            anchorTime = time
            anchorSource = now
        }
    }

    /// Sets the rate; the time goes on from where it is. Throws for a player's timebase, which is read-only.
    public func setRate(_ rate: Float64) throws {
        guard let sourceClock, follow == nil else { throw CMTimebase.error(kCMTimebaseError_ReadOnly) }
        guard rate.isFinite else { throw CMTimebase.error(kCMTimebaseError_InvalidParameter) }
        let current = time
        let now = sourceClock.time
        lock.withLock {
            anchorTime = current
            anchorSource = now
            storedRate = rate
        }
    }

    /// An `NSOSStatusErrorDomain` error with `status`.
    static func error(_ status: OSStatus) -> NSError {
        NSError(domain: NSOSStatusErrorDomain, code: Int(status))
    }
}

/// A required parameter was missing.
public let kCMTimebaseError_MissingRequiredParameter: OSStatus = -12748
/// A parameter was not valid.
public let kCMTimebaseError_InvalidParameter: OSStatus = -12749
/// Memory could not be allocated.
public let kCMTimebaseError_AllocationFailed: OSStatus = -12750
/// The timebase is read-only (a player's).
public let kCMTimebaseError_ReadOnly: OSStatus = -12757

/// Creates a timebase on `sourceClock` (Apple's C function; `allocator` is ignored).
public func CMTimebaseCreateWithSourceClock(
    allocator: CFAllocator?, sourceClock: CMClock, timebaseOut: UnsafeMutablePointer<CMTimebase?>
) -> OSStatus {
    timebaseOut.pointee = try? CMTimebase(sourceClock: sourceClock)
    return timebaseOut.pointee == nil ? kCMTimebaseError_AllocationFailed : 0
}

/// The timebase's current time.
public func CMTimebaseGetTime(_ timebase: CMTimebase) -> CMTime { timebase.time }

/// The timebase's rate.
public func CMTimebaseGetRate(_ timebase: CMTimebase) -> Float64 { timebase.rate }

/// The timebase's rate relative to its ultimate source clock.
public func CMTimebaseGetEffectiveRate(_ timebase: CMTimebase) -> Float64 { timebase.effectiveRate }

/// Sets the timebase's time; 0 or an error status.
public func CMTimebaseSetTime(_ timebase: CMTimebase, time: CMTime) -> OSStatus {
    status { try timebase.setTime(time) }
}

/// Sets the timebase's rate; 0 or an error status.
public func CMTimebaseSetRate(_ timebase: CMTimebase, rate: Float64) -> OSStatus {
    status { try timebase.setRate(rate) }
}

/// 0, or the code of the `NSOSStatusErrorDomain` error `body` throws.
private func status(_ body: () throws -> Void) -> OSStatus {
    do {
        try body()
        return 0
    } catch {
        return OSStatus(truncatingIfNeeded: (error as NSError).code)
    }
}
