import FFmpegBridge
import Foundation

/// The bytes of one media playlist's segments, one after another, as the demuxer reads them (libavformat's `hls`
/// demuxer feeds its sub-demuxer the same way): an fMP4 init section (`EXT-X-MAP`) before the first segment that
/// needs it, AES-128 segments decrypted, the next segment's download started while the current one is read.
///
/// Threads: ``read(into:)``, ``restart(at:)`` and ``replace(playlist:)`` belong to the thread reading the source
/// (see `MediaSource`); the transfers fill their bodies on the HTTP client's queue.
final class SegmentFeed: ByteStreamReader {
    /// At most this many bytes of a playlist, key or init section are held (segments stream).
    static let maximumWholeFetch = 16 << 20

    private let client: HLSHTTPClient
    private let isInterrupted: () -> Bool
    private(set) var playlist: HLSMediaPlaylist
    /// Index in ``playlist``'s segments of the next segment to start.
    private(set) var nextIndex: Int
    /// The segment being read, and its body.
    private var current: (index: Int, body: any SegmentBody)?
    /// The download started ahead for the segment after it.
    private var prefetched: (index: Int, body: any SegmentBody)?
    /// Bytes to deliver before the next segment's (an init section).
    private var preamble = Data()
    private var preambleOffset = 0
    /// The init section last delivered; a segment with another one gets it delivered first.
    private var deliveredMap: HLSMap?
    /// AES keys by URI.
    private var keys: [URL: [UInt8]] = [:]
    /// Whether the next segment's download starts while one is read; off while the input is only probed (an
    /// alternate rendition nobody plays yet fetches no more than its first segment).
    var prefetchesAhead = false
    /// Bytes delivered to the demuxer.
    private(set) var bytesDelivered: Int64 = 0
    /// Called when a segment has been read to its end (its index).
    var onSegmentFinished: ((Int) -> Void)?
    /// Called when the feed runs out of segments of a live playlist: returns whether new ones were added (after
    /// waiting for a reload); false ends the stream.
    var waitForMoreSegments: (() throws(FFmpegError) -> Bool)?

    init(client: HLSHTTPClient, playlist: HLSMediaPlaylist, startIndex: Int, isInterrupted: @escaping () -> Bool) {
        self.client = client
        self.playlist = playlist
        self.nextIndex = startIndex
        self.isInterrupted = isInterrupted
    }

    deinit {
        current?.body.cancel()
        prefetched?.body.cancel()
    }

    /// Continues with segment `index` (after a seek): drops what is being read, keeps a prefetch of that very
    /// segment.
    func restart(at index: Int) {
        current?.body.cancel()
        current = nil
        if let prefetched, prefetched.index != index {
            prefetched.body.cancel()
            self.prefetched = nil
        }
        nextIndex = index
        preamble = Data()
        preambleOffset = 0
        deliveredMap = nil
    }

    /// A reloaded playlist (live): segment indices shift by how far its media sequence moved.
    func replace(playlist newPlaylist: HLSMediaPlaylist) {
        let shift = newPlaylist.mediaSequence - playlist.mediaSequence
        playlist = newPlaylist
        nextIndex = max(0, nextIndex - shift)
        if let c = current { current = (c.index - shift, c.body) }
        if let p = prefetched {
            if p.index - shift >= 0 {
                prefetched = (p.index - shift, p.body)
            } else {
                p.body.cancel()
                prefetched = nil
            }
        }
    }

