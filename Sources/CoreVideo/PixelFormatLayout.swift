// The one place where plane geometry is derived from a pixel format (package API for the engine and the
// FFmpeg bridge; not Apple's). `CVPixelBufferCreate`, the pool and the wrapping initialisers all go through it.

/// How a pixel format lays its samples out in memory: how many planes, and for each plane how many bytes a
/// horizontal block of pixels takes and how the plane is subsampled.
///
/// Widths and heights of subsampled planes round up, so a 321×241 4:2:0 image has 161×121 chroma planes.
package struct PixelFormatLayout: Sendable, Equatable {
    /// One plane of a format.
    package struct Plane: Sendable, Equatable {
        /// Bytes taken by one block of `blockWidth` plane pixels (for NV12's CbCr plane: one Cb and one Cr
        /// byte per chroma pixel, so 2).
        package let bytesPerBlock: Int
        /// Plane pixels per block: 1 for most formats, 2 for 4:2:2 chunky formats whose 4-byte block holds two
        /// pixels.
        package let blockWidth: Int
        /// The image width divided by this, rounded up, is the plane's width.
        package let horizontalSubsampling: Int
        /// The image height divided by this, rounded up, is the plane's height.
        package let verticalSubsampling: Int

        package init(
            bytesPerBlock: Int, blockWidth: Int = 1, horizontalSubsampling: Int = 1,
            verticalSubsampling: Int = 1
        ) {
            self.bytesPerBlock = bytesPerBlock
            self.blockWidth = blockWidth
            self.horizontalSubsampling = horizontalSubsampling
            self.verticalSubsampling = verticalSubsampling
        }

        /// The plane's width in plane pixels for an image `imageWidth` pixels wide.
        package func width(forImageWidth imageWidth: Int) -> Int {
            (imageWidth + horizontalSubsampling - 1) / horizontalSubsampling
        }

        /// The plane's height in rows for an image `imageHeight` pixels high.
        package func height(forImageHeight imageHeight: Int) -> Int {
            (imageHeight + verticalSubsampling - 1) / verticalSubsampling
        }

        /// The smallest row length in bytes that holds `planeWidth` plane pixels (before row alignment).
        package func minimumBytesPerRow(forPlaneWidth planeWidth: Int) -> Int {
            (planeWidth + blockWidth - 1) / blockWidth * bytesPerBlock
        }
    }

    /// The Apple pixel format this describes.
    package let pixelFormatType: OSType
    /// Whether Apple treats the format as planar. Chunky formats have one storage plane here but report a
    /// plane count of 0 through `CVPixelBufferGetPlaneCount`, as Apple's do.
    package let isPlanar: Bool
    /// The storage planes in order (luma first for YCbCr); one entry for chunky formats.
    package let planes: [Plane]
    /// Bits of precision per component (8 or 10 or 16); 10-bit formats store each sample in 16 bits.
    package let bitsPerComponent: Int
    /// Whether the samples are Y'CbCr (otherwise RGB or single-component).
    package let isYCbCr: Bool
    /// Whether Y'CbCr samples use the full range (0–255 at 8 bits) rather than video range (16–235).
    /// `false` for non-YCbCr formats.
    package let isFullRange: Bool
    /// Whether the format carries an alpha component.
    package let hasAlpha: Bool

    /// The plane count Apple reports: the number of planes for planar formats, 0 for chunky ones.
    package var planeCount: Int {
        isPlanar ? planes.count : 0
    }

    /// The layout for `pixelFormatType`, or `nil` when CoreVideo cannot allocate that format.
    package static func forPixelFormatType(_ pixelFormatType: OSType) -> PixelFormatLayout? {
        table[pixelFormatType]
    }

    /// Every format this module can allocate.
    package static var allFormats: [PixelFormatLayout] {
        Array(table.values)
    }

    private static let table: [OSType: PixelFormatLayout] = {
        var table: [OSType: PixelFormatLayout] = [:]
        func chunky(_ type: OSType, _ bytesPerPixel: Int, alpha: Bool, bits: Int = 8) {
            table[type] = PixelFormatLayout(
                pixelFormatType: type, isPlanar: false, planes: [Plane(bytesPerBlock: bytesPerPixel)],
                bitsPerComponent: bits, isYCbCr: false, isFullRange: false, hasAlpha: alpha)
        }
        func packed422(_ type: OSType) {
            table[type] = PixelFormatLayout(
                pixelFormatType: type, isPlanar: false, planes: [Plane(bytesPerBlock: 4, blockWidth: 2)],
                bitsPerComponent: 8, isYCbCr: true, isFullRange: false, hasAlpha: false)
        }
        // Y' plane plus one interleaved CbCr plane. `sample` is the size of one sample in bytes: 1 for 8-bit
        // formats, 2 for 10-bit ones; `sub` is the chroma subsampling (horizontal, vertical).
        func biPlanar(_ type: OSType, sample: Int, sub: (h: Int, v: Int), full: Bool) {
            table[type] = PixelFormatLayout(
                pixelFormatType: type, isPlanar: true,
                planes: [
                    Plane(bytesPerBlock: sample),
                    Plane(bytesPerBlock: 2 * sample, horizontalSubsampling: sub.h, verticalSubsampling: sub.v),
                ],
                bitsPerComponent: sample == 1 ? 8 : 10, isYCbCr: true, isFullRange: full, hasAlpha: false)
        }
        func triPlanar420(_ type: OSType, fullRange: Bool) {
            let chroma = Plane(bytesPerBlock: 1, horizontalSubsampling: 2, verticalSubsampling: 2)
            table[type] = PixelFormatLayout(
                pixelFormatType: type, isPlanar: true, planes: [Plane(bytesPerBlock: 1), chroma, chroma],
                bitsPerComponent: 8, isYCbCr: true, isFullRange: fullRange, hasAlpha: false)
        }

        chunky(kCVPixelFormatType_32ARGB, 4, alpha: true)
        chunky(kCVPixelFormatType_32BGRA, 4, alpha: true)
        chunky(kCVPixelFormatType_32ABGR, 4, alpha: true)
        chunky(kCVPixelFormatType_32RGBA, 4, alpha: true)
        chunky(kCVPixelFormatType_24RGB, 3, alpha: false)
        chunky(kCVPixelFormatType_24BGR, 3, alpha: false)
        chunky(kCVPixelFormatType_OneComponent8, 1, alpha: false)
        chunky(kCVPixelFormatType_OneComponent16, 2, alpha: false, bits: 16)
        packed422(kCVPixelFormatType_422YpCbCr8)
        packed422(kCVPixelFormatType_422YpCbCr8_yuvs)
        biPlanar(kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, sample: 1, sub: (2, 2), full: false)
        biPlanar(kCVPixelFormatType_420YpCbCr8BiPlanarFullRange, sample: 1, sub: (2, 2), full: true)
        biPlanar(kCVPixelFormatType_422YpCbCr8BiPlanarVideoRange, sample: 1, sub: (2, 1), full: false)
        biPlanar(kCVPixelFormatType_422YpCbCr8BiPlanarFullRange, sample: 1, sub: (2, 1), full: true)
        biPlanar(kCVPixelFormatType_444YpCbCr8BiPlanarVideoRange, sample: 1, sub: (1, 1), full: false)
        biPlanar(kCVPixelFormatType_444YpCbCr8BiPlanarFullRange, sample: 1, sub: (1, 1), full: true)
        biPlanar(kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, sample: 2, sub: (2, 2), full: false)
        biPlanar(kCVPixelFormatType_420YpCbCr10BiPlanarFullRange, sample: 2, sub: (2, 2), full: true)
        biPlanar(kCVPixelFormatType_422YpCbCr10BiPlanarVideoRange, sample: 2, sub: (2, 1), full: false)
        biPlanar(kCVPixelFormatType_422YpCbCr10BiPlanarFullRange, sample: 2, sub: (2, 1), full: true)
        biPlanar(kCVPixelFormatType_444YpCbCr10BiPlanarVideoRange, sample: 2, sub: (1, 1), full: false)
        biPlanar(kCVPixelFormatType_444YpCbCr10BiPlanarFullRange, sample: 2, sub: (1, 1), full: true)
        triPlanar420(kCVPixelFormatType_420YpCbCr8Planar, fullRange: false)
        triPlanar420(kCVPixelFormatType_420YpCbCr8PlanarFullRange, fullRange: true)
        return table
    }()
}
