import Foundation

/// Boxing `CMTime`, `CMTimeRange` and `CMTimeMapping` in `NSValue`, e.g. for `AVPlayerItem.loadedTimeRanges`
/// (`[NSValue]`) and boundary time observers.
///
/// On Apple's systems these come from AVFoundation's `NSValue` category (`+valueWithCMTime:` …), which Swift sees as
/// `NSValue(time:)` and `timeValue`. Here they live in CoreMedia, which AVFoundation re-exports, so
/// `import AVFoundation` finds them as on Apple's systems and the engine can use them without AVFoundation.
///
/// Linux implementation: swift-corelibs-foundation's `NSValue(bytes:objCType:)` cannot store struct type encodings,
/// so the bytes are stored under array encodings of 64-bit words — `"[3q]"` (CMTime, 24 bytes), `"[6q]"`
/// (CMTimeRange) and `"[12q]"` (CMTimeMapping) — and the getters check that encoding. Two values are equal
/// (`isEqual(_:)`) when their bytes are, so `NSValue(time: 1/2)` differs from `NSValue(time: 500/1000)` (`NSValue`
/// compares its contents byte-wise; compare the unboxed `CMTime`s for rational equality). The value's `description`
/// is Foundation's generic one ("24 bytes"), not Apple's "CMTime: {1/2 = 0.500}".
extension NSValue {
    /// Creates a value that contains a time (Apple: `+[NSValue valueWithCMTime:]`).
    public convenience init(time: CMTime) {
        var time = time
        self.init(bytes: &time, objCType: NSValueEncoding.time)
    }

    /// The time the value contains (Apple: `-[NSValue CMTimeValue]`); `.invalid` if it does not contain a time.
    public var timeValue: CMTime {
        var time = CMTime()
        guard unbox(into: &time, encoding: NSValueEncoding.time) else { return .invalid }
        return time
    }

    /// Creates a value that contains a time range (Apple: `+[NSValue valueWithCMTimeRange:]`).
    public convenience init(timeRange: CMTimeRange) {
        var timeRange = timeRange
        self.init(bytes: &timeRange, objCType: NSValueEncoding.timeRange)
    }

    /// The time range the value contains (Apple: `-[NSValue CMTimeRangeValue]`); `CMTimeRange.invalid` if it does not
    /// contain a range.
    public var timeRangeValue: CMTimeRange {
        var timeRange = CMTimeRange()
        guard unbox(into: &timeRange, encoding: NSValueEncoding.timeRange) else { return .invalid }
        return timeRange
    }

    /// Creates a value that contains a time mapping (Apple: `+[NSValue valueWithCMTimeMapping:]`).
    public convenience init(timeMapping: CMTimeMapping) {
        var timeMapping = timeMapping
        self.init(bytes: &timeMapping, objCType: NSValueEncoding.timeMapping)
    }

    /// The time mapping the value contains (Apple: `-[NSValue CMTimeMappingValue]`); `CMTimeMapping.invalid` if it
    /// does not contain a mapping.
    public var timeMappingValue: CMTimeMapping {
        var timeMapping = CMTimeMapping()
        guard unbox(into: &timeMapping, encoding: NSValueEncoding.timeMapping) else { return .invalid }
        return timeMapping
    }

    /// Copies the stored bytes into `value` if the value was stored under `encoding`; false otherwise.
    private func unbox<T>(into value: inout T, encoding: String) -> Bool {
        guard String(cString: objCType) == encoding else { return false }
        withUnsafeMutableBytes(of: &value) { getValue($0.baseAddress!) }
        return true
    }
}

/// The type encodings the `NSValue` boxes use: arrays of 64-bit words the size of each struct.
private enum NSValueEncoding {
    static let time = "[\(MemoryLayout<CMTime>.size / 8)q]"
    static let timeRange = "[\(MemoryLayout<CMTimeRange>.size / 8)q]"
    static let timeMapping = "[\(MemoryLayout<CMTimeMapping>.size / 8)q]"
}
