import AVFoundation
import OAVFLocking

/// `avplay thumbs FILE (--count N | --every T) [--width W] [--keyframes] -o sheet.png`: a contact sheet of pictures
/// taken at exact times (or, with `--keyframes`, the keyframe at or before each time: nothing else is decoded), each
/// with its time drawn below it. The pictures come from one `AVAssetImageGenerator` pass over the file (the track's
/// preferred transform applied), as an app would make them.
///
/// Layout (fixed, so scripts can find the cells): `columns = ⌈√n⌉`, `rows = ⌈n / columns⌉`; every cell is a
/// thumbnail `W` pixels wide (its height keeps the video's aspect ratio) above a ``labelHeight``-pixel label strip;
/// cells are ``gap`` pixels apart and from the edges. Cell `i` is at column `i % columns`, row `i / columns`.
enum ThumbsCommand {
    /// Pixels between cells and around the sheet.
    static let gap = 4
    /// The height of the label strip under each thumbnail.
    static let labelHeight = 20
    /// The most pictures one sheet takes.
    static let maximumCount = 400

    /// How the times are chosen.
    enum Spacing {
        /// `n` pictures at `i × duration / n`.
        case count(Int)
        /// One picture every `t` seconds from 0.
        case every(Double)
    }

    /// The parsed command line.
    struct Options {
        var input: String
        var spacing: Spacing
        var width = 320
        var output: String
        /// Keyframes alone (the generator's default tolerances) instead of exact pictures.
        var keyframes = false
    }

    /// Parses the arguments; nil (after saying why) on a usage error.
    static func parse(_ arguments: [String]) -> Options? {
        var input: String?
        var spacing: Spacing?
        var width = 320
        var output: String?
        var keyframes = false
        var i = 0
        func fail(_ message: String) -> Options? {
            Terminal.error("thumbs: \(message)")
            return nil
        }
        while i < arguments.count {
            let a = arguments[i]
            let next = i + 1 < arguments.count ? arguments[i + 1] : nil
            switch a {
            case "--count":
                guard let n = next.flatMap({ Int($0) }), n > 0, n <= maximumCount else {
                    return fail("--count needs a number from 1 to \(maximumCount)")
                }
                spacing = .count(n)
                i += 1
            case "--every":
                guard let t = next.flatMap(Double.init), t > 0, t.isFinite else {
                    return fail("--every needs a positive number of seconds")
                }
                spacing = .every(t)
                i += 1
            case "--width":
                guard let w = next.flatMap({ Int($0) }), w >= 16, w <= 4096 else {
                    return fail("--width needs a number of pixels from 16 to 4096")
                }
                width = w
                i += 1
            case "--keyframes":
                keyframes = true
            case "-o", "--output":
                guard let next else { return fail("-o needs a file name") }
                output = next
                i += 1
            default:
                if a.hasPrefix("-") && a != "-" || input != nil { return fail("unexpected argument “\(a)”") }
                input = a
            }
            i += 1
        }
        guard let input, let spacing, let output else {
            return fail("give FILE, --count N or --every T, and -o OUT.png (see avplay --help)")
        }
        return Options(input: input, spacing: spacing, width: width, output: output, keyframes: keyframes)
    }

    /// The times to take pictures at, for an item of `duration` seconds.
    static func times(_ spacing: Spacing, duration: Double) -> [Double] {
        switch spacing {
        case .count(let n):
            return (0..<n).map { Double($0) * duration / Double(n) }
        case .every(let step):
            let n = min(maximumCount, max(1, Int((duration / step).rounded(.up))))
            return (0..<n).map { Double($0) * step }.filter { $0 < duration || $0 == 0 }
        }
    }

