// One aligned heap block holding a pixel buffer's planes.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An owned, 64-byte-aligned allocation, freed in `deinit`. Pixel buffers created by `CVPixelBufferCreate` own
/// one; pools keep a free list of them and lend them to the buffers they vend.
///
/// `@unchecked Sendable`: the block's address and size never change; the bytes themselves are the buffer
/// user's to synchronise, as with Apple's pixel buffers.
package final class PixelMemory: @unchecked Sendable {
    /// Start of the block.
    package let baseAddress: UnsafeMutableRawPointer
    /// Usable size in bytes, not counting `tailPadding`.
    package let byteCount: Int

    /// Extra bytes allocated past the end of the last plane: FFmpeg's SIMD scalers and converters may read up
    /// to 64 bytes beyond the last row, so that read must stay inside the allocation.
    package static let tailPadding = 64
    /// Alignment of the block's start: a cache line, and enough for AVX-512 aligned loads.
    package static let alignment = 64

    /// Allocates `byteCount` bytes (plus `tailPadding`), uninitialised, or returns `nil` when the system is out
    /// of memory.
    package init?(byteCount: Int) {
        precondition(byteCount >= 0, "PixelMemory: negative byte count")
        var pointer: UnsafeMutableRawPointer?
        guard posix_memalign(&pointer, Self.alignment, byteCount + Self.tailPadding) == 0, let pointer else {
            return nil
        }
        self.baseAddress = pointer
        self.byteCount = byteCount
    }

    deinit {
        free(baseAddress)
    }
}
