/// What the engine thread has to tell the outside world after an iteration: events for the owner and calls
/// (observer blocks, seek completions) to make. Filled and emptied on the engine thread only, and delivered with no
/// lock held, so a handler may call straight back into the engine.
///
/// An iteration's events are delivered first, in the order they happened, then its calls — except a completion that
/// Apple calls "immediately" (a seek superseded or cancelled: ``completeInOrder(_:_:)``), which keeps its place among
/// the events: a seek's `false` comes before the jump of the seek that replaced it, whether or not both happened in
/// one iteration.
final class EventOutbox {
    /// One thing to deliver in order: an event with the command it is as of, or a completion kept in its place.
    private enum Entry {
        case event(EngineEvent, asOf: UInt64)
        case call(@Sendable () -> Void)
    }
    /// Events (and completions in order) not delivered yet, in the order they happened.
    private var entries: [Entry] = []
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
        entries.append(.event(event, asOf: asOf))
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

    /// Completes `completion` (if any) with `finished` in its place among the events: after those emitted before it,
    /// before those emitted after (a superseded or cancelled seek, which Apple completes at once).
    func completeInOrder(_ completion: (@Sendable (Bool) -> Void)?, _ finished: Bool) {
        guard let completion else { return }
        entries.append(.call { completion(finished) })
    }

    /// Whether anything waits to be delivered.
    var isEmpty: Bool { entries.isEmpty && calls.isEmpty }

    /// Delivers events to `handler` with the completions kept among them, then makes the calls. With no handler yet
    /// the events are kept (none is dropped) and the completions among them are made.
    func deliver(to handler: EngineEventHandler?) {
        if !entries.isEmpty {
            let due = entries
            entries.removeAll(keepingCapacity: true)
            for entry in due {
                switch entry {
                case .event(let event, let asOf):
                    if let handler { handler(event, asOf) } else { entries.append(entry) }
                case .call(let call):
                    call()
                }
            }
        }
        if !calls.isEmpty {
            let due = calls
            calls.removeAll(keepingCapacity: true)
            for call in due { call() }
        }
    }
}
