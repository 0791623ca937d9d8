import Foundation

/// Finds the timed ID3 tags that fragmented-MP4 segments carry in event message boxes (`emsg`, ISO/IEC 23009-1
/// §5.10.3.3, with Apple's and AOM's ID3 schemes) as the segment bytes stream past, and places each on the
/// timeline libavformat's MP4 demuxer gives the segment's samples. libavformat 5.1's demuxer skips `emsg` boxes, so
/// the HLS segment feed shows the scanner every byte it hands the demuxer.
///
/// - Only top-level boxes are looked at: `emsg` (version 0 and 1), `sidx` (the segment's earliest presentation time)
///   and `moof` (its first `traf`'s `tfhd` track and `tfdt` time, when there is no `sidx`); every other box, `mdat`
///   above all, is skipped by counting, so scanning costs nothing per media byte.
/// - A version-0 box's time is the segment's earliest presentation time (the `sidx`'s, else the first `tfdt`) plus its
///   `presentation_time_delta`; a version-1 box's is its `presentation_time`. Both are on the track's media timeline,
///   which the demuxer shifts by the init section's edit list (`elst`: an empty first edit delays the media, a media
///   time skips into it, as `mov_build_index` computes the stream's `time_offset`); the scanner applies the same
///   shift, read from the init section, so a tag lands on the timeline of the pictures of the same media time.
/// - Damaged input never traps: a box whose size is impossible ends the scan of that segment; a box larger than the
///   scanner keeps (``maximumKeptBox``) is skipped; fields that overrun their box, a zero timescale or a time out of
///   range drop that box.
///
/// Threads: owned by the thread reading the feed.
struct EmsgID3Scanner {
    /// The `scheme_id_uri`s whose message data is an ID3 tag: AOM's ("ID3 Timed Metadata in CMAF") and Apple's older
    /// one for HLS.
    static let id3Schemes: Set<String> = [
        "https://aomedia.org/emsg/ID3", "https://developer.apple.com/streaming/emsg-id3",
    ]
    /// Boxes longer than this are not kept to be read (an `emsg` carries a tag of a few hundred bytes; a `moof` lists
    /// a segment's samples).
    static let maximumKeptBox = 4 << 20

    /// A tag found: its bytes, its time in seconds on the demuxer's timeline for the segment's stream, and the
    /// segment's discontinuity sequence (whose timestamps the HLS input may shift).
    struct Event: Equatable {
        var payload: [UInt8]
        var seconds: Double
        var discontinuitySequence: Int
    }

    /// What the init section says of a track: its timescale and its edit-list shift (media time minus demuxer time,
    /// in the track's timescale).
    struct TrackTiming: Equatable {
        var timescale: UInt32
        var shift: Int64
    }

    /// The tracks of the last init section read, by track ID, and the first of them.
    private(set) var tracks: [UInt32: TrackTiming] = [:]
    private var firstTrack: UInt32?

    // The segment being scanned.
    /// Whether the segment is scanned (fragmented MP4; not stopped by a damaged box).
    private var scanning = false
    private var sequence = 0
    /// The header of the box being read, as far as it has arrived (8 bytes, 16 with a 64-bit size).
    private var header: [UInt8] = []
    /// Whether a box's body is being read (else its header).
    private var inBody = false
    /// The type of the box whose body is being read, and how many of its body bytes are still to come (nil: to the
    /// end of the segment).
    private var bodyType: String?
    private var bodyRemaining: Int64? = 0
    /// The body of a box kept to be read (nil: skipped).
    private var body: [UInt8]?
    /// The segment's earliest presentation time (media seconds) and the track its time is on, once known.
    private var earliest: Double?
    private var segmentTrack: UInt32?
    /// Boxes read before the segment's track and earliest time were known: (payload, media seconds or, for version
    /// 0, the delta to add to the earliest time).
    private var waiting: [(payload: [UInt8], seconds: Double, relative: Bool)] = []
    /// Tags placed, not yet taken.
    private var found: [Event] = []

    // MARK: Feed

    /// Reads an init section (`ftyp` + `moov`): the tracks' timescales and edit lists.
    mutating func readInitSection(_ bytes: [UInt8]) {
        tracks = [:]
        firstTrack = nil
        var reader = BoxReader(bytes[...])
        while let (type, content) = reader.next() {
            if type == "moov" {
                readMovie(content)
                return
            }
        }
    }

