import Foundation
import OAVFLocking

/// The key-value observers of one object, by the key path they depend on, and where their
/// notifications go. Owned by the object's ``ObservationHub``; observers and the
/// ``AccessRecorder`` refer to it without knowing the object's type.
///
/// Thread-safe; `lock` is a leaf (nothing is called while holding it).
final class KeyValueSubscriptions: @unchecked Sendable {
    /// Guards `table` and `_delivery`; a leaf lock. Any thread that subscribes, unsubscribes or notifies. Not an engine
    /// command: observation belongs to the public objects.
    private let lock = ConditionLock()
    /// Guarded by `lock`: observers by key path (spelled from the declaring class), each list in
    /// subscription order.
    private var table: [AnyKeyPath: [KeyValueObserver]] = [:]
    /// Guarded by `lock`.
    private var _delivery: ObservationDelivery

    init(delivery: ObservationDelivery) {
        _delivery = delivery
    }

    var delivery: ObservationDelivery {
        get {
            lock.lock()
            defer { lock.unlock() }
            return _delivery
        }
        set {
            lock.lock()
            _delivery = newValue
            lock.unlock()
        }
    }

    func subscribe(_ observer: KeyValueObserver, to keyPath: AnyKeyPath) {
        lock.lock()
        defer { lock.unlock() }
        if table[keyPath]?.contains(where: { $0 === observer }) != true {
            table[keyPath, default: []].append(observer)
        }
    }

    func unsubscribe(_ observer: KeyValueObserver, from keyPath: AnyKeyPath) {
        lock.lock()
        defer { lock.unlock() }
        table[keyPath]?.removeAll { $0 === observer }
        if table[keyPath]?.isEmpty == true {
            table[keyPath] = nil
        }
    }

    /// The observers of any of `keyPaths`, each once, in registration order.
    func observers(of keyPaths: [AnyKeyPath]) -> [KeyValueObserver] {
        lock.lock()
        defer { lock.unlock() }
        if table.isEmpty { return [] }
        var seen = Set<ObjectIdentifier>()
        var result: [KeyValueObserver] = []
        for keyPath in keyPaths {
            for observer in table[keyPath] ?? [] where seen.insert(ObjectIdentifier(observer)).inserted {
                result.append(observer)
            }
        }
        result.sort { $0.serial < $1.serial }
        return result
    }

    func hasObservers(of keyPath: AnyKeyPath) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return table[keyPath] != nil
    }

    /// Distinct observers subscribed.
    var observerCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return Set(table.values.joined().map(ObjectIdentifier.init)).count
    }
}
