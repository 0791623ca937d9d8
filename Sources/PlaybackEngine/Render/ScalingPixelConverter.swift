import CoreVideo
import FFmpegBridge

/// Converts pixel buffers to another size, and format, with libswscale (bicubic), into pooled buffers of
/// ``width`` x ``height``: what a video output asked for specific dimensions needs. Formats: those of
/// ``PixelConverter/supportedInputPixelFormatTypes``, in and out.
///
/// Not thread-safe: one owner at a time (serialise calls). The buffers it returns are independent of it.
package final class ScalingPixelConverter {
    /// What every output buffer is.
    package var outputPixelFormatType: OSType { scaler.outputPixelFormatType }
    /// Output width in pixels.
    package var width: Int { scaler.width }
    /// Output height in pixels.
    package var height: Int { scaler.height }
    /// Does the work.
    private let scaler: PixelBufferScaler

    /// A converter producing `outputPixelFormatType` buffers of `width` x `height`.
    ///
    /// - Throws: a ``MediaFailure`` of kind ``MediaFailureKind/unsupported`` for an unsupported format or a size
    ///   that is not positive (or above 16384); out of memory.
    package init(outputPixelFormatType: OSType, width: Int, height: Int) throws {
        scaler = try PixelBufferScaler(outputPixelFormatType: outputPixelFormatType, width: width, height: height)
    }

    /// `buffer` scaled into a new buffer from the pool, its propagated attachments carried over (an RGB output drops
    /// the YCbCr matrix and chroma siting).
    ///
    /// - Throws: a ``MediaFailure``: kind ``MediaFailureKind/unsupported`` for an unsupported input format;
    ///   libswscale's or the pool's failure.
    package func convert(_ buffer: CVPixelBuffer) throws -> CVPixelBuffer {
        try scaler.convert(pixelBuffer: buffer)
    }
}
