import CoreMedia
import FFmpegBridge
import Foundation
import PlaybackEngine

/// One media playlist being played — a variant, or an alternate audio rendition beside it: its segment feed, the
/// libavformat demuxer reading that feed, its reloads (live), and the packet read ahead so that ``HLSSource`` can
/// interleave several inputs by decoding time.
///
/// Threads: owned by the thread reading the source (see `MediaSource`).
final class HLSInput {
    /// Where the playlist is fetched from (the variant switched to, after an adaptive switch).
    private(set) var playlistURL: URL
    /// The input's first stream's index in the source's stream list (its own index 0 there; an audio rendition's
    /// input is moved so its audio stream is the rendition's).
    var streamOffset: Int
    private let client: HLSHTTPClient
    private let parser: HLSParser
    private let isInterrupted: () -> Bool
    private(set) var playlist: HLSMediaPlaylist
    let feed: SegmentFeed
    /// The demuxer opened first: its streams, time bases and codec parameters describe the input's streams.
    private(set) var format: FormatContext!
    /// The demuxer being read: ``format``, or one opened after a discontinuity or a seek (see
    /// `HLSInput+Discontinuity.swift`), whose packets are renumbered and re-timed into ``format``'s streams.
    var demuxer: FormatContext!
    /// For each of ``demuxer``'s streams, the stream of ``format`` it continues (nil: dropped); empty while
    /// ``demuxer`` is ``format``.
    var demuxerStreams: [Int?] = []
    /// The discontinuity sequence ``demuxer`` reads, and the microseconds added to its timestamps.
    var demuxerSequence = 0
    var demuxerOffset: Int64 = 0
    /// The offset of every discontinuity sequence met so far (the one playback started in: 0): the container
    /// timeline is the first one's, continued by the playlist's segment durations.
    var sequenceOffsets: [Int: Int64] = [:]
    /// How far the first demuxer's anchor (its first picture) lies after the start of the segment it was opened at.
    var anchorLead: Int64 = 0
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
    private(set) var kept: Set<Int> = []
    /// After a demuxer opened at a variant switch: the decoder configuration each kept stream's next packet carries.
    private var newExtradata: [Int: [UInt8]] = [:]
    /// Called on the reading thread after the playlist changed (an adaptive switch adopted another variant's).
    var onPlaylistChange: (() -> Void)?
    /// What hears of the live reloads (see ``startRefreshing(onChange:)``), kept to follow a variant switch.
    private var refreshChange: ((HLSPlaylistRefresher.Snapshot) -> Void)?
    /// Reloads a live playlist (nil: VOD, or not started); the playlist adopted from it last.
    private(set) var refresher: HLSPlaylistRefresher?
    private var adoptedGeneration = 0
    /// What other threads ask of the wait for a reload (give the thread back; reload nothing for now).
    var readControl = HLSReadControl()

    /// Seconds before the live edge playback starts at (nil: ``startIndex(of:liveOffset:)``'s default).
    let liveStartOffset: Double?

    /// What the reload schedule and the feed's retry back-off run on (the source's `SourceOptions.clock`); changed
    /// only before reloading starts (``HLSSource/adopt(clock:)``).
    var clock: MediaClock {
        didSet { feed.clock = clock }
    }

    /// The segment reading starts at.
    let startIndex: Int

    /// An input of `playlist` whose first stream is the source's `streamOffset`; reading starts at `startIndex`
    /// (nil: ``startIndex(of:liveOffset:)``'s); its reloads and retries wait on `clock`.
    init(
        playlist: HLSMediaPlaylist, streamOffset: Int, client: HLSHTTPClient, parser: HLSParser,
        liveStartOffset: Double? = nil, startIndex: Int? = nil, clock: MediaClock = .host,
        isInterrupted: @escaping () -> Bool
    ) {
        self.liveStartOffset = liveStartOffset
        self.clock = clock
        playlistURL = playlist.url
        self.playlist = playlist
        self.streamOffset = streamOffset
        self.client = client
        self.parser = parser
        self.isInterrupted = isInterrupted
        let start = min(
            max(0, startIndex ?? Self.startIndex(of: playlist, liveOffset: liveStartOffset)),
            playlist.segments.count - 1)
        self.startIndex = start
        feed = SegmentFeed(
            client: client, playlist: playlist, startIndex: start, clock: clock, isInterrupted: isInterrupted)
    }

    /// The time base each stream's packets are handed over in, where it is not the stream's own (an input opened
    /// after the source described its stream from another rendition's).
    var handedTimeBases: [Int: Rational] = [:]

    /// Gives each kept stream's next packet the decoder configuration of this input's demuxer, where it differs from
    /// `described` (the configuration the decoders were opened with, by stream): an input opened while playing.
    func attachDecoderConfiguration(differingFrom described: [Int: [UInt8]]) {
        for local in kept {
            guard let parameters = try? format.codecParameters(stream: local, reportedIndex: local + streamOffset),
                !parameters.extradata.isEmpty, parameters.extradata != described[local]
            else { continue }
            newExtradata[local] = parameters.extradata
        }
    }

