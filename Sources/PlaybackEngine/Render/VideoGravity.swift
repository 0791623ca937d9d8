/// How a picture fills the area it is drawn in (AVFoundation's video gravity), and the geometry that follows.
///
/// A value type: any thread.
package enum VideoGravity: Sendable, Hashable {
    /// The whole picture, aspect ratio kept, letterboxed or pillarboxed.
    case resizeAspect
    /// The whole area filled, aspect ratio kept, the picture cropped.
    case resizeAspectFill
    /// The whole area filled, the picture stretched.
    case resize

    /// Where a picture of display size `picture` is drawn in an area of size `output` (AVFoundation's `videoRect`):
    /// centred; with ``resizeAspectFill`` it reaches outside the area. All zero when either size is empty.
    package func videoRect(
        picture: (width: Double, height: Double), output: (width: Double, height: Double)
    ) -> (x: Double, y: Double, width: Double, height: Double) {
        guard picture.width > 0, picture.height > 0, output.width > 0, output.height > 0 else { return (0, 0, 0, 0) }
        if self == .resize { return (0, 0, output.width, output.height) }
        let fit = min(output.width / picture.width, output.height / picture.height)
        let fill = max(output.width / picture.width, output.height / picture.height)
        let scale = self == .resizeAspect ? fit : fill
        let (w, h) = (picture.width * scale, picture.height * scale)
        return ((output.width - w) / 2, (output.height - h) / 2, w, h)
    }
}
