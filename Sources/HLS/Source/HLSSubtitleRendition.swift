import FFmpegBridge
import Foundation

/// A WebVTT subtitle rendition (`EXT-X-MEDIA:TYPE=SUBTITLES`) of the variant's `SUBTITLES` group, offered as a
/// subtitle stream of the ``HLSSource``. Nothing is fetched to describe it: its stream is the one libavformat's
/// `webvtt` demuxer makes of an empty document, with the rendition's name, language and flags; its segments are read
/// only by an ``HLSSubtitleSource`` once it is selected.
///
/// Timestamps are in 1/90000 s, as MPEG-TS's: a segment's `X-TIMESTAMP-MAP` (RFC 8216 §3.5) names the MPEG-TS time
/// its cue time `LOCAL` stands for, which is the variant's container time.
struct HLSSubtitleRendition {
    /// The `EXT-X-MEDIA` tag.
    let rendition: HLSRendition
    /// Its media playlist.
    let uri: URL
    /// The stream: its index in the source's list, its time base (1/90000) and description.
    let stream: StreamInfo

    /// The stream time base: MPEG-TS's clock.
    static let timeBase = Rational(1, 90_000)

    /// Describes `rendition` as stream `index`; nil without a URI (a subtitle rendition must have one).
    init?(_ rendition: HLSRendition, index: Int) {
        guard let uri = rendition.uri, let description = try? Self.describingContext() else { return nil }
        var stream = description.info.streams[0]
        stream.index = index
        stream.containerID = 0
        stream.timeBase = Self.timeBase
        stream.startTime = nil
        stream.duration = nil
        stream.metadata = ["title": rendition.name]
        if let language = rendition.language { stream.metadata["language"] = language }
        stream.disposition = []
        if rendition.isDefault { stream.disposition.insert(.default) }
        if rendition.forced { stream.disposition.insert(.forced) }
        let accessibility = [
            "public.accessibility.transcribes-spoken-dialog", "public.accessibility.describes-music-and-sound",
        ]
        if rendition.characteristics.contains(where: accessibility.contains) {
            stream.disposition.insert(.hearingImpaired)
        }
        self.rendition = rendition
        self.uri = uri
        self.stream = stream
    }

    /// A `webvtt` demuxer on an empty WebVTT document: its one stream is what a WebVTT rendition's stream is
    /// (codec, codec parameters), without a request.
    static func describingContext() throws(FFmpegError) -> FormatContext {
        try FormatContext(
            reader: DataReader(Data("WEBVTT\n\n".utf8)), name: "webvtt", formatName: "webvtt", probesStreams: false)
    }

    /// The microseconds to add to a segment's cue times (its `LOCAL` clock) to make them MPEG-TS times: from the
    /// header's `X-TIMESTAMP-MAP=MPEGTS:<90 kHz>,LOCAL:<hh:mm:ss.mmm>`; 0 without one (RFC 8216 §3.5: cue time 0 is
    /// MPEG-TS time 0).
    static func timestampOffset(ofSegment data: Data) -> Int64 {
        // The header block: up to the first blank line.
        guard let text = String(data: data.prefix(4096), encoding: .utf8) else { return 0 }
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for line in lines.prefix(while: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            guard line.hasPrefix("X-TIMESTAMP-MAP=") else { continue }
            var mpegTS: Int64?
            var local: Int64?
            for field in line.dropFirst("X-TIMESTAMP-MAP=".count).split(separator: ",") {
                let trimmed = field.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("MPEGTS:") {
                    mpegTS = Int64(trimmed.dropFirst(7))
                } else if trimmed.hasPrefix("LOCAL:") {
                    local = cueTimeMicroseconds(trimmed.dropFirst(6))
                }
            }
            guard let mpegTS, let local, mpegTS >= 0 else { return 0 }
            return Rational.rescale(mpegTS, from: timeBase, to: Rational(1, 1_000_000)) - local
        }
        return 0
    }

    /// A WebVTT timestamp (`[hh:]mm:ss.ttt`) in microseconds; nil when malformed.
    static func cueTimeMicroseconds(_ text: Substring) -> Int64? {
        let parts = text.split(separator: ":")
        guard (2...3).contains(parts.count), let seconds = Double(parts[parts.count - 1]),
            let minutes = Int64(parts[parts.count - 2]), seconds >= 0, minutes >= 0
        else { return nil }
        let hours = parts.count == 3 ? Int64(parts[0]) : 0
        guard let hours, hours >= 0, hours < 1_000_000 else { return nil }
        return (hours * 3600 + minutes * 60) * 1_000_000 + Int64((seconds * 1e6).rounded())
    }
}

/// Bytes already in memory, as a ``ByteStreamReader`` (a WebVTT segment for its demuxer).
final class DataReader: ByteStreamReader {
    private let data: Data
    private var offset = 0

    init(_ data: Data) { self.data = data }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(FFmpegError) -> Int {
        let count = min(buffer.count, data.count - offset)
        guard count > 0 else { return 0 }
        data.withUnsafeBytes { bytes in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
        }
        offset += count
        return count
    }
}
