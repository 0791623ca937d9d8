/// Reads the frame index that `scripts/make-fixtures` draws on every video frame.
///
/// The pattern: the top 1/8 of the picture is a strip of 16 equal-width bands; band i (from the left) is white when
/// bit i of the frame index is set, black otherwise; the first frame is index 0. The reader averages a window in the
/// middle of each band (the central half of its width and of the strip's height, at most 8x8 samples), so it
/// survives scaling, lossy coding, chroma subsampling and full- or video-range luma alike; it thresholds at
/// mid-grey (128).
///
/// Every sampled pixel must lie on its band's side of the threshold by at least `minimumMargin` (a fraction of
/// 127.5: 0 = on the threshold, 0.88 = video-range black or white, 1 = 0 or 255), otherwise the frame is rejected
/// (`nil`): it is not a fixture frame, or is too damaged to trust. A black or white picture cannot be told from
/// index 0 or 65535; callers that may see one should check the result against expectations.
///
/// Input is a raw 8-bit luma plane (e.g. plane 0 of a `420v`/`420f` pixel buffer, or ffmpeg `-pix_fmt gray`) or
/// packed 8-bit RGB with alpha (`PackedPixelLayout`), with any row stride.
public enum FrameIndexReader {
    /// The number of bands (bits) in the strip.
    public static let bandCount = 16

    /// The strip's height as a fraction of the picture height (the generator uses `height / 8` rows).
    public static let stripFraction = 1.0 / 8.0

    /// Mid-grey, the threshold between a clear (black) and a set (white) band, on the 0…255 scale.
    public static let threshold = 128.0

    /// The default `minimumMargin`: every sample at least 32 levels from mid-grey. Heavy compression leaves
    /// fixture bands above 0.6; a picture without the strip almost always has a band below 0.25.
    public static let defaultMinimumMargin = 0.25

    /// Reads the index from an 8-bit luma plane of `width` x `height` pixels, `bytesPerRow` bytes apart.
    ///
    /// - Precondition: `luma` holds at least `(height - 1) * bytesPerRow + width` bytes.
    public static func read(
        luma: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int,
        minimumMargin: Double = defaultMinimumMargin
    ) -> FrameIndexReading? {
        precondition(width > 0 && height > 0 && bytesPerRow >= width, "bad plane geometry \(width)x\(height)")
        precondition(luma.count >= (height - 1) * bytesPerRow + width, "luma plane smaller than its geometry")
        return read(width: width, height: height, minimumMargin: minimumMargin) { x, y in
            Double(luma[y * bytesPerRow + x])
        }
    }

    /// Reads the index from an 8-bit luma plane at `baseAddress` (e.g. a locked pixel buffer's plane 0).
    public static func read(
        luma baseAddress: UnsafeRawPointer, width: Int, height: Int, bytesPerRow: Int,
        minimumMargin: Double = defaultMinimumMargin
    ) -> FrameIndexReading? {
        precondition(width > 0 && height > 0, "bad plane geometry \(width)x\(height)")
        let plane = UnsafeRawBufferPointer(start: baseAddress, count: (height - 1) * bytesPerRow + width)
        return read(luma: plane, width: width, height: height, bytesPerRow: bytesPerRow, minimumMargin: minimumMargin)
    }

    /// Reads the index from packed 4-byte pixels at `baseAddress` (e.g. a locked BGRA pixel buffer).
    public static func read(
        pixels baseAddress: UnsafeRawPointer, layout: PackedPixelLayout, width: Int, height: Int, bytesPerRow: Int,
        minimumMargin: Double = defaultMinimumMargin
    ) -> FrameIndexReading? {
        precondition(width > 0 && height > 0, "bad image geometry \(width)x\(height)")
        let image = UnsafeRawBufferPointer(start: baseAddress, count: (height - 1) * bytesPerRow + 4 * width)
        return read(
            pixels: image, layout: layout, width: width, height: height, bytesPerRow: bytesPerRow,
            minimumMargin: minimumMargin)
    }

    /// Reads the index from packed 4-byte pixels of `width` x `height`, `bytesPerRow` bytes apart, converting to
    /// luma with BT.601 weights (the bands are grey, so any weights that sum to 1 give the same answer).
    ///
    /// - Precondition: `pixels` holds at least `(height - 1) * bytesPerRow + 4 * width` bytes.
    public static func read(
        pixels: UnsafeRawBufferPointer, layout: PackedPixelLayout, width: Int, height: Int, bytesPerRow: Int,
        minimumMargin: Double = defaultMinimumMargin
    ) -> FrameIndexReading? {
        precondition(width > 0 && height > 0 && bytesPerRow >= 4 * width, "bad image geometry \(width)x\(height)")
        precondition(pixels.count >= (height - 1) * bytesPerRow + 4 * width, "pixel buffer smaller than its geometry")
        let (red, green, blue) = layout.componentOffsets
        return read(width: width, height: height, minimumMargin: minimumMargin) { x, y in
            let pixel = y * bytesPerRow + 4 * x
            return 0.299 * Double(pixels[pixel + red]) + 0.587 * Double(pixels[pixel + green])
                + 0.114 * Double(pixels[pixel + blue])
        }
    }

