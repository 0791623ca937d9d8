import CoreMedia

/// What a ``VideoWindow`` drew last, read back from its renderer (a test hook).
///
/// A value type: any thread.
package struct VideoWindowSnapshot: Sendable {
    /// The renderer's output, 4 bytes a pixel in B, G, R, A order, `width * 4` bytes a row.
    package var pixels: [UInt8]
    /// Output width in pixels.
    package var width: Int
    /// Output height in pixels.
    package var height: Int
    /// Where the picture was drawn, in output pixels (may reach outside the output with
    /// ``VideoGravity/resizeAspectFill``).
    package var videoRect: (x: Int, y: Int, width: Int, height: Int)
    /// The item time of the picture drawn.
    package var itemTime: CMTime

    /// A snapshot of `pixels` (`width` x `height`, BGRA) with the picture at `videoRect`, showing `itemTime`.
    package init(
        pixels: [UInt8], width: Int, height: Int, videoRect: (x: Int, y: Int, width: Int, height: Int),
        itemTime: CMTime
    ) {
        self.pixels = pixels
        self.width = width
        self.height = height
        self.videoRect = videoRect
        self.itemTime = itemTime
    }
}
