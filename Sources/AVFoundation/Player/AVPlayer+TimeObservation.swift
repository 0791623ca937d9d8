import Foundation
import OAVFLocking
import PlaybackEngine

/// The token `addPeriodicTimeObserver` / `addBoundaryTimeObserver` return. Keep it; pass it to
/// `removeTimeObserver(_:)`.
final class AVPlayerTimeObserverToken: NSObject, @unchecked Sendable {
    let engineToken: UInt64
    weak var player: AVPlayer?
    init(engineToken: UInt64, player: AVPlayer) {
        self.engineToken = engineToken
        self.player = player
    }
}

/// Guards a time-observer block: after removal no new call starts.
fileprivate final class ObserverGate: @unchecked Sendable {
    /// Whether calls may still start: the observer's queue reads it before running the block (not under the lock),
    /// any app thread removing the observer clears it. Not an engine command: removal must take effect at once on the
    /// caller's thread, as Apple documents.
    private let open = Locked(true)
    func close() {
        open.withLock { $0 = false }
    }
    var isOpen: Bool {
        open.current
    }
}

extension AVPlayer {
    /// Calls `block` on `queue` (main when nil) each time playback crosses a multiple of `interval`
    /// of item time, and also when playback starts or stops and when time jumps.
    public func addPeriodicTimeObserver(
        forInterval interval: CMTime, queue: DispatchQueue?, using block: @escaping @Sendable (CMTime) -> Void
    ) -> Any {
        guard interval.isNumeric, interval > .zero else {
            apiViolation("addPeriodicTimeObserver needs a positive numeric interval, got \(interval.seconds) s.")
        }
        let engine = engineCreatingIfNeeded()
        let target = queue ?? .main
        let gate = ObserverGate()
        let token = engine.addPeriodicObserver(interval: interval) { time in
            target.async { if gate.isOpen { block(time) } }
        }
        gateStore.insert(gate, for: token)
        return AVPlayerTimeObserverToken(engineToken: token, player: self)
    }

    /// Calls `block` on `queue` (main when nil) when normal playback traverses one of `times`
    /// (`NSValue(time:)`); a seek jumping over a time does not fire it.
    public func addBoundaryTimeObserver(
        forTimes times: [NSValue], queue: DispatchQueue?, using block: @escaping @Sendable () -> Void
    ) -> Any {
        guard !times.isEmpty else { apiViolation("addBoundaryTimeObserver needs at least one time.") }
        let engine = engineCreatingIfNeeded()
        let target = queue ?? .main
        let gate = ObserverGate()
        let token = engine.addBoundaryObserver(times: times.map(\.timeValue)) {
            target.async { if gate.isOpen { block() } }
        }
        gateStore.insert(gate, for: token)
        return AVPlayerTimeObserverToken(engineToken: token, player: self)
    }

    /// Removes a time observer: after this returns no new call of its block starts. Traps for a
    /// token that is not a time observer of this player, as Apple raises.
    public func removeTimeObserver(_ observer: Any) {
        guard let token = observer as? AVPlayerTimeObserverToken, token.player === self else {
            apiViolation("removeTimeObserver: \(observer) is not a time observer of this player.")
        }
        gateStore.remove(token.engineToken)?.close()
        existingEngine?.removeObserver(token.engineToken)
    }
}

/// Gates of live time observers, by engine token (extensions cannot add stored properties). Guarded by `lock`: added
/// and removed from any thread, each change one locked step (a read-modify-write of a copy lost concurrent adds).
final class GateStore: @unchecked Sendable {
    /// Any app thread adding or removing an observer. Not an engine command: gates belong to the public player.
    private let lock = ConditionLock()
    private var gates: [UInt64: ObserverGate] = [:]

    fileprivate func insert(_ gate: ObserverGate, for token: UInt64) {
        lock.withLock { gates[token] = gate }
    }

    fileprivate func remove(_ token: UInt64) -> ObserverGate? {
        lock.withLock { gates.removeValue(forKey: token) }
    }
}
