import CLibass

/// Owns one libass renderer (`ASS_Renderer`, freed with `ass_renderer_done` in `deinit`; DESIGN.md: one owner per C
/// object): the frame geometry and font settings a track is drawn with, and the images of the last frame drawn.
///
/// ``renderFrame(_:at:)`` draws; ``frameImages()`` then copies what it drew out of libass (libass frees those images
/// at the next render, so no pointer to them leaves this type).
///
/// Keeps its ``ASSLibrary`` alive. Not thread-safe: a renderer belongs to the thread that owns its library (libass
/// has no locks). Not `Sendable`.
package final class ASSRenderer {
    /// The owned renderer (`ASS_Renderer` is opaque).
    private let pointer: OpaquePointer
    /// The library the renderer was made from; freed after the renderer.
    private let library: ASSLibrary
    /// The images of the last ``renderFrame(_:at:)`` (owned by libass until the next render); nil after any setting
    /// changed since, so ``frameImages()`` never reads what a reconfiguration may have freed.
    private var images: UnsafeMutablePointer<ASS_Image>?

    /// A renderer of `library` (`ass_renderer_init`); nil when libass cannot make one.
    package init?(library: ASSLibrary) {
        guard let pointer = ass_renderer_init(library.pointer) else { return nil }
        self.pointer = pointer
        self.library = library
    }

    deinit { ass_renderer_done(pointer) }

    /// Sets up font lookup (`ass_set_fonts`) with the platform's font provider (fontconfig on Linux), no default font
    /// file and no fontconfig file of our own, the provider's cache built now: `defaultFamily` is used when a style's
    /// font is missing.
    package func setFonts(defaultFamily: String) {
        images = nil
        ass_set_fonts(pointer, nil, defaultFamily, Int32(ASS_FONTPROVIDER_AUTODETECT.rawValue), nil, 1)
    }

    /// Whether unpositioned events are placed in the whole frame, margins included, rather than in the video
    /// (`ass_set_use_margins`).
    package func setUseMargins(_ use: Bool) {
        images = nil
        ass_set_use_margins(pointer, use ? 1 : 0)
    }

    /// The size of the frame drawn into, in pixels (`ass_set_frame_size`).
    package func setFrameSize(width: Int, height: Int) {
        images = nil
        ass_set_frame_size(pointer, Int32(width), Int32(height))
    }

    /// The distances from the video's edges to the frame's, in pixels; negative where the video is cropped
    /// (`ass_set_margins`, in its top, bottom, left, right order).
    package func setMargins(top: Int, bottom: Int, left: Int, right: Int) {
        images = nil
        ass_set_margins(pointer, Int32(top), Int32(bottom), Int32(left), Int32(right))
    }

    /// The size of the video's pictures, which libass scales borders and blur against (`ass_set_storage_size`).
    package func setStorageSize(width: Int, height: Int) {
        images = nil
        ass_set_storage_size(pointer, Int32(width), Int32(height))
    }

    /// Draws `track` as shown at `milliseconds` (`ass_render_frame`); true when the result may differ from the
    /// previous render's (libass's `detect_change` not 0: positions or content changed). ``frameImages()`` gives what
    /// was drawn.
    package func renderFrame(_ track: ASSTrack, at milliseconds: Int64) -> Bool {
        var change: Int32 = 0
        images = ass_render_frame(pointer, track.pointer, milliseconds, &change)
        return change != 0
    }

    /// Copies of the images the last ``renderFrame(_:at:)`` drew, in libass's order (the order to composite them
    /// in); empty when nothing was drawn or a setting changed since.
    package func frameImages() -> [ASSImage] {
        var copies: [ASSImage] = []
        var next = images
        while let image = next {
            copies.append(Self.copy(image.pointee))
            next = image.pointee.next
        }
        return copies
    }

    /// `image` with its bitmap copied, rows packed (libass's last row may be shorter than its stride).
    private static func copy(_ image: ASS_Image) -> ASSImage {
        let (width, height, stride) = (Int(image.w), Int(image.h), Int(image.stride))
        var alpha: [UInt8] = []
        if let bitmap = image.bitmap, width > 0, height > 0 {
            alpha = [UInt8](unsafeUninitializedCapacity: width * height) { buffer, count in
                for row in 0..<height {
                    let source = UnsafeBufferPointer(start: bitmap + row * stride, count: width)
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[(row * width)...]).initialize(from: source)
                }
                count = width * height
            }
        }
        return ASSImage(
            x: Int(image.dst_x), y: Int(image.dst_y), width: width, height: height, color: image.color, alpha: alpha)
    }
}
