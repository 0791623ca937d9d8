import CoreMedia

/// Periodic and boundary time observers, fired by the engine thread.
///
/// Semantics (Apple's, made exact): a periodic observer fires when playback crosses a multiple of
/// its interval, and also at every playback start, stop and time jump; the same time is never
/// reported twice in a row to one observer. A boundary observer fires when normal playback moves
/// from before a boundary to at-or-after it; seeks never fire it.
/// Engine thread only (inside ``TimeObserverRegistry``); handlers only enqueue work (the facade dispatches to queues).
/// Tokens are chosen by the caller (``PlayerEngine`` hands them out on the caller's thread).
struct TimeObservers {
    struct Periodic {
        var interval: CMTime
        var handler: @Sendable (CMTime) -> Void
        var lastFired: CMTime?
    }
    struct Boundary {
        var times: [CMTime]
        var handler: @Sendable () -> Void
    }

    private(set) var periodic: [UInt64: Periodic] = [:]
    private(set) var boundary: [UInt64: Boundary] = [:]

    mutating func addPeriodic(token: UInt64, interval: CMTime, handler: @escaping @Sendable (CMTime) -> Void) {
        periodic[token] = Periodic(interval: interval, handler: handler, lastFired: nil)
    }

    mutating func addBoundary(token: UInt64, times: [CMTime], handler: @escaping @Sendable () -> Void) {
        boundary[token] = Boundary(times: times.filter(\.isNumeric).sorted(), handler: handler)
    }

    mutating func remove(_ token: UInt64) -> Bool {
        periodic.removeValue(forKey: token) != nil || boundary.removeValue(forKey: token) != nil
    }

    /// Calls to make for playback moving from `t0` to `t1` (`t1 > t0`).
    mutating func crossing(from t0: CMTime, to t1: CMTime) -> [@Sendable () -> Void] {
        guard t0.isNumeric, t1.isNumeric, t1 > t0 else { return [] }
        var calls: [@Sendable () -> Void] = []
        for (token, var p) in periodic {
            let i = p.interval.seconds
            guard i > 0 else { continue }
            // Compare multiples with a little tolerance for times rendered in another timescale.
            let k0 = ((t0.seconds + 1e-9) / i).rounded(.down)
            let k1 = ((t1.seconds + 1e-9) / i).rounded(.down)
            if k1 > k0, p.lastFired != t1 {
                p.lastFired = t1
                periodic[token] = p
                let h = p.handler
                calls.append { h(t1) }
            }
        }
        for b in boundary.values where b.times.contains(where: { $0 > t0 && $0 <= t1 }) {
            calls.append(b.handler)
        }
        return calls
    }

    /// Calls to make for playback moving backwards from `t0` to `t1` (`t1 < t0`): periodic observers whose
    /// multiples were crossed (called with `t1`), boundary times in `[t1, t0)`.
    mutating func crossingBackward(from t0: CMTime, to t1: CMTime) -> [@Sendable () -> Void] {
        guard t0.isNumeric, t1.isNumeric, t1 < t0 else { return [] }
        var calls: [@Sendable () -> Void] = []
        for (token, var p) in periodic {
            let i = p.interval.seconds
            guard i > 0 else { continue }
            let k0 = ((t0.seconds - 1e-9) / i).rounded(.up)
            let k1 = ((t1.seconds - 1e-9) / i).rounded(.up)
            if k1 < k0, p.lastFired != t1 {
                p.lastFired = t1
                periodic[token] = p
                let h = p.handler
                calls.append { h(t1) }
            }
        }
        for b in boundary.values where b.times.contains(where: { $0 >= t1 && $0 < t0 }) {
            calls.append(b.handler)
        }
        return calls
    }

    /// Calls for a start, stop or jump at `t`: every periodic observer, once.
    mutating func event(at t: CMTime) -> [@Sendable () -> Void] {
        guard t.isNumeric else { return [] }
        var calls: [@Sendable () -> Void] = []
        for (token, var p) in periodic where p.lastFired != t {
            p.lastFired = t
            periodic[token] = p
            let h = p.handler
            calls.append { h(t) }
        }
        return calls
    }
}
