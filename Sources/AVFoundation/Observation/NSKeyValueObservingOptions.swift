// swift-corelibs-foundation has no key-value observing: `NSKeyValueObservingOptions`,
// `NSKeyValueChange`, `NSKeyValueObservedChange` and `NSKeyValueObservation` exist only in Apple's
// Objective-C-backed Foundation. This module declares them with Apple's names, raw values and Swift
// shapes so code written for Apple compiles unchanged. If a future swift-corelibs-foundation adds
// them, `import AVFoundation` + `import Foundation` will see two declarations; we resolve that clash
// then (by dropping ours behind `#if` or re-exporting Foundation's).

/// What a key-value observation delivers: Apple's `NSKeyValueObservingOptions`, same raw values
/// (`new` = 1, `old` = 2, `initial` = 4, `prior` = 8).
///
/// Differs from Apple: declared by OpenAVFoundation because swift-corelibs-foundation lacks KVO;
/// only objects of this module (``AVKeyValueObservable``) can be observed with it.
public struct NSKeyValueObservingOptions: OptionSet, Sendable {
    /// The bits of the set.
    public let rawValue: UInt

    /// Wraps a raw value (Apple's bit layout).
    public init(rawValue: UInt) {
        self.rawValue = rawValue
    }

    /// Deliver the value after the change in `NSKeyValueObservedChange.newValue`.
    public static let new = NSKeyValueObservingOptions(rawValue: 1)
    /// Deliver the value before the change in `NSKeyValueObservedChange.oldValue`.
    public static let old = NSKeyValueObservingOptions(rawValue: 2)
    /// Call the handler once, synchronously inside `observe`, before it returns (with `newValue`
    /// set when `.new` is also given), as Apple does.
    public static let initial = NSKeyValueObservingOptions(rawValue: 4)
    /// Also deliver a notification before each change, with `isPrior == true` (and `oldValue` when
    /// `.old` is given).
    public static let prior = NSKeyValueObservingOptions(rawValue: 8)
}
