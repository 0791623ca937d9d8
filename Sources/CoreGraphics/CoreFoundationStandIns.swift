// swift-corelibs-foundation does not export CoreFoundation's types through `import Foundation`, and the
// `CoreFoundation` module it ships cannot toll-free bridge (`attrs as CFDictionary` does not compile and
// `as!` traps). CoreVideo's, CoreGraphics' and ImageIO's APIs are written in CF types, so this file supplies
// stand-ins that keep Apple-style call sites compiling unchanged:
//
//     CVPixelBufferCreate(kCFAllocatorDefault, w, h, kCVPixelFormatType_32BGRA, attrs as CFDictionary, &pb)
//     let key = kCVPixelBufferPixelFormatTypeKey as String
//     CGImageDestinationCreateWithURL(url as CFURL, "public.png" as CFString, 1, nil)
//     CGImageDestinationCreateWithData(data as CFMutableData, UTType.jpeg.identifier as CFString, 1, nil)
//
// Each stand-in is a typealias to the Foundation class that bridges (`NSDictionary`, `NSData`, `NSURL` …) or to
// `String`, so the `as` conversions compile and cost nothing.
//
// Known limit: a file that also does `import CoreFoundation` sees two `CFDictionary`/`CFString`/`CFTypeRef`
// types and must qualify them (`CoreGraphics.CFDictionary`).
//
// Ownership note for the package: the stand-ins must be declared in exactly one module, the lowest one that needs
// them. That is CoreGraphics (CGColorSpace names are `CFString`s, `CGDataProvider` holds `CFData`); CoreVideo,
// CoreMedia, ImageIO and AVFoundation re-export it. (They lived in CoreVideo until CoreGraphics needed them.)

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

/// CoreFoundation's byte buffer. On Linux this is `NSData`, so `data as CFData` (from `Data`) and `cfData as Data`
/// compile.
public typealias CFData = NSData

/// CoreFoundation's growable byte buffer. On Linux this is `NSMutableData`, so `NSMutableData()` passes where
/// ImageIO wants a `CFMutableData` (`CGImageDestinationCreateWithData(data as CFMutableData, …)`).
public typealias CFMutableData = NSMutableData

/// CoreFoundation's URL. On Linux this is `NSURL`, so `url as CFURL` (from `URL`) compiles.
public typealias CFURL = NSURL

/// CoreFoundation's array. On Linux this is `NSArray`, so `[String]` converts with `as CFArray` and back with
/// `as? [String]`.
public typealias CFArray = NSArray

/// A count or index in CoreFoundation's functions (`CFIndex`, a signed machine word).
public typealias CFIndex = Int

/// The number of bytes in `theData` (CoreFoundation's `CFDataGetLength`).
public func CFDataGetLength(_ theData: CFData!) -> CFIndex { theData.length }

/// A read-only pointer to `theData`'s bytes (CoreFoundation's `CFDataGetBytePtr`), valid while `theData` lives and
/// is not mutated; nil for empty data.
public func CFDataGetBytePtr(_ theData: CFData!) -> UnsafePointer<UInt8>! {
    guard theData.length > 0 else { return nil }
    return theData.bytes.assumingMemoryBound(to: UInt8.self)
}
