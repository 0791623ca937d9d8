// Video time values and time stamps (CVBase.h), with Apple's field names and values.

/// A video time value: `timeValue / timeScale` seconds, as Apple's `CVTime`.
public struct CVTime: Sendable {
    /// The time value (numerator).
    public var timeValue: Int64
    /// The time scale (units per second).
    public var timeScale: Int32
    /// `kCVTimeIsIndefinite` or 0.
    public var flags: Int32

    /// A zero time with a zero time scale, as Apple's memberwise-zero `CVTime()`.
    public init() {
        self.init(timeValue: 0, timeScale: 0, flags: 0)
    }

    /// A time of `timeValue / timeScale` seconds.
    public init(timeValue: Int64, timeScale: Int32, flags: Int32) {
        self.timeValue = timeValue
        self.timeScale = timeScale
        self.flags = flags
    }
}

/// `CVTime.flags` bit: the time is unknown or infinite (Apple's `kCVTimeIsIndefinite`, 1).
public let kCVTimeIsIndefinite: Int32 = 1

/// An indefinite `CVTime` (Apple's `kCVIndefiniteTime`).
public let kCVIndefiniteTime = CVTime(timeValue: 0, timeScale: 0, flags: kCVTimeIsIndefinite)

/// A zero `CVTime` (Apple's `kCVZeroTime`).
public let kCVZeroTime = CVTime(timeValue: 0, timeScale: 0, flags: 0)

/// SMPTE time, as Apple's `CVSMPTETime`. Display links here never fill it in (its flags stay 0), as on Apple's
/// systems where `kCVTimeStampSMPTETimeValid` is unset for display links.
public struct CVSMPTETime: Sendable {
    /// Number of subframes in the full message.
    public var subframes: Int16
    /// Number of subframes per frame (typically 80).
    public var subframeDivisor: Int16
    /// Total number of messages received.
    public var counter: UInt32
    /// The SMPTE type (`CVSMPTETimeType` raw value).
    public var type: UInt32
    /// Flags (`CVSMPTETimeFlags` raw values).
    public var flags: UInt32
    /// Hours.
    public var hours: Int16
    /// Minutes.
    public var minutes: Int16
    /// Seconds.
    public var seconds: Int16
    /// Frames.
    public var frames: Int16

    /// All fields zero.
    public init() {
        self.init(
            subframes: 0, subframeDivisor: 0, counter: 0, type: 0, flags: 0, hours: 0, minutes: 0, seconds: 0,
            frames: 0)
    }

    /// A SMPTE time with the given fields (Apple's memberwise initializer).
    public init(
        subframes: Int16, subframeDivisor: Int16, counter: UInt32, type: UInt32, flags: UInt32, hours: Int16,
        minutes: Int16, seconds: Int16, frames: Int16
    ) {
        self.subframes = subframes
        self.subframeDivisor = subframeDivisor
        self.counter = counter
        self.type = type
        self.flags = flags
        self.hours = hours
        self.minutes = minutes
        self.seconds = seconds
        self.frames = frames
    }
}

/// Which fields of a `CVTimeStamp` hold values, as Apple's `CVTimeStampFlags` (same bit values).
public struct CVTimeStampFlags: OptionSet, Hashable, Sendable {
    /// The bits of the set.
    public let rawValue: UInt64

    /// Flags with the given raw bits.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// `videoTime` is valid.
    public static let videoTimeValid = CVTimeStampFlags(rawValue: 1 << 0)
    /// `hostTime` is valid.
    public static let hostTimeValid = CVTimeStampFlags(rawValue: 1 << 1)
    /// `smpteTime` is valid.
    public static let smpteTimeValid = CVTimeStampFlags(rawValue: 1 << 2)
    /// `videoRefreshPeriod` is valid.
    public static let videoRefreshPeriodValid = CVTimeStampFlags(rawValue: 1 << 3)
    /// `rateScalar` is valid.
    public static let rateScalarValid = CVTimeStampFlags(rawValue: 1 << 4)
    /// The time stamp is for the top field of an interlaced frame.
    public static let topField = CVTimeStampFlags(rawValue: 1 << 16)
    /// The time stamp is for the bottom field of an interlaced frame.
    public static let bottomField = CVTimeStampFlags(rawValue: 1 << 17)
    /// `videoTime`, `hostTime` and `rateScalar` are valid.
    public static let videoHostTimeValid: CVTimeStampFlags = [.videoTimeValid, .hostTimeValid]
    /// Both field flags.
    public static let isInterlaced: CVTimeStampFlags = [.topField, .bottomField]
}

/// A point in time seen by a display: video time and the matching host time, as Apple's `CVTimeStamp`.
///
/// Differs from Apple: `hostTime` is in nanoseconds of `CLOCK_MONOTONIC` (``CVGetCurrentHostTime()``), not
/// `mach_absolute_time` units. `flags` is a raw `UInt64` as in Apple's Swift overlay; ``CVTimeStampFlags``
/// reads it (`CVTimeStampFlags(rawValue: ts.flags).contains(.hostTimeValid)`).
public struct CVTimeStamp: Sendable {
    /// Structure version; 0.
    public var version: UInt32
    /// Units per second of `videoTime` and `videoRefreshPeriod`.
    public var videoTimeScale: Int32
    /// The video time (display refreshes counted in `videoTimeScale` units).
    public var videoTime: Int64
    /// The host time (nanoseconds, `CLOCK_MONOTONIC`).
    public var hostTime: UInt64
    /// Actual over nominal refresh rate (1 here).
    public var rateScalar: Double
    /// One refresh period in `videoTimeScale` units.
    public var videoRefreshPeriod: Int64
    /// SMPTE time (not filled in by display links).
    public var smpteTime: CVSMPTETime
    /// ``CVTimeStampFlags`` raw bits saying which fields are valid.
    public var flags: UInt64
    /// Reserved; 0.
    public var reserved: UInt64

    /// All fields zero (Apple's `CVTimeStamp()`).
    public init() {
        self.init(
            version: 0, videoTimeScale: 0, videoTime: 0, hostTime: 0, rateScalar: 0, videoRefreshPeriod: 0,
            smpteTime: CVSMPTETime(), flags: 0, reserved: 0)
    }

    /// A time stamp with the given fields (Apple's memberwise initializer).
    public init(
        version: UInt32, videoTimeScale: Int32, videoTime: Int64, hostTime: UInt64, rateScalar: Double,
        videoRefreshPeriod: Int64, smpteTime: CVSMPTETime, flags: UInt64, reserved: UInt64
    ) {
        self.version = version
        self.videoTimeScale = videoTimeScale
        self.videoTime = videoTime
        self.hostTime = hostTime
        self.rateScalar = rateScalar
        self.videoRefreshPeriod = videoRefreshPeriod
        self.smpteTime = smpteTime
        self.flags = flags
        self.reserved = reserved
    }
}
