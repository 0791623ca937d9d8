import AVFoundation
import Foundation
import OAVFLocking
import Observation
import TestSupport
import XCTest

/// A view model written as for Apple's SDK: `@MainActor`, the handler captures `[weak self]` and
/// calls an isolated method. It must compile in Swift 6 mode unchanged.
@MainActor
final class ObservationViewModel {
    var observer: NSKeyValueObservation?
    private(set) var statuses: [ObservedModel.Status] = []
    var onUpdate: (() -> Void)?

    func start(_ model: ObservedModel) {
        observer = model.observe(\.status) { [weak self] model, _ in
            self?.handle(model.status)
        }
    }

    private func handle(_ status: ObservedModel.Status) {
        statuses.append(status)
        onUpdate?()
    }
}

/// Swift Observation, Swift 6 call styles, and thread safety under load.
final class ObservationConcurrencyTests: XCTestCase {
    // MARK: Swift Observation

    func testWithObservationTrackingFiresOnChangeFromAnotherThread() {
        let model = ObservedModel()
        let changed = expectation(description: "onChange")
        let log = ObservationEventLog()
        let value = withObservationTracking {
            model.status
        } onChange: {
            // Unlike @Observable, onChange runs after the new value is stored (see ObservationHub).
            log.append("onChange sees \(model.status)")
            changed.fulfill()
        }
        XCTAssertEqual(value, .unknown)
        onEngineThread { model.status = .ready }
        wait(for: [changed], timeout: 5)
        XCTAssertEqual(log.events, ["onChange sees ready"])
    }

    func testWithObservationTrackingIgnoresPropertiesNotRead() {
        let model = ObservedModel()
        let log = ObservationEventLog()
        withObservationTracking {
            _ = model.status
        } onChange: {
            log.append("onChange")
        }
        model.rate = 1
        XCTAssertEqual(log.events, [])
        model.play(rate: 2)
        XCTAssertEqual(log.events, [])
        model.status = .failed
        XCTAssertEqual(log.events, ["onChange"])
    }

    func testWithObservationTrackingThroughACompoundRead() {
        let parent = ObservedModel(name: "parent")
        let child = ObservedModel(name: "child")
        parent.child = child
        let log = ObservationEventLog()
        withObservationTracking {
            _ = parent.child?.status
        } onChange: {
            log.append("onChange")
        }
        child.status = .ready
        XCTAssertEqual(log.events, ["onChange"])
    }

    func testObservationsSequenceYieldsChangesFromAnotherThread() async {
        let model = ObservedModel()
        let log = ObservationEventLog()
        let sawInitial = expectation(description: "initial value")
        let sawReady = expectation(description: "ready")
        let sawFailed = expectation(description: "failed")
        for seen in [sawInitial, sawReady, sawFailed] { seen.assertForOverFulfill = false }
        let iteration = Task {
            for await status in Observations({ model.status }) {
                log.append("\(status)")
                switch status {
                case .unknown: sawInitial.fulfill()
                case .ready: sawReady.fulfill()
                case .failed:
                    sawFailed.fulfill()
                    return
                }
            }
        }
        await fulfillment(of: [sawInitial], timeout: 5)
        Thread.detachNewThread { model.status = .ready }
        await fulfillment(of: [sawReady], timeout: 5)
        Thread.detachNewThread {
            model.play(rate: 2)  // not read by the closure: no element
            model.status = .failed
        }
        await fulfillment(of: [sawFailed], timeout: 5)
        iteration.cancel()
        XCTAssertEqual(log.events, ["unknown", "ready", "failed"])
    }

    // MARK: Swift 6 call styles (these compiling is half the test)

    @MainActor
    func testMainActorViewModelPattern() {
        let model = ObservedModel()
        let viewModel = ObservationViewModel()
        let updated = expectation(description: "view model updated")
        viewModel.onUpdate = { updated.fulfill() }
        viewModel.start(model)
        onEngineThread { model.status = .ready }
        wait(for: [updated], timeout: 5)
        XCTAssertEqual(viewModel.statuses, [.ready])
        viewModel.observer?.invalidate()
    }

    @MainActor
    func testMainActorTestMethodCapturingAnExpectation() {
        let model = ObservedModel()
        let delivered = expectation(description: "delivered")
        var seen: [ObservedModel.Status?] = []  // main-actor state mutated from the handler
        let token = model.observe(\.status, options: [.initial, .new]) { _, change in
            seen.append(change.newValue)
            if seen.count == 2 { delivered.fulfill() }
        }
        onEngineThread { model.status = .failed }
        wait(for: [delivered], timeout: 5)
        XCTAssertEqual(seen, [.unknown, .failed])
        token.invalidate()
    }

    func testNonisolatedCallStyles() {
        let model = ObservedModel()
        let nothing = model.observe(\.rate) { _, _ in }
        let delivered = expectation(description: "delivered")
        let capturing = model.observe(\.rate, options: .new) { model, change in
            XCTAssertEqual(change.newValue, 1)
            XCTAssertEqual(model.rate, 1)
            delivered.fulfill()
        }
        onEngineThread { model.rate = 1 }
        wait(for: [delivered], timeout: 5)
        nothing.invalidate()
        capturing.invalidate()
    }

