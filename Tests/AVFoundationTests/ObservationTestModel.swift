import AVFoundation
import Foundation
import OAVFLocking
import XCTest

/// A small observable class built like the AVFoundation model classes: state behind a lock, every
/// observable getter reports to the hub, every change goes through `withMutation`.
class ObservedModel: NSObject, AVKeyValueObservable, @unchecked Sendable {
    enum Status: Int, Sendable {
        case unknown, ready, failed
    }

    enum TimeControl: Int, Sendable {
        case paused, playing
    }

    private struct State {
        var status = Status.unknown
        var rate: Float = 0
        var timeControl = TimeControl.paused
        var child: ObservedModel?
    }

    let observationHub: ObservationHub<ObservedModel>
    /// Not observable (no hub access).
    let name: String
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var state = State()

    init(name: String = "model", delivery: ObservationDelivery = .main) {
        self.name = name
        observationHub = ObservationHub(delivery: delivery)
        super.init()
    }

    private func read<T>(_ keyPath: KeyPath<ObservedModel, T>, _ body: (State) -> T) -> T {
        observationHub.access(self, keyPath: keyPath)
        lock.lock()
        defer { lock.unlock() }
        return body(state)
    }

    private func change(_ keyPaths: [PartialKeyPath<ObservedModel>], _ body: (inout State) -> Void) {
        observationHub.withMutation(of: self, keyPaths: keyPaths) {
            lock.lock()
            body(&state)
            lock.unlock()
        }
    }

    var status: Status {
        get { read(\.status) { $0.status } }
        set { change([\.status]) { $0.status = newValue } }
    }

    var rate: Float {
        get { read(\.rate) { $0.rate } }
        set { change([\.rate]) { $0.rate = newValue } }
    }

    var timeControlStatus: TimeControl { read(\.timeControlStatus) { $0.timeControl } }

    var child: ObservedModel? {
        get { read(\.child) { $0.child } }
        set { change([\.child]) { $0.child = newValue } }
    }

    /// Derived: depends on `rate` through its getter, never published itself.
    var isActive: Bool { rate != 0 }

    /// Derived from two properties.
    var summary: String { "\(timeControlStatus)@\(rate)" }

    /// One change of two stored properties (like AVPlayer's `rate` and `timeControlStatus`).
    func play(rate: Float = 1) {
        change([\.rate, \.timeControlStatus]) {
            $0.rate = rate
            $0.timeControl = rate == 0 ? .paused : .playing
        }
    }
}

/// A subclass: observing `\ObservedSubModel.status` must match what `ObservedModel` publishes.
final class ObservedSubModel: ObservedModel, @unchecked Sendable {
    /// Publishes from subclass code: `\.status` here still means `\ObservedModel.status`.
    func republishStatus() {
        observationHub.publish(self, changed: [\.status])
    }
}

/// Thread-safe list of events (strings) for event-history comparisons.
final class ObservationEventLog: @unchecked Sendable {
    private let lock = ConditionLock()
    private var storage: [String] = []

    func append(_ event: String) {
        lock.lock()
        storage.append(event)
        lock.unlock()
    }

    var events: [String] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    /// A handler appending `describeChange(change)` (with `tag` in front when given).
    func handler<Root, Value>(_ tag: String = "") -> (Root, NSKeyValueObservedChange<Value>) -> Void {
        { _, change in self.append(tag + describeChange(change)) }
    }
}

/// "prior old=x" / "change old=x new=y", optionals flattened ("nil" when empty).
func describeChange<Value>(_ change: NSKeyValueObservedChange<Value>) -> String {
    var text = change.isPrior ? "prior" : "change"
    if let old = change.oldValue { text += " old=\(flattened(old))" }
    if let new = change.newValue { text += " new=\(flattened(new))" }
    return text
}

private func flattened(_ value: Any) -> String {
    let mirror = Mirror(reflecting: value)
    if mirror.displayStyle == .optional {
        return mirror.children.first.map { flattened($0.value) } ?? "nil"
    }
    if let model = value as? ObservedModel { return model.name }
    return "\(value)"
}

/// Runs `body` on a new thread (not a queue: `sync` would run it on the caller) and waits for it.
func onEngineThread(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        // Changes made here are the engine's: observers hear of them on their hub's delivery queue.
        ChangeOrigin.engine { body() }
        done.signal()
    }
    thread.name = "observation-test-engine"
    thread.start()
    done.wait()
}

extension XCTestCase {
    /// Waits until everything queued on the main queue so far has run.
    func drainMainQueue(file: StaticString = #filePath, line: UInt = #line) {
        let drained = expectation(description: "main queue drained")
        DispatchQueue.main.async { drained.fulfill() }
        wait(for: [drained], timeout: 5)
    }
}
