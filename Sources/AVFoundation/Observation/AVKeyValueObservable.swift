import Observation

/// A class of this module whose properties can be observed with Apple's Swift key-value observing
/// spelling, `observe(_:options:changeHandler:)`, and with Swift Observation.
///
/// `AVPlayer`, `AVPlayerItem`, `AVQueuePlayer`, `AVPlayerLooper` and `AVPlayerLayer` adopt it. On
/// Apple's systems `observe` comes from NSObject's Objective-C KVO (`_KeyValueCodingAndObserving`);
/// swift-corelibs-foundation has no KVO, so this protocol supplies it.
///
/// Differs from Apple:
/// - Adopters also conform to `Observation.Observable`, which Apple's AVFoundation classes do not:
///   `withObservationTracking { player.timeControlStatus } onChange: { ... }` and
///   `Observations { player.timeControlStatus }` work on every observable property. (An app's own
///   `extension AVPlayer: @retroactive Observable {}` still compiles, with a "conformance already
///   stated" warning.)
/// - Only the properties the class documents as observable notify; observing anything else (a `let`,
///   `currentTime()`-like values) delivers the `.initial` notification and nothing more. Apple's
///   Objective-C runtime raises an exception for keys that are not KVO-compliant.
/// - Conforming your own class gives it `observe`, but it only notifies if its getters report
///   through this module's (package-only) hub; the protocol is meant for this module's classes.
public protocol AVKeyValueObservable: AnyObject, Observation.Observable {}

extension AVKeyValueObservable {
    /// Observes the value at `keyPath`: Apple's Swift KVO entry point, same shape.
    ///
    /// `changeHandler` receives the object and an `NSKeyValueObservedChange` whose `newValue` /
    /// `oldValue` are set when `.new` / `.old` are in `options`. With `.initial` it is called once
    /// before this method returns, on the calling thread. A change the app makes (a setter such as
    /// `rate` or `volume`, `replaceCurrentItem(with:)`, `insert(_:after:)`, an item's end time …) is
    /// delivered as Apple's KVO delivers it: synchronously, on the thread that made it, before that
    /// call returns; the handler may call the object again. A change the playback engine makes
    /// (`status`, `timeControlStatus`, `loadedTimeRanges`, the buffer flags, `presentationSize`, the
    /// current item advancing at an item's end …) is delivered asynchronously on the main queue, one
    /// call per change in the order of the changes. Either way `oldValue` / `newValue` are the values
    /// of that change, captured when it happened. With `.prior` a notification with
    /// `isPrior == true` precedes each change. Compound paths (`\.currentItem?.status`) follow the
    /// intermediate object as it changes, as Apple's do. A subclass root (`\AVQueuePlayer.rate`)
    /// observes the same property as the declaring class's (`\AVPlayer.rate`).
    ///
    /// Observation lasts until the returned token is invalidated or deallocated; the token does not
    /// retain the observed object. Called off the main queue while the object is changing, the
    /// `.initial` call may run after (or during) the first queued notifications; their `oldValue`
    /// still equals the initial value.
    ///
    /// Concurrency (Swift 6): like Apple's, the handler is not `@Sendable`, so code written for
    /// Apple compiles unchanged — including `observe(\.status) { [weak self] item, _ in
    /// self?.update(item.status) }` inside a `@MainActor` class, where the closure is main-actor
    /// isolated. That is sound when the app changes the object on the main thread (engine changes
    /// arrive there too); a change made on another thread calls the handler on that thread, as on
    /// Apple's systems. Inside another actor, the closure is isolated to that actor yet runs on the
    /// main queue: hop explicitly (`Task { await self.update() }`). (Package-internal hubs configured
    /// with another queue are for engine tests only.)
    public func observe<Value>(
        _ keyPath: KeyPath<Self, Value>, options: NSKeyValueObservingOptions = [],
        changeHandler: @escaping (Self, NSKeyValueObservedChange<Value>) -> Void
    ) -> NSKeyValueObservation {
        KeyPathObserver.register(self, keyPath: keyPath, options: options, handler: changeHandler)
    }
}
