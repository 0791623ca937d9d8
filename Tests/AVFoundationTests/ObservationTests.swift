import AVFoundation
import Foundation
import XCTest

/// Key-value observation semantics (`observe(_:options:changeHandler:)`), as event histories.
final class ObservationTests: XCTestCase {
    func testApplesRawValues() {
        XCTAssertEqual(NSKeyValueObservingOptions.new.rawValue, 1)
        XCTAssertEqual(NSKeyValueObservingOptions.old.rawValue, 2)
        XCTAssertEqual(NSKeyValueObservingOptions.initial.rawValue, 4)
        XCTAssertEqual(NSKeyValueObservingOptions.prior.rawValue, 8)
        XCTAssertEqual(NSKeyValueObservingOptions([.new, .old]), NSKeyValueObservingOptions(rawValue: 3))
        XCTAssertEqual(NSKeyValueChange.setting.rawValue, 1)
        XCTAssertEqual(NSKeyValueChange.insertion.rawValue, 2)
        XCTAssertEqual(NSKeyValueChange.removal.rawValue, 3)
        XCTAssertEqual(NSKeyValueChange.replacement.rawValue, 4)
        XCTAssertEqual(NSKeyValueChange(rawValue: 4), .replacement)
        let kind: NSKeyValueObservedChange<Int>.Kind = .setting
        XCTAssertEqual(kind, .setting)
    }

    func testInitialIsDeliveredSynchronouslyInsideObserve() {
        let model = ObservedModel()
        model.status = .ready
        let log = ObservationEventLog()
        let withNew = model.observe(\.status, options: [.initial, .new], changeHandler: log.handler("a "))
        let withoutNew = model.observe(\.status, options: [.initial], changeHandler: log.handler("b "))
        let withOld = model.observe(\.status, options: [.initial, .old], changeHandler: log.handler("c "))
        XCTAssertEqual(log.events, ["a change new=ready", "b change", "c change"])
        _ = (withNew, withoutNew, withOld)
    }

    func testRapidChangesFromEngineThreadDeliverEveryTransitionOnMain() {
        let model = ObservedModel()
        let log = ObservationEventLog()
        let token = model.observe(\.status, options: [.initial, .old, .new]) { model, change in
            dispatchPrecondition(condition: .onQueue(.main))
            log.append(describeChange(change))
        }
        onEngineThread {
            model.status = .ready
            model.status = .failed
        }
        XCTAssertEqual(log.events, ["change new=unknown"], "only .initial before the main queue runs")
        drainMainQueue()
        XCTAssertEqual(
            log.events,
            ["change new=unknown", "change old=unknown new=ready", "change old=ready new=failed"])
        token.invalidate()
    }

    func testValuesAreCapturedAtChangeTimeNotAtDelivery() {
        let queue = DispatchQueue(label: "observation-test-delivery")
        let model = ObservedModel(delivery: .queue(queue))
        let log = ObservationEventLog()
        let token = model.observe(\.status, options: [.old, .new]) { model, change in
            log.append(describeChange(change) + " now=\(model.status)")
        }
        queue.suspend()
        onEngineThread {
            model.status = .ready
            model.status = .failed
            model.status = .unknown
        }
        queue.resume()
        queue.sync {}
        XCTAssertEqual(
            log.events,
            [
                "change old=unknown new=ready now=unknown", "change old=ready new=failed now=unknown",
                "change old=failed new=unknown now=unknown",
            ])
        token.invalidate()
    }

    func testPriorNotificationPrecedesEachChange() {
        let model = ObservedModel(delivery: .synchronous)
        let log = ObservationEventLog()
        let full = model.observe(\.status, options: [.old, .new, .prior]) { model, change in
            // Synchronous delivery: the prior notification runs before the state changes.
            log.append("full " + describeChange(change) + " now=\(model.status)")
        }
        let bare = model.observe(\.status, options: [.prior], changeHandler: log.handler("bare "))
        model.status = .ready
        model.status = .failed
        XCTAssertEqual(
            log.events,
            [
                "full prior old=unknown now=unknown", "bare prior",
                "full change old=unknown new=ready now=ready", "bare change",
                "full prior old=ready now=ready", "bare prior",
                "full change old=ready new=failed now=failed", "bare change",
            ])
        _ = (full, bare)
    }

    func testPriorOnMainQueueKeepsOrder() {
        let model = ObservedModel()
        let log = ObservationEventLog()
        let token = model.observe(\.rate, options: [.old, .new, .prior], changeHandler: log.handler())
        onEngineThread {
            model.rate = 1
            model.rate = 2
        }
        drainMainQueue()
        XCTAssertEqual(
            log.events,
            ["prior old=0.0", "change old=0.0 new=1.0", "prior old=1.0", "change old=1.0 new=2.0"])
        token.invalidate()
    }

