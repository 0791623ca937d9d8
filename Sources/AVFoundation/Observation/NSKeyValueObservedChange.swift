import Foundation

/// One key-value notification as the Swift `observe` handler sees it: Apple's
/// `NSKeyValueObservedChange<Value>`.
///
/// `newValue` and `oldValue` are non-nil only when `.new` / `.old` were passed to `observe`; they are
/// the values captured when the change happened, not read again when the handler runs.
///
/// Differs from Apple: declared by OpenAVFoundation (swift-corelibs-foundation lacks KVO, see
/// `NSKeyValueObservingOptions.swift`). For an optional property a nil value arrives as `.some(nil)`
/// (Apple's bridge can turn it into a plain `nil`); `kind` is always `.setting` and `indexes` always
/// nil because this module publishes no to-many relationships.
public struct NSKeyValueObservedChange<Value> {
    /// Apple's alias for the change kind.
    public typealias Kind = NSKeyValueChange

    /// Always `.setting` here.
    public let kind: Kind
    /// The value after the change, when `.new` was requested (nil in a prior notification).
    public let newValue: Value?
    /// The value before the change, when `.old` was requested.
    public let oldValue: Value?
    /// The changed indexes of a to-many relationship; always nil here.
    public let indexes: IndexSet?
    /// True for the notification sent before a change because `.prior` was requested.
    public let isPrior: Bool

    init(kind: Kind = .setting, newValue: Value?, oldValue: Value?, indexes: IndexSet? = nil, isPrior: Bool) {
        self.kind = kind
        self.newValue = newValue
        self.oldValue = oldValue
        self.indexes = indexes
        self.isPrior = isPrior
    }
}

extension NSKeyValueObservedChange: Sendable where Value: Sendable {}