    /// The flag that interrupts the demuxer's I/O.
    private(set) var interrupt = InterruptFlag()

    /// Opens the demuxer on the feed and probes it (reads the first segment's start).
    func open(interrupt: InterruptFlag) throws(FFmpegError) {
        self.interrupt = interrupt
        feed.waitForMoreSegments = { [unowned self] () throws(FFmpegError) -> Bool in try self.reloadForMore() }
        feed.onVariantSwitch = { [unowned self] switched, leftAt in self.adopt(switched, leftAt: leftAt) }
        let opened = try FormatContext(
            reader: feed, name: playlistURL.absoluteString, options: Self.probeOptions, interrupt: interrupt)
        format = opened
        demuxer = opened
        demuxerSequence = playlist.segments[startIndex].discontinuitySequence
        sequenceOffsets = [demuxerSequence: 0]
        firstReadMicroseconds = opened.info.startTimeMicroseconds ?? 0
        let skipped = playlist.startOffset(ofSegment: startIndex)
        playlistStartMicroseconds = firstReadMicroseconds - Int64((skipped * 1e6).rounded())
        anchorLead = (Self.anchorMicroseconds(of: opened) ?? firstReadMicroseconds) - firstReadMicroseconds
        kept = Set(0..<opened.streamCount)
    }

    /// How far the streams are probed: one second of media (libavformat reads 5 s of MPEG-TS by default, which is
    /// two or three segments fetched before the first picture; the first segment's start describes its streams).
    static let probeOptions = ["analyzeduration": "1000000"]

    /// Where playback of `playlist` starts: for live, the segment holding the time `liveOffset` seconds before the
    /// edge when given (`configuredTimeOffsetFromLive`); else `EXT-X-START` when given, else the first segment (VOD)
    /// or three target durations from the live edge (RFC 8216 §6.3.3).
    static func startIndex(of playlist: HLSMediaPlaylist, liveOffset: Double? = nil) -> Int {
        let segments = playlist.segments
        if playlist.isLive, let liveOffset, liveOffset.isFinite {
            let position = max(0, playlist.duration - max(0, liveOffset))
            return playlist.segmentIndex(containing: position) ?? max(0, segments.count - 1)
        }
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
    var feedFailure: FFmpegError? { feed.failure ?? reloadFailure }
    /// Why waiting for a live playlist to grow failed (a reload failed, or the playlist stopped updating).
    private var reloadFailure: FFmpegError?

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
        if let old = refresher, let onChange = refreshChange {
            // Live: reload the variant switched to from now on.
            old.stop()
            refresher = nil
            adoptedGeneration = 0
            startRefreshing(onChange: onChange)
        }
        onPlaylistChange?()
    }

    /// Whether any of the input's streams is read.
    var isActive: Bool { !kept.isEmpty }

    /// Reads `streams` (the input's own indices) only; an input with none is not read at all, so its segments are
    /// not fetched.
    func setDiscard(keeping streams: Set<Int>) {
        kept = streams
        demuxer.setDiscard(keepingStreams: demuxerKeptStreams)
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
                result = try demuxer.read(into: buffered)
            } catch {
                if error == FFmpegError.tryAgain {
                    // The feed gave the thread back while waiting for a reload, between whole segments.
                    demuxer.resumeAfterReaderYielded()
                    throw error
                }
                // The demuxer passes on only the code; the feed knows which request failed.
                throw feedFailure ?? error
            }
            switch result {
            case .endOfFile:
                if feed.isHeldAtSwitch {
                    // Fragmented MP4 after a switch: a new demuxer on the new variant's init section and segments;
                    // the decoders get the new decoder configuration with each stream's first packet.
                    feed.resumeAfterSwitch()
                    try openSwitchedDemuxer(at: feed.nextIndex)
                    continue
                }
                if feed.isHeldAtDiscontinuity {
                    try openDemuxer(at: feed.nextIndex, probing: true)
                    continue
                }
                isExhausted = true
                return
            case .packet:
                guard rebase(buffered), kept.contains(buffered.streamIndex) else { continue }
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
        if let handed = handedTimeBases[packet.streamIndex], let own = format.timeBase(ofStream: packet.streamIndex),
            handed != own
        {
            packet.retime(from: own, to: handed, adding: 0)
        }
        packet.streamIndex += streamOffset
        hasLookahead = false
    }

