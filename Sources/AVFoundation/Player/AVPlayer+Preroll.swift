import Foundation

extension AVPlayer {
    /// Readies the current item to start at `rate` with minimal latency: `completionHandler` gets `true` once the
    /// item's first pictures and sound are decoded at its current time (at once for an item already ready), `false`
    /// when a rate change, a seek, a change of item or ``cancelPendingPrerolls()`` interrupts it, or when there is no
    /// item. Call it while the rate is 0. Traps unless ``status`` is `.readyToPlay`, as Apple raises.
    ///
    /// The handler runs on an arbitrary queue, exactly once.
    public func preroll(atRate rate: Float, completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        guard status == .readyToPlay else {
            apiViolation("preroll(atRate:completionHandler:) needs the player's status to be readyToPlay.")
        }
        let completion: @Sendable (Bool) -> Void = { finished in
            DispatchQueue.global().async { completionHandler?(finished) }
        }
        guard let item = currentItem else {
            completion(false)
            return
        }
        func itemIsReady() -> Bool { item.read { $0.sessionReady && $0.resumeTime == nil } }
        if itemIsReady() {
            completion(true)
            return
        }
        mutate { $0.prerolls.append(completion) }
        // It became ready meanwhile (before the preroll was pending).
        if itemIsReady(), currentItem === item { finishPrerolls(true) }
    }

    /// ``preroll(atRate:completionHandler:)`` as an `async` call.
    public func preroll(atRate rate: Float) async -> Bool {
        await withCheckedContinuation { c in preroll(atRate: rate) { c.resume(returning: $0) } }
    }

    /// Completes pending prerolls with `false`.
    public func cancelPendingPrerolls() {
        finishPrerolls(false)
    }

    /// Completes the pending prerolls with `finished`.
    func finishPrerolls(_ finished: Bool) {
        let pending: [@Sendable (Bool) -> Void] = mutate { s in
            defer { s.prerolls = [] }
            return s.prerolls
        }
        for completion in pending { completion(finished) }
    }
}
