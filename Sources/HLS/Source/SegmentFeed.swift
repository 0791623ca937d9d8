import FFmpegBridge
import Foundation
import PlaybackEngine

/// The bytes of one media playlist's segments, one after another, as the demuxer reads them (libavformat's `hls`
/// demuxer feeds its sub-demuxer the same way): an fMP4 init section (`EXT-X-MAP`) before the first segment that
/// needs it, AES-128 segments decrypted, the next segment's download started while the current one is read.
///
/// Threads: ``read(into:)``, ``restart(at:)`` and ``replace(playlist:)`` belong to the thread reading the source
/// (see `MediaSource`); the transfers fill their bodies on the HTTP client's queue.
final class SegmentFeed: ByteStreamReader {
    /// At most this many bytes of a playlist, key or init section are held (segments stream).
    static let maximumWholeFetch = 16 << 20
    /// A failed segment request is tried again this many times (after 0.25, 0.5, 1 s of ``clock``:
    /// ``backOff(try:)``), resuming where its bytes stopped when it can; then the segment is skipped.
    static let retries = 3
    /// This many segments skipped one after another end the stream with the last failure (a server gone).
    static let maximumSkippedInARow = 3

    private let client: HLSHTTPClient
    private let isInterrupted: () -> Bool
    /// What the retry back-off waits on (the source's `SourceOptions.clock`).
    var clock: MediaClock
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
    /// Whether the next segment's download starts while one is read (once the one read has arrived whole); off while
    /// the input is only probed (an alternate rendition nobody plays yet fetches no more than its first segment).
    var prefetchesAhead = false
    /// The segment (index in ``playlist``) after which the next download starts, once that segment's own download has
    /// ended: one segment transfer of a feed at a time, as hls.js and ExoPlayer load one chunk at a time. Two at once
    /// share the link, each taking twice as long, and each measured at half the link's rate: the bandwidth estimate
    /// halved whenever playback was reading as fast as segments arrived (the trace bench's steady 3 Mbit/s link
    /// measured about 1.5 Mbit/s until the buffer filled, then 3: down and up again).
    private var prefetchAfter: Int?
    /// Bytes delivered to the demuxer.
    private(set) var bytesDelivered: Int64 = 0
    /// The indicated bit rate of the variant the segments belong to, for the network log.
    var indicatedBitrate: Double?
    /// What the segments carry, for the network log.
    var content = NetworkLog.Transfer.Content.main
    /// Of the segment being read: bytes delivered, and tries so far.
    private var deliveredInSegment: Int64 = 0
    private var triesOfSegment = 0
    /// The failure that ended the stream (its text names the request), for the source to report instead of the
    /// bare code the demuxer passes on.
    private(set) var failure: FFmpegError?
    /// Segments skipped one after another (after their retries failed), and the failure of the last one.
    private var skippedInARow = 0
    private var lastFailure: FFmpegError?
    /// The `EXT-X-DISCONTINUITY-SEQUENCE` of the segments delivered since the last restart: a segment of another
    /// one is not delivered to the same demuxer (see ``isHeldAtDiscontinuity``).
    private var deliveredDiscontinuitySequence: Int?
    /// Whether the feed stopped before a segment of another discontinuity sequence (its timestamps restart or jump,
    /// its format may change): the demuxer reading it sees the end of its input, and reading goes on, after
    /// ``continueAfterDiscontinuity()``, with a new demuxer (libavformat's MPEG-TS demuxer would otherwise mix the
    /// two timelines, and the MP4 demuxer would keep the old init section).
    private(set) var isHeldAtDiscontinuity = false
    /// Called when a segment has been read to its end (its index).
    var onSegmentFinished: ((Int) -> Void)?
    /// Asked before segment `index` of `playlist` is fetched (ahead or not): the switch to another variant's playlist
    /// (adaptive bitrate), or nil to stay. The switch is adopted when the segment before has been read.
    var variantSwitch: ((_ playlist: HLSMediaPlaylist, _ index: Int) -> VariantSwitch?)?
    /// Asked at a segment boundary when the next segment was fetched ahead: a switch away when its variant is no
    /// longer allowed (nil keeps it).
    var variantRecheck: ((_ playlist: HLSMediaPlaylist, _ index: Int) -> VariantSwitch?)?
    /// Called when a switch is adopted, with the index the next segment had in the playlist left.
    var onVariantSwitch: ((_ switched: VariantSwitch, _ leftAt: Int) -> Void)?
    /// A switch decided for the segment prefetched, adopted at the boundary.
    private var pendingSwitch: VariantSwitch?
    /// The segment (of ``playlist``) whose variant is decided: not asked about again.
    private var decidedIndex: Int?
    /// Whether the demuxer ends at a switch, to be reopened on the new variant (fragmented MP4: the MP4 demuxer
    /// does not take a second init section in its stream).
    var endsAtSwitch = false
    /// Set at an adopted switch when ``endsAtSwitch``: reading gives the end until ``resumeAfterSwitch()``.
    private(set) var isHeldAtSwitch = false
    /// Called when the feed runs out of segments of a live playlist: returns whether new ones were added (after
    /// waiting for a reload); false ends the stream.
    var waitForMoreSegments: (() throws(FFmpegError) -> Bool)?
    /// Finds the ID3 tags of `emsg` boxes in the fragmented-MP4 segments delivered, when set (the variant's feed:
    /// libavformat's MP4 demuxer skips those boxes).
    var eventScanner: EmsgID3Scanner?

