import CoreMedia

/// The engine's time observers (``TimeObservers``) wired to its ``EventOutbox``: firing an observer queues its
/// block for delivery after the iteration. Engine thread only.
final class TimeObserverRegistry {
    /// The observers and what each reported last.
    private var observers = TimeObservers()
    /// Where fired blocks go.
    private let outbox: EventOutbox

    init(outbox: EventOutbox) {
        self.outbox = outbox
    }

    func addPeriodic(token: UInt64, interval: CMTime, handler: @escaping @Sendable (CMTime) -> Void) {
        observers.addPeriodic(token: token, interval: interval, handler: handler)
    }

    func addBoundary(token: UInt64, times: [CMTime], handler: @escaping @Sendable () -> Void) {
        observers.addBoundary(token: token, times: times, handler: handler)
    }

    func remove(_ token: UInt64) {
        _ = observers.remove(token)
    }

    /// Playback started, stopped or jumped at `t`: every periodic observer fires once.
    func event(at t: CMTime) {
        outbox.call(observers.event(at: t))
    }

    /// Playback moved forwards from `t0` to `t1`.
    func crossing(from t0: CMTime, to t1: CMTime) {
        outbox.call(observers.crossing(from: t0, to: t1))
    }

    /// Playback moved backwards from `t0` to `t1`.
    func crossingBackward(from t0: CMTime, to t1: CMTime) {
        outbox.call(observers.crossingBackward(from: t0, to: t1))
    }
}
