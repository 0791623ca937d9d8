// CoreImage: the pixel-buffer-to-image path apps write with Core Image — `CIImage(cvPixelBuffer:)`, `oriented(_:)`,
// `transformed(by:)`, `cropped(to:)`, `CIContext().createCGImage(_:from:)` — on libswscale. No filters.
//
// Re-exports ImageIO (whose `CGImagePropertyOrientation` `oriented(_:)` takes, as Apple's CIImage.h imports ImageIO)
// and CoreVideo.
@_exported import CoreVideo
@_exported import ImageIO
