import Foundation

// CoreFoundation's absolute time, beside CFTimeInterval (CVHostTime.swift); the other CF stand-ins are in
// CoreGraphics (CoreFoundationStandIns.swift).

/// Seconds relative to the reference date (1 January 2001, 00:00:00 UTC), as CoreFoundation's `CFAbsoluteTime`.
public typealias CFAbsoluteTime = CFTimeInterval

/// The current absolute time (seconds since 1 January 2001 UTC, wall clock), as CoreFoundation's
/// `CFAbsoluteTimeGetCurrent()`: the same value as `Date().timeIntervalSinceReferenceDate`. Like Apple's, it follows
/// the system's clock (which may be set back); use `CACurrentMediaTime()` to measure intervals.
public func CFAbsoluteTimeGetCurrent() -> CFAbsoluteTime {
    Date().timeIntervalSinceReferenceDate
}

/// `kCFAbsoluteTimeIntervalSince1970`: seconds from 1 January 1970 to the reference date.
public let kCFAbsoluteTimeIntervalSince1970: CFTimeInterval = 978_307_200.0
