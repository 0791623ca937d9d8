import FFmpegBridge
import Foundation

/// A recipe for an image, as Apple's `CIImage`: a source picture and the geometry applied to it, rendered only by a
/// ``CIContext``.
///
/// Coordinates are Core Image's: the origin at the bottom-left corner, y growing upwards; a pixel buffer's image
/// has the extent `(0, 0, width, height)`.
///
/// Differs from Apple: no filters; sources are pixel buffers (the formats libswscale reads: 8-bit 4:2:0 planar and
/// bi-planar, packed 32-bit RGB, one-component 8-bit) and `CGImage`s. Transforms that only scale, translate, mirror
/// and turn by quarter turns render exactly (scaling by libswscale, bicubic); other transforms (arbitrary angles,
/// shears) are sampled nearest-neighbour.
public final class CIImage: @unchecked Sendable {
    // @unchecked: immutable; the pixel buffer source is only read.
    /// Where the pixels come from.
    enum Source {
        case pixelBuffer(CVPixelBuffer)
        case cgImage(CGImage)
    }

    let source: Source
    /// The source's size in pixels.
    let sourceWidth: Int
    let sourceHeight: Int
    /// Maps the source's Core Image coordinates (y up, origin at its bottom-left corner) to this image's.
    let transform: CGAffineTransform
    /// The crop, in this image's coordinates (`.infinite`: none).
    let crop: CGRect

    private init(source: Source, width: Int, height: Int, transform: CGAffineTransform, crop: CGRect) {
        self.source = source
        sourceWidth = width
        sourceHeight = height
        self.transform = transform
        self.crop = crop
    }

    /// An image of `pixelBuffer`'s pixels (not copied: the buffer is read when the image is rendered).
    public convenience init(cvPixelBuffer pixelBuffer: CVPixelBuffer) {
        self.init(
            source: .pixelBuffer(pixelBuffer), width: CVPixelBufferGetWidth(pixelBuffer),
            height: CVPixelBufferGetHeight(pixelBuffer), transform: .identity, crop: .infinite)
    }

    /// An image of `pixelBuffer`'s pixels; the options are accepted and ignored.
    public convenience init(cvPixelBuffer pixelBuffer: CVPixelBuffer, options: [CIImageOption: Any]?) {
        self.init(cvPixelBuffer: pixelBuffer)
    }

    /// An image of `imageBuffer`'s pixels (a pixel buffer).
    public convenience init(cvImageBuffer imageBuffer: CVImageBuffer) {
        self.init(cvPixelBuffer: imageBuffer)
    }

    /// An image of `image`'s pixels.
    public convenience init(cgImage image: CGImage) {
        self.init(
            source: .cgImage(image), width: image.width, height: image.height, transform: .identity, crop: .infinite)
    }

    /// The rectangle the image covers, in its coordinates.
    public var extent: CGRect {
        let covered = CGRect(x: 0, y: 0, width: sourceWidth, height: sourceHeight).applying(transform)
        return crop.isInfinite ? covered : covered.intersection(crop)
    }

    /// The image with `matrix` applied to its coordinates (after what it already has).
    public func transformed(by matrix: CGAffineTransform) -> CIImage {
        CIImage(
            source: source, width: sourceWidth, height: sourceHeight, transform: transform.concatenating(matrix),
            crop: crop.isInfinite ? crop : crop.applying(matrix))
    }

    /// The part of the image inside `rect`.
    public func cropped(to rect: CGRect) -> CIImage {
        CIImage(
            source: source, width: sourceWidth, height: sourceHeight, transform: transform,
            crop: crop.isInfinite ? rect : crop.intersection(rect))
    }

    /// The image turned for display as `orientation` says, its extent kept at the origin (Apple's `oriented(_:)`).
    public func oriented(_ orientation: CGImagePropertyOrientation) -> CIImage {
        transformed(by: orientationTransform(for: orientation))
    }

    /// The transform ``oriented(_:)`` applies (Apple's `orientationTransform(for:)`): the turn or mirror in Core
    /// Image's y-up coordinates, then a translation that keeps an extent at the origin where it was.
    public func orientationTransform(for orientation: CGImagePropertyOrientation) -> CGAffineTransform {
        let linear: CGAffineTransform
        switch orientation {
        case .up: linear = .identity
        case .upMirrored: linear = CGAffineTransform(a: -1, b: 0, c: 0, d: 1, tx: 0, ty: 0)
        case .down: linear = CGAffineTransform(a: -1, b: 0, c: 0, d: -1, tx: 0, ty: 0)
        case .downMirrored: linear = CGAffineTransform(a: 1, b: 0, c: 0, d: -1, tx: 0, ty: 0)
        case .right: linear = CGAffineTransform(a: 0, b: -1, c: 1, d: 0, tx: 0, ty: 0)
        case .left: linear = CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0)
        case .leftMirrored: linear = CGAffineTransform(a: 0, b: -1, c: -1, d: 0, tx: 0, ty: 0)
        case .rightMirrored: linear = CGAffineTransform(a: 0, b: 1, c: 1, d: 0, tx: 0, ty: 0)
        }
        let e = extent
        let moved = e.applying(linear)
        return linear.concatenating(CGAffineTransform(translationX: e.minX - moved.minX, y: e.minY - moved.minY))
    }

    /// The image turned as the EXIF orientation number says (1…8; others leave it as it is).
    public func oriented(forExifOrientation orientation: Int32) -> CIImage {
        guard let o = CGImagePropertyOrientation(rawValue: UInt32(max(0, orientation))) else { return self }
        return oriented(o)
    }
}

/// A key of the options dictionary of `CIImage(cvPixelBuffer:options:)` (Apple's `CIImageOption`).
public struct CIImageOption: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    /// An option from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The colour space to read the source in (accepted, ignored: sources are read as sRGB).
    public static let colorSpace = CIImageOption(rawValue: "kCIImageColorSpace")
    /// Whether to apply the source's orientation (accepted, ignored).
    public static let applyOrientationProperty = CIImageOption(rawValue: "kCIImageApplyOrientationProperty")
}