    /// A feed of `playlist`'s segments from `startIndex` on, fetched through `client`; its retries wait on `clock`.
    /// The reading thread.
    init(
        client: HLSHTTPClient, playlist: HLSMediaPlaylist, startIndex: Int, clock: MediaClock = .host,
        isInterrupted: @escaping () -> Bool
    ) {
        self.client = client
        self.clock = clock
        self.playlist = playlist
        self.nextIndex = startIndex
        self.isInterrupted = isInterrupted
    }

    deinit {
        current?.body.cancel()
        prefetched?.body.cancel()
    }

    /// Continues with segment `index` (after a seek): drops what is being read, keeps a prefetch of that very
    /// segment; the segment's variant is chosen at once (``nextIndex`` is then its index in that variant's playlist).
    func restart(at index: Int) {
        current?.body.cancel()
        current = nil
        if let prefetched, prefetched.index != index {
            prefetched.body.cancel()
            self.prefetched = nil
        }
        if pendingSwitch != nil {
            // The prefetch belongs to the variant not switched to after all.
            prefetched?.body.cancel()
            prefetched = nil
            pendingSwitch = nil
        }
        isHeldAtSwitch = false
        decidedIndex = nil
        prefetchAfter = nil
        nextIndex = index
        eventScanner?.finishSegment()
        preamble = Data()
        preambleOffset = 0
        deliveredMap = nil
        deliveredDiscontinuitySequence = nil
        isHeldAtDiscontinuity = false
        // The variant of the segment restarted at is chosen now, before a demuxer opens on the feed: a switch adopted
        // while that demuxer reads its header would hold the feed (fragmented MP4) and end it before its first byte.
        decidedIndex = index
        if let switched = variantSwitch?(playlist, index) {
            // A prefetch kept above is the variant left's segment.
            prefetched?.body.cancel()
            prefetched = nil
            adopt(switched)
            isHeldAtSwitch = false
        }
    }

    /// Goes on past the discontinuity the feed is held at, for a new demuxer: its first bytes are the next segment's
    /// (after its init section, delivered again).
    func continueAfterDiscontinuity() {
        isHeldAtDiscontinuity = false
        deliveredDiscontinuitySequence = nil
        deliveredMap = nil
    }

