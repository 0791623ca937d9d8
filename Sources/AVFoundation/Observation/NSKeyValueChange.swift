/// The kind of change a key-value notification reports: Apple's `NSKeyValueChange`, same raw values.
///
/// Differs from Apple: declared by OpenAVFoundation (swift-corelibs-foundation lacks KVO, see
/// `NSKeyValueObservingOptions.swift`). The AVFoundation classes only publish `.setting`; the
/// to-many kinds exist so that code switching over them compiles.
public enum NSKeyValueChange: UInt, Sendable {
    /// The value was replaced (every change of this module's observable properties).
    case setting = 1
    /// Objects were inserted into a to-many relationship (never sent here).
    case insertion = 2
    /// Objects were removed from a to-many relationship (never sent here).
    case removal = 3
    /// Objects of a to-many relationship were replaced (never sent here).
    case replacement = 4
}
