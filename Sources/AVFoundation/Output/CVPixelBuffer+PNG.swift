import Foundation
import PlaybackEngine

/// Writes `pixelBuffer` to `url` as an 8-bit RGB PNG file, encoded by FFmpeg's `png` encoder.
///
/// **OpenAVFoundation extension, not Apple's** (on Apple's systems one would use ImageIO's
/// `CGImageDestination`). Packed 32-bit buffers ('BGRA', 'RGBA', 'ARGB') are encoded as they are, without their
/// alpha channel; other formats (e.g. the decoder's 'y420' buffers) are converted to BGRA first. Compressed for
/// speed (zlib level 3, not its default 6: half the encoding work for a file about a tenth larger). The file is
/// replaced atomically.
///
/// - Throws: an `AVError` with code `.encodeFailed` when the picture cannot be encoded (its `NSUnderlyingErrorKey`
///   holds the FFmpeg error), or Foundation's file error when the file cannot be written.
public func OAVFWritePNG(_ pixelBuffer: CVPixelBuffer, to url: URL) throws {
    let bytes: [UInt8]
    do {
        bytes = try StillImageEncoder.pngData(from: pixelBuffer, fast: true)
    } catch {
        let failure = error as? any MediaFailure
        throw AVError.media(
            .encodeFailed, "The picture can’t be written as PNG to “\(url.lastPathComponent)”.",
            reason: failure?.message ?? "\(error)", url: url, ffmpeg: failure)
    }
    if url.isFileURL && url.path == "/dev/null" { return }
    try Data(bytes).write(to: url, options: .atomic)
}
