import Foundation

// MARK: - Descriptions

/// Returns a description of a range: `{start, duration}` with each time as `CMTimeCopyDescription(allocator:time:)`
/// writes it, e.g. `{{0/1 = 0.000}, {10/1 = 10.000}}`.
///
/// Linux difference: Apple returns `CFString?` and takes `CFAllocator?`; this returns `String?` and ignores the
/// allocator (pass `nil`).
public func CMTimeRangeCopyDescription(allocator: Any?, range: CMTimeRange) -> String? {
    range.debugText
}

/// Prints a description of a range (as `CMTimeRangeCopyDescription(allocator:range:)`) to standard error.
public func CMTimeRangeShow(_ range: CMTimeRange) {
    writeToStandardError(range.debugText)
}

extension CMTimeRange {
    /// The text of `CMTimeRangeCopyDescription(allocator:range:)` and `CMTimeRangeShow(_:)`.
    var debugText: String {
        "{\(start.debugText), \(duration.debugText)}"
    }
}

// MARK: - Dictionary representation

/// The dictionary key for a range's start (a time dictionary). Apple's type is `CFString`.
public let kCMTimeRangeStartKey: String = "start"

/// The dictionary key for a range's duration (a time dictionary). Apple's type is `CFString`.
public let kCMTimeRangeDurationKey: String = "duration"

/// Returns a dictionary holding a range's start and duration (each as `CMTimeCopyAsDictionary(_:allocator:)` makes
/// it) under `kCMTimeRangeStartKey` and `kCMTimeRangeDurationKey`.
///
/// Linux difference: Apple returns `CFDictionary?` and takes `CFAllocator?`; this returns `NSDictionary?` and ignores
/// the allocator (pass `nil`).
public func CMTimeRangeCopyAsDictionary(_ range: CMTimeRange, allocator: Any?) -> NSDictionary? {
    range.dictionaryRepresentation
}

/// Rebuilds a range from a dictionary made by `CMTimeRangeCopyAsDictionary(_:allocator:)`; a malformed dictionary
/// gives `CMTimeRange.invalid`. Linux difference: Apple takes `CFDictionary`; this takes `NSDictionary`.
public func CMTimeRangeMakeFromDictionary(_ dictionaryRepresentation: NSDictionary) -> CMTimeRange {
    CMTimeRange(dictionary: dictionaryRepresentation) ?? .invalid
}

extension CMTimeRange {
    /// Start and duration as nested time dictionaries.
    var dictionaryRepresentation: NSDictionary {
        [
            kCMTimeRangeStartKey: start.dictionaryRepresentation,
            kCMTimeRangeDurationKey: duration.dictionaryRepresentation,
        ]
    }

    /// A range read from a dictionary representation, or nil if malformed.
    init?(dictionary: NSDictionary) {
        guard let startDictionary = dictionary.dictionary(forKey: kCMTimeRangeStartKey),
            let durationDictionary = dictionary.dictionary(forKey: kCMTimeRangeDurationKey),
            let start = CMTime(dictionary: startDictionary), let duration = CMTime(dictionary: durationDictionary)
        else { return nil }
        self.init(start: start, duration: duration)
    }
}
