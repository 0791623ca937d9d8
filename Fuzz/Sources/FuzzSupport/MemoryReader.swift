import FFmpegBridge

/// A fuzz input as a byte stream that libavformat reads through a custom `AVIOContext`
/// (`FormatContext(reader:name:)`): the bytes are copied once and handed out in order; no file, no protocol.
public final class MemoryReader: ByteStreamReader {
    private let bytes: [UInt8]
    private var offset = 0

    /// A stream of a copy of `bytes`.
    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = Array(bytes)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(FFmpegError) -> Int {
        let count = min(buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + count]))
        }
        offset += count
        return count
    }
}
