import AVFoundation
import ImageIO

#if canImport(Glibc)
import Glibc
#endif

/// The scrubbing-strip formats `avplay thumbs` writes in batch mode, each in the layout a player or media server
/// reads (the file names are in ``StripLayout``).
enum StripFormat: String, CaseIterable, Sendable {
    /// Sprite sheets of `columns × rows` thumbnails (JPEG) with a WebVTT index whose cues point into them with
    /// media fragments (`0.jpg#xywh=x,y,w,h`), as Video.js's thumbnail plugins and JW Player read.
    case vtt
    /// Jellyfin's trickplay folder (`NAME.trickplay/W - CxR/0.jpg …`, full `C × R` grids, the last one padded with
    /// black, as Jellyfin's `TrickplayManager` writes and imports with "save trickplay images next to media") and the
    /// image playlist Jellyfin serves for it (`#EXT-X-IMAGES-ONLY`, `#EXT-X-TILES`).
    case jellyfin
    /// Roku's Base Index Frames archive: one JPEG per thumbnail behind a little-endian index.
    case bif
}

/// What a strip looks like: the same for every file of a batch.
struct StripSettings: Equatable, Sendable {
    /// Seconds between thumbnails (thumbnail `i` is the picture at `i × interval`).
    var interval = 10.0
    /// Thumbnail width in pixels (the height keeps the aspect ratio; never enlarged).
    var width = 320
    /// Thumbnails per sheet across (Jellyfin's `TileWidth`, default 10).
    var columns = 10
    /// Thumbnails per sheet down (Jellyfin's `TileHeight`, default 10).
    var rows = 10
    /// JPEG quality 0…1 (Jellyfin's `JpegQuality` 90).
    var quality = 0.9
    /// Keyframes alone (the generator's default tolerances) instead of exact pictures.
    var keyframes = false
    /// The formats written.
    var formats: [StripFormat] = [.vtt]

    /// The settings in one line, kept in each file's done record: a resumed batch redoes files made otherwise.
    var summary: String {
        "formats=\(formats.map(\.rawValue).joined(separator: ",")) every=\(interval) width=\(width) "
            + "tiles=\(columns)x\(rows) quality=\(quality) \(keyframes ? "keyframes" : "exact")"
    }

    /// The interval in whole milliseconds (BIF and the playlists count in them).
    var intervalMilliseconds: Int { Int((interval * 1000).rounded()) }

    /// The thumbnail times for an item of `duration` seconds: `0, interval, 2 × interval …` before the end.
    func times(duration: Double) -> [Double] {
        let n = max(1, Int((duration / interval).rounded(.up)))
        return (0..<n).map { Double($0) * interval }.filter { $0 < duration || $0 == 0 }
    }
}

/// Where one input's outputs go: every name derives from the folder and the input's name without its extension.
struct StripLayout: Sendable {
    /// The folder the outputs are written in.
    let folder: URL
    /// The input's file name without its extension.
    let stem: String

    /// `NAME.sprites/`: the sprite sheets `0.jpg …` and `thumbnails.vtt` (a folder, so that a media server scanning
    /// for subtitles does not take the index for one).
    var sprites: URL { folder.appendingPathComponent("\(stem).sprites", isDirectory: true) }
    /// `NAME.trickplay/`: Jellyfin's folder.
    var trickplay: URL { folder.appendingPathComponent("\(stem).trickplay", isDirectory: true) }
    /// Jellyfin's tile folder name for `settings`: `W - CxR`.
    func tileFolderName(_ settings: StripSettings, width: Int) -> String {
        "\(width) - \(settings.columns)x\(settings.rows)"
    }
    /// `NAME-W-T.bif` (the naming Emby reads next to a video: width and interval in seconds).
    func bif(_ settings: StripSettings) -> URL {
        let t =
            settings.interval == settings.interval.rounded() ? String(Int(settings.interval)) : "\(settings.interval)"
        return folder.appendingPathComponent("\(stem)-\(settings.width)-\(t).bif")
    }
    /// `NAME.avplay-thumbs.json`: the done record, written last (see ``ThumbsBatch``).
    var record: URL { folder.appendingPathComponent("\(stem).avplay-thumbs.json") }
    /// `.NAME.avplay-partial/`: where a file's outputs are made before they are renamed into place.
    var staging: URL { folder.appendingPathComponent(".\(stem).avplay-partial", isDirectory: true) }
}