    /// Starts scanning a segment of discontinuity sequence `discontinuitySequence` (`fragmented`: it follows an
    /// init section; other segments are not scanned). What was left of the previous segment is placed first.
    mutating func startSegment(discontinuitySequence: Int, fragmented: Bool) {
        finishSegment()
        scanning = fragmented
        sequence = discontinuitySequence
    }

    /// The segment ended: tags still waiting are placed on the init section's first track (version-0 ones only once
    /// an earliest time was found).
    mutating func finishSegment() {
        if segmentTrack == nil { segmentTrack = firstTrack }
        placeWaiting()
        stop()
        earliest = nil
        segmentTrack = nil
        waiting = []
    }

    /// The tags found since the last call, in the order found.
    mutating func takeEvents() -> [Event] {
        defer { found = [] }
        return found
    }

    /// Scans the next `bytes` of the segment.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while scanning && offset < bytes.count {
            if !inBody {
                // A header: 8 bytes, 16 when its 32-bit size is 1 (a 64-bit size follows the type).
                let needed = header.count >= 8 && Self.size32(header) == 1 ? 16 : 8
                let take = min(needed - header.count, bytes.count - offset)
                header.append(contentsOf: bytes[offset..<offset + take])
                offset += take
                if header.count == 8 && Self.size32(header) == 1 { continue }
                if header.count == needed { beginBody() }
            } else {
                // A body, kept or skipped.
                let available = bytes.count - offset
                let take = bodyRemaining.map { Int(min(Int64(available), $0)) } ?? available
                body?.append(contentsOf: bytes[offset..<offset + take])
                offset += take
                if let remaining = bodyRemaining {
                    bodyRemaining = remaining - Int64(take)
                    if remaining == Int64(take) { endBody() }
                }
            }
        }
    }

    // MARK: Boxes of a segment

    private static func size32(_ h: [UInt8]) -> UInt32 {
        UInt32(h[0]) << 24 | UInt32(h[1]) << 16 | UInt32(h[2]) << 8 | UInt32(h[3])
    }

    /// A whole header is in: decide what to do with the body.
    private mutating func beginBody() {
        let size32 = Self.size32(header)
        let type = String(decoding: header[4..<8], as: UTF8.self)
        var length: Int64?
        switch size32 {
        case 0:
            length = nil  // to the end of the segment
        case 1:
            var size: UInt64 = 0
            for byte in header[8..<16] { size = size << 8 | UInt64(byte) }
            guard size >= 16, size <= UInt64(Int64.max) else { return stop() }
            length = Int64(size) - 16
        default:
            guard size32 >= 8 else { return stop() }
            length = Int64(size32) - 8
        }
        header = []
        inBody = true
        bodyType = type
        bodyRemaining = length
        let wanted = type == "emsg" || (earliest == nil && (type == "sidx" || type == "moof"))
        body = wanted && (length.map { $0 <= Self.maximumKeptBox } ?? false) ? [] : nil
        body?.reserveCapacity(Int(length ?? 0))
        if length == 0 { endBody() }
    }

    /// A kept body is whole: read it.
    private mutating func endBody() {
        defer {
            inBody = false
            body = nil
            bodyType = nil
            bodyRemaining = 0
        }
        guard let content = body, let type = bodyType else { return }
        switch type {
        case "emsg": readEventMessage(content[...])
        case "sidx": readSegmentIndex(content[...])
        case "moof": readMovieFragment(content[...])
        default: break
        }
    }

    /// The segment is damaged: scan no further (what was found so far stays).
    private mutating func stop() {
        scanning = false
        header = []
        inBody = false
        body = nil
        bodyType = nil
        bodyRemaining = 0
    }

    /// An `emsg` box: kept when its scheme is an ID3 one.
    private mutating func readEventMessage(_ content: ArraySlice<UInt8>) {
        var r = FieldReader(content)
        guard let version = r.u8(), r.skip(3) else { return }
        let scheme: String
        let timescale: UInt32
        var seconds: Double
        switch version {
        case 0:
            guard let s = r.cString(), r.cString() != nil, let ts = r.u32(), let delta = r.u32(), r.skip(8) else {
                return
            }
            scheme = s
            timescale = ts
            seconds = Double(delta)
        case 1:
            guard let ts = r.u32(), let time = r.u64(), r.skip(8), let s = r.cString(), r.cString() != nil else {
                return
            }
            scheme = s
            timescale = ts
            seconds = Double(time)
        default:
            return
        }
        guard Self.id3Schemes.contains(scheme), timescale > 0 else { return }
        seconds /= Double(timescale)
        waiting.append((Array(r.rest), seconds, version == 0))
        placeWaiting()
    }

    /// A `sidx` box: the segment's earliest presentation time and its track.
    private mutating func readSegmentIndex(_ content: ArraySlice<UInt8>) {
        var r = FieldReader(content)
        guard let version = r.u8(), r.skip(3), let track = r.u32(), let timescale = r.u32(), timescale > 0 else {
            return
        }
        let time: UInt64?
        if version == 0 {
            time = r.u32().map(UInt64.init)
        } else {
            time = r.u64()
        }
        guard let time else { return }
        earliest = Double(time) / Double(timescale)
        segmentTrack = tracks[track] != nil ? track : firstTrack
        placeWaiting()
    }

    /// A `moof` box: its first `traf`'s track (`tfhd`) and decode time (`tfdt`) give the earliest time when no `sidx`
    /// did.
    private mutating func readMovieFragment(_ content: ArraySlice<UInt8>) {
        var fragment = BoxReader(content)
        while let (type, traf) = fragment.next() {
            guard type == "traf" else { continue }
            var track: UInt32?
            var decodeTime: UInt64?
            var boxes = BoxReader(traf)
            while let (child, body) = boxes.next() {
                var r = FieldReader(body)
                if child == "tfhd", r.skip(4), let id = r.u32() {
                    track = id
                } else if child == "tfdt", let version = r.u8(), r.skip(3) {
                    decodeTime = version == 1 ? r.u64() : r.u32().map(UInt64.init)
                }
            }
            guard let track, let decodeTime, let timing = tracks[track], timing.timescale > 0 else { return }
            earliest = Double(decodeTime) / Double(timing.timescale)
            segmentTrack = track
            placeWaiting()
            return
        }
    }

    /// Places the waiting tags whose time can be known now: once the segment's track is known (version-1 tags), and
    /// its earliest time (version-0 tags).
    private mutating func placeWaiting() {
        guard let track = segmentTrack else { return }
        let timing = tracks[track]
        let shift = timing.map { Double($0.shift) / Double(max(1, $0.timescale)) } ?? 0
        var kept: [(payload: [UInt8], seconds: Double, relative: Bool)] = []
        for tag in waiting {
            if tag.relative && earliest == nil {
                kept.append(tag)
                continue
            }
            let media = tag.relative ? (earliest ?? 0) + tag.seconds : tag.seconds
            let seconds = media - shift
            // Beyond a few hundred thousand years no timeline reaches; microseconds must still fit in 64 bits.
            guard seconds.isFinite, abs(seconds) < 1e12 else { continue }
            found.append(Event(payload: tag.payload, seconds: seconds, discontinuitySequence: sequence))
        }
        waiting = kept
    }

    // MARK: Init section

    /// `moov`: the movie timescale (`mvhd`), then each `trak`'s ID, timescale and edit list.
    private mutating func readMovie(_ moov: ArraySlice<UInt8>) {
        var movieTimescale: UInt32 = 0
        var boxes = BoxReader(moov)
        while let (type, content) = boxes.next() {
            if type == "mvhd" {
                movieTimescale = Self.headerTimescale(content) ?? 0
            } else if type == "trak", let (id, timing) = Self.trackTiming(content, movieTimescale: movieTimescale) {
                tracks[id] = timing
                if firstTrack == nil { firstTrack = id }
            }
        }
    }

    /// The timescale of an `mvhd` or `mdhd` body (after the creation and modification times, 32- or 64-bit).
    private static func headerTimescale(_ content: ArraySlice<UInt8>) -> UInt32? {
        var r = FieldReader(content)
        guard let version = r.u8(), r.skip(3), r.skip(version == 1 ? 16 : 8) else { return nil }
        return r.u32()
    }

    /// A `trak`'s ID (`tkhd`), timescale (`mdia/mdhd`) and edit-list shift (`edts/elst`).
    private static func trackTiming(_ trak: ArraySlice<UInt8>, movieTimescale: UInt32) -> (UInt32, TrackTiming)? {
        var id: UInt32?
        var timescale: UInt32?
        var edits: [(duration: UInt64, time: Int64)] = []
        var boxes = BoxReader(trak)
        while let (type, content) = boxes.next() {
            switch type {
            case "tkhd":
                var r = FieldReader(content)
                if let version = r.u8(), r.skip(3), r.skip(version == 1 ? 16 : 8) { id = r.u32() }
            case "mdia":
                var media = BoxReader(content)
                while let (child, body) = media.next() {
                    if child == "mdhd" { timescale = headerTimescale(body) }
                }
            case "edts":
                var list = BoxReader(content)
                while let (child, body) = list.next() {
                    if child == "elst" { edits = editList(body) }
                }
            default:
                break
            }
        }
        guard let id, let timescale, timescale > 0 else { return nil }
        return (id, TrackTiming(timescale: timescale, shift: shift(of: edits, timescale, movieTimescale)))
    }

    /// An `elst` body's entries (segment duration in the movie timescale, media time; -1: an empty edit).
    private static func editList(_ content: ArraySlice<UInt8>) -> [(duration: UInt64, time: Int64)] {
        var r = FieldReader(content)
        guard let version = r.u8(), r.skip(3), let count = r.u32() else { return [] }
        var entries: [(duration: UInt64, time: Int64)] = []
        for _ in 0..<min(Int(count), 64) {
            if version == 1 {
                guard let duration = r.u64(), let time = r.u64(), r.skip(4) else { break }
                entries.append((duration, Int64(bitPattern: time)))
            } else {
                guard let duration = r.u32(), let time = r.u32(), r.skip(4) else { break }
                entries.append((UInt64(duration), Int64(Int32(bitPattern: time))))
            }
        }
        return entries
    }

    /// What libavformat subtracts from the track's media times (`mov_build_index`'s `time_offset`): the first
    /// non-empty edit's media time less a leading empty edit's duration (rescaled to the track's timescale).
    private static func shift(
        of edits: [(duration: UInt64, time: Int64)], _ timescale: UInt32, _ movieTimescale: UInt32
    ) -> Int64 {
        var empty: UInt64 = 0
        var start: Int64 = 0
        var editStart = 0
        for (i, e) in edits.enumerated() {
            if i == 0 && e.time == -1 {
                empty = e.duration
                editStart = 1
            } else if i == editStart && e.time >= 0 {
                start = e.time
            }
        }
        guard movieTimescale > 0, empty > 0 || start != 0 else { return 0 }
        // av_rescale: rounded to the nearest; a duration beyond any real one counts as none.
        let emptyInTrack = Double(empty) * Double(timescale) / Double(movieTimescale)
        guard emptyInTrack < 1e15 else { return start }
        return start - Int64(emptyInTrack.rounded(.toNearestOrAwayFromZero))
    }
}

