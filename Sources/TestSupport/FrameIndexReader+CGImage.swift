import CoreGraphics
import FFmpegBridge
import Foundation

extension FrameIndexReader {
    /// Reads the index from a 32-bit RGB `CGImage` (any byte order), after undoing `quarterTurns` clockwise quarter
    /// turns (that the image had applied: an image of a picture turned 90° clockwise is read with 1), and a
    /// left-to-right mirror applied before them when `mirrored`. Nil for a grey or 24-bit image.
    public static func read(
        image: CGImage, quarterTurns: Int = 0, mirrored: Bool = false, minimumMargin: Double = defaultMinimumMargin
    ) -> FrameIndexReading? {
        guard let offsets = image.oavfComponentOffsets, image.bitsPerPixel == 32 else { return nil }
        let turns = ((quarterTurns % 4) + 4) % 4
        // The picture's size before it was turned.
        let (width, height) = turns % 2 == 1 ? (image.height, image.width) : (image.width, image.height)
        let bytes = image.oavfBytes
        let stride = image.bytesPerRow
        return bytes.withUnsafeBytes { raw in
            read(width: width, height: height, minimumMargin: minimumMargin) { x0, y in
                let x = mirrored ? width - 1 - x0 : x0
                // Where the picture's pixel (x, y) landed in the image.
                let (ix, iy): (Int, Int)
                switch turns {
                case 1: (ix, iy) = (height - 1 - y, x)
                case 2: (ix, iy) = (width - 1 - x, height - 1 - y)
                case 3: (ix, iy) = (y, width - 1 - x)
                default: (ix, iy) = (x, y)
                }
                let p = iy * stride + 4 * ix
                return 0.299 * Double(raw[p + offsets.red]) + 0.587 * Double(raw[p + offsets.green]) + 0.114
                    * Double(raw[p + offsets.blue])
            }
        }
    }
}

/// Decodes image files (PNG, JPEG …) with FFmpeg, for tests that check what was written.
public enum StillImageFileDecoder {
    /// The first picture of the file at `url` as an sRGB B G R X image; nil when it cannot be decoded.
    public static func decode(_ url: URL) -> CGImage? {
        guard let format = try? FormatContext(url: url.path),
            let stream = format.info.streams.first(where: { $0.kind == .video }),
            let codec = try? CodecContext(format: format, stream: stream.index, threads: 1)
        else { return nil }
        let packet = Packet()
        let frame = Frame()
        var sentEnd = false
        while true {
            switch try? codec.receive(into: frame) {
            case .frame?:
                let converter = FramePictureConverter()
                guard let bytes = try? converter.bgrx(from: frame, width: frame.width, height: frame.height) else {
                    return nil
                }
                return CGImage(
                    oavfBGRX: bytes, width: frame.width, height: frame.height,
                    bytesPerRow: FramePictureConverter.bytesPerRow(width: frame.width))
            case .needsInput?:
                if sentEnd { return nil }
                if (try? format.read(into: packet)) == .packet {
                    if packet.streamIndex == stream.index { _ = try? codec.send(packet) }
                } else {
                    _ = try? codec.send(nil)
                    sentEnd = true
                }
            default:
                return nil
            }
        }
    }
}