/// Builds one input's strips as its thumbnails arrive (in time order, each once), holding one sheet of pixels and
/// the BIF's JPEGs at a time, and writes everything into ``StripLayout/staging``; ``commit()`` moves it into place.
final class StripWriter {
    /// Something that stops one file's strips, in words for its JSON line.
    struct Failure: LocalizedError, CustomStringConvertible {
        var description: String
        var errorDescription: String? { description }
    }

    let settings: StripSettings
    let layout: StripLayout
    /// The item's duration in seconds (the last VTT cue ends there).
    let duration: Double
    /// How many thumbnails the strip has.
    let count: Int

    /// The thumbnail size, from the first picture.
    private var cell: (width: Int, height: Int)?
    /// The sheet being filled: B G R X rows of `columns × cell.width` pixels; black where no picture is.
    private var sheet = Data()
    /// Which sheet `sheet` is.
    private var sheetIndex = 0
    /// How many cells of the current sheet hold something (the next free one).
    private var sheetFill = 0
    /// The sheets' JPEG files written so far.
    private(set) var sheetsWritten = 0
    /// BIF entries: thumbnail index and JPEG bytes.
    private var bifImages: [(index: Int, jpeg: Data)] = []
    /// Thumbnail indices that have a picture (the VTT's cues).
    private var present: [Int] = []
    /// Indices of thumbnails with no picture, and why.
    private(set) var missing: [(index: Int, reason: String)] = []

    init(settings: StripSettings, layout: StripLayout, duration: Double, count: Int) throws {
        self.settings = settings
        self.layout = layout
        self.duration = duration
        self.count = count
        let fm = FileManager.default
        try? fm.removeItem(at: layout.staging)
        try fm.createDirectory(at: layout.staging, withIntermediateDirectories: true)
        if settings.formats.contains(.vtt) {
            try fm.createDirectory(at: stagedSprites, withIntermediateDirectories: true)
        }
        if settings.formats.contains(.jellyfin) {
            try fm.createDirectory(at: stagedTiles, withIntermediateDirectories: true)
        }
    }

    private var stagedSprites: URL { layout.staging.appendingPathComponent("sprites", isDirectory: true) }
    private var stagedTiles: URL { layout.staging.appendingPathComponent("tiles", isDirectory: true) }
    private var stagedPlaylist: URL { layout.staging.appendingPathComponent("tiles.m3u8") }
    private var stagedBIF: URL { layout.staging.appendingPathComponent("strip.bif") }
    private var perSheet: Int { settings.columns * settings.rows }

    /// Thumbnail `index`'s picture, or nil (with the reason) when the generator had none; indices come in order.
    func add(index: Int, image: CGImage?, reason: String = "") throws {
        precondition(index >= 0 && index < count)
        while index / perSheet > sheetIndex { try flushSheet() }
        sheetFill = index % perSheet + 1
        guard let image else {
            missing.append((index, reason))
            return
        }
        if cell == nil {
            cell = (image.width, image.height)
            if settings.formats.contains(.vtt) || settings.formats.contains(.jellyfin) {
                sheet = Data(count: sheetBytes)
            }
        }
        present.append(index)
        let (w, h) = cell!
        if settings.formats.contains(.vtt) || settings.formats.contains(.jellyfin) {
            let slot = index % perSheet
            let x0 = (slot % settings.columns) * w
            let y0 = (slot / settings.columns) * h
            let stride = settings.columns * w * 4
            guard let data = image.dataProvider?.data, let source = CFDataGetBytePtr(data), image.bitsPerPixel == 32
            else { throw Failure(description: "picture \(index) is not a 32-bit image") }
            let copyWidth = min(w, image.width) * 4
            withExtendedLifetime(data) {
                sheet.withUnsafeMutableBytes { target in
                    for y in 0..<min(h, image.height) {
                        (target.baseAddress! + (y0 + y) * stride + x0 * 4).copyMemory(
                            from: source + y * image.bytesPerRow, byteCount: copyWidth)
                    }
                }
            }
        }
        if settings.formats.contains(.bif) {
            bifImages.append((index, try Self.jpeg(image, quality: settings.quality)))
        }
    }

    private var sheetBytes: Int {
        guard let cell else { return 0 }
        return settings.columns * cell.width * 4 * settings.rows * cell.height
    }

