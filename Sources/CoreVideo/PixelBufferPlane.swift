// The description of one plane of pixels that a pixel buffer exposes.

/// One plane of a pixel buffer as `CVPixelBufferGetBaseAddressOfPlane` and friends report it. Package API: the
/// FFmpeg bridge builds these from an `AVFrame`'s `data[i]`/`linesize[i]` to wrap decoded frames without
/// copying.
///
/// `@unchecked Sendable`: it is a plain description (an address and three numbers); whoever owns the memory
/// synchronises access to the bytes.
package struct PixelBufferPlane: @unchecked Sendable, Equatable {
    /// Address of the plane's first row.
    package var baseAddress: UnsafeMutableRawPointer
    /// Width in plane pixels (chroma planes of subsampled formats are narrower than the image).
    package var width: Int
    /// Height in rows.
    package var height: Int
    /// Row stride in bytes; at least the row's payload, possibly padded.
    package var bytesPerRow: Int

    package init(baseAddress: UnsafeMutableRawPointer, width: Int, height: Int, bytesPerRow: Int) {
        self.baseAddress = baseAddress
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
    }
}
