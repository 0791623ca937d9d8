import CoreMedia
import FFmpegBridge
import Foundation

/// One media playlist being played — a variant, or an alternate audio rendition beside it: its segment feed, the
/// libavformat demuxer reading that feed, its reloads (live), and the packet read ahead so that ``HLSSource`` can
/// interleave several inputs by decoding time.
///
/// Threads: owned by the thread reading the source (see `MediaSource`).
final class HLSInput {
    /// Where the playlist is fetched from (the variant switched to, after an adaptive switch).
    private(set) var playlistURL: URL
    /// The input's first stream's index in the source's stream list.
    let streamOffset: Int
    private let client: HLSHTTPClient
    private let parser: HLSParser
    private let isInterrupted: () -> Bool
    private(set) var playlist: HLSMediaPlaylist
    private let feed: SegmentFeed
    private(set) var format: FormatContext!
    /// Container time (microseconds) of the start of the playlist's first listed segment.
    private(set) var playlistStartMicroseconds: Int64 = 0
    /// Container time (microseconds) where the first segment read starts.
    private(set) var firstReadMicroseconds: Int64 = 0
    /// The packet read ahead (valid while `hasLookahead`; reused, so reading allocates nothing).
    private let buffered = Packet()
    private(set) var hasLookahead = false
    /// Whether the input has nothing more to give (its end, or all its streams discarded).
    private(set) var isExhausted = false
    /// The input's own stream indices that are read.
    private var kept: Set<Int> = []
    private var lastReload = Date()
    private var lastReloadChanged = true
    /// After a demuxer reopened at a variant switch: the decoder configuration each kept stream's next packet carries.
    private var newExtradata: [Int: [UInt8]] = [:]
    /// Called on the reading thread after a reload changed the playlist.
    var onPlaylistChange: (() -> Void)?

    init(
        playlist: HLSMediaPlaylist, streamOffset: Int, client: HLSHTTPClient, parser: HLSParser,
        isInterrupted: @escaping () -> Bool
    ) {
        playlistURL = playlist.url
        self.playlist = playlist
        self.streamOffset = streamOffset
        self.client = client
        self.parser = parser
        self.isInterrupted = isInterrupted
        feed = SegmentFeed(
            client: client, playlist: playlist, startIndex: Self.startIndex(of: playlist), isInterrupted: isInterrupted)
    }

    /// The flag that interrupts the demuxer's I/O.
    private var interrupt = InterruptFlag()

    /// Opens the demuxer on the feed and probes it (reads the first segment's start).
    func open(interrupt: InterruptFlag) throws(FFmpegError) {
        self.interrupt = interrupt
        feed.waitForMoreSegments = { [unowned self] () throws(FFmpegError) -> Bool in try self.reloadForMore() }
        feed.onVariantSwitch = { [unowned self] switched, leftAt in self.adopt(switched, leftAt: leftAt) }
        let opened = try FormatContext(
            reader: feed, name: playlistURL.absoluteString, options: Self.probeOptions, interrupt: interrupt)
        format = opened
        firstReadMicroseconds = opened.info.startTimeMicroseconds ?? 0
        let skipped = playlist.startOffset(ofSegment: Self.startIndex(of: playlist))
        playlistStartMicroseconds = firstReadMicroseconds - Int64((skipped * 1e6).rounded())
        kept = Set(0..<opened.streamCount)
        lastReload = Date()
    }

    /// How far the streams are probed: one second of media (libavformat reads 5 s of MPEG-TS by default, which is
    /// two or three segments fetched before the first picture; the first segment's start describes its streams).
    static let probeOptions = ["analyzeduration": "1000000"]

    /// Where playback of `playlist` starts: `EXT-X-START` when given, else the first segment (VOD) or three target
    /// durations from the live edge (RFC 8216 §6.3.3).
    static func startIndex(of playlist: HLSMediaPlaylist) -> Int {
        let segments = playlist.segments
        if let start = playlist.start {
            let offset = start.timeOffset >= 0 ? start.timeOffset : playlist.duration + start.timeOffset
            return playlist.segmentIndex(containing: max(0, min(offset, playlist.duration))) ?? 0
        }
        guard playlist.isLive else { return 0 }
        var remaining = 3 * playlist.targetDuration
        var index = segments.count
        while index > 0 && remaining > 0 {
            index -= 1
            remaining -= segments[index].duration
        }
        return index
    }

