/// What the engine thread has to tell the outside world after an iteration: events for the owner and calls
/// (observer blocks, seek completions) to make. Filled and emptied on the engine thread only, and delivered with no
/// lock held, so a handler may call straight back into the engine.
final class EventOutbox {
    /// Events not delivered yet, in the order they happened, each with the command it is as of.
    private(set) var events: [(event: EngineEvent, asOf: UInt64)] = []
    /// The last command applied (or being applied): what events emitted now are as of. Set by the core.
    var asOf: UInt64 = 0
    /// Whether a time-control change was emitted since ``asOf`` last moved to a rate command (the core then
    /// confirms the time control it reached: ``EngineCore``).
    var timeControlReported = true
    /// Calls not made yet, in the order they became due.
    private(set) var calls: [@Sendable () -> Void] = []

    /// Queues `event`.
    func emit(_ event: EngineEvent) {
        if case .timeControlChanged = event { timeControlReported = true }
        events.append((event, asOf))
    }

    /// Queues a call.
    func call(_ body: @escaping @Sendable () -> Void) { calls.append(body) }

    /// Queues calls.
    func call(_ bodies: [@Sendable () -> Void]) { calls += bodies }

    /// Completes `completion` (if any) with `finished`.
    func complete(_ completion: (@Sendable (Bool) -> Void)?, _ finished: Bool) {
        guard let completion else { return }
        calls.append { completion(finished) }
    }

    /// Whether anything waits to be delivered.
    var isEmpty: Bool { events.isEmpty && calls.isEmpty }

    /// Delivers events to `handler` (kept when there is none yet: none is dropped), then makes the calls.
    func deliver(to handler: EngineEventHandler?) {
        if let handler, !events.isEmpty {
            let due = events
            events.removeAll(keepingCapacity: true)
            for (event, asOf) in due { handler(event, asOf) }
        }
        if !calls.isEmpty {
            let due = calls
            calls.removeAll(keepingCapacity: true)
            for call in due { call() }
        }
    }
}
