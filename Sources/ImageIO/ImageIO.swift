// ImageIO: the part of Apple's image file framework that writing stills needs — `CGImageDestination` for PNG and
// JPEG, encoded by FFmpeg's `png` and `mjpeg` encoders — and `CGImagePropertyOrientation`.
//
// Re-exports CoreGraphics (CGImage, the CF stand-ins), as Apple's ImageIO brings CoreGraphics along.
@_exported import CoreGraphics