    /// The index of the segment being read (or next to be).
    var currentIndex: Int { current?.index ?? nextIndex }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FFmpegError) -> Int {
        while true {
            if isInterrupted() { throw FFmpegError.exit }
            if preambleOffset < preamble.count {
                let count = min(buffer.count, preamble.count - preambleOffset)
                preamble.withUnsafeBytes { bytes in
                    buffer.copyMemory(
                        from: UnsafeRawBufferPointer(rebasing: bytes[preambleOffset..<preambleOffset + count]))
                }
                preambleOffset += count
                bytesDelivered += Int64(count)
                return count
            }
            if let current {
                let count = try current.body.read(into: buffer, isInterrupted: isInterrupted)
                if count > 0 {
                    bytesDelivered += Int64(count)
                    return count
                }
                self.current = nil
                onSegmentFinished?(current.index)
                continue
            }
            guard nextIndex < playlist.segments.count else {
                guard let waitForMoreSegments, try waitForMoreSegments() else { return 0 }
                continue
            }
            let index = nextIndex
            let segment = playlist.segments[index]
            nextIndex += 1
            if segment.isGap { continue }
            if let map = segment.map, map != deliveredMap {
                preamble = try fetchWhole(map.uri, range: map.byteRange)
                preambleOffset = 0
                deliveredMap = map
            }
            let body: any SegmentBody
            if let prefetched, prefetched.index == index {
                body = prefetched.body
                self.prefetched = nil
            } else {
                body = try start(segment: segment)
            }
            current = (index, body)
            if prefetchesAhead { prefetchNext(after: index) }
        }
    }

    /// Starts the download of the segment after `index`, so that it arrives while this one is demuxed.
    private func prefetchNext(after index: Int) {
        prefetched?.body.cancel()
        prefetched = nil
        let next = index + 1
        guard next < playlist.segments.count, !playlist.segments[next].isGap,
            let body = try? start(segment: playlist.segments[next])
        else { return }
        prefetched = (next, body)
    }

    private func start(segment: HLSSegment) throws(FFmpegError) -> any SegmentBody {
        let range = segment.byteRange.map { $0.offset...($0.offset + $0.length - 1) }
        let stream = client.start(segment.uri, range: range.map { Int64($0.lowerBound)...Int64($0.upperBound) })
        guard let key = segment.key else { return stream }
        switch key.method {
        case .none:
            return stream
        case .aes128:
            guard let keyURI = key.uri else {
                throw FFmpegError(code: FFmpegError.invalidData.code, function: "HLS: EXT-X-KEY without a URI")
            }
            let keyBytes = try self.key(at: keyURI)
            let iv = key.iv ?? Self.sequenceIV(segment.sequenceNumber)
            return try DecryptingBody(encrypted: stream, key: keyBytes, iv: iv)
        default:
            throw FFmpegError(
                code: FFmpegError.patchWelcome.code,
                function: "HLS: segments encrypted with \(key.method) are not supported (only AES-128)")
        }
    }

    /// The AES-128 key at `uri` (16 bytes), fetched once.
    private func key(at uri: URL) throws(FFmpegError) -> [UInt8] {
        if let known = keys[uri] { return known }
        let data = try fetchWhole(uri, range: nil)
        guard data.count == 16 else {
            throw FFmpegError(
                code: FFmpegError.invalidData.code,
                function: "HLS: the key at \(uri.absoluteString) has \(data.count) bytes, not 16")
        }
        keys[uri] = Array(data)
        return Array(data)
    }

    /// RFC 8216 §5.2: without an IV attribute, the segment's media sequence number, big-endian in 16 bytes.
    static func sequenceIV(_ sequence: Int) -> [UInt8] {
        var iv = [UInt8](repeating: 0, count: 16)
        var value = UInt64(truncatingIfNeeded: sequence)
        for i in (8..<16).reversed() {
            iv[i] = UInt8(value & 0xff)
            value >>= 8
        }
        return iv
    }

    private func fetchWhole(_ uri: URL, range: HLSByteRange?) throws(FFmpegError) -> Data {
        let stream = client.start(
            uri, range: range.map { Int64($0.offset)...Int64($0.offset + $0.length - 1) })
        return try stream.readAll(limit: Self.maximumWholeFetch, isInterrupted: isInterrupted)
    }
}

/// A segment's bytes as the feed reads them.
protocol SegmentBody: AnyObject {
    func read(into buffer: UnsafeMutableRawBufferPointer, isInterrupted: () -> Bool) throws(FFmpegError) -> Int
    func cancel()
}

extension HTTPBodyStream: SegmentBody {}

/// An AES-128-CBC segment (RFC 8216 §4.3.2.4, PKCS7 padding), decrypted as it is read: whole blocks are decrypted as
/// they arrive, the last one is held back until the body ends so its padding can be removed.
final class DecryptingBody: SegmentBody {
    private let encrypted: HTTPBodyStream
    private let decryptor: AESCBCDecryptor
    private var cipher: [UInt8] = []
    private var plain: [UInt8] = []
    private var plainOffset = 0
    private var ended = false

    init(encrypted: HTTPBodyStream, key: [UInt8], iv: [UInt8]) throws(FFmpegError) {
        self.encrypted = encrypted
        decryptor = try AESCBCDecryptor(key: key, iv: iv)
    }

    func cancel() { encrypted.cancel() }

    func read(into buffer: UnsafeMutableRawBufferPointer, isInterrupted: () -> Bool) throws(FFmpegError) -> Int {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while plainOffset == plain.count {
            if ended { return 0 }
            plain.removeAll(keepingCapacity: true)
            plainOffset = 0
            var count = 0
            var failure: FFmpegError?
            chunk.withUnsafeMutableBytes { bytes in
                do throws(FFmpegError) {
                    count = try encrypted.read(into: bytes, isInterrupted: isInterrupted)
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            cipher.append(contentsOf: chunk[0..<count])
            if count == 0 {
                ended = true
                guard cipher.count % 16 == 0 else {
                    throw FFmpegError(
                        code: FFmpegError.invalidData.code,
                        function: "HLS: an AES-128 segment of \(encrypted.url.lastPathComponent) is not whole blocks")
                }
                plain = decryptor.decrypt(cipher)
                cipher.removeAll()
                // PKCS7: the last byte says how many padding bytes end the plaintext.
                guard let pad = plain.last, pad >= 1, pad <= 16, Int(pad) <= plain.count else {
                    throw FFmpegError(
                        code: FFmpegError.invalidData.code,
                        function: "HLS: wrong AES-128 key or IV for \(encrypted.url.lastPathComponent) (bad padding)")
                }
                plain.removeLast(Int(pad))
            } else if cipher.count > 16 {
                // Keep the last whole block (it may carry the padding) and any partial one.
                let whole = (cipher.count - 1) / 16 * 16
                plain = decryptor.decrypt(Array(cipher[0..<whole]))
                cipher.removeFirst(whole)
            }
        }
        let count = min(buffer.count, plain.count - plainOffset)
        plain.withUnsafeBytes { bytes in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[plainOffset..<plainOffset + count]))
        }
        plainOffset += count
        return count
    }
}
