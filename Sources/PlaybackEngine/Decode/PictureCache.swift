import CoreMedia
import CoreVideo
import Foundation
import OAVFLocking

/// Decoded pictures of one video stream around the playhead, bounded in bytes: backward steps and backward scrubs
/// inside the cached span show a cached picture instead of seeking back to a keyframe and decoding to it.
///
/// The video decoder inserts the pictures it pushes, and for seeks a little way back those it drops before the
/// target too (``DecoderStatus/decodesEverythingBeforeTarget``), each with the timestamp of the picture right before it when it knows that nothing lies between them
/// (the decoder made both in a row: nothing skipped, no decode error): only such links are followed, so a lookup
/// never answers with a picture while another one lies between it and the time asked for. When the bytes exceed the
/// limit, the pictures farthest from the anchor (the playhead, or the target of the seek in progress) go first.
///
/// Pictures are the decoder's own buffers (wrapped, no copy): a hit costs nothing but a reference.
///
/// Thread-safe (one lock): the decode thread inserts, the engine thread looks up and moves the anchor.
package final class PictureCache: @unchecked Sendable {
    /// What a laptop user accepts by default: about 80 1080p pictures in 4:2:0, 20 in 4K (mpv keeps 50 MiB of
    /// packets behind the playhead; decoded pictures are what a backward step needs).
    package static let defaultByteLimit = 256 << 20
    /// At most this share of the memory available (checked when the cache is made, when its limit is set, and every
    /// ``memoryCheckInterval`` insertions): on a machine short of memory the cache shrinks first.
    static let availableMemoryShare = 4
    /// Insertions between two looks at the memory available.
    static let memoryCheckInterval = 16

    /// One cached picture.
    private struct Entry {
        var frame: VideoFrame
        /// The timestamp of the picture right before it, when the decoder made both in a row.
        var previous: CMTime?
        var bytes: Int
    }

    /// Guards everything below. The video decode thread inserts, the engine thread looks up. Not an engine command: the
    /// decode thread must not wait for the engine's loop.
    private let lock = ConditionLock()
    /// Cached pictures by presentation time, ascending; guarded by `lock`.
    private var entries: [Entry] = []
    /// Guarded by `lock`.
    private var bytes = 0
    /// Guarded by `lock`.
    private var limit: Int
    /// Where pictures are kept around; guarded by `lock`.
    private var anchor: CMTime = .zero
    /// Lookups answered; guarded by `lock`.
    private var hitCount = 0
    /// The limit asked for (``byteLimit``'s setter), before the memory cap; guarded by `lock`.
    private var requestedLimit: Int
    /// Insertions since the memory available was last looked at; guarded by `lock`.
    private var insertionsSinceMemoryCheck = 0
    /// Bytes of memory available (`MemAvailable`), nil when unknown.
    private let availableMemory: @Sendable () -> Int?

    /// A cache holding at most `byteLimit` bytes of pictures (less when the machine has less memory available, as
    /// `availableMemory` says; by default `/proc/meminfo`'s `MemAvailable`).
    package init(
        byteLimit: Int = PictureCache.defaultByteLimit,
        availableMemory: @escaping @Sendable () -> Int? = PictureCache.memoryAvailable
    ) {
        self.availableMemory = availableMemory
        requestedLimit = max(0, byteLimit)
        limit = Self.cap(requestedLimit, available: availableMemory())
    }

    /// `MemAvailable` from `/proc/meminfo`, in bytes.
    package static let memoryAvailable: @Sendable () -> Int? = {
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
            let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kilobytes * 1024
    }

    /// `requested`, capped by ``availableMemoryShare`` of `available` when known.
    static func cap(_ requested: Int, available: Int?) -> Int {
        guard let available else { return requested }
        return min(requested, max(0, available) / availableMemoryShare)
    }

    /// The byte limit in force.
    package var byteLimit: Int {
        get { lock.withLock { limit } }
        set {
            let available = availableMemory()
            lock.withLock {
                requestedLimit = max(0, newValue)
                limit = Self.cap(requestedLimit, available: available)
                evict()
            }
        }
    }

    /// Looks at the memory available again and shrinks (or regrows up to the limit asked for) the limit in force.
    private func recheckMemory() {
        let available = availableMemory()
        lock.withLock {
            limit = Self.cap(requestedLimit, available: available)
            evict()
        }
    }

    /// Bytes of the pictures held now (never above ``byteLimit`` after an insertion returns).
    package var byteCount: Int { lock.withLock { bytes } }

    /// Pictures held now.
    package var count: Int { lock.withLock { entries.count } }

    /// Lookups answered from the cache so far.
    package var hits: Int { lock.withLock { hitCount } }

    /// Keeps the pictures nearest `time` (stream time) when some must go.
    package func setAnchor(_ time: CMTime) {
        lock.withLock { anchor = time }
    }

    /// Adds `frame` (stream time), linked to the picture right before it when `previous` says which (nil: unknown),
    /// then evicts down to the limit. A picture already held is replaced (its link kept when the new one has none).
    func insert(_ frame: VideoFrame, previous: CMTime?) {
        let size = Self.byteSize(of: frame.pixelBuffer)
        let check: Bool = lock.withLock {
            insertionsSinceMemoryCheck += 1
            guard insertionsSinceMemoryCheck >= Self.memoryCheckInterval else { return false }
            insertionsSinceMemoryCheck = 0
            return true
        }
        if check { recheckMemory() }
        lock.withLock {
            guard size <= limit else { return }
            let index = insertionIndex(frame.pts)
            if index < entries.count, entries[index].frame.pts == frame.pts {
                bytes -= entries[index].bytes
                entries[index] = Entry(frame: frame, previous: previous ?? entries[index].previous, bytes: size)
            } else {
                entries.insert(Entry(frame: frame, previous: previous, bytes: size), at: index)
            }
            bytes += size
            evict()
        }
    }

    /// The picture shown at `time` (stream time): the latest held at or before it whose successor is held and linked
    /// to it and starts after `time`; nil when the cache cannot tell.
    package func picture(at time: CMTime) -> VideoFrame? {
        lock.withLock {
            let after = insertionIndex(time + CMTime(value: 1, timescale: 1_000_000_000))
            guard after > 0, after < entries.count else { return nil }
            let candidate = entries[after - 1]
            guard entries[after].previous == candidate.frame.pts else { return nil }
            hitCount += 1
            return candidate.frame
        }
    }

    /// The picture `count` pictures before (negative) or after (positive) the one at `pts` (stream time), following
    /// only links the decoder made; nil when a link on the way is missing.
    package func picture(_ count: Int, from pts: CMTime) -> VideoFrame? {
        lock.withLock {
            var index = insertionIndex(pts)
            guard index < entries.count, entries[index].frame.pts == pts else { return nil }
            var remaining = count
            while remaining < 0 {
                guard index > 0, entries[index].previous == entries[index - 1].frame.pts else { return nil }
                index -= 1
                remaining += 1
            }
            while remaining > 0 {
                guard index + 1 < entries.count, entries[index + 1].previous == entries[index].frame.pts else {
                    return nil
                }
                index += 1
                remaining -= 1
            }
            hitCount += 1
            return entries[index].frame
        }
    }

    /// Forgets every picture (another stream, the item stopped).
    package func removeAll() {
        lock.withLock {
            entries.removeAll()
            bytes = 0
        }
    }

    /// The first index whose picture starts at or after `pts`; lock held.
    private func insertionIndex(_ pts: CMTime) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].frame.pts < pts { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Drops the pictures farthest from the anchor until the bytes fit; lock held.
    private func evict() {
        while bytes > limit, !entries.isEmpty {
            let first = entries[0].frame.pts
            let last = entries[entries.count - 1].frame.pts
            let index = (anchor - first) > (last - anchor) ? 0 : entries.count - 1
            bytes -= entries[index].bytes
            entries.remove(at: index)
        }
    }

    /// The bytes `buffer`'s planes occupy.
    static func byteSize(of buffer: CVPixelBuffer) -> Int {
        if CVPixelBufferIsPlanar(buffer) {
            return (0..<CVPixelBufferGetPlaneCount(buffer)).reduce(0) {
                $0 + CVPixelBufferGetBytesPerRowOfPlane(buffer, $1) * CVPixelBufferGetHeightOfPlane(buffer, $1)
            }
        }
        return CVPixelBufferGetBytesPerRow(buffer) * CVPixelBufferGetHeight(buffer)
    }
}
