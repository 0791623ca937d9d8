import Foundation
import Observation

/// The change-notification machinery of one observable object: Swift Observation (an
/// `ObservationRegistrar`) and key-value observation (`observe(_:options:changeHandler:)`) fed by
/// the same two calls.
///
/// `Owner` is the class that declares the observable properties (`ObservationHub<AVPlayer>`, also
/// used by `AVQueuePlayer`): key paths are always spelled from it, so `\.rate` written in a subclass
/// still means `\AVPlayer.rate` (key paths with different roots never compare equal).
///
/// The owner holds one hub (`let observationHub = ObservationHub<AVPlayer>()`) and
/// - calls ``access(_:keyPath:)`` at the start of every observable getter, and
/// - wraps every change of observable state in ``withMutation(of:keyPaths:_:)``, naming every key
///   path whose value the change may alter (`rate` and `timeControlStatus` together, say).
///   Properties computed from other observable properties need not be named: an observer depends
///   on whatever its key path's getters report through `access`.
///
/// Rules for owners:
/// - Call the hub (and `observe`) from any thread, but never while holding the object's own state
///   lock: key-value observers read new values through the public getters, which take that lock.
/// - Getters must not publish changes, and should read other properties from the locked state, not
///   through their public getters (which would add those properties as dependencies).
/// - Every `withMutation` notifies, even if the value did not change (as Apple's automatic KVO
///   does for a setter); skip it for engine updates that change nothing.
///
/// Key-value notifications of engine changes (published inside ``ChangeOrigin/engine(_:)``) go to
/// ``delivery`` (the main queue by default), one per observer per change, in the order of the
/// changes; notifications of app changes run on the publishing thread before `withMutation`
/// returns. Both carry the values read when the change was published.
/// Handlers never run under any lock of the hub, so they may read the object, invalidate their own
/// or another observation, start new observations, or change the object.
package final class ObservationHub<Owner: AVKeyValueObservable>: @unchecked Sendable {
    private let registrar = ObservationRegistrar()
    let subscriptions: KeyValueSubscriptions

    /// A hub whose key-value notifications go to `delivery` (Apple's main queue by default).
    package init(delivery: ObservationDelivery = .main) {
        subscriptions = KeyValueSubscriptions(delivery: delivery)
    }

    /// Where key-value change handlers of engine changes run. Applies to observations registered afterwards.
    package var delivery: ObservationDelivery {
        get { subscriptions.delivery }
        set { subscriptions.delivery = newValue }
    }

    // MARK: Getters

    /// Call at the start of the getter of every observable property.
    package func access<Value>(_ object: Owner, keyPath: KeyPath<Owner, Value>) {
        registrar.access(object, keyPath: keyPath)
        AccessRecorder.noteAccess(subscriptions, keyPath)
    }

    // MARK: Changes

    /// Runs `mutation` (which changes the object's state under its own lock) and announces that
    /// the properties at `keyPaths` changed:
    /// 1. prior notifications to key-value observers that asked for `.prior`;
    /// 2. `mutation`;
    /// 3. `willSet` then `didSet` to Swift Observation: fires `withObservationTracking`'s `onChange`
    ///    and wakes `Observations` sequences;
    /// 4. each key-value observer of any of `keyPaths` reads its key path once and gets one
    ///    notification with the old and new values.
    /// Steps 3 and 4 also run when `mutation` throws.
    ///
    /// Differs from the `@Observable` macro, whose `willSet` precedes the store: here `onChange`
    /// runs after the new value is stored. The object is changed from other threads (the engine),
    /// and a tracker that re-reads on `onChange` — as `Observations` does, on another executor —
    /// must see the new value; before the store it could read the old one and then never hear of
    /// the change.
    @discardableResult
    package func withMutation<T>(
        of object: Owner, keyPaths: [PartialKeyPath<Owner>], _ mutation: () throws -> T
    ) rethrows -> T {
        let keys = keyPaths.map { $0 as AnyKeyPath }
        for observer in subscriptions.observers(of: keys) {
            observer.willChange()
        }
        defer {
            for keyPath in keyPaths {
                registrarNote(.willSet, object, keyPath)
            }
            for keyPath in keyPaths {
                registrarNote(.didSet, object, keyPath)
            }
            for observer in subscriptions.observers(of: keys) {
                observer.didChange()
            }
        }
        return try mutation()
    }

    /// ``withMutation(of:keyPaths:_:)`` for one property.
    @discardableResult
    package func withMutation<Value, T>(
        of object: Owner, keyPath: KeyPath<Owner, Value>, _ mutation: () throws -> T
    ) rethrows -> T {
        try withMutation(of: object, keyPaths: [keyPath], mutation)
    }

    /// Announces a change that already happened. Prefer ``withMutation(of:keyPaths:_:)``: here
    /// prior notifications come after the change (they still carry the right `oldValue`).
    package func publish(_ object: Owner, changed keyPaths: [PartialKeyPath<Owner>]) {
        withMutation(of: object, keyPaths: keyPaths) {}
    }

    // MARK: Introspection (owners skipping expensive work, tests)

    /// Whether a key-value observer depends on `keyPath` (Swift Observation is not counted).
    package func hasKeyValueObservers(of keyPath: PartialKeyPath<Owner>) -> Bool {
        subscriptions.hasObservers(of: keyPath)
    }

    /// The number of distinct key-value observers subscribed to this object.
    package var keyValueObserverCount: Int {
        subscriptions.observerCount
    }

    // MARK: Swift Observation

    private enum RegistrarEvent { case willSet, didSet }

    /// Tells the registrar about `keyPath`, recovering the `KeyPath<Owner, Member>` it wants.
    private func registrarNote(_ event: RegistrarEvent, _ object: Owner, _ keyPath: PartialKeyPath<Owner>) {
        func typed<Member>(_: Member.Type) {
            let keyPath = keyPath as! KeyPath<Owner, Member>
            switch event {
            case .willSet: registrar.willSet(object, keyPath: keyPath)
            case .didSet: registrar.didSet(object, keyPath: keyPath)
            }
        }
        _openExistential(type(of: keyPath).valueType, do: typed)
    }
}
