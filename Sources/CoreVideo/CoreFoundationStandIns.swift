// swift-corelibs-foundation does not export CoreFoundation's types through `import Foundation`, and the
// `CoreFoundation` module it ships cannot toll-free bridge (`attrs as CFDictionary` does not compile and
// `as!` traps). CoreVideo's API is written in CF types, so this file supplies stand-ins that keep Apple-style
// call sites compiling unchanged:
//
//     CVPixelBufferCreate(kCFAllocatorDefault, w, h, kCVPixelFormatType_32BGRA, attrs as CFDictionary, &pb)
//     let key = kCVPixelBufferPixelFormatTypeKey as String
//
// Known limit: a file that also does `import CoreFoundation` sees two `CFDictionary`/`CFString`/`CFTypeRef`
// types and must qualify them (`CoreVideo.CFDictionary`).
//
// Ownership note for the package: CoreMedia needs the same stand-ins. They must be declared in exactly one
// module (the lowest one that needs them); when CoreVideo starts importing CoreMedia, whichever copy is
// higher in the graph must be deleted, or clients importing both would see ambiguous types.

/// A memory allocator, as CoreFoundation's `CFAllocator`.
///
/// Differs from Apple: there are no custom allocators on Linux. Every function accepting a `CFAllocator?`
/// ignores it and uses the default allocator; pass `nil` or `kCFAllocatorDefault`.
public final class CFAllocator: Sendable {
    private init() {}
}

/// The default allocator. As on Apple's systems its value is `NULL`/`nil`, meaning "use the default".
public let kCFAllocatorDefault: CFAllocator! = nil

/// A CoreFoundation string. On Linux this is Swift's `String`, so CoreVideo's key constants are plain strings
/// and `key as String` is a no-op.
///
/// Differs from Apple: `CFString` is a class on Apple's systems; here it is a value type.
public typealias CFString = String

/// A CoreFoundation dictionary. On Linux this is `NSDictionary`, so `[String: Any]` converts with
/// `as CFDictionary`, and the dictionary converts back with `as? [String: Any]`.
public typealias CFDictionary = NSDictionary

/// Any CoreFoundation object, as Apple's `CFTypeRef` (`AnyObject`).
public typealias CFTypeRef = AnyObject

/// A CoreFoundation Boolean. On Linux this is `NSNumber`, so attribute dictionaries written as
/// `[kCVPixelBufferCGImageCompatibilityKey: kCFBooleanTrue!] as CFDictionary` compile and read back as `Bool`.
public typealias CFBoolean = NSNumber

/// The CoreFoundation `true` value.
public let kCFBooleanTrue: CFBoolean! = NSNumber(value: true)

/// The CoreFoundation `false` value.
public let kCFBooleanFalse: CFBoolean! = NSNumber(value: false)

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
