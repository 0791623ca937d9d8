import CoreMedia
import Foundation
import FuzzSupport

@testable import HLS
@testable import PlaybackEngine

/// Harness (c): the HLS playlist parser. The input is parsed as a playlist fetched over `https` and as one read
/// from a `file:` URL (importing a few variables), and everything the HLS source reads from a parsed playlist is
/// computed: every URI resolved, segment offsets and lookups, the start segment, the start variant under caps, the
/// byte-range headers, the IVs, the date mapping and the live window. Parsing must refuse or succeed, never trap.
///
/// The same input is also read as fragmented-MP4 bytes by the `emsg` scanner (a 4-byte big-endian length, that many
/// bytes of init section, then the segment, fed in slices whose sizes the input chooses) and every tag found, and
/// the input itself, by the ID3 parser: tags must have finite times, nothing may trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHLSParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(bytes: data, count: size)
    let parser = HLSParser()
    for url in baseURLs {
        guard let playlist = try? parser.parse(bytes, url: url, importing: definitions) else { continue }
        switch playlist {
        case .media(let media): walk(media)
        case .multivariant(let presentation): walk(presentation)
        }
    }
    scanEventMessages(data, size)
    sink &+= ID3Tag.frames(Array(bytes)).count
    return 0
}

/// Feeds the input to ``EmsgID3Scanner`` as an init section and a segment (see the harness's description).
private func scanEventMessages(_ data: UnsafePointer<UInt8>, _ size: Int) {
    guard size >= 5 else { return }
    let declared = Int(data[0]) << 24 | Int(data[1]) << 16 | Int(data[2]) << 8 | Int(data[3])
    let initLength = min(declared, size - 4)
    var scanner = EmsgID3Scanner()
    scanner.readInitSection(Array(UnsafeBufferPointer(start: data + 4, count: initLength)))
    let segment = UnsafeRawBufferPointer(start: data + 4 + initLength, count: size - 4 - initLength)
    // Slices of 1 to 256 bytes, their sizes taken from the segment's own bytes, then the rest at once.
    for sequence in 0..<2 {
        scanner.startSegment(discontinuitySequence: sequence, fragmented: true)
        var offset = 0
        while offset < segment.count {
            let slice = sequence == 0 ? Int(segment[offset]) + 1 : segment.count
            let end = min(segment.count, offset + slice)
            scanner.consume(UnsafeRawBufferPointer(rebasing: segment[offset..<end]))
            offset = end
        }
        scanner.finishSegment()
        for event in scanner.takeEvents() {
            precondition(event.seconds.isFinite, "an emsg tag at \(event.seconds) s")
            sink &+= ID3Tag.frames(event.payload).count
        }
    }
}

/// Where the playlist was fetched from: a remote playlist and a local one (whose rules on URIs differ).
private let baseURLs = [
    URL(string: "https://cdn.example.com/live/a/index.m3u8")!, URL(fileURLWithPath: "/srv/media/hls/index.m3u8"),
]

/// The multivariant playlist's variables, for `#EXT-X-DEFINE:IMPORT`.
private let definitions = ["token": "abc123", "base": "https://cdn.example.com", "a": "", "path": "seg/"]

/// Keeps computed values alive so that the optimizer cannot drop the work.
nonisolated(unsafe) private var sink = 0

private func use(_ url: URL?) {
    guard let url else { return }
    sink &+= url.absoluteString.utf8.count &+ (url.scheme?.utf8.count ?? 0) &+ (url.host?.utf8.count ?? 0)
    sink &+= url.path.utf8.count &+ url.standardized.absoluteString.utf8.count
}

private func walk(_ media: HLSMediaPlaylist) {
    precondition(media.duration.isFinite && media.duration >= 0, "duration \(media.duration)")
    for (index, segment) in media.segments.enumerated() {
        use(segment.uri)
        use(segment.map?.uri)
        use(segment.key?.uri)
        precondition(segment.duration.isFinite && segment.duration >= 0, "segment duration \(segment.duration)")
        let start = media.startOffset(ofSegment: index)
        precondition(start <= media.startOffset(ofSegment: index + 1), "offsets out of order at \(index)")
        if let found = media.segmentIndex(containing: start), !media.segments.indices.contains(found) {
            preconditionFailure("segment \(found) of \(media.segments.count)")
        }
        sink &+= segment.byteRange?.httpRangeHeader?.utf8.count ?? 0
        sink &+= segment.map?.byteRange?.httpRangeHeader?.utf8.count ?? 0
        if let key = segment.key {
            let iv = key.initializationVector(forSequenceNumber: segment.sequenceNumber)
            precondition(key.method != .aes128 || iv.count == 16, "an AES-128 IV of \(iv.count) bytes")
        }
        sink &+= Int(segment.programDateTime?.timeIntervalSince1970 ?? 0)
    }
    for seconds in [-1, 0, media.duration / 2, media.duration, .infinity, -.infinity, .nan] {
        if let found = media.segmentIndex(containing: seconds), !media.segments.indices.contains(found) {
            preconditionFailure("segment \(found) of \(media.segments.count) for \(seconds) s")
        }
    }
    let startIndex = HLSInput.startIndex(of: media)
    precondition((0...media.segments.count).contains(startIndex), "start segment \(startIndex)")
    // What the source publishes: the window and the date mapping.
    let start = media.startOffset(ofSegment: startIndex)
    sink &+= Int(CMTime(seconds: media.duration, preferredTimescale: 1_000_000).value)
    sink &+= Int((start * 1e6).rounded())
    let anchors = media.segments.indices.compactMap { index in
        media.segments[index].programDateTime.map { (media.startOffset(ofSegment: index), $0) }
    }
    if let mapping = DateMapping(anchors: anchors) {
        sink &+= Int(mapping.seconds(at: mapping.date(atSeconds: media.duration / 2)))
    }
    for range in media.dateRanges {
        sink &+= range.id.utf8.count &+ (range.scte35Out?.count ?? 0) &+ range.clientAttributes.count
        sink &+= Int(range.endDate?.timeIntervalSince(range.startDate) ?? range.duration ?? 0)
    }
}

private func walk(_ presentation: HLSMultivariantPlaylist) {
    for variant in presentation.variants + presentation.iFrameVariants {
        use(variant.uri)
        for (type, group) in [
            (HLSRenditionType.audio, variant.audioGroup), (.video, variant.videoGroup),
            (.subtitles, variant.subtitlesGroup),
        ] {
            guard let group else { continue }
            for rendition in presentation.renditions(ofType: type, inGroup: group) { use(rendition.uri) }
        }
    }
    for rendition in presentation.renditions { use(rendition.uri) }
    for key in presentation.sessionKeys {
        use(key.uri)
        sink &+= key.initializationVector(forSequenceNumber: 0).count
    }
    for data in presentation.sessionData { use(data.uri) }
    // The start order is a permutation of the playable (non-I-frame) variants, under no caps and under tight ones.
    let playable = presentation.variants.filter { !$0.isIFrameOnly }.count
    for caps in [
        VariantCaps(), VariantCaps(maximumPeakBitRate: 500_000, maximumResolution: .init(width: 640, height: 360)),
    ] {
        let order = HLSSource.startOrder(of: presentation, under: caps)
        precondition(order.sorted() == Array(0..<playable), "start order \(order) of \(playable) variants")
    }
}

/// The executable's entry point (see `runFuzzer`).
@_cdecl("FuzzHLSParser_main")
public func fuzzHLSParserMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runFuzzer(argc, argv) { fuzzHLSParser($0, $1) }
}