    /// The container-time range the playlist covers now.
    var window: CMTimeRange {
        CMTimeRange(
            start: CMTime(microseconds: playlistStartMicroseconds),
            duration: CMTime(seconds: playlist.duration, preferredTimescale: 1_000_000))
    }

    var bytesDelivered: Int64 { feed.bytesDelivered }

    /// Why the feed ended, when a request failed (its text names the request).
    var feedFailure: FFmpegError? { feed.failure }

    /// The `BANDWIDTH` of the variant this input plays (nil for a rendition or a lone media playlist): recorded
    /// with its segments' transfers.
    var indicatedBitrate: Double? {
        get { feed.indicatedBitrate }
        set { feed.indicatedBitrate = newValue }
    }

    /// Lets `switcher` choose the variant of each segment before it is fetched (and again, when it was fetched
    /// ahead, at its boundary).
    func adapt(with switcher: VariantSwitcher) {
        feed.variantSwitch = { [unowned switcher] playlist, index in switcher.nextSegment(of: playlist, at: index) }
        feed.variantRecheck = { [unowned switcher] playlist, index in switcher.recheck(playlist, at: index) }
        feed.endsAtSwitch = format.formatName.hasPrefix("mov")
    }

    /// The feed continues with another variant's playlist: the playlist timeline moves so that the segment switched
    /// to starts where segment `leftAt` of the old one did.
    private func adopt(_ switched: VariantSwitch, leftAt: Int) {
        let boundary = playlistStartMicroseconds + Int64((playlist.startOffset(ofSegment: leftAt) * 1e6).rounded())
        let offset = Int64((switched.playlist.startOffset(ofSegment: switched.index) * 1e6).rounded())
        playlistStartMicroseconds = boundary - offset
        playlist = switched.playlist
        playlistURL = switched.playlist.url
        lastReload = Date()
        lastReloadChanged = true
        onPlaylistChange?()
    }

    /// Whether any of the input's streams is read.
    var isActive: Bool { !kept.isEmpty }

    /// Reads `streams` (the input's own indices) only; an input with none is not read at all, so its segments are
    /// not fetched.
    func setDiscard(keeping streams: Set<Int>) {
        kept = streams
        format.setDiscard(keepingStreams: streams)
        if hasLookahead && !streams.contains(buffered.streamIndex) {
            buffered.unref()
            hasLookahead = false
        }
    }

    /// Makes sure a packet of a kept stream is read ahead, unless the input is exhausted or not read.
    func fill() throws(FFmpegError) {
        guard !hasLookahead, !isExhausted, isActive else { return }
        feed.prefetchesAhead = true
        while true {
            let result: ReadResult
            do {
                result = try format.read(into: buffered)
            } catch {
                // The demuxer passes on only the code; the feed knows which request failed.
                throw feedFailure ?? error
            }
            switch result {
            case .endOfFile:
                if feed.isHeldAtSwitch {
                    // Fragmented MP4 after a switch: a new demuxer on the new variant's init section and segments;
                    // the decoders get the new decoder configuration with each stream's first packet.
                    feed.resumeAfterSwitch()
                    try reopenDemuxer()
                    continue
                }
                isExhausted = true
                return
            case .packet:
                guard kept.contains(buffered.streamIndex) else { continue }
                if let extradata = newExtradata.removeValue(forKey: buffered.streamIndex) {
                    buffered.attachNewExtradata(extradata)
                }
                hasLookahead = true
                return
            }
        }
    }

    private static let microseconds = Rational(1, 1_000_000)