    /// A reloaded playlist (live): segment indices shift by how far its media sequence moved.
    func replace(playlist newPlaylist: HLSMediaPlaylist) {
        let shift = newPlaylist.mediaSequence - playlist.mediaSequence
        playlist = newPlaylist
        nextIndex = max(0, nextIndex - shift)
        if let c = current { current = (c.index - shift, c.body) }
        prefetchAfter = prefetchAfter.map { $0 - shift }
        // A prefetch for a pending switch is numbered in the other variant's playlist.
        if let p = prefetched, pendingSwitch == nil {
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
            if isHeldAtDiscontinuity { return 0 }
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
                startPrefetchIfDue(current)
                let count: Int
                do {
                    count = try current.body.read(into: buffer, isInterrupted: isInterrupted)
                } catch {
                    try recover(from: error, segment: current.index)
                    continue
                }
                if count > 0 {
                    // The bytes just read may have been the last to arrive: the next download starts now, not at the
                    // next read (which waits while the engine's buffer is full).
                    startPrefetchIfDue(current)
                    bytesDelivered += Int64(count)
                    deliveredInSegment += Int64(count)
                    eventScanner?.consume(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    return count
                }
                eventScanner?.finishSegment()
                self.current = nil
                skippedInARow = 0
                onSegmentFinished?(current.index)
                continue
            }
            if let pendingSwitch { adopt(pendingSwitch) }
            if nextIndex < playlist.segments.count {
                if let ahead = prefetched, ahead.index == nextIndex {
                    // Fetched ahead: kept unless a cap set since excludes its variant.
                    if let switched = variantRecheck?(playlist, nextIndex) {
                        ahead.body.cancel()
                        prefetched = nil
                        adopt(switched)
                    }
                } else if decidedIndex != nextIndex {
                    decidedIndex = nextIndex
                    if let switched = variantSwitch?(playlist, nextIndex) { adopt(switched) }
                }
            }
            if isHeldAtSwitch { return 0 }
            guard nextIndex < playlist.segments.count else {
                guard let waitForMoreSegments, try waitForMoreSegments() else {
                    // The stream ends with segments that could not be fetched: say why rather than end quietly.
                    if skippedInARow > 0, let lastFailure {
                        failure = lastFailure
                        throw lastFailure
                    }
                    return 0
                }
                continue
            }
            let index = nextIndex
            let segment = playlist.segments[index]
            if let sequence = deliveredDiscontinuitySequence, segment.discontinuitySequence != sequence {
                isHeldAtDiscontinuity = true
                return 0
            }
            deliveredDiscontinuitySequence = segment.discontinuitySequence
            nextIndex += 1
            if segment.isGap { continue }
            if let map = segment.map, map != deliveredMap {
                preamble = try fetchWhole(map.uri, range: map.byteRange)
                preambleOffset = 0
                deliveredMap = map
                eventScanner?.readInitSection(Array(preamble))
            }
            eventScanner?.startSegment(
                discontinuitySequence: segment.discontinuitySequence, fragmented: segment.map != nil)
            let body: any SegmentBody
            deliveredInSegment = 0
            triesOfSegment = 0
            if let prefetched, prefetched.index == index {
                body = prefetched.body
                self.prefetched = nil
            } else {
                do {
                    body = try start(segment: segment)
                } catch {
                    current = (index, FailedBody(error))
                    continue
                }
            }
            current = (index, body)
            prefetchAfter = prefetchesAhead ? index : nil
            startPrefetchIfDue(current)
        }
    }

    /// Starts the download of the segment after `current` once `current`'s own download has ended (see
    /// ``prefetchAfter``).
    private func startPrefetchIfDue(_ current: (index: Int, body: any SegmentBody)?) {
        guard let current, prefetchAfter == current.index, current.body.hasArrived else { return }
        prefetchAfter = nil
        prefetchNext(after: current.index)
    }

    /// After the segment being read failed with `error`: tries it again (resuming after the bytes already delivered
    /// when it is not encrypted; from its start when nothing was delivered yet), up to ``retries`` times with a
    /// growing pause, else skips it; too many skips in a row throw `error`. An interruption throws at once.
    private func recover(from error: FFmpegError, segment index: Int) throws(FFmpegError) {
        current?.body.cancel()
        current = nil
        if error == FFmpegError.exit || isInterrupted() { throw FFmpegError.exit }
        let segment = playlist.segments[index]
        let encrypted = segment.key.map { $0.method != HLSKey.Method.none } ?? false
        let resumable = !encrypted || deliveredInSegment == 0
        if triesOfSegment < Self.retries && resumable {
            triesOfSegment += 1
            // On the source's clock: a virtual one lets the retry go only when a test moves it; an interruption
            // wakes the sleep at once (the client's wakers).
            let retryAt = clock.deadline(after: Self.backOff(try: triesOfSegment))
            guard clock.sleep(until: retryAt, wakers: client.wakers, isInterrupted: isInterrupted) else {
                throw FFmpegError.exit
            }
            do {
                current = (index, try start(segment: segment, skippingBytes: deliveredInSegment))
            } catch {
                current = (index, FailedBody(error))
            }
            return
        }
        skippedInARow += 1
        lastFailure = error
        if skippedInARow >= Self.maximumSkippedInARow {
            failure = error
            throw error
        }
        // Skipped: the demuxer sees the next segment's bytes next (MPEG-TS resynchronises on its packets).
        onSegmentFinished?(index)
    }

