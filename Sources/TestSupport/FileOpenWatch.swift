import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Counts the times any process opens one file (Linux inotify `IN_OPEN`), so a test can prove a file was never
/// read: give it a name nobody else knows, refer to it from crafted input, and check ``opens`` stays 0.
///
/// ```swift
/// let watch = try FileOpenWatch(path: canary.path)
/// // … let the player open the crafted playlist …
/// XCTAssertEqual(watch.opens, 0)
/// ```
public final class FileOpenWatch {
    private let fd: Int32
    /// Opens read so far.
    private var total = 0

    /// Starts watching `path` (which must exist). Throws the POSIX error when inotify is unavailable.
    public init(path: String) throws {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        guard inotify_add_watch(fd, path, UInt32(IN_OPEN)) >= 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    deinit { close(fd) }

    /// The opens of the file reported so far (events are read without waiting). One thread at a time.
    public var opens: Int {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { return total }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let (mask, length) = buffer.withUnsafeBytes { raw in
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    return (event.mask, Int(event.len))
                }
                if mask & UInt32(IN_OPEN) != 0 { total += 1 }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
    }
}
