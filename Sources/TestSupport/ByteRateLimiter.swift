import Dispatch
import Foundation
import OAVFLocking

/// Hands out bytes to senders at most `bytesPerSecond` per second, in ticks: each tick of `tick` seconds (ticks are
/// numbered from the monotonic clock, so concurrent senders share them) has a budget of `bytesPerSecond × tick`
/// bytes, and a sender whose tick is spent waits for the next one. Shared across connections for the server-wide
/// cap; one per request for a `.throttle` fault.
///
/// Thread-safe: every field is guarded by `condition`. The rate can change at any time; waiters wake at once.
final class ByteRateLimiter: @unchecked Sendable {
    /// The length of a tick in seconds.
    let tick: TimeInterval
    /// Guards the fields below; senders wait on it for the next tick. The test server's connection threads and the
    /// test. Test support, no engine.
    private let condition = ConditionLock()
    /// `nil`: unlimited. Guarded by `condition`.
    private var rate: Int?
    /// The tick whose budget `remaining` is. Guarded by `condition`.
    private var currentTick = -1
    /// Bytes left in `currentTick`. Guarded by `condition`.
    private var remaining = 0
    /// Set by `stop()`: `take` returns 0. Guarded by `condition`.
    private var stopped = false

    init(bytesPerSecond: Int?, tick: TimeInterval) {
        self.rate = bytesPerSecond
        self.tick = tick
    }

    /// The cap in bytes per second; `nil` is unlimited.
    var bytesPerSecond: Int? {
        get { condition.withLock { rate } }
        set {
            condition.withLock {
                rate = newValue.map { max(1, $0) }
                currentTick = -1
                condition.broadcast()
            }
        }
    }

    /// Makes every present and future `take` return 0.
    func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }

    /// Grants up to `wanted` bytes, waiting for a tick with budget if needed. Returns the bytes granted (at least 1
    /// when `wanted` > 0) and the tick they belong to (`nil` when no cap applied), or 0 bytes once stopped or when
    /// `isCancelled` says so (checked at least once per tick, so no wait outlives a tick).
    func take(_ wanted: Int, isCancelled: () -> Bool) -> (bytes: Int, tick: Int?) {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if stopped || isCancelled() { return (0, nil) }
            guard let rate else { return (wanted, nil) }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
            let now = Int(seconds / tick)
            if now != currentTick {
                currentTick = now
                remaining = max(1, Int(Double(rate) * tick))
            }
            if remaining > 0 {
                let granted = min(wanted, remaining)
                remaining -= granted
                return (granted, now)
            }
            let untilNext = Double(now + 1) * tick - seconds
            condition.wait(timeout: max(0.001, untilNext))
        }
    }
}
