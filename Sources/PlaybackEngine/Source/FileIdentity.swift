import Foundation

/// Which file a path names and which version of it: device, inode, size and modification time (`stat`, following
/// links). Two identities differ when the path was replaced or the file written in between.
package struct FileIdentity: Equatable, Sendable {
    private var device: UInt64
    private var inode: UInt64
    private var size: Int64
    private var modifiedSeconds: Int
    private var modifiedNanoseconds: Int

    /// The file at `path` now; nil when it cannot be examined (missing, no permission, not a path).
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = info.st_mtim.tv_sec
        modifiedNanoseconds = info.st_mtim.tv_nsec
    }
}