    /// Restarts the feed at the segment holding `microseconds` (container time). MPEG-TS continues on the same
    /// demuxer (it drops what it had half assembled when the position jumps); fragmented MP4 gets a new demuxer on
    /// the init section and the segment, since the MP4 demuxer keeps reading the samples of the fragment it indexed;
    /// a segment of another discontinuity sequence gets a new, probing demuxer.
    func seek(toMicroseconds microseconds: Int64) throws(FFmpegError) {
        let seconds = Double(microseconds - playlistStartMicroseconds) / 1e6
        let index =
            seconds <= 0 ? 0 : (playlist.segmentIndex(containing: seconds) ?? max(0, playlist.segments.count - 1))
        feed.restart(at: index)
        // The feed may have chosen another variant for it (``playlist`` is then that variant's).
        let restarted = feed.nextIndex
        if playlist.segments[restarted].discontinuitySequence != demuxerSequence {
            try openDemuxer(at: restarted, probing: true)
        } else if demuxer.formatName.hasPrefix("mov") {
            try openSwitchedDemuxer(at: restarted)
        } else {
            demuxer.discardBufferedInput()
        }
        buffered.unref()
        hasLookahead = false
        isExhausted = false
    }

    /// A new demuxer on the feed for fragmented MP4 (after a seek or a variant switch), reading the streams kept
    /// without probing; the decoders get its decoder configuration (the init section's, which differs between
    /// variants) with each stream's next packet.
    private func openSwitchedDemuxer(at index: Int) throws(FFmpegError) {
        try openDemuxer(at: index, probing: false)
        newExtradata = [:]
        for (local, target) in demuxerStreams.enumerated() {
            guard let target, kept.contains(target),
                let parameters = try? demuxer.codecParameters(stream: local, reportedIndex: target)
            else { continue }
            newExtradata[target] = parameters.extradata
        }
    }

    /// Live: waits for the refresher to list segments past the feed's (adopting each newer playlist), or the end.
    /// A wake request (a seek) ends the wait with `FFmpegError.tryAgain`; a failed reload ends it with its error;
    /// each ends it at once (the wait is woken, it does not poll: ``HLSPlaylistRefresher/waitForChange(after:unless:)``).
    private func reloadForMore() throws(FFmpegError) -> Bool {
        guard playlist.isLive, let refresher else { return false }
        while true {
            if isInterrupted() { throw FFmpegError.exit }
            if readControl.takeWake() { throw FFmpegError.tryAgain }
            let state = refresher.state
            let latest = state.snapshot
            if latest.generation != adoptedGeneration {
                adoptedGeneration = latest.generation
                playlist = latest.playlist
                playlistStartMicroseconds = latest.startMicroseconds
                feed.replace(playlist: latest.playlist)
                if feed.nextIndex < latest.playlist.segments.count { return true }
            }
            if latest.playlist.hasEndList { return false }
            if let failure = state.failure {
                // The demuxer passes on only the code: keep the text for ``feedFailure``.
                reloadFailure = failure
                throw failure
            }
            refresher.waitForChange(after: state.changes) { [isInterrupted, readControl] in
                isInterrupted() || readControl.isWakeRequested
            }
        }
    }

    /// Starts reloading a live playlist on its own thread (see ``HLSPlaylistRefresher``); `onChange` hears of each
    /// change there.
    func startRefreshing(onChange: @escaping (HLSPlaylistRefresher.Snapshot) -> Void) {
        guard playlist.isLive, refresher == nil else { return }
        refreshChange = onChange
        let refresher = HLSPlaylistRefresher(
            url: playlistURL, playlist: playlist, startMicroseconds: playlistStartMicroseconds, client: client,
            parser: parser, control: readControl, clock: clock, isInterrupted: isInterrupted, onChange: onChange)
        self.refresher = refresher
        refresher.start()
    }

    deinit {
        refresher?.stop()
    }

    /// Tags found by the feed's ``SegmentFeed/eventScanner`` whose discontinuity sequence has no offset yet (its
    /// demuxer is not open), the latest ``maximumUnplacedEvents`` of them.
    private var unplacedEvents: [EmsgID3Scanner.Event] = []
    static let maximumUnplacedEvents = 256

    /// The ID3 tags of `emsg` boxes the feed delivered since the last call, in container time: the scanner's time on
    /// the demuxer's timeline plus the offset of the segment's discontinuity sequence (see
    /// `HLSInput+Discontinuity.swift`). Cheap when there are none: the demux thread asks after every packet.
    func takeTimedMetadata() -> [SourceTimedMetadata] {
        guard feed.eventScanner != nil else { return [] }
        let events = feed.eventScanner?.takeEvents() ?? []
        guard !events.isEmpty || !unplacedEvents.isEmpty else { return [] }
        var placed: [SourceTimedMetadata] = []
        var unplaced: [EmsgID3Scanner.Event] = []
        for event in unplacedEvents + events {
            guard let offset = sequenceOffsets[event.discontinuitySequence] else {
                unplaced.append(event)
                continue
            }
            let (microseconds, overflow) = Int64((event.seconds * 1e6).rounded()).addingReportingOverflow(offset)
            guard !overflow else { continue }
            placed.append(SourceTimedMetadata(bytes: event.payload, time: CMTime(microseconds: microseconds)))
        }
        // (A sequence's offset is set as soon as its demuxer opens on its first bytes; the cap only bounds a stream
        // whose demuxer never opens.)
        unplacedEvents = unplaced.suffix(Self.maximumUnplacedEvents)
        return placed
    }
}