    /// The read-ahead packet's decoding time in microseconds (its presentation time without one); nil when unknown.
    var lookaheadMicroseconds: Int64? {
        guard hasLookahead, let ts = buffered.dts ?? buffered.pts,
            let timeBase = format.timeBase(ofStream: buffered.streamIndex)
        else { return nil }
        return Rational.rescale(ts, from: timeBase, to: Self.microseconds)
    }

    /// Hands the read-ahead packet over: moved into `packet`, renumbered into the source's stream list.
    func take(into packet: Packet) {
        guard hasLookahead else { return }
        packet.move(from: buffered)
        packet.streamIndex += streamOffset
        hasLookahead = false
    }

    /// Restarts the feed at the segment holding `microseconds` (container time). MPEG-TS continues on the same
    /// demuxer (it drops what it had half assembled when the position jumps); fragmented MP4 gets a new demuxer on
    /// the init section and the segment, since the MP4 demuxer keeps reading the samples of the fragment it indexed.
    func seek(toMicroseconds microseconds: Int64) throws(FFmpegError) {
        let seconds = Double(microseconds - playlistStartMicroseconds) / 1e6
        let index =
            seconds <= 0 ? 0 : (playlist.segmentIndex(containing: seconds) ?? max(0, playlist.segments.count - 1))
        feed.restart(at: index)
        if format.formatName.hasPrefix("mov") {
            try reopenDemuxer()
        } else {
            format.discardBufferedInput()
        }
        buffered.unref()
        hasLookahead = false
        isExhausted = false
    }

    /// A new demuxer on the feed (fragmented MP4), reading the streams kept; the decoders get its decoder
    /// configuration (the init section's, which differs between variants) with each stream's next packet.
    private func reopenDemuxer() throws(FFmpegError) {
        let reopened = try FormatContext(
            reader: feed, name: playlistURL.absoluteString, interrupt: interrupt, probesStreams: false)
        reopened.setDiscard(keepingStreams: kept)
        format = reopened
        newExtradata = [:]
        for stream in kept {
            if let parameters = try? reopened.codecParameters(stream: stream, reportedIndex: stream) {
                newExtradata[stream] = parameters.extradata
            }
        }
    }

    /// Live: waits until the playlist's reload time and reloads it until it lists segments past the feed's, or ends.
    private func reloadForMore() throws(FFmpegError) -> Bool {
        guard playlist.isLive else { return false }
        while !isInterrupted() {
            let interval = lastReloadChanged ? playlist.targetDuration : playlist.targetDuration / 2
            let due = lastReload.addingTimeInterval(interval)
            while Date() < due {
                if isInterrupted() { throw FFmpegError.exit }
                Thread.sleep(forTimeInterval: min(0.05, max(0, due.timeIntervalSinceNow)))
            }
            guard
                case .media(let reloaded) = try HLSSource.load(
                    playlistURL, client: client, parser: parser, isInterrupted: isInterrupted)
            else {
                throw FFmpegError(
                    code: FFmpegError.invalidData.code,
                    function: "HLS: \(playlistURL.absoluteString) became a multivariant playlist")
            }
            lastReload = Date()
            let listedEnd = playlist.mediaSequence + playlist.segments.count
            let reloadedEnd = reloaded.mediaSequence + reloaded.segments.count
            lastReloadChanged = reloadedEnd != listedEnd || reloaded.hasEndList != playlist.hasEndList
            if lastReloadChanged {
                let removed = min(playlist.segments.count, max(0, reloaded.mediaSequence - playlist.mediaSequence))
                playlistStartMicroseconds += Int64((playlist.startOffset(ofSegment: removed) * 1e6).rounded())
                playlist = reloaded
                feed.replace(playlist: reloaded)
                onPlaylistChange?()
                if feed.nextIndex < reloaded.segments.count { return true }
            } else if reloaded.dateRanges != playlist.dateRanges {
                // Date ranges added or updated with no new segment still reach the source's readers.
                playlist.dateRanges = reloaded.dateRanges
                onPlaylistChange?()
            }
            if reloaded.hasEndList { return feed.nextIndex < reloaded.segments.count }
        }
        throw FFmpegError.exit
    }
}
