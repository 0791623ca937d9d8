/// One image of a frame libass rendered (`ASS_Image`): an alpha mask in one colour, placed in the frame.
///
/// A copy of libass's image (whose bitmap libass frees at the next render), so a value type: any thread.
package struct ASSImage: Sendable, Equatable {
    /// The column of the mask's top-left corner in the frame (`dst_x`), in pixels.
    package var x: Int
    /// The row of the mask's top-left corner in the frame (`dst_y`), in pixels.
    package var y: Int
    /// The mask's width in pixels (`w`).
    package var width: Int
    /// The mask's height in pixels (`h`).
    package var height: Int
    /// The colour (`color`): red, green, blue, then the alpha byte as transparency (0 opaque), most significant first.
    package var color: UInt32
    /// The coverage (0…255), `width` bytes a row, rows packed (libass's stride dropped); empty when libass gave no
    /// bitmap.
    package var alpha: [UInt8]

    /// An image with these fields.
    package init(x: Int, y: Int, width: Int, height: Int, color: UInt32, alpha: [UInt8]) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.color = color
        self.alpha = alpha
    }
}
