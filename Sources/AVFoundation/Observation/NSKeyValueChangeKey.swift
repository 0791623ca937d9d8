/// A key of the change dictionary of string-keyed key-value observing: Apple's `NSKeyValueChangeKey`, same raw
/// strings, for code that keeps its `observeValue(forKeyPath:of:change:context:)` body and feeds it from block
/// observation:
///
/// ```swift
/// token = player.observe(\.rate, options: [.old, .new]) { [weak self] player, change in
///     self?.observeValue(
///         forKeyPath: "rate", of: player,
///         change: [.kindKey: NSKeyValueChange.setting.rawValue, .newKey: change.newValue as Any,
///                  .oldKey: change.oldValue as Any],
///         context: nil)
/// }
/// ```
///
/// Differs from Apple: declared by OpenAVFoundation, as the other KVO types are (swift-corelibs-foundation lacks
/// KVO, see `NSKeyValueObservingOptions.swift`); nothing in this module fills such a dictionary itself (there is no
/// string-keyed observation to fill it).
public struct NSKeyValueChangeKey: RawRepresentable, Hashable, Sendable {
    /// Apple's string for the key.
    public let rawValue: String

    /// Creates a key from its raw value.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a key from its raw value.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The kind of change: an ``NSKeyValueChange`` raw value.
    public static let kindKey = NSKeyValueChangeKey(rawValue: "kind")
    /// The value after the change (when `.new` was asked for).
    public static let newKey = NSKeyValueChangeKey(rawValue: "new")
    /// The value before the change (when `.old` was asked for).
    public static let oldKey = NSKeyValueChangeKey(rawValue: "old")
    /// The indexes of the objects a to-many change inserted, removed or replaced.
    public static let indexesKey = NSKeyValueChangeKey(rawValue: "indexes")
    /// `true` in the notification sent before a change (when `.prior` was asked for).
    public static let notificationIsPriorKey = NSKeyValueChangeKey(rawValue: "notificationIsPrior")
}
