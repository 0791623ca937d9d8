/// A bitmap image, as Apple's `CGImage`: immutable pixels with their geometry, layout and colour space.
///
/// What the image generator (`AVAssetImageGenerator`), `CIContext.createCGImage(_:from:)` and image destinations
/// (ImageIO) exchange. The pictures this package makes are 8 bits per component, 32 bits per pixel, B G R X in
/// memory (`.byteOrder32Little` with `.noneSkipFirst`), sRGB, with rows padded to a multiple of 64 bytes.
///
/// Differs from Apple: only 8-bit images are supported: 32-bit RGB with any alpha placement and byte order, 24-bit
/// RGB, and 8-bit grey (``init(width:height:bitsPerComponent:bitsPerPixel:bytesPerRow:space:bitmapInfo:provider:decode:shouldInterpolate:intent:)``
/// returns nil for others); `decode` arrays are ignored.
public final class CGImage: Sendable {
    /// The width in pixels.
    public let width: Int
    /// The height in pixels.
    public let height: Int
    /// Bits per colour component (8).
    public let bitsPerComponent: Int
    /// Bits per pixel (32, 24 or 8).
    public let bitsPerPixel: Int
    /// Bytes from one row to the next.
    public let bytesPerRow: Int
    /// The colour space the components are in.
    public let colorSpace: CGColorSpace?
    /// The alpha placement and byte order.
    public let bitmapInfo: CGBitmapInfo
    /// Whether the image is smoothed when drawn scaled (kept, not used).
    public let shouldInterpolate: Bool
    /// The rendering intent (kept, not used).
    public let renderingIntent: CGColorRenderingIntent
    /// The pixels: `height` rows of `bytesPerRow` bytes.
    let bytes: Data