    static func run(_ arguments: [String]) async -> Int32 {
        if arguments.contains(where: ThumbsBatch.batchOptions.contains) { return await ThumbsBatch.run(arguments) }
        guard let o = parse(arguments) else { return 2 }
        let asset = AVURLAsset(url: mediaURL(o.input))
        let name = o.input.split(separator: "/").last.map(String.init) ?? o.input
        do {
            let (duration, tracks) = try await asset.load(.duration, .tracks)
            guard tracks.contains(where: { $0.mediaType == .video }) else {
                throw FrameGrabber.Failure(description: "“\(name)” has no video.")
            }
            guard duration.isNumeric, duration > .zero else {
                throw FrameGrabber.Failure(description: "“\(o.input)” has no known duration.")
            }
            let generator = AVAssetImageGenerator(asset: asset)
            generator.appliesPreferredTrackTransform = true
            generator.maximumSize = CGSize(width: o.width, height: 0)
            if !o.keyframes {
                generator.requestedTimeToleranceBefore = .zero
                generator.requestedTimeToleranceAfter = .zero
            }
            let wanted = times(o.spacing, duration: duration.seconds)
            let requested = wanted.map { CMTime(seconds: $0, preferredTimescale: 1_000_000) }
            // The completion-handler form: each picture goes into the sheet on the generator's own thread as it is
            // made (no hop to this task per picture), and this task waits once, for the last.
            let assembly = Locked(SheetAssembly(requested: requested))
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                generator.generateCGImagesAsynchronously(forTimes: requested.map { NSValue(time: $0) }) {
                    time, image, actual, _, error in
                    let finished = assembly.withLock { a -> Bool in
                        a.answer(time, image: image, actualTime: actual, error: error)
                        return a.isComplete
                    }
                    if finished { done.resume() }
                }
            }
            let (sheet, cells) = try assembly.withLock { a in try a.result(name: name) }
            for (i, cell) in cells.enumerated() {
                let origin = sheet.origin(of: i)
                print(
                    "\(i): at \(FrameCommand.format(cell.requested.seconds)) frame "
                        + "\(FrameCommand.format(cell.actual.seconds)) cell \(origin.x),\(origin.y)")
            }
            try OAVFWritePNG(sheet.buffer, to: URL(fileURLWithPath: o.output))
            print(
                "\(cells.count) pictures, \(sheet.columns)x\(sheet.rows) grid, "
                    + "\(CVPixelBufferGetWidth(sheet.buffer))x\(CVPixelBufferGetHeight(sheet.buffer)) → \(o.output)")
            return 0
        } catch {
            Terminal.error(FrameCommand.message(error))
            return 1
        }
    }
}

/// The sheet being filled by an image generator's handler, one answer at a time (its owner serialises the calls).
struct SheetAssembly: Sendable {
    /// The times asked for, in the sheet's order.
    let requested: [CMTime]
    /// The sheet, made on the first picture (its size is the thumbnails').
    private var sheet: ContactSheet?
    /// Each cell's picture time, once answered with a picture.
    private var actualTimes: [CMTime?]
    /// How many times were answered.
    private var answered = 0
    /// The first failure, by time.
    private var failure: (index: Int, error: any Error)?

    init(requested: [CMTime]) {
        self.requested = requested
        actualTimes = Array(repeating: nil, count: requested.count)
    }

    /// Whether every time was answered.
    var isComplete: Bool { answered == requested.count }

    /// Places the picture answering `time` (or records why there is none).
    mutating func answer(_ time: CMTime, image: CGImage?, actualTime: CMTime, error: (any Error)?) {
        answered += 1
        guard let index = requested.firstIndex(of: time) else { return }
        guard let image else {
            let error = error ?? FrameGrabber.Failure(description: "no picture at \(FrameCommand.format(time.seconds))")
            if failure.map({ index < $0.index }) ?? true { failure = (index, error) }
            return
        }
        if sheet == nil {
            sheet = try? ContactSheet(
                count: requested.count, thumbnailWidth: image.width, thumbnailHeight: image.height)
        }
        sheet?.place(image, label: FrameCommand.format(actualTime.seconds), at: index)
        actualTimes[index] = actualTime
    }

    /// The filled sheet and each cell's times; throws the first failure.
    func result(name: String) throws -> (ContactSheet, [(requested: CMTime, actual: CMTime)]) {
        if let failure { throw failure.error }
        guard let sheet, actualTimes.allSatisfy({ $0 != nil }) else {
            throw FrameGrabber.Failure(description: "“\(name)” gave no pictures.")
        }
        return (sheet, zip(requested, actualTimes).map { ($0, $1!) })
    }
}

/// A BGRA contact sheet: a grid of thumbnails with labels under them (layout in ``ThumbsCommand``).
///
/// `@unchecked Sendable`: not thread-safe; its owner (a ``SheetAssembly`` inside a lock) serialises every use.
final class ContactSheet: @unchecked Sendable {
    let buffer: CVPixelBuffer
    let columns: Int
    let rows: Int
    let thumbnailWidth: Int
    let thumbnailHeight: Int

