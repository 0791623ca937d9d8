import CoreMedia

/// The buffering policy (Media3's `LoadControl`): when playback has run dry, when a stall may end, and what the
/// item's buffering state is (`loadedTimeRanges`, `isPlaybackLikelyToKeepUp`, `isPlaybackBufferFull/Empty`).
///
/// Engine thread only.
final class LoadControl {
    /// Media buffered ahead of the playhead that ends a stall (seconds; Media3 waits 2 s after a rebuffer). A
    /// preferred forward buffer duration shorter than this lowers it.
    static let resumeAfterStall = 2.0
    /// Media buffered ahead before a network source starts or resumes (seconds): about one 2 s segment (the
    /// shortest HLS segments commonly served), so that on a link only a little faster than the media the next one
    /// arrives before the first is played out; a hair under 2 s, so that one whole segment is enough.
    static let startAhead = 1.9
    /// Media buffered ahead that makes playback likely to keep up (seconds; as ``resumeAfterStall``).
    static let likelyToKeepUpAhead = 2.0
    /// Media buffered ahead that counts as a full buffer (seconds; the demuxer's default read-ahead cap).
    static let fullAhead = 10.0
    /// Loaded ranges move with the playhead: a change of their end is published only beyond this (seconds).
    static let publishedEndGranularity = 0.5

    /// Whether playback waits for data after running dry (or before it starts).
    private(set) var isStalled = false
    /// Whether that wait is one before the start (``waitToStart()``), which ends at ``startAhead``.
    private var isWaitingToStart = false
    /// Stalls so far.
    private(set) var stalls = 0

    /// Whether playback of `session` ran out of data: nothing decoded, nothing demuxed, input not at its end (a local
    /// source never gets here: its demuxer is far ahead). `audioPlayed`: whether audio is heard (it is the master).
    func isStarving(_ session: ItemSession, audioPlayed: Bool, renderer: AudioRenderer) -> Bool {
        if session.isAtEndOfFile { return false }
        if session.hasAudio && audioPlayed {
            return renderer.availableFrames == 0 && !session.isAudioDecoderFinished
                && (session.audioPackets?.count ?? 0) == 0
        }
        if session.hasVideo {
            return (session.videoFrames?.count ?? 0) == 0 && !session.isVideoDecoderFinished
                && (session.videoPackets?.count ?? 0) == 0
        }
        return false
    }

    /// Playback ran dry.
    func enterStall() {
        isStalled = true
        isWaitingToStart = false
        stalls += 1
    }

    /// Whether playback of a network source at `playhead` should wait before it starts (or resumes): less than
    /// ``startAhead`` is buffered (or the preferred forward buffer, when shorter), the input goes on, and `waits`.
    func shouldWaitToStart(_ session: ItemSession, playhead: CMTime, waits: Bool) -> Bool {
        guard waits, !session.isAtEndOfFile else { return false }
        let ahead = (session.bufferedEnd.map { ($0 - playhead).seconds }) ?? 0
        let preferred = session.descriptor.forwardBufferDuration.flatMap { $0 > 0 ? $0 : nil }
        return ahead < min(Self.startAhead, preferred ?? Self.startAhead)
    }

    /// Playback of a network source is about to start (or resume) with too little buffered
    /// (``shouldWaitToStart(_:playhead:waits:)``): it waits as a stall does, without counting one (Apple's player
    /// waits until playback is likely to keep up); it starts once ``shouldResume(_:playhead:waits:)`` says so.
    func waitToStart() {
        isStalled = true
        isWaitingToStart = true
    }

    /// The stall is over (or playback stopped, or the item changed).
    func clearStall() {
        isStalled = false
        isWaitingToStart = false
    }

    /// While stalled at `playhead`: whether playback may resume (enough buffered, the input ended, or `waits` is
    /// off).
    func shouldResume(_ session: ItemSession, playhead: CMTime, waits: Bool) -> Bool {
        let ahead = (session.bufferedEnd.map { ($0 - playhead).seconds }) ?? 0
        let preferred = session.descriptor.forwardBufferDuration.flatMap { $0 > 0 ? $0 : nil }
        let wanted = isWaitingToStart ? Self.startAhead : Self.resumeAfterStall
        let needed = min(wanted, preferred ?? wanted)
        return session.isAtEndOfFile || ahead >= needed || !waits
    }

    /// The buffering state of `session` at `playhead`.
    func bufferState(_ session: ItemSession, playhead t: CMTime) -> BufferState {
        let end = session.bufferedEnd
        let eof = session.isAtEndOfFile
        var loaded: CMTimeRange?
        if let end, end > t { loaded = CMTimeRange(start: t, end: end) }
        let ahead = end.map { ($0 - t).seconds } ?? 0
        // While stalled everything buffered has been consumed (Apple: "playback will stall or end").
        return BufferState(
            loaded: loaded, isEmpty: isStalled || (!eof && ahead <= 0), isFull: eof || ahead >= Self.fullAhead,
            isLikelyToKeepUp: !isStalled && (eof || ahead >= Self.likelyToKeepUpAhead || session.isLocal),
            liveWindow: session.isLive ? session.seekableRange : nil)
    }

    /// Whether `new` differs enough from what was published (`old`) to publish it.
    static func isWorthPublishing(_ new: BufferState, over old: BufferState?) -> Bool {
        old?.isEmpty != new.isEmpty || old?.isFull != new.isFull || old?.isLikelyToKeepUp != new.isLikelyToKeepUp
            || abs((old?.loaded?.end.seconds ?? -1) - (new.loaded?.end.seconds ?? -1)) > Self.publishedEndGranularity
            || old?.liveWindow != new.liveWindow
    }
}