    func testDeliveryOnCustomQueue() {
        let queue = DispatchQueue(label: "observation-test-custom")
        let model = ObservedModel(delivery: .queue(queue))
        let delivered = expectation(description: "delivered on the custom queue")
        let token = model.observe(\.status, options: [.new]) { _, change in
            dispatchPrecondition(condition: .onQueue(queue))
            XCTAssertEqual(change.newValue, .ready)
            delivered.fulfill()
        }
        onEngineThread { model.status = .ready }
        wait(for: [delivered], timeout: 5)
        token.invalidate()
    }

    func testSynchronousDeliveryRunsOnTheMutatingThreadBeforeTheSetterReturns() {
        let model = ObservedModel(delivery: .synchronous)
        let log = ObservationEventLog()
        let token = model.observe(\.status, options: [.new]) { _, change in
            log.append("\(pthread_self()) " + describeChange(change))
        }
        onEngineThread {
            model.status = .ready
            log.append("\(pthread_self()) setter returned")
        }
        let events = log.events
        XCTAssertEqual(
            events.map { $0.split(separator: " ", maxSplits: 1)[1] }, ["change new=ready", "setter returned"])
        XCTAssertEqual(Set(events.map { $0.split(separator: " ")[0] }).count, 1, "same thread: \(events)")
        XCTAssertNotEqual(events.first?.split(separator: " ")[0], "\(pthread_self())")
        token.invalidate()
    }

    func testNotificationsReachObserversInRegistrationOrder() {
        let model = ObservedModel()
        let log = ObservationEventLog()
        let first = model.observe(\.status, options: [.new], changeHandler: log.handler("1 "))
        let second = model.observe(\.status, options: [.new], changeHandler: log.handler("2 "))
        onEngineThread {
            model.status = .ready
            model.status = .failed
        }
        drainMainQueue()
        XCTAssertEqual(
            log.events, ["1 change new=ready", "2 change new=ready", "1 change new=failed", "2 change new=failed"])
        _ = (first, second)
    }

    // MARK: Ending an observation

    func testInvalidateStopsDeliveryIncludingQueuedNotifications() {
        let queue = DispatchQueue(label: "observation-test-invalidate")
        let model = ObservedModel(delivery: .queue(queue))
        let log = ObservationEventLog()
        let token = model.observe(\.status, options: [.new], changeHandler: log.handler())
        queue.suspend()
        ChangeOrigin.engine { model.status = .ready }  // an engine change: queued, not yet delivered
        token.invalidate()
        queue.resume()
        ChangeOrigin.engine { model.status = .failed }
        model.status = .unknown  // an app change after invalidation: not delivered either
        queue.sync {}
        XCTAssertEqual(log.events, [])
        XCTAssertEqual(model.observationHub.keyValueObserverCount, 0)
        token.invalidate()  // idempotent
    }

    func testDeallocatingTheTokenInvalidates() {
        let model = ObservedModel()
        let log = ObservationEventLog()
        var token: NSKeyValueObservation? = model.observe(\.status, options: [.new], changeHandler: log.handler())
        XCTAssertEqual(model.observationHub.keyValueObserverCount, 1)
        XCTAssertNotNil(token)
        token = nil
        XCTAssertEqual(model.observationHub.keyValueObserverCount, 0)
        model.status = .ready
        drainMainQueue()
        XCTAssertEqual(log.events, [])
    }

    func testTokenDoesNotRetainTheObservedObject() {
        weak var weakModel: ObservedModel?
        var token: NSKeyValueObservation?
        do {
            let model = ObservedModel()
            weakModel = model
            token = model.observe(\.status, options: [.new]) { _, _ in }
        }
        XCTAssertNil(weakModel)
        token?.invalidate()
    }

    func testInvalidateReleasesTheHandler() {
        final class Captured: Sendable {}
        weak var weakCaptured: Captured?
        let model = ObservedModel()
        var token: NSKeyValueObservation?
        do {
            let captured = Captured()
            weakCaptured = captured
            token = model.observe(\.status) { _, _ in _ = captured }
        }
        XCTAssertNotNil(weakCaptured)
        token?.invalidate()
        XCTAssertNil(weakCaptured)
    }

    // MARK: Re-entrancy

    func testHandlerMayReadInvalidateObserveAndMutate() {
        let model = ObservedModel(delivery: .synchronous)
        let log = ObservationEventLog()
        var inner: NSKeyValueObservation?
        var token: NSKeyValueObservation?
        token = model.observe(\.status, options: [.new]) { model, change in
            log.append("outer " + describeChange(change) + " read=\(model.status)")
            token?.invalidate()
            inner = model.observe(\.rate, options: [.initial, .new], changeHandler: log.handler("inner "))
            model.rate = 3  // a change published from inside a handler
        }
        model.status = .ready
        model.status = .failed  // the outer observation is gone
        XCTAssertEqual(
            log.events, ["outer change new=ready read=ready", "inner change new=0.0", "inner change new=3.0"])
        XCTAssertNotNil(inner)
        inner?.invalidate()
    }

