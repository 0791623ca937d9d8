// Image-buffer geometry (CVImageBuffer.h).

/// The full size of the buffer in pixels, as Apple's `CVImageBufferGetEncodedSize`.
public func CVImageBufferGetEncodedSize(_ imageBuffer: CVImageBuffer) -> CGSize {
    CGSize(width: imageBuffer.width, height: imageBuffer.height)
}

/// The part of the buffer meant to be shown, as Apple's `CVImageBufferGetCleanRect`: the clean aperture from
/// the `kCVImageBufferCleanApertureKey` attachment (centred, moved by its offsets), or the whole buffer when there
/// is none.
public func CVImageBufferGetCleanRect(_ imageBuffer: CVImageBuffer) -> CGRect {
    let full = CGRect(x: 0, y: 0, width: imageBuffer.width, height: imageBuffer.height)
    guard
        let aperture = attachmentDictionary(imageBuffer, kCVImageBufferCleanApertureKey),
        let width = number(aperture[kCVImageBufferCleanApertureWidthKey]),
        let height = number(aperture[kCVImageBufferCleanApertureHeightKey]),
        width > 0, height > 0
    else { return full }
    let horizontalOffset = number(aperture[kCVImageBufferCleanApertureHorizontalOffsetKey]) ?? 0
    let verticalOffset = number(aperture[kCVImageBufferCleanApertureVerticalOffsetKey]) ?? 0
    return CGRect(
        x: (full.width - width) / 2 + horizontalOffset, y: (full.height - height) / 2 + verticalOffset,
        width: width, height: height)
}

/// The size at which the image should be displayed, as Apple's `CVImageBufferGetDisplaySize`: the clean rect's
/// size with its width scaled by the `kCVImageBufferPixelAspectRatioKey` attachment (horizontal / vertical
/// spacing), so anamorphic video displays with square pixels.
public func CVImageBufferGetDisplaySize(_ imageBuffer: CVImageBuffer) -> CGSize {
    let clean = CVImageBufferGetCleanRect(imageBuffer).size
    guard
        let aspect = attachmentDictionary(imageBuffer, kCVImageBufferPixelAspectRatioKey),
        let horizontal = number(aspect[kCVImageBufferPixelAspectRatioHorizontalSpacingKey]),
        let vertical = number(aspect[kCVImageBufferPixelAspectRatioVerticalSpacingKey]),
        horizontal > 0, vertical > 0
    else { return clean }
    return CGSize(width: clean.width * horizontal / vertical, height: clean.height)
}

/// Whether the image is stored bottom row first, as Apple's `CVImageBufferIsFlipped`. Always `false` on Linux:
/// buffers are stored top row first.
public func CVImageBufferIsFlipped(_ imageBuffer: CVImageBuffer) -> Bool {
    false
}

private func attachmentDictionary(_ buffer: CVImageBuffer, _ key: CFString) -> [String: Any]? {
    CVBufferCopyAttachment(buffer, key, nil) as? [String: Any]
}

private func number(_ value: Any?) -> CGFloat? {
    (value as? NSNumber).map { CGFloat($0.doubleValue) }
}
