// The public, Apple-shaped API. Like Apple's framework, `import AVFoundation` brings CoreMedia
// (CMTime …), CoreVideo (CVPixelBuffer …), the CoreGraphics geometry types and Foundation.
@_exported import CoreGraphics
@_exported import CoreMedia
@_exported import CoreVideo
@_exported import Foundation

/// Apple's out-parameter for `NSError` (`statusOfValue(forKey:error:)`). swift-corelibs-foundation
/// has no `NSErrorPointer`; call sites written for Apple (`&error` or `nil`) compile unchanged.
public typealias NSErrorPointer = UnsafeMutablePointer<NSError?>?
