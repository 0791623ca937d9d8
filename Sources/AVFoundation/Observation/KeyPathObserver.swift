import Foundation

/// A key-value observation of `keyPath` on one object: reads the value, remembers the last one sent
/// (the next notification's `oldValue`), and delivers notifications.
///
/// Values are captured when the change is published, not when the handler runs, so a fast sequence
/// of changes delivers every transition with matching old/new pairs. The observed object is held
/// weakly (as Apple's token does); a queued notification keeps it alive until delivered.
final class KeyPathObserver<Root: AnyObject, Value>: KeyValueObserver, @unchecked Sendable {
    typealias Handler = (Root, NSKeyValueObservedChange<Value>) -> Void

    private weak var root: Root?
    private let keyPath: KeyPath<Root, Value>
    private let options: NSKeyValueObservingOptions
    /// Not `@Sendable`, like Apple's; it runs on `delivery`'s queue for engine-made changes, and on the
    /// thread that made the change for app-made ones (for `.initial`, on the thread that called `observe`).
    private let handler: Handler
    /// Guarded by `changeLock`: the value last read (set at registration, so never nil after).
    private var lastValue: Value?
    /// Guarded by `changeLock`: the delivery of the observed object's hub at registration.
    private var delivery = ObservationDelivery.main

    private init(
        root: Root, keyPath: KeyPath<Root, Value>, options: NSKeyValueObservingOptions, handler: @escaping Handler
    ) {
        self.root = root
        self.keyPath = keyPath
        self.options = options
        self.handler = handler
    }

    /// Registers an observation of `keyPath` on `root` and, with `.initial`, calls the handler
    /// before returning.
    static func register(
        _ root: Root, keyPath: KeyPath<Root, Value>, options: NSKeyValueObservingOptions,
        handler: @escaping Handler
    ) -> NSKeyValueObservation {
        let observer = KeyPathObserver(root: root, keyPath: keyPath, options: options, handler: handler)
        observer.changeLock.lock()
        let (value, accesses) = AccessRecorder.recording { root[keyPath: keyPath] }
        observer.lastValue = value
        // The first object the path reads is the observed one (a compound path reads it first too).
        observer.delivery = accesses.first?.subscriptions.delivery ?? .main
        _ = observer.updateDependencies(accesses)
        observer.changeLock.unlock()
        let token = NSKeyValueObservation(observer: observer)
        if options.contains(.initial) {
            let change = NSKeyValueObservedChange(
                newValue: options.contains(.new) ? value : nil, oldValue: nil, isPrior: false)
            handler(root, change)
        }
        return token
    }

    override func willChange() {
        guard options.contains(.prior) else { return }
        changeLock.lock()
        guard isValid, let root else {
            changeLock.unlock()
            return
        }
        let change = NSKeyValueObservedChange<Value>(
            newValue: nil, oldValue: options.contains(.old) ? lastValue : nil, isPrior: true)
        deliverAndUnlock(root, change)
    }

    override func didChange() {
        changeLock.lock()
        guard isValid, let root else {
            changeLock.unlock()
            return
        }
        let (value, accesses) = AccessRecorder.recording { root[keyPath: keyPath] }
        let oldValue = lastValue
        lastValue = value
        guard updateDependencies(accesses) else {
            changeLock.unlock()
            return
        }
        let change = NSKeyValueObservedChange(
            newValue: options.contains(.new) ? value : nil, oldValue: options.contains(.old) ? oldValue : nil,
            isPrior: false)
        deliverAndUnlock(root, change)
    }

    /// For an engine-made change (``ChangeOrigin``), queues the notification (under `changeLock`, which keeps the
    /// order) on the delivery queue; for a change the app made, or with synchronous delivery, releases `changeLock`
    /// and then calls the handler on this thread, before the change returns (Apple's KVO).
    private func deliverAndUnlock(_ root: Root, _ change: NSKeyValueObservedChange<Value>) {
        switch delivery {
        case .queue(let queue) where ChangeOrigin.isEngine:
            let queued = QueuedChange(observer: self, root: root, change: change)
            queue.async { queued.deliver() }
            changeLock.unlock()
        case .queue, .synchronous:
            changeLock.unlock()
            call(root, change)
        }
    }

    /// Runs the handler unless invalidated meanwhile (no lock held).
    private func call(_ root: Root, _ change: NSKeyValueObservedChange<Value>) {
        guard isValid else { return }
        handler(root, change)
    }

    /// A queued notification. `@unchecked`: the values are handed over once, from the publishing
    /// thread to the delivery queue, and never touched again by the publisher.
    private struct QueuedChange: @unchecked Sendable {
        let observer: KeyPathObserver
        let root: Root
        let change: NSKeyValueObservedChange<Value>

        func deliver() {
            observer.call(root, change)
        }
    }
}
