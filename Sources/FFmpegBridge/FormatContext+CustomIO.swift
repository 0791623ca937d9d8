import CFFmpeg

/// Bytes for an input that libavformat reads through a custom I/O context instead of a protocol: what an HTTP Live
/// Streaming source feeds its segments through (libavformat's own `hls` demuxer reads its segments the same way).
///
/// Called on the thread that reads the ``FormatContext`` (opening, probing, reading packets).
public protocol ByteStreamReader: AnyObject {
    /// Copies at most `buffer.count` bytes of the stream into `buffer` and returns how many: 0 only at the end of
    /// the stream. May block until bytes arrive; throws what prevented reading (`FFmpegError.exit` when
    /// interrupted).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FFmpegError) -> Int
}

/// The custom I/O context of a ``FormatContext``: the `AVIOContext`, its buffer, and the retained reader.
final class CustomIO {
    /// Bytes libavformat asks for at a time (its own protocols use 32 KiB; segments arrive in larger pieces).
    static let bufferSize: Int32 = 64 * 1024

    private(set) var context: UnsafeMutablePointer<AVIOContext>?
    private let reader: Unmanaged<ReaderBox>

    /// Holds the reader for the C callback (`opaque`).
    final class ReaderBox {
        let reader: any ByteStreamReader
        init(_ reader: any ByteStreamReader) { self.reader = reader }
    }

    init(reader: any ByteStreamReader) throws(FFmpegError) {
        self.reader = Unmanaged.passRetained(ReaderBox(reader))
        guard let buffer = av_malloc(Int(Self.bufferSize)) else {
            self.reader.release()
            throw FFmpegError.posix(ENOMEM)
        }
        guard
            let context = avio_alloc_context(
                buffer.assumingMemoryBound(to: UInt8.self), Self.bufferSize, 0, self.reader.toOpaque(), Self.read,
                nil, reader is any SeekableByteStreamReader ? Self.seek : nil)
        else {
            av_free(buffer)
            self.reader.release()
            throw FFmpegError.posix(ENOMEM)
        }
        self.context = context
    }

    deinit {
        if let context {
            // libavformat may have replaced the buffer it was given; free the one it holds now.
            av_freep(&context.pointee.buffer)
            var pointer: UnsafeMutablePointer<AVIOContext>? = context
            avio_context_free(&pointer)
        }
        reader.release()
    }

    /// Forgets what is buffered, as after a seek: the next read asks the reader again. The position jumps back
    /// to 0, which is how the MPEG-TS demuxer notices a discontinuity and drops its half-assembled packets.
    func discardBuffered() {
        guard let context else { return }
        context.pointee.buf_ptr = context.pointee.buffer
        context.pointee.buf_end = context.pointee.buffer
        context.pointee.pos = 0
        context.pointee.eof_reached = 0
        context.pointee.error = 0
    }

    /// Forgets a failure the reader reported, keeping the position and what is buffered: reading asks the reader
    /// again (after it threw `FFmpegError.tryAgain` to give its thread back).
    func clearError() {
        guard let context else { return }
        context.pointee.eof_reached = 0
        context.pointee.error = 0
    }

    /// The C read callback: `opaque` is the retained ``ReaderBox``.
    private static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 =
        { opaque, buffer, size in
            guard let opaque, let buffer, size > 0 else { return FFmpegError.endOfFile.code }
            let box = Unmanaged<ReaderBox>.fromOpaque(opaque).takeUnretainedValue()
            do throws(FFmpegError) {
                let count = try box.reader.read(
                    into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(size)))
                return count > 0 ? Int32(min(count, Int(size))) : FFmpegError.endOfFile.code
            } catch {
                return error.code
            }
        }
}

extension CustomIO {
    /// `AVSEEK_SIZE`: libavformat asks for the stream's size instead of moving (a macro Swift does not import).
    static let seekSizeFlag: Int32 = 0x10000
    /// `AVSEEK_FORCE`: a hint that may be or'ed into `whence`, meaningless for bytes in memory.
    static let seekForceFlag: Int32 = 0x20000

