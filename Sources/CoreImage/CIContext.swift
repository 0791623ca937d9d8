import FFmpegBridge
import Foundation

/// Renders ``CIImage``s into `CGImage`s, as Apple's `CIContext`: on the CPU, with libswscale for format conversion
/// and scaling.
///
/// The images it makes are 8-bit B G R X, sRGB (what `CGImage`s made by this package are). Thread-safe: every render
/// uses its own converters.
public final class CIContext: Sendable {
    /// A context with the default options.
    public init() {}

    /// A context; the options are accepted and ignored (rendering is always on the CPU, in sRGB).
    public init(options: [CIContextOption: Any]?) {}

    /// The part of `image` inside `fromRect` (Core Image coordinates) as a bitmap image, or nil when that part is
    /// empty or the source's pixel format cannot be read. The rectangle is made integral and clipped to the image's
    /// extent.
    public func createCGImage(_ image: CIImage, from fromRect: CGRect) -> CGImage? {
        guard !fromRect.isNull, !fromRect.isInfinite else { return nil }
        let rect = fromRect.integral.intersection(image.extent.integral)
        guard !rect.isNull, rect.width >= 1, rect.height >= 1 else { return nil }
        let t = image.transform
        // Scale the source with libswscale by the transform's axis scales when it is axis-aligned (the rest is
        // a signed permutation, done exactly by the mapping below); else keep it and sample nearest.
        var scaleX = 1.0
        var scaleY = 1.0
        if abs(t.b) < 1e-9 && abs(t.c) < 1e-9 {
            (scaleX, scaleY) = (abs(Double(t.a)), abs(Double(t.d)))
        } else if abs(t.a) < 1e-9 && abs(t.d) < 1e-9 {
            (scaleX, scaleY) = (abs(Double(t.b)), abs(Double(t.c)))
        }
        let width = max(1, Int((Double(image.sourceWidth) * scaleX).rounded()))
        let height = max(1, Int((Double(image.sourceHeight) * scaleY).rounded()))
        guard width <= 16384, height <= 16384, let bitmap = Self.bgrx(image.source, width: width, height: height)
        else { return nil }
        // Output pixel centre → this image's coordinates → the scaled bitmap's (y up) → its pixel (top-left origin).
        let toBitmap = CGAffineTransform(
            scaleX: CGFloat(width) / CGFloat(image.sourceWidth), y: CGFloat(height) / CGFloat(image.sourceHeight)
        )
        .inverted().concatenating(t).inverted()
        let outWidth = Int(rect.width)
        let outHeight = Int(rect.height)
        let outStride = (4 * outWidth + 63) & ~63
        var out = Data(count: outStride * outHeight)
        out.withUnsafeMutableBytes { target in
            bitmap.bytes.withUnsafeBytes { source in
                let s = source.baseAddress!.assumingMemoryBound(to: UInt32.self)
                let d = target.baseAddress!.assumingMemoryBound(to: UInt32.self)
                let sourceWords = bitmap.bytesPerRow / 4
                for y in 0..<outHeight {
                    let ciY = Double(rect.maxY) - Double(y) - 0.5
                    for x in 0..<outWidth {
                        let ciX = Double(rect.minX) + Double(x) + 0.5
                        let bx = Double(toBitmap.a) * ciX + Double(toBitmap.c) * ciY + Double(toBitmap.tx)
                        let by = Double(toBitmap.b) * ciX + Double(toBitmap.d) * ciY + Double(toBitmap.ty)
                        let px = Int(bx.rounded(.down))
                        let py = height - 1 - Int(by.rounded(.down))
                        guard px >= 0, px < width, py >= 0, py < height else { continue }
                        d[y * (outStride / 4) + x] = s[py * sourceWords + px]
                    }
                }
            }
        }
        return CGImage(oavfBGRX: out, width: outWidth, height: outHeight, bytesPerRow: outStride)
    }

    /// The source's pixels as B G R X at `width` x `height` (libswscale), nil for an unreadable format.
    static func bgrx(_ source: CIImage.Source, width: Int, height: Int) -> (bytes: Data, bytesPerRow: Int)? {
        let buffer: CVPixelBuffer
        switch source {
        case .pixelBuffer(let pixelBuffer):
            buffer = pixelBuffer
        case .cgImage(let image):
            guard let made = Self.pixelBuffer(image) else { return nil }
            buffer = made
        }
        let scaled: CVPixelBuffer
        do {
            scaled = try PixelBufferScaler(
                outputPixelFormatType: kCVPixelFormatType_32BGRA, width: width, height: height
            )
            .convert(pixelBuffer: buffer)
        } catch {
            return nil
        }
        CVPixelBufferLockBaseAddress(scaled, .readOnly)
        defer { CVPixelBufferUnlockBaseAddress(scaled, .readOnly) }
        guard let base = CVPixelBufferGetBaseAddress(scaled) else { return nil }
        let stride = CVPixelBufferGetBytesPerRow(scaled)
        return (Data(bytes: base, count: stride * height), stride)
    }

    /// A BGRA pixel buffer holding `image`'s pixels (opaque when it has no alpha).
    static func pixelBuffer(_ image: CGImage) -> CVPixelBuffer? {
        guard let offsets = image.oavfComponentOffsets else { return nil }
        var made: CVPixelBuffer?
        guard
            CVPixelBufferCreate(nil, image.width, image.height, kCVPixelFormatType_32BGRA, nil, &made)
                == kCVReturnSuccess, let buffer = made
        else { return nil }
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { return nil }
        let stride = CVPixelBufferGetBytesPerRow(buffer)
        let step = image.bitsPerPixel / 8
        image.oavfBytes.withUnsafeBytes { source in
            for y in 0..<image.height {
                let s = source.baseAddress!.advanced(by: y * image.bytesPerRow).assumingMemoryBound(to: UInt8.self)
                let d = (base + y * stride).assumingMemoryBound(to: UInt8.self)
                for x in 0..<image.width {
                    let p = s + step * x
                    d[4 * x] = p[offsets.blue]
                    d[4 * x + 1] = p[offsets.green]
                    d[4 * x + 2] = p[offsets.red]
                    d[4 * x + 3] = image.oavfHasAlpha ? p[offsets.alpha ?? 3] : 255
                }
            }
        }
        return buffer
    }
}

/// A key of `CIContext(options:)` (Apple's `CIContextOption`).
public struct CIContextOption: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    /// An option from its raw value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Render on the CPU (accepted; always so here).
    public static let useSoftwareRenderer = CIContextOption(rawValue: "kCIContextUseSoftwareRenderer")
    /// The working colour space (accepted, ignored).
    public static let workingColorSpace = CIContextOption(rawValue: "kCIContextWorkingColorSpace")
    /// The output colour space (accepted, ignored: outputs are sRGB).
    public static let outputColorSpace = CIContextOption(rawValue: "kCIContextOutputColorSpace")
    /// Whether to cache intermediates (accepted, ignored).
    public static let cacheIntermediates = CIContextOption(rawValue: "kCIContextCacheIntermediates")
}
