import CoreVideo
import FFmpegBridge

/// Converts pixel buffers to another pixel format at the same size (libswscale, slice-threaded), into pooled
/// buffers: what video outputs, layers and compositors use when a picture is not in the format they need.
///
/// The input's propagated attachments are carried over (an RGB output drops the YCbCr matrix and chroma siting);
/// its YCbCr matrix attachment chooses the conversion matrix (BT.601 when absent). 8-bit 4:2:0 to packed RGB takes
/// libswscale's SIMD path, as the `ffmpeg` tool does. The converter keeps its scaler context and pool between
/// calls, rebuilding them when the input changes, and hands out the buffers it makes without copying them.
///
/// Not thread-safe: one owner at a time (serialise calls). The buffers it returns are independent of it.
package final class PixelConverter {
    /// The pixel formats a converter can produce.
    package static var supportedOutputPixelFormatTypes: Set<OSType> { Scaler.supportedOutputPixelFormatTypes }
    /// The pixel formats ``convert(_:)`` accepts.
    package static var supportedInputPixelFormatTypes: Set<OSType> { Scaler.supportedInputPixelFormatTypes }

    /// What every output buffer is.
    package var outputPixelFormatType: OSType { scaler.outputPixelFormatType }
    /// Does the work.
    private let scaler: Scaler

    /// A converter producing `outputPixelFormatType` buffers, with up to `threads` slice threads (0: one per CPU).
    ///
    /// - Throws: a ``MediaFailure`` of kind ``MediaFailureKind/unsupported`` for an output format not in
    ///   ``supportedOutputPixelFormatTypes``; out of memory.
    package init(outputPixelFormatType: OSType, threads: Int = 0) throws {
        scaler = try Scaler(outputPixelFormatType: outputPixelFormatType, threads: threads)
    }

    /// The output pool's counters (nil before the first conversion): a flat allocation count shows buffers being
    /// reused (tests, diagnostics).
    package var poolStatistics: PixelBufferPoolStatistics? { scaler.poolStatistics }

    /// `buffer` converted into a new buffer of ``outputPixelFormatType`` from the converter's pool, same size.
    ///
    /// - Throws: a ``MediaFailure``: kind ``MediaFailureKind/unsupported`` for an input format not in
    ///   ``supportedInputPixelFormatTypes``; libswscale's or the pool's failure.
    package func convert(_ buffer: CVPixelBuffer) throws -> CVPixelBuffer {
        try scaler.convert(pixelBuffer: buffer)
    }
}