    /// The C seek callback, given only for a ``SeekableByteStreamReader``: `opaque` is the retained ``ReaderBox``.
    /// Returns the new position, the size for `AVSEEK_SIZE`, or a negative error code.
    private static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = {
        opaque, offset, whence in
        guard let opaque else { return Int64(FFmpegError.endOfFile.code) }
        let box = Unmanaged<ReaderBox>.fromOpaque(opaque).takeUnretainedValue()
        guard let reader = box.reader as? any SeekableByteStreamReader else { return -Int64(ESPIPE) }
        let size = reader.byteCount
        if whence & seekSizeFlag != 0 { return size }
        let base: Int64
        switch whence & ~seekForceFlag {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = reader.position
        case SEEK_END: base = size
        default: return -Int64(EINVAL)
        }
        let (target, overflow) = base.addingReportingOverflow(offset)
        guard !overflow, target >= 0, reader.seek(to: target) else { return -Int64(EINVAL) }
        return target
    }
}

/// A ``ByteStreamReader`` over bytes that can be read from anywhere (in memory): libavformat may seek it, so
/// containers whose index is at the end (MP4 `moov`) and seeks during playback work.
public protocol SeekableByteStreamReader: ByteStreamReader {
    /// The stream's length in bytes.
    var byteCount: Int64 { get }
    /// Where the next ``ByteStreamReader/read(into:)`` starts.
    var position: Int64 { get }
    /// Moves to `offset` (0…``byteCount``); false when it is out of range.
    func seek(to offset: Int64) -> Bool
}

/// The bytes of a `[UInt8]`-like buffer read as a stream (`AVAudioPlayer(data:)`: media held in memory).
///
/// Used by the one thread that reads its ``FormatContext`` (see ``ByteStreamReader``).
public final class MemoryByteStreamReader: SeekableByteStreamReader {
    private let bytes: [UInt8]
    /// Where the next read starts.
    public private(set) var position: Int64 = 0

    /// A reader of `bytes`, from the start.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The number of bytes.
    public var byteCount: Int64 { Int64(bytes.count) }

    /// Copies the bytes at ``position`` on; 0 at the end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(FFmpegError) -> Int {
        let start = Int(position)
        let count = min(buffer.count, bytes.count - start)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + start, byteCount: count)
        }
        position += Int64(count)
        return count
    }

    /// Moves ``position`` to `offset`; false outside 0…``byteCount``.
    public func seek(to offset: Int64) -> Bool {
        guard offset >= 0, offset <= byteCount else { return false }
        position = offset
        return true
    }
}

extension FormatContext {
    /// Opens an input whose bytes come from `reader` (a custom `AVIOContext`) and probes it.
    ///
    /// - Parameters:
    ///   - name: what the input is called in logs (its URL).
    ///   - formatName: the demuxer to use ("mpegts", "mov" …); nil probes the first bytes.
    ///   - options: demuxer options.
    ///   - probesStreams: whether to probe the streams (`avformat_find_stream_info`); a demuxer reopened on input
    ///     already probed (its streams known) skips it.
    public convenience init(
        reader: any ByteStreamReader, name: String, formatName: String? = nil, options: [String: String] = [:],
        interrupt: InterruptFlag = InterruptFlag(), probesStreams: Bool = true
    ) throws(FFmpegError) {
        let io = try CustomIO(reader: reader)
        try self.init(
            url: name, options: options, interrupt: interrupt, customIO: io, formatName: formatName,
            probesStreams: probesStreams)
    }

    /// The short name of the demuxer reading the input ("mpegts", "mov,mp4,m4a,3gp,3g2,mj2" …).
    public var formatName: String {
        raw.pointee.iformat.pointee.name.map { String(cString: $0) } ?? ""
    }

    /// Lets reading go on after the reader threw `FFmpegError.tryAgain` (it gave its thread back without bytes, at a
    /// boundary between whole packets): the I/O context forgets the failure and asks the reader again. Only for an
    /// input opened with a reader.
    public func resumeAfterReaderYielded() {
        customIO?.clearError()
    }

    /// Forgets the bytes and packets read ahead, so that reading continues with what the reader delivers next (the
    /// reader was repositioned, e.g. at another segment): libavformat's own `hls` demuxer does the same on a seek.
    /// Only for an input opened with a reader.
    public func discardBufferedInput() {
        guard let customIO else { return }
        customIO.discardBuffered()
        avformat_flush(raw)
    }
}
