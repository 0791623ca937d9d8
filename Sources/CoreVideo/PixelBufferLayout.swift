// Where each plane of an allocated pixel buffer lives inside one block of memory.

/// The placement of every plane of a `width`×`height` buffer of one pixel format inside a single allocation:
/// plane offsets, plane sizes and padded row lengths. Computed once per buffer (or once per pool) and shared.
package struct PixelBufferLayout: Sendable, Equatable {
    /// One plane's placement.
    package struct Plane: Sendable, Equatable {
        /// Byte offset of the plane's first row from the start of the allocation.
        package let offset: Int
        /// Plane width in plane pixels.
        package let width: Int
        /// Plane height in rows.
        package let height: Int
        /// Row stride in bytes (a multiple of the row alignment).
        package let bytesPerRow: Int
    }

    /// Row alignment used when the attributes give none. Apple uses 16 or 64 depending on the device; 64 suits
    /// AVX-512/NEON loads and FFmpeg's frame alignment, so rows never need re-padding for FFmpeg.
    package static let defaultBytesPerRowAlignment = 64
    /// Plane start alignment used when the attributes give none (one cache line).
    package static let defaultPlaneAlignment = 64

    /// The format the layout is for.
    package let pixelFormat: PixelFormatLayout
    /// Image width in pixels.
    package let width: Int
    /// Image height in pixels.
    package let height: Int
    /// Storage planes in order (one for chunky formats).
    package let planes: [Plane]
    /// Bytes from the start of the allocation to the end of the last plane: what `CVPixelBufferGetDataSize`
    /// reports.
    package let dataSize: Int

    /// Lays out a buffer.
    ///
    /// - Throws: `invalidArgument` for a non-positive size or alignment, `invalidSize` when the byte count
    ///   overflows.
    package init(
        pixelFormat: PixelFormatLayout,
        width: Int,
        height: Int,
        bytesPerRowAlignment: Int = PixelBufferLayout.defaultBytesPerRowAlignment,
        planeAlignment: Int = PixelBufferLayout.defaultPlaneAlignment
    ) throws(CoreVideoError) {
        guard width > 0, height > 0, bytesPerRowAlignment > 0, planeAlignment > 0 else {
            throw .invalidArgument
        }
        var planes: [Plane] = []
        planes.reserveCapacity(pixelFormat.planes.count)
        var end = 0
        for formatPlane in pixelFormat.planes {
            let planeWidth = formatPlane.width(forImageWidth: width)
            let planeHeight = formatPlane.height(forImageHeight: height)
            let blocks = (planeWidth + formatPlane.blockWidth - 1) / formatPlane.blockWidth
            let (rowBytes, rowOverflow) = blocks.multipliedReportingOverflow(by: formatPlane.bytesPerBlock)
            guard !rowOverflow, let bytesPerRow = Self.roundUp(rowBytes, toMultipleOf: bytesPerRowAlignment),
                let offset = Self.roundUp(end, toMultipleOf: planeAlignment)
            else { throw .invalidSize }
            let (planeBytes, planeOverflow) = bytesPerRow.multipliedReportingOverflow(by: planeHeight)
            let (planeEnd, endOverflow) = offset.addingReportingOverflow(planeBytes)
            guard !planeOverflow, !endOverflow, planeEnd <= Self.maximumDataSize else { throw .invalidSize }
            planes.append(Plane(offset: offset, width: planeWidth, height: planeHeight, bytesPerRow: bytesPerRow))
            end = planeEnd
        }
        self.pixelFormat = pixelFormat
        self.width = width
        self.height = height
        self.planes = planes
        self.dataSize = end
    }

    /// Largest buffer accepted (2^40 bytes): far beyond any video frame, small enough that size arithmetic
    /// elsewhere cannot overflow.
    private static let maximumDataSize = 1 << 40

    private static func roundUp(_ value: Int, toMultipleOf alignment: Int) -> Int? {
        let (sum, overflow) = value.addingReportingOverflow(alignment - 1)
        return overflow ? nil : sum / alignment * alignment
    }
}
