import Foundation

// MARK: - Descriptions

/// Returns a description of a time, e.g. `{1/3 = 0.333, rounded}`, `{INVALID}`, `{+INFINITY}`, `{-INFINITY}`,
/// `{INDEFINITE}`; a non-zero epoch is appended as `, epoch 2`.
///
/// Linux differences: Apple returns `CFString?` and takes `CFAllocator?`; swift-corelibs-foundation does not export
/// Core Foundation, so this returns `String?` and the allocator (pass `nil`) is accepted as `Any?` and ignored. The
/// text follows Apple's layout but is not guaranteed to match it character for character.
public func CMTimeCopyDescription(allocator: Any?, time: CMTime) -> String? {
    time.debugText
}

/// Prints a description of a time (as `CMTimeCopyDescription(allocator:time:)`) to standard error, with a newline.
public func CMTimeShow(_ time: CMTime) {
    writeToStandardError(time.debugText)
}

extension CMTime {
    /// The text of `CMTimeCopyDescription(allocator:time:)` and `CMTimeShow(_:)`.
    var debugText: String {
        switch kind {
        case .invalid: return "{INVALID}"
        case .positiveInfinity: return "{+INFINITY}"
        case .negativeInfinity: return "{-INFINITY}"
        case .indefinite: return "{INDEFINITE}"
        case .numeric:
            var text = "{\(value)/\(timescale) = \(String(format: "%.3f", seconds))"
            if flags.contains(.hasBeenRounded) { text += ", rounded" }
            if epoch != 0 { text += ", epoch \(epoch)" }
            return text + "}"
        }
    }
}

/// Writes one line to standard error (the `…Show` functions' destination, like Apple's `CFShow`).
func writeToStandardError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

// MARK: - Dictionary representation

/// The dictionary key for a time's value (an `NSNumber` holding an `Int64`). Apple's type is `CFString`.
public let kCMTimeValueKey: String = "value"

/// The dictionary key for a time's timescale (an `NSNumber` holding an `Int32`). Apple's type is `CFString`.
public let kCMTimeScaleKey: String = "timescale"

/// The dictionary key for a time's epoch (an `NSNumber` holding an `Int64`). Apple's type is `CFString`.
public let kCMTimeEpochKey: String = "epoch"

/// The dictionary key for a time's flags (an `NSNumber` holding a `UInt32`). Apple's type is `CFString`.
public let kCMTimeFlagsKey: String = "flags"

/// Returns a dictionary holding the four fields of a time under `kCMTimeValueKey`, `kCMTimeScaleKey`,
/// `kCMTimeEpochKey` and `kCMTimeFlagsKey`, as `NSNumber`s.
///
/// Linux difference: Apple returns `CFDictionary?` and takes `CFAllocator?`; this returns `NSDictionary?` (cast it
/// with `as? [String: Any]`) and ignores the allocator (pass `nil`).
public func CMTimeCopyAsDictionary(_ time: CMTime, allocator: Any?) -> NSDictionary? {
    time.dictionaryRepresentation
}

/// Rebuilds a time from a dictionary made by `CMTimeCopyAsDictionary(_:allocator:)`.
///
/// A nil dictionary, or one missing any of the four keys or holding non-numbers, gives `.invalid`.
/// Linux difference: Apple takes `CFDictionary?`; this takes `NSDictionary?`.
public func CMTimeMakeFromDictionary(_ dictionaryRepresentation: NSDictionary?) -> CMTime {
    guard let dictionary = dictionaryRepresentation else { return .invalid }
    return CMTime(dictionary: dictionary) ?? .invalid
}

extension CMTime {
    /// The four fields as an `NSDictionary` of `NSNumber`s.
    var dictionaryRepresentation: NSDictionary {
        [
            kCMTimeValueKey: NSNumber(value: value),
            kCMTimeScaleKey: NSNumber(value: timescale),
            kCMTimeEpochKey: NSNumber(value: epoch),
            kCMTimeFlagsKey: NSNumber(value: flags.rawValue),
        ]
    }

    /// A time read from a dictionary representation, or nil if a field is missing or out of range.
    init?(dictionary: NSDictionary) {
        guard let value = dictionary.integer(forKey: kCMTimeValueKey, as: Int64.self),
            let timescale = dictionary.integer(forKey: kCMTimeScaleKey, as: Int32.self),
            let epoch = dictionary.integer(forKey: kCMTimeEpochKey, as: Int64.self),
            let flags = dictionary.integer(forKey: kCMTimeFlagsKey, as: UInt32.self)
        else { return nil }
        self.init(value: value, timescale: timescale, flags: CMTimeFlags(rawValue: flags), epoch: epoch)
    }
}

extension NSDictionary {
    /// The integer stored under `key` (an `NSNumber` or a Swift integer), if it fits in `T`.
    func integer<T: FixedWidthInteger>(forKey key: String, as type: T.Type) -> T? {
        switch object(forKey: key) {
        case let number as NSNumber: return T(exactly: number.int64Value)
        case let number as Int64: return T(exactly: number)
        case let number as Int: return T(exactly: number)
        case let number as Int32: return T(exactly: number)
        case let number as UInt32: return T(exactly: number)
        default: return nil
        }
    }

    /// The dictionary stored under `key`, as an `NSDictionary`.
    func dictionary(forKey key: String) -> NSDictionary? {
        switch object(forKey: key) {
        case let dictionary as NSDictionary: return dictionary
        case let dictionary as [String: Any]: return NSDictionary(dictionary: dictionary)
        default: return nil
        }
    }
}