    func testObservationTokenStoredInASet() {
        let model = ObservedModel()
        var tokens = Set<NSKeyValueObservation>()
        tokens.insert(model.observe(\.rate) { _, _ in })
        tokens.insert(model.observe(\.status) { _, _ in })
        XCTAssertEqual(tokens.count, 2)
        tokens.removeAll()
        XCTAssertEqual(model.observationHub.keyValueObserverCount, 0)
    }

    // MARK: Stress

    /// 4 threads mutate two objects (one reached through a compound path) while 2 threads add and
    /// remove observers; every observer's notifications must chain (each `oldValue` equals the
    /// previous `newValue`), nothing may crash or deadlock, and the run is TSan-clean.
    func testConcurrentMutationAndRegistration() {
        let queue = DispatchQueue(label: "observation-stress-delivery")
        let parent = ObservedModel(name: "parent", delivery: .queue(queue))
        let child = ObservedModel(name: "child", delivery: .queue(queue))
        parent.child = child
        // Counts, not a duration: each registrar adds a fixed number of observers, and the mutators go on until the
        // registrars are done (and for at least a fixed number of steps), so a loaded machine runs the same race more
        // slowly instead of less of it.
        let registrations = 2_000
        let registrarsLeft = Locked(2)
        let chains = ObservationChains()
        let group = DispatchGroup()
        @Sendable func mutate(worker: Int) {
            var step = 0
            while step < 5_000 || registrarsLeft.current > 0 {
                step += 1
                switch (worker + step) % 4 {
                case 0: parent.rate = Float(step % 7)
                case 1: child.status = ObservedModel.Status(rawValue: step % 3)!
                case 2: parent.play(rate: Float(step % 3))
                default: parent.status = ObservedModel.Status(rawValue: step % 3)!
                }
            }
        }
        for worker in 0..<4 {
            group.enter()
            // Engine threads: their changes are queued, so each observer's notifications chain. (Changes an app
            // makes from several threads at once reach observers on those threads, unordered, as with Apple's KVO.)
            Thread.detachNewThread {
                defer { group.leave() }
                ChangeOrigin.engine { mutate(worker: worker) }
            }
        }
        for registrar in 0..<2 {
            group.enter()
            Thread.detachNewThread {
                defer {
                    registrarsLeft.withLock { $0 -= 1 }
                    group.leave()
                }
                var live: [NSKeyValueObservation] = []
                var index = 0
                while index < registrations {
                    index += 1
                    let id = "\(registrar)-\(index)"
                    switch index % 3 {
                    case 0:
                        live.append(
                            parent.observe(
                                \.rate, options: [.initial, .old, .new, .prior], changeHandler: chains.handler(id)))
                    case 1:
                        live.append(
                            parent.observe(
                                \.child?.status, options: [.initial, .old, .new], changeHandler: chains.handler(id)))
                    default:
                        live.append(
                            parent.observe(
                                \.summary, options: [.initial, .old, .new], changeHandler: chains.handler(id)))
                    }
                    if live.count > 8 { live.removeFirst().invalidate() }
                    if index % 5 == 0, !live.isEmpty { live.removeLast() }  // deinit invalidates
                }
                live.forEach { $0.invalidate() }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + Awaitable<Void>.hangGuard), .success, "deadlock")
        queue.sync {}
        XCTAssertEqual(chains.brokenChains, [])
        XCTAssertGreaterThan(chains.notificationCount, 100)
        XCTAssertEqual(parent.observationHub.keyValueObserverCount, 0)
        XCTAssertEqual(child.observationHub.keyValueObserverCount, 0)
    }
}

/// Per-observer notification chains for the stress test. The `.initial` call runs on the
/// registering thread, so it may arrive after queued notifications of the same observer; the
/// chain is checked from both ends.
private final class ObservationChains: @unchecked Sendable {
    private struct Chain {
        var initial: String?
        var firstOld: String?
        var lastNew: String?
    }

    private let lock = ConditionLock()
    private var chains: [String: Chain] = [:]
    private var broken: [String] = []
    private var count = 0

    func handler<Root, Value>(_ id: String) -> (Root, NSKeyValueObservedChange<Value>) -> Void {
        { _, change in
            self.lock.lock()
            defer { self.lock.unlock() }
            self.count += 1
            self.record(id, change.isPrior, old: change.oldValue.map { "\($0)" }, new: change.newValue.map { "\($0)" })
        }
    }

    /// Called with `lock` held.
    private func record(_ id: String, _ isPrior: Bool, old: String?, new: String?) {
        var chain = chains[id] ?? Chain()
        defer { chains[id] = chain }
        if isPrior {
            if let expected = chain.lastNew ?? chain.initial, old != expected {
                broken.append("\(id) prior old=\(old ?? "-") expected=\(expected)")
            }
        } else if old == nil {  // the .initial call (every other call carries an old value)
            chain.initial = new
            if let firstOld = chain.firstOld, firstOld != new {
                broken.append("\(id) initial=\(new ?? "-") first old=\(firstOld)")
            }
        } else {
            if let lastNew = chain.lastNew {
                if old != lastNew { broken.append("\(id) old=\(old ?? "-") previous new=\(lastNew)") }
            } else {
                chain.firstOld = old
                if let initial = chain.initial, initial != old {
                    broken.append("\(id) first old=\(old ?? "-") initial=\(initial)")
                }
            }
            chain.lastNew = new
        }
    }

    var brokenChains: [String] {
        lock.lock()
        defer { lock.unlock() }
        return broken
    }

    var notificationCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
