import FFmpegBridge
import Foundation

/// Discontinuities (`EXT-X-DISCONTINUITY`, RFC 8216 §4.3.2.3): the segments after one may restart or jump their
/// timestamps and change their format. The feed stops before such a segment (``SegmentFeed/isHeldAtDiscontinuity``),
/// so the demuxer reading it ends cleanly; a new demuxer, probed like the first, reads on, and its packets are
/// renumbered into the first demuxer's streams and re-timed onto one timeline that follows the playlist's segment
/// durations: a discontinuity sequence's timestamps are shifted so that the first picture of the first of its
/// segments read falls where the durations before it say, as far after the segment's start as the first demuxer's
/// first picture was after its segment's (what Media3's `TimestampAdjuster` does per discontinuity sequence; the
/// picture, not the earliest packet, since audio frames straddle segment boundaries).
/// The decoders see one stream whose parameters may change in band (H.264 / HEVC parameter sets, AAC configuration
/// in ADTS headers); a codec change is not supported.
extension HLSInput {
    private static let microseconds = Rational(1, 1_000_000)

    /// Opens a demuxer on the feed, which starts at segment `index` (of discontinuity sequence S), and reads from it
    /// from now on. The offset of S is the one recorded, else what puts the demuxer's probed anchor at `index`'s
    /// playlist start plus ``anchorLead`` (`probing` must then be true). Without `probing` the streams are taken as the container's header
    /// (an fMP4 init section) states them.
    func openDemuxer(at index: Int, probing: Bool) throws(FFmpegError) {
        let sequence = playlist.segments[index].discontinuitySequence
        if feed.isHeldAtDiscontinuity { feed.continueAfterDiscontinuity() }
        let opened = try FormatContext(
            reader: feed, name: playlistURL.absoluteString, options: probing ? Self.probeOptions : [:],
            interrupt: interrupt, probesStreams: probing || sequenceOffsets[sequence] == nil)
        demuxerStreams = Self.streamMap(from: opened, onto: format)
        demuxer = opened
        demuxer.setDiscard(keepingStreams: demuxerKeptStreams)
        demuxerSequence = sequence
        if let known = sequenceOffsets[sequence] {
            demuxerOffset = known
        } else {
            let expected =
                playlistStartMicroseconds + Int64((playlist.startOffset(ofSegment: index) * 1e6).rounded())
                + anchorLead
            demuxerOffset = expected - (Self.anchorMicroseconds(of: opened) ?? expected)
            sequenceOffsets[sequence] = demuxerOffset
        }
    }

    /// Where a probed demuxer's timeline is anchored: its first video stream's start (microseconds), else its start.
    static func anchorMicroseconds(of context: FormatContext) -> Int64? {
        let video = context.info.streams.first { $0.kind == .video && $0.startTime != nil }
        guard let video, let start = video.startTime else { return context.startTimeMicroseconds }
        return Rational.rescale(start, from: video.timeBase, to: microseconds)
    }

    /// ``kept`` in ``demuxer``'s stream numbers.
    var demuxerKeptStreams: Set<Int> {
        guard demuxer !== format else { return kept }
        return Set(demuxerStreams.indices.filter { demuxerStreams[$0].map(kept.contains) ?? false })
    }

    /// Renumbers and re-times `packet`, just read from ``demuxer``, into ``format``'s streams and the input's
    /// timeline; false when it belongs to no stream of ``format`` (drop it).
    func rebase(_ packet: Packet) -> Bool {
        guard demuxer !== format else { return true }
        let local = packet.streamIndex
        guard local < demuxerStreams.count, let target = demuxerStreams[local],
            let from = demuxer.timeBase(ofStream: local), let to = format.timeBase(ofStream: target)
        else { return false }
        packet.retime(from: from, to: to, adding: Rational.rescale(demuxerOffset, from: Self.microseconds, to: to))
        packet.streamIndex = target
        return true
    }

    /// For each stream of `demuxer`, the stream of `format` of the same kind at the same rank among that kind's
    /// (the second audio stream continues the second audio stream), or nil.
    static func streamMap(from demuxer: FormatContext, onto format: FormatContext) -> [Int?] {
        var byKind: [StreamKind: [Int]] = [:]
        for index in 0..<format.streamCount { byKind[format.kind(ofStream: index), default: []].append(index) }
        var used: [StreamKind: Int] = [:]
        return (0..<demuxer.streamCount).map { index in
            let kind = demuxer.kind(ofStream: index)
            let rank = used[kind, default: 0]
            used[kind] = rank + 1
            guard let candidates = byKind[kind], rank < candidates.count else { return nil }
            return candidates[rank]
        }
    }
}
