import Foundation

extension AVPlayer {
    /// Readies the current item to start at `rate` with minimal latency: `completionHandler` gets `true` once the
    /// item is primed at its current time (ready, no seek pending, the picture there decoded and shown), `false` when
    /// ``cancelPendingPrerolls()``, a rate change, a seek or a change of item interrupts it, or when there is no item.
    /// Call it while the rate is 0. Traps unless ``status`` is `.readyToPlay`, as Apple raises.
    ///
    /// The engine owns pending prerolls: a call posts the request and returns; it completes at the earliest on the
    /// engine's iteration after the one that took it, so a cancel made right after it always finds it pending.
    /// The handler runs on an arbitrary queue, exactly once.
    public func preroll(atRate rate: Float, completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        guard status == .readyToPlay else {
            apiViolation("preroll(atRate:completionHandler:) needs the player's status to be readyToPlay.")
        }
        let completion: @Sendable (Bool) -> Void = { finished in
            DispatchQueue.global().async { completionHandler?(finished) }
        }
        guard currentItem != nil else {
            completion(false)
            return
        }
        engineCreatingIfNeeded().preroll(completion: completion)
    }

    /// ``preroll(atRate:completionHandler:)`` as an `async` call.
    public func preroll(atRate rate: Float) async -> Bool {
        await withCheckedContinuation { c in preroll(atRate: rate) { c.resume(returning: $0) } }
    }

    /// Completes pending prerolls with `false`.
    public func cancelPendingPrerolls() {
        existingEngine?.cancelPrerolls()
    }
}
