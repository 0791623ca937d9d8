// The public, Apple-shaped API. Like Apple's framework, `import AVFoundation` brings CoreMedia
// (CMTime …), CoreVideo (CVPixelBuffer …), the CoreGraphics geometry types and Foundation.
@_exported import CoreGraphics
@_exported import CoreMedia
@_exported import CoreVideo
@_exported import Foundation

// On Apple's systems `import Foundation` (which `import AVFoundation` brings) includes URLSession, URLRequest,
// HTTPCookie and HTTPURLResponse; on Linux they live in FoundationNetworking, re-exported here so that player code
// that downloads artwork or sets `AVURLAssetHTTPCookiesKey` compiles with `import AVFoundation` alone.
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

/// Apple's out-parameter for `NSError` (`statusOfValue(forKey:error:)`). swift-corelibs-foundation
/// has no `NSErrorPointer`; call sites written for Apple (`&error` or `nil`) compile unchanged.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