    /// Encodes and writes the current sheet (when it has any cell) and starts the next.
    private func flushSheet() throws {
        defer {
            sheetIndex += 1
            sheetFill = 0
            if !sheet.isEmpty { sheet.resetBytes(in: 0..<sheet.count) }
        }
        guard let cell, sheetFill > 0, settings.formats.contains(.vtt) || settings.formats.contains(.jellyfin) else {
            return
        }
        let name = "\(sheetIndex).jpg"
        let fullWidth = settings.columns * cell.width
        let full = try Self.jpeg(
            bgrx: sheet, width: fullWidth, height: settings.rows * cell.height, quality: settings.quality)
        if settings.formats.contains(.jellyfin) {
            try full.write(to: stagedTiles.appendingPathComponent(name))
        }
        if settings.formats.contains(.vtt) {
            // The VTT's sheets stop after the last row used (a short video's one sheet is not mostly black).
            let usedRows = (sheetFill + settings.columns - 1) / settings.columns
            let bytes =
                usedRows == settings.rows
                ? full
                : try Self.jpeg(
                    bgrx: sheet.prefix(usedRows * cell.height * fullWidth * 4), width: fullWidth,
                    height: usedRows * cell.height, quality: settings.quality)
            try bytes.write(to: stagedSprites.appendingPathComponent(name))
        }
        sheetsWritten += 1
    }

    /// Writes the last sheet and the indices (VTT, playlist, BIF) into the staging folder.
    func finish() throws {
        guard let cell else { throw Failure(description: "no thumbnail could be made") }
        try flushSheet()
        if settings.formats.contains(.vtt) {
            try Data(vtt(cell: cell).utf8).write(to: stagedSprites.appendingPathComponent("thumbnails.vtt"))
        }
        if settings.formats.contains(.jellyfin) {
            try Data(playlist(cell: cell).utf8).write(to: stagedPlaylist)
        }
        if settings.formats.contains(.bif) {
            try Self.bif(bifImages.map { (UInt32($0.index), $0.jpeg) }, interval: settings.intervalMilliseconds)
                .write(to: stagedBIF)
        }
    }