/// Walks the boxes of a byte range (size, type, body), stopping at the first whose size does not fit.
private struct BoxReader {
    private var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    /// The next box's type and body, nil at the end or at a damaged size.
    mutating func next() -> (String, ArraySlice<UInt8>)? {
        var r = FieldReader(rest)
        guard let size32 = r.u32(), r.remaining >= 4 else { return nil }
        let type = String(decoding: rest.dropFirst(4).prefix(4), as: UTF8.self)
        _ = r.skip(4)
        var headerLength = 8
        var size = UInt64(size32)
        if size32 == 1 {
            guard let large = r.u64() else { return nil }
            size = large
            headerLength = 16
        } else if size32 == 0 {
            size = UInt64(rest.count)
        }
        guard size >= UInt64(headerLength), size <= UInt64(rest.count) else {
            rest = []
            return nil
        }
        let start = rest.startIndex
        let body = rest[(start + headerLength)..<(start + Int(size))]
        rest = rest[(start + Int(size))...]
        return (type, body)
    }
}

/// Reads big-endian fields from a byte range; every read fails (nil / false) rather than overrun it.
private struct FieldReader {
    private(set) var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    var remaining: Int { rest.count }

    mutating func skip(_ n: Int) -> Bool {
        guard n >= 0, rest.count >= n else { return false }
        rest = rest.dropFirst(n)
        return true
    }

    mutating func u8() -> UInt8? {
        guard let b = rest.first else { return nil }
        rest = rest.dropFirst()
        return b
    }

    mutating func u32() -> UInt32? {
        guard rest.count >= 4 else { return nil }
        defer { rest = rest.dropFirst(4) }
        return rest.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func u64() -> UInt64? {
        guard rest.count >= 8 else { return nil }
        defer { rest = rest.dropFirst(8) }
        return rest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A NUL-terminated UTF-8 string (nil without its NUL).
    mutating func cString() -> String? {
        guard let end = rest.firstIndex(of: 0) else { return nil }
        defer { rest = rest[(end + 1)...] }
        return String(decoding: rest[..<end], as: UTF8.self)
    }
}
