import Foundation

/// A mapping of a segment of one timeline (the source) into another (the target), e.g. an entry of a movie edit
/// list, where the source timeline is the media and the target timeline is the track or movie.
///
/// For an empty edit, `source.start` is an invalid time and `source.duration` is ignored. Like Apple's (whose
/// documentation lists only `BitwiseCopyable` and `Sendable`), this type is not `Equatable`.
public struct CMTimeMapping: Sendable {
    /// The range on the source timeline (an invalid start marks an empty edit).
    public var source: CMTimeRange

    /// The range on the target timeline.
    public var target: CMTimeRange

    /// Creates a mapping whose ranges are all-zero, hence invalid (C zero initializer).
    public init() {
        self.source = CMTimeRange()
        self.target = CMTimeRange()
    }

    /// Creates a mapping from a source range and a target range, as given.
    public init(source: CMTimeRange, target: CMTimeRange) {
        self.source = source
        self.target = target
    }

    /// The invalid mapping: both ranges `CMTimeRange.invalid` (C `kCMTimeMappingInvalid`).
    public static let invalid = CMTimeMapping(source: .invalid, target: .invalid)
}

// MARK: - C-style functions

/// Makes a mapping from a source range and a target range (stored as given).
public func CMTimeMappingMake(source: CMTimeRange, target: CMTimeRange) -> CMTimeMapping {
    CMTimeMapping(source: source, target: target)
}

/// Makes a mapping for an empty edit: `source.start` is `CMTime.invalid`, `source.duration` is `target.duration`.
public func CMTimeMappingMakeEmpty(target: CMTimeRange) -> CMTimeMapping {
    CMTimeMapping(source: CMTimeRange(start: .invalid, duration: target.duration), target: target)
}

/// Returns a description of a mapping, e.g. `{source = {{0/1 = 0.000}, {1/1 = 1.000}}, target = {…}}`.
///
/// Linux difference: Apple returns `CFString?` and takes `CFAllocator?`; this returns `String?` and ignores the
/// allocator (pass `nil`).
public func CMTimeMappingCopyDescription(allocator: Any?, mapping: CMTimeMapping) -> String? {
    mapping.debugText
}

/// Prints a description of a mapping (as `CMTimeMappingCopyDescription(allocator:mapping:)`) to standard error.
public func CMTimeMappingShow(_ mapping: CMTimeMapping) {
    writeToStandardError(mapping.debugText)
}

/// The dictionary key for a mapping's source range (a range dictionary). Apple's type is `CFString`.
public let kCMTimeMappingSourceKey: String = "source"

/// The dictionary key for a mapping's target range (a range dictionary). Apple's type is `CFString`.
public let kCMTimeMappingTargetKey: String = "target"

/// Returns a dictionary holding a mapping's source and target ranges (each as
/// `CMTimeRangeCopyAsDictionary(_:allocator:)` makes it) under `kCMTimeMappingSourceKey` and
/// `kCMTimeMappingTargetKey`.
///
/// Linux difference: Apple returns `CFDictionary?` and takes `CFAllocator?`; this returns `NSDictionary?` and ignores
/// the allocator (pass `nil`).
public func CMTimeMappingCopyAsDictionary(_ mapping: CMTimeMapping, allocator: Any?) -> NSDictionary? {
    [
        kCMTimeMappingSourceKey: mapping.source.dictionaryRepresentation,
        kCMTimeMappingTargetKey: mapping.target.dictionaryRepresentation,
    ]
}

/// Rebuilds a mapping from a dictionary made by `CMTimeMappingCopyAsDictionary(_:allocator:)`; a malformed
/// dictionary gives `CMTimeMapping.invalid`. Linux difference: Apple takes `CFDictionary`; this takes `NSDictionary`.
public func CMTimeMappingMakeFromDictionary(_ dictionaryRepresentation: NSDictionary) -> CMTimeMapping {
    guard let sourceDictionary = dictionaryRepresentation.dictionary(forKey: kCMTimeMappingSourceKey),
        let targetDictionary = dictionaryRepresentation.dictionary(forKey: kCMTimeMappingTargetKey),
        let source = CMTimeRange(dictionary: sourceDictionary), let target = CMTimeRange(dictionary: targetDictionary)
    else { return .invalid }
    return CMTimeMapping(source: source, target: target)
}

extension CMTimeMapping {
    /// The text of `CMTimeMappingCopyDescription(allocator:mapping:)` and `CMTimeMappingShow(_:)`.
    var debugText: String {
        "{source = \(source.debugText), target = \(target.debugText)}"
    }
}

/// Renamed to `CMTimeMapping.invalid` in Swift 4.2 (as in Apple's SDK).
@available(swift, obsoleted: 4.2, renamed: "CMTimeMapping.invalid")
public var kCMTimeMappingInvalid: CMTimeMapping { .invalid }