    /// A sheet for `count` thumbnails, filled with the background colour.
    init(count: Int, thumbnailWidth: Int, thumbnailHeight: Int) throws {
        columns = Int(Double(count).squareRoot().rounded(.up))
        rows = (count + columns - 1) / columns
        self.thumbnailWidth = thumbnailWidth
        self.thumbnailHeight = thumbnailHeight
        let gap = ThumbsCommand.gap
        let width = columns * thumbnailWidth + (columns + 1) * gap
        let height = rows * (thumbnailHeight + ThumbsCommand.labelHeight) + (rows + 1) * gap
        var made: CVPixelBuffer?
        let rc = CVPixelBufferCreate(nil, width, height, kCVPixelFormatType_32BGRA, nil, &made)
        guard rc == kCVReturnSuccess, let made else {
            throw FrameGrabber.Failure(description: "can’t make a \(width)x\(height) sheet (CVReturn \(rc))")
        }
        buffer = made
        fill(x: 0, y: 0, width: width, height: height, gray: 32)
    }

    /// The top-left corner of cell `index`'s thumbnail.
    func origin(of index: Int) -> (x: Int, y: Int) {
        let gap = ThumbsCommand.gap
        return (
            gap + (index % columns) * (thumbnailWidth + gap),
            gap + (index / columns) * (thumbnailHeight + ThumbsCommand.labelHeight + gap)
        )
    }

    /// Copies `picture` (32-bit B G R X, as the image generator makes them) into cell `index` and draws `label`
    /// centred below it.
    func place(_ picture: CGImage, label: String, at index: Int) {
        let (x0, y0) = origin(of: index)
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        // The bytes read in place, as an app reads a CGImage's (bridging CFData to Data would copy byte by byte).
        guard let target = CVPixelBufferGetBaseAddress(buffer), let data = picture.dataProvider?.data,
            let source = CFDataGetBytePtr(data), picture.bitsPerPixel == 32
        else { return }
        let targetStride = CVPixelBufferGetBytesPerRow(buffer)
        let width = min(thumbnailWidth, picture.width)
        withExtendedLifetime(data) {
            for y in 0..<min(thumbnailHeight, picture.height) {
                let row = target + (y0 + y) * targetStride + 4 * x0
                row.copyMemory(from: source + y * picture.bytesPerRow, byteCount: 4 * width)
                // Opaque: the generator's fourth byte is padding.
                for x in 0..<width { row.storeBytes(of: 255, toByteOffset: 4 * x + 3, as: UInt8.self) }
            }
        }
        let scale = 2
        let textWidth = BitmapFont.width(of: label) * scale
        let textX = x0 + max(0, (thumbnailWidth - textWidth) / 2)
        let textY = y0 + thumbnailHeight + (ThumbsCommand.labelHeight - BitmapFont.height * scale) / 2
        BitmapFont.draw(label, scale: scale, maxWidth: thumbnailWidth) { x, y in
            let p = (target + (textY + y) * targetStride + 4 * (textX + x)).assumingMemoryBound(to: UInt8.self)
            (p[0], p[1], p[2], p[3]) = (255, 255, 255, 255)
        }
    }

    /// Fills a rectangle with an opaque grey.
    private func fill(x: Int, y: Int, width: Int, height: Int, gray: UInt8) {
        CVPixelBufferLockBaseAddress(buffer, [])
        defer { CVPixelBufferUnlockBaseAddress(buffer, []) }
        guard let base = CVPixelBufferGetBaseAddress(buffer) else { return }
        let stride = CVPixelBufferGetBytesPerRow(buffer)
        for row in y..<(y + height) {
            let p = (base + row * stride + 4 * x).assumingMemoryBound(to: UInt8.self)
            for i in 0..<width { (p[4 * i], p[4 * i + 1], p[4 * i + 2], p[4 * i + 3]) = (gray, gray, gray, 255) }
        }
    }
}

/// A 5x7 pixel font for time labels: the digits, ':' and '.' (other characters are drawn as spaces).
enum BitmapFont {
    static let height = 7
    /// Glyph columns, plus one column of spacing after each glyph.
    static let advance = 6

    /// Each glyph's 7 rows, the top row first; bit 4 is the leftmost column.
    static let glyphs: [Character: [UInt8]] = [
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        ":": [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00],
        ".": [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
    ]

    /// The unscaled width of `text` in pixels (without the trailing spacing column).
    static func width(of text: String) -> Int { max(0, text.count * advance - 1) }

    /// Calls `plot` for every set pixel of `text` at `scale`, in text coordinates (0,0 = top left), skipping
    /// pixels at or beyond `maxWidth`.
    static func draw(_ text: String, scale: Int, maxWidth: Int, plot: (Int, Int) -> Void) {
        for (n, character) in text.enumerated() {
            guard let rows = glyphs[character] else { continue }
            for (row, bits) in rows.enumerated() {
                for column in 0..<5 where bits & (0x10 >> column) != 0 {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            let x = (n * advance + column) * scale + dx
                            if x < maxWidth { plot(x, row * scale + dy) }
                        }
                    }
                }
            }
        }
    }
}