    func testReentrancyOnMainQueue() {
        let model = ObservedModel()
        let log = ObservationEventLog()
        let done = expectation(description: "inner observation notified")
        var inner: NSKeyValueObservation?
        var token: NSKeyValueObservation?
        token = model.observe(\.status, options: [.new]) { model, change in
            log.append("outer " + describeChange(change) + " read=\(model.status)")
            token?.invalidate()
            inner = model.observe(\.rate, options: [.new]) { _, change in
                log.append("inner " + describeChange(change))
                done.fulfill()
            }
            model.rate = 5
        }
        onEngineThread { model.status = .ready }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(log.events, ["outer change new=ready read=ready", "inner change new=5.0"])
        inner?.invalidate()
    }

    // MARK: Which key paths notify

    func testOneChangeOfSeveralPropertiesNotifiesEachObserverOnce() {
        let model = ObservedModel(delivery: .synchronous)
        let log = ObservationEventLog()
        let tokens = [
            model.observe(\.rate, options: [.old, .new], changeHandler: log.handler("rate ")),
            model.observe(\.timeControlStatus, options: [.old, .new], changeHandler: log.handler("tcs ")),
            model.observe(\.isActive, options: [.old, .new], changeHandler: log.handler("active ")),
            model.observe(\.summary, options: [.new], changeHandler: log.handler("summary ")),
        ]
        model.play()
        XCTAssertEqual(
            log.events,
            [
                "rate change old=0.0 new=1.0", "tcs change old=paused new=playing",
                "active change old=false new=true", "summary change new=playing@1.0",
            ])
        tokens.forEach { $0.invalidate() }
    }

    func testDerivedPropertyFollowsWhatItsGetterReads() {
        let model = ObservedModel(delivery: .synchronous)
        let log = ObservationEventLog()
        let token = model.observe(\.isActive, options: [.new], changeHandler: log.handler())
        model.rate = 2
        model.status = .ready  // isActive does not read status
        model.rate = 0
        XCTAssertEqual(log.events, ["change new=true", "change new=false"])
        token.invalidate()
    }

    func testSubclassRootedKeyPathsMatchTheDeclaringClass() {
        let model = ObservedSubModel(delivery: .synchronous)
        let log = ObservationEventLog()
        let viaSubclass = model.observe(\.status, options: [.new], changeHandler: log.handler("sub "))
        let asBase: ObservedModel = model
        let viaBase = asBase.observe(\.status, options: [.new], changeHandler: log.handler("base "))
        model.status = .ready
        model.republishStatus()
        XCTAssertEqual(
            log.events,
            ["sub change new=ready", "base change new=ready", "sub change new=ready", "base change new=ready"])
        _ = (viaSubclass, viaBase)
    }

    func testCompoundKeyPathFollowsTheIntermediateObject() {
        let parent = ObservedModel(name: "parent", delivery: .synchronous)
        let first = ObservedModel(name: "first")
        let second = ObservedModel(name: "second")
        let log = ObservationEventLog()
        let token = parent.observe(\.child?.status, options: [.initial, .old, .new], changeHandler: log.handler())
        parent.child = first
        first.status = .ready
        parent.child = second
        first.status = .failed  // no longer on the path
        second.status = .failed
        XCTAssertEqual(
            log.events,
            [
                "change new=nil", "change old=nil new=unknown", "change old=unknown new=ready",
                "change old=ready new=unknown", "change old=unknown new=failed",
            ])
        XCTAssertEqual(first.observationHub.keyValueObserverCount, 0)
        XCTAssertEqual(second.observationHub.keyValueObserverCount, 1)
        token.invalidate()
        XCTAssertEqual(second.observationHub.keyValueObserverCount, 0)
        XCTAssertEqual(parent.observationHub.keyValueObserverCount, 0)
    }

    func testUnobservablePropertyDeliversOnlyTheInitialValue() {
        let model = ObservedModel(name: "plain", delivery: .synchronous)
        let log = ObservationEventLog()
        let token = model.observe(\.name, options: [.initial, .new], changeHandler: log.handler())
        model.status = .ready
        XCTAssertEqual(log.events, ["change new=plain"])
        XCTAssertEqual(model.observationHub.keyValueObserverCount, 0)
        token.invalidate()
    }

    func testHubReportsObservedKeyPaths() {
        let model = ObservedModel()
        XCTAssertFalse(model.observationHub.hasKeyValueObservers(of: \ObservedModel.rate))
        let token = model.observe(\.isActive) { _, _ in }
        XCTAssertTrue(model.observationHub.hasKeyValueObservers(of: \ObservedModel.rate))
        token.invalidate()
        XCTAssertFalse(model.observationHub.hasKeyValueObservers(of: \ObservedModel.rate))
    }
}