    /// Reads the index from any picture, given its size and a luma sampler returning 0…255 for a pixel.
    ///
    /// The other readers funnel into this one; use it for formats they do not cover (e.g. 16-bit luma: divide
    /// by 257). `luma` is only called with `0 <= x < width`, `0 <= y < height`.
    public static func read(
        width: Int, height: Int, minimumMargin: Double = defaultMinimumMargin, luma: (_ x: Int, _ y: Int) -> Double
    ) -> FrameIndexReading? {
        guard width >= bandCount, height >= 8 else { return nil }
        let bandWidth = Double(width) / Double(bandCount)
        let stripHeight = Double(height) * stripFraction
        let rows = samplePositions(center: stripHeight / 2, halfSpan: stripHeight / 4, limit: height)
        var index = 0
        var margin = Double.infinity
        var levels: [Double] = []
        levels.reserveCapacity(bandCount)
        for band in 0..<bandCount {
            let columns = samplePositions(
                center: (Double(band) + 0.5) * bandWidth, halfSpan: bandWidth / 4, limit: width)
            var samples: [Double] = []
            samples.reserveCapacity(rows.count * columns.count)
            for y in rows {
                for x in columns {
                    samples.append(luma(x, y))
                }
            }
            let mean = samples.reduce(0, +) / Double(samples.count)
            let isSet = mean >= threshold
            if isSet { index |= 1 << band }
            let worst = isSet ? samples.min()! - threshold : threshold - samples.max()!
            margin = min(margin, worst / 127.5)
            levels.append(mean)
        }
        guard margin >= minimumMargin else { return nil }
        return FrameIndexReading(index: index, margin: margin, bandLevels: levels)
    }

    /// Up to 8 evenly spread pixels whose centres (pixel p spans p..<p+1) lie in `center ± halfSpan`, within
    /// `0..<limit`; at least the pixel containing `center`.
    private static func samplePositions(center: Double, halfSpan: Double, limit: Int) -> [Int] {
        let containing = min(limit - 1, max(0, Int(center.rounded(.down))))
        var first = max(0, Int((center - halfSpan - 0.5).rounded(.up)))
        var last = min(limit - 1, Int((center + halfSpan - 0.5).rounded(.down)))
        if first > last { (first, last) = (containing, containing) }
        let span = last - first
        let count = min(8, span + 1)
        guard count > 1 else { return [first] }
        return (0..<count).map { first + ($0 * span + (count - 1) / 2) / (count - 1) }
    }
}

/// A frame index read from pixels, with how clearly it was drawn.
public struct FrameIndexReading: Sendable, Equatable {
    /// The frame index (0…65535).
    public var index: Int
    /// The worst sampled pixel's distance from mid-grey, on its band's side, as a fraction of 127.5: about 0.88
    /// for clean video-range bands, 1 for full-range ones; always at least the `minimumMargin` asked for.
    public var margin: Double
    /// Each band's mean luma (0…255), bit 0 first: for diagnosing a failed read.
    public var bandLevels: [Double]

    public init(index: Int, margin: Double, bandLevels: [Double]) {
        self.index = index
        self.margin = margin
        self.bandLevels = bandLevels
    }
}

/// The byte order of a packed 8-bit-per-component pixel with alpha.
public enum PackedPixelLayout: String, Sendable, CaseIterable {
    /// B, G, R, A in memory (Core Video `kCVPixelFormatType_32BGRA`, ffmpeg `bgra`).
    case bgra
    /// A, R, G, B in memory (Core Video `kCVPixelFormatType_32ARGB`, ffmpeg `argb`).
    case argb
    /// R, G, B, A in memory (Core Video `kCVPixelFormatType_32RGBA`, ffmpeg `rgba`).
    case rgba
    /// A, B, G, R in memory (Core Video `kCVPixelFormatType_32ABGR`, ffmpeg `abgr`).
    case abgr

    /// The byte offsets of red, green and blue within a pixel.
    public var componentOffsets: (red: Int, green: Int, blue: Int) {
        switch self {
        case .bgra: return (2, 1, 0)
        case .argb: return (1, 2, 3)
        case .rgba: return (0, 1, 2)
        case .abgr: return (3, 2, 1)
        }
    }
}