    /// An image over `provider`'s bytes, as Apple's initializer; nil for a layout this implementation does not
    /// support (see the type's documentation), a size that is not positive, or too few bytes.
    public init?(
        width: Int, height: Int, bitsPerComponent: Int, bitsPerPixel: Int, bytesPerRow: Int, space: CGColorSpace,
        bitmapInfo: CGBitmapInfo, provider: CGDataProvider, decode: UnsafePointer<CGFloat>?, shouldInterpolate: Bool,
        intent: CGColorRenderingIntent
    ) {
        guard width > 0, height > 0, bitsPerComponent == 8, [8, 24, 32].contains(bitsPerPixel),
            bitsPerPixel == 8 ? space.model == .monochrome : space.model == .rgb,
            bitmapInfo.intersection(.floatInfoMask).isEmpty,
            bytesPerRow >= width * bitsPerPixel / 8,
            provider.bytes.count >= (height - 1) * bytesPerRow + width * bitsPerPixel / 8,
            CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.alphaInfoMask.rawValue) != nil
        else { return nil }
        self.width = width
        self.height = height
        self.bitsPerComponent = bitsPerComponent
        self.bitsPerPixel = bitsPerPixel
        self.bytesPerRow = bytesPerRow
        colorSpace = space
        self.bitmapInfo = bitmapInfo
        self.shouldInterpolate = shouldInterpolate
        renderingIntent = intent
        bytes = provider.bytes
    }

    /// An opaque sRGB image of 32-bit B G R X pixels (`.byteOrder32Little`, `.noneSkipFirst`): what this package's
    /// decoders and converters produce. **OpenAVFoundation extension.**
    package init(oavfBGRX bytes: Data, width: Int, height: Int, bytesPerRow: Int) {
        precondition(width > 0 && height > 0 && bytesPerRow >= 4 * width && bytes.count >= height * bytesPerRow)
        self.width = width
        self.height = height
        bitsPerComponent = 8
        bitsPerPixel = 32
        self.bytesPerRow = bytesPerRow
        colorSpace = CGColorSpace(name: CGColorSpace.sRGB)
        bitmapInfo = CGBitmapInfo(rawValue: CGImageAlphaInfo.noneSkipFirst.rawValue).union(.byteOrder32Little)
        shouldInterpolate = true
        renderingIntent = .defaultIntent
        self.bytes = bytes
    }

    /// Where the alpha channel is (the low bits of ``bitmapInfo``).
    public var alphaInfo: CGImageAlphaInfo {
        CGImageAlphaInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.alphaInfoMask.rawValue) ?? .none
    }

    /// The byte order (the byte-order bits of ``bitmapInfo``).
    public var byteOrderInfo: CGImageByteOrderInfo {
        CGImageByteOrderInfo(rawValue: bitmapInfo.rawValue & CGBitmapInfo.byteOrderMask.rawValue) ?? .orderDefault
    }

    /// Whether the image is a mask (never, here).
    public var isMask: Bool { false }

    /// The image's bytes, as Apple's `dataProvider` (read them with `dataProvider?.data`).
    public var dataProvider: CGDataProvider? { CGDataProvider(bytes: bytes) }

    /// The image itself (it is immutable), as Apple's `copy()`.
    public func copy() -> CGImage? { self }

    /// The part of the image inside `rect` (pixels, origin at the top-left corner), as Apple's `cropping(to:)`: the
    /// rectangle is made integral and clipped to the image; nil when nothing is left.
    public func cropping(to rect: CGRect) -> CGImage? {
        guard !rect.isNull, !rect.isInfinite else { return nil }
        let clipped = rect.integral.intersection(CGRect(x: 0, y: 0, width: width, height: height))
        guard !clipped.isNull, clipped.width >= 1, clipped.height >= 1 else { return nil }
        let x = Int(clipped.minX), y = Int(clipped.minY), w = Int(clipped.width), h = Int(clipped.height)
        let pixelBytes = bitsPerPixel / 8
        let rowBytes = w * pixelBytes
        var out = Data(count: rowBytes * h)
        out.withUnsafeMutableBytes { target in
            bytes.withUnsafeBytes { source in
                for row in 0..<h {
                    let from = (y + row) * bytesPerRow + x * pixelBytes
                    target.baseAddress!.advanced(by: row * rowBytes).copyMemory(
                        from: source.baseAddress!.advanced(by: from), byteCount: rowBytes)
                }
            }
        }
        return CGImage(copying: self, bytes: out, width: w, height: h, bytesPerRow: rowBytes)
    }

    /// `template`'s layout over other bytes and size.
    private init(copying template: CGImage, bytes: Data, width: Int, height: Int, bytesPerRow: Int) {
        self.width = width
        self.height = height
        bitsPerComponent = template.bitsPerComponent
        bitsPerPixel = template.bitsPerPixel
        self.bytesPerRow = bytesPerRow
        colorSpace = template.colorSpace
        bitmapInfo = template.bitmapInfo
        shouldInterpolate = template.shouldInterpolate
        renderingIntent = template.renderingIntent
        self.bytes = bytes
    }

    /// The pixels, for the package's encoders and converters (no copy).
    package var oavfBytes: Data { bytes }

    /// The byte offsets of red, green and blue (and alpha, when the image has an alpha channel or a skipped byte)
    /// inside a pixel, for 32- and 24-bit RGB images; nil for grey. **OpenAVFoundation extension.**
    package var oavfComponentOffsets: (red: Int, green: Int, blue: Int, alpha: Int?)? {
        guard colorSpace?.model != .monochrome, bitsPerPixel >= 24 else { return nil }
        if bitsPerPixel == 24 { return (0, 1, 2, nil) }
        // Memory order for the big-endian (default) reading of the alpha placement…
        let first: Bool
        switch alphaInfo {
        case .premultipliedFirst, .first, .noneSkipFirst: first = true
        default: first = false
        }
        var order = first ? (red: 1, green: 2, blue: 3, alpha: 0) : (red: 0, green: 1, blue: 2, alpha: 3)
        // … reversed for 32-bit little-endian words.
        if byteOrderInfo == .order32Little {
            order = (3 - order.red, 3 - order.green, 3 - order.blue, 3 - order.alpha)
        }
        return (order.red, order.green, order.blue, order.alpha)
    }

    /// Whether the alpha byte carries coverage (not skipped, not absent).
    package var oavfHasAlpha: Bool {
        switch alphaInfo {
        case .premultipliedLast, .premultipliedFirst, .last, .first, .alphaOnly: return true
        default: return false
        }
    }
}
