import CoreVideo
import FFmpegBridge

/// Encodes single pictures as image files with FFmpeg's image encoders.
///
/// Stateless: each call opens its own encoder, so any thread may call it.
package enum StillImageEncoder {
    /// The bytes of an 8-bit RGB PNG file of `buffer` (alpha dropped), encoded by FFmpeg's `png` encoder (`fast`:
    /// zlib level 3 instead of 6, a larger file in half the time).
    /// Packed 32-bit buffers ('BGRA', 'RGBA', 'ARGB') are encoded as they are; other formats that
    /// ``PixelConverter`` reads are converted to BGRA first.
    ///
    /// - Throws: a ``MediaFailure``: the conversion's failure (kind ``MediaFailureKind/unsupported`` for a format it
    ///   cannot read), `ENOSYS` when this FFmpeg build has no PNG encoder, or the encoder's own error.
    package static func pngData(from buffer: CVPixelBuffer, fast: Bool = false) throws -> [UInt8] {
        var picture = buffer
        if !ImageWriter.canEncode(pixelFormatType: CVPixelBufferGetPixelFormatType(picture)) {
            picture = try Scaler(outputPixelFormatType: kCVPixelFormatType_32BGRA).convert(pixelBuffer: picture)
        }
        return try ImageWriter.pngData(from: picture, fast: fast)
    }
}