    /// `h:mm:ss.fff`, WebVTT's timestamp (hours always written).
    static func vttTime(_ seconds: Double) -> String {
        let ms = Int((max(0, seconds) * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    /// The WebVTT index: one cue per thumbnail that has a picture, from its time to the next one's (or the end).
    func vtt(cell: (width: Int, height: Int)) -> String {
        var text = "WEBVTT\n"
        for i in present {
            let start = Double(i) * settings.interval
            let end = min(Double(i + 1) * settings.interval, max(duration, start + 0.001))
            let slot = i % perSheet
            let x = (slot % settings.columns) * cell.width
            let y = (slot / settings.columns) * cell.height
            text += "\n\(Self.vttTime(start)) --> \(Self.vttTime(end))\n"
            text += "\(i / perSheet).jpg#xywh=\(x),\(y),\(cell.width),\(cell.height)\n"
        }
        return text
    }

    /// The image playlist Jellyfin serves for its tiles (`GET /Videos/ID/Trickplay/W/tiles.m3u8`), with the tiles'
    /// relative paths as URIs. Differs from Jellyfin's: `#EXT-X-TARGETDURATION` is the longest `#EXTINF` rounded up,
    /// as RFC 8216 says (Jellyfin writes the tile count there).
    func playlist(cell: (width: Int, height: Int)) -> String {
        let folderName = layout.tileFolderName(settings, width: settings.width)
        let escaped = folderName.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? folderName
        let tiles = (count + perSheet - 1) / perSheet
        func number(_ v: Double) -> String {
            String(format: "%.3f", v).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
        }
        var text = "#EXTM3U\n#EXT-X-TARGETDURATION:\(Int((Double(perSheet) * settings.interval).rounded(.up)))\n"
        text += "#EXT-X-VERSION:7\n#EXT-X-MEDIA-SEQUENCE:1\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-IMAGES-ONLY\n"
        for t in 0..<tiles {
            let inTile = t == tiles - 1 ? count - t * perSheet : perSheet
            text += "#EXTINF:\(number(Double(inTile) * settings.interval)),\n"
            text += "#EXT-X-TILES:RESOLUTION=\(cell.width)x\(cell.height),LAYOUT=\(settings.columns)x\(settings.rows)"
            text += ",DURATION=\(number(settings.interval))\n"
            text += "\(escaped)/\(t).jpg\n"
        }
        return text + "#EXT-X-ENDLIST\n"
    }

    /// A BIF archive (Roku's Base Index Frames, version 0): the magic `89 42 49 46 0D 0A 1A 0A`, the version, the
    /// image count, the timestamp multiplier in milliseconds (`interval`), zeros to byte 64, then the index of
    /// `(timestamp, offset)` pairs (a timestamp × the multiplier is the image's time in milliseconds) ending with
    /// `(0xFFFFFFFF, end of data)`, then the JPEGs back to back. All integers are 32-bit little-endian.
    static func bif(_ images: [(timestamp: UInt32, jpeg: Data)], interval: Int) -> Data {
        var out = Data([0x89, 0x42, 0x49, 0x46, 0x0D, 0x0A, 0x1A, 0x0A])
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        u32(0)
        u32(UInt32(images.count))
        u32(UInt32(interval))
        out.append(Data(count: 64 - out.count))
        var offset = UInt32(64 + 8 * (images.count + 1))
        for image in images {
            u32(image.timestamp)
            u32(offset)
            offset += UInt32(image.jpeg.count)
        }
        u32(0xFFFF_FFFF)
        u32(offset)
        for image in images { out.append(image.jpeg) }
        return out
    }

    /// `image` as JPEG bytes, through ImageIO as an app writes it.
    static func jpeg(_ image: CGImage, quality: Double) throws -> Data {
        let data = NSMutableData()
        guard
            let destination = CGImageDestinationCreateWithData(data as CFMutableData, "public.jpeg" as CFString, 1, nil)
        else { throw Failure(description: "ImageIO has no JPEG destination") }
        CGImageDestinationAddImage(
            destination, image, [kCGImageDestinationLossyCompressionQuality: quality] as CFDictionary)
        guard CGImageDestinationFinalize(destination) else {
            throw Failure(description: "a \(image.width)x\(image.height) picture could not be encoded as JPEG")
        }
        return data as Data
    }

    /// B G R X pixels (rows of exactly `4 × width` bytes) as JPEG bytes.
    static func jpeg(bgrx: Data, width: Int, height: Int, quality: Double) throws -> Data {
        let info = CGBitmapInfo(rawValue: CGImageAlphaInfo.noneSkipFirst.rawValue).union(.byteOrder32Little)
        guard let provider = CGDataProvider(data: bgrx as CFData),
            let space = CGColorSpace(name: CGColorSpace.sRGB),
            let image = CGImage(
                width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 32, bytesPerRow: 4 * width,
                space: space, bitmapInfo: info, provider: provider, decode: nil, shouldInterpolate: true,
                intent: .defaultIntent)
        else { throw Failure(description: "a \(width)x\(height) sheet could not be made") }
        return try jpeg(image, quality: quality)
    }

    // MARK: Committing

    /// Moves the staged outputs into place, each by a rename (a reader sees the old file or the new one, never half
    /// of one), and returns their paths. The caller writes the done record after this.
    func commit() throws -> [URL] {
        let fm = FileManager.default
        var outputs: [URL] = []
        if settings.formats.contains(.vtt) {
            try Self.replace(layout.sprites, with: stagedSprites, scratch: layout.staging)
            outputs.append(layout.sprites.appendingPathComponent("thumbnails.vtt"))
        }
        if settings.formats.contains(.jellyfin) {
            try fm.createDirectory(at: layout.trickplay, withIntermediateDirectories: true)
            let name = layout.tileFolderName(settings, width: settings.width)
            let tiles = layout.trickplay.appendingPathComponent(name, isDirectory: true)
            try Self.replace(tiles, with: stagedTiles, scratch: layout.staging)
            let playlist = layout.trickplay.appendingPathComponent("\(name).m3u8")
            try Self.rename(stagedPlaylist, to: playlist)
            outputs += [tiles, playlist]
        }
        if settings.formats.contains(.bif) {
            try Self.rename(stagedBIF, to: layout.bif(settings))
            outputs.append(layout.bif(settings))
        }
        return outputs
    }

    /// `rename(2)`: atomic, replacing a file at `target`.
    static func rename(_ source: URL, to target: URL) throws {
        guard Glibc.rename(source.path, target.path) == 0 else {
            throw Failure(
                description: "can’t move \(source.path) to \(target.path): \(String(cString: strerror(errno)))")
        }
    }

    /// Puts the folder `staged` at `target`: an earlier folder there is first moved aside into `scratch` (a folder
    /// cannot be renamed over a non-empty one), then removed.
    static func replace(_ target: URL, with staged: URL, scratch: URL) throws {
        let aside = scratch.appendingPathComponent("previous-\(target.lastPathComponent)")
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: target.path, isDirectory: &isFolder) {
            if isFolder.boolValue {
                try rename(target, to: aside)
            } else {
                try FileManager.default.removeItem(at: target)
            }
        }
        try rename(staged, to: target)
        try? FileManager.default.removeItem(at: aside)
    }
}