    /// Seconds to wait before retry `n` (1-based) of a segment: 0.25 s, doubling with each retry.
    static func backOff(try n: Int) -> Double {
        0.25 * Double(1 << max(0, min(n - 1, 16)))
    }

    /// Starts the download of the segment after `index`, so that it arrives while this one is demuxed (from another
    /// variant's playlist when ``variantSwitch`` switches there).
    private func prefetchNext(after index: Int) {
        prefetched?.body.cancel()
        prefetched = nil
        var next = index + 1
        var source = playlist
        var bitrate = indicatedBitrate
        if pendingSwitch == nil, next < playlist.segments.count, let switched = variantSwitch?(playlist, next) {
            pendingSwitch = switched
            (source, next, bitrate) = (switched.playlist, switched.index, switched.indicatedBitrate)
        }
        guard next < source.segments.count, !source.segments[next].isGap,
            let body = try? start(segment: source.segments[next], indicatedBitrate: bitrate)
        else { return }
        prefetched = (next, body)
    }

    /// Continues with `switched`'s playlist at its index (at a segment boundary).
    private func adopt(_ switched: VariantSwitch) {
        let leftAt = nextIndex
        pendingSwitch = nil
        playlist = switched.playlist
        nextIndex = switched.index
        indicatedBitrate = switched.indicatedBitrate
        decidedIndex = switched.index
        isHeldAtSwitch = endsAtSwitch
        onVariantSwitch?(switched, leftAt)
    }

    /// Lets reading go on after a switch held it (the new demuxer is there).
    func resumeAfterSwitch() {
        isHeldAtSwitch = false
    }

    /// Starts `segment`'s download (without its first `skippingBytes` bytes: a resumed transfer).
    private func start(
        segment: HLSSegment, skippingBytes: Int64 = 0, indicatedBitrate: Double? = nil
    ) throws(FFmpegError) -> any SegmentBody {
        var range: ClosedRange<Int64>?
        if let byteRange = segment.byteRange {
            range = (Int64(byteRange.offset) + skippingBytes)...(Int64(byteRange.offset + byteRange.length) - 1)
        } else if skippingBytes > 0 {
            range = skippingBytes...Int64.max
        }
        let stream = client.start(
            segment.uri, range: range, kind: .media, mediaDuration: segment.duration,
            indicatedBitrate: indicatedBitrate ?? self.indicatedBitrate, content: content)
        guard let key = segment.key else { return stream }
        switch key.method {
        case .none:
            return stream
        case .aes128:
            guard let keyURI = key.uri else {
                throw FFmpegError(code: FFmpegError.invalidData.code, function: "HLS: EXT-X-KEY without a URI")
            }
            let keyBytes = try self.key(at: keyURI)
            let iv = key.initializationVector(forSequenceNumber: segment.sequenceNumber)
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
    /// Whether its download has ended (whole, failed or abandoned), whatever is left to read.
    var hasArrived: Bool { get }
}

extension HTTPBodyStream: SegmentBody {
    var hasArrived: Bool { isFinished || hasReceivedItsLength }
}

/// A segment whose request could not even be started (its key could not be fetched): reading it fails.
final class FailedBody: SegmentBody {
    private let error: FFmpegError
    init(_ error: FFmpegError) { self.error = error }
    func read(into buffer: UnsafeMutableRawBufferPointer, isInterrupted: () -> Bool) throws(FFmpegError) -> Int {
        throw error
    }
    func cancel() {}
    var hasArrived: Bool { true }
}

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
    var hasArrived: Bool { encrypted.isFinished }

    func read(into buffer: UnsafeMutableRawBufferPointer, isInterrupted: () -> Bool) throws(FFmpegError) -> Int {
        while plainOffset == plain.count {
            if ended { return 0 }
            plain.removeAll(keepingCapacity: true)
            plainOffset = 0
            let count = try encrypted.readAvailable(appendingTo: &cipher, isInterrupted: isInterrupted)
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
