import CoreMedia
import FFmpegBridge
import Foundation
import PlaybackEngine

/// Reads one WebVTT subtitle rendition of an ``HLSSource`` from its first segment to its last, for the engine's
/// `SubtitleTrackReader` (which reads a selected subtitle stream ahead of playback): only that rendition's playlist
/// and segments are fetched. Each segment is demuxed on its own by libavformat's `webvtt` demuxer and its cue times
/// moved by its `X-TIMESTAMP-MAP` onto the variant's MPEG-TS timeline (``HLSSubtitleRendition``).
///
/// The stream list is the played source's, so stream indices agree; only the rendition's stream gives packets. The
/// requests go through the played source's HTTP client, so they are in the item's access log (and end when it is
/// closed); interrupting this source ends only its own. A live (or event) rendition is reloaded like the media
/// playlists (an ``HLSPlaylistRefresher``, with the played source's ``HLSReadControl``, so it pauses its reloads
/// with them): once the reader has read what its playlist lists, it waits for the segments a reload adds (followed by
/// media sequence number) until `EXT-X-ENDLIST` or an interruption. Threads: as ``MediaSource`` says.
final class HLSSubtitleSource: MediaSource, @unchecked Sendable {
    /// At most this many bytes of one WebVTT segment are read.
    static let maximumSegmentBytes = 4 << 20

    private let rendition: HLSSubtitleRendition
    private let streams: MediaInfo
    private let sourceOptions: SourceOptions
    private let client: HLSHTTPClient
    private let parser = HLSParser()
    private let interruptFlag = InterruptFlag()
    /// The played source's: whether live reloads are suspended now.
    private let readControl: HLSReadControl
    /// Set by ``open()``; then owned by the reading thread.
    private var playlist: HLSMediaPlaylist?
    /// Reloads a live rendition's playlist (nil: VOD); the generation of its snapshot adopted last.
    private var refresher: HLSPlaylistRefresher?
    private var adoptedGeneration = 0
    private var description: FormatContext?
    /// The segment being demuxed, and the microseconds added to its cue times.
    private var segment: (format: FormatContext, offset: Int64)?
    private var nextIndex = 0
    private var delivered: Int64 = 0
    private var ended = false

    /// A source reading `rendition`, whose stream is one of `streams` (the played source's list), through `client`
    /// (the played source's).
    init(
        rendition: HLSSubtitleRendition, streams: MediaInfo, sourceOptions: SourceOptions, client: HLSHTTPClient,
        readControl: HLSReadControl? = nil
    ) {
        self.rendition = rendition
        self.streams = streams
        self.sourceOptions = sourceOptions
        self.client = client
        // (The played source's; its own otherwise, waking the waits of `client`'s transfers.)
        self.readControl = readControl ?? HLSReadControl(wakers: client.wakers)
    }

    deinit {
        refresher?.stop()
    }

    var isLocal: Bool { false }

    func open() throws(FFmpegError) {
        guard playlist == nil else { return }
        if interruptFlag.isAborted { throw FFmpegError.exit }
        description = try HLSSubtitleRendition.describingContext()
        guard
            case .media(let media) = try HLSSource.load(
                rendition.uri, client: client, parser: parser,
                isInterrupted: { [interruptFlag] in interruptFlag.isAborted })
        else {
            throw FFmpegError(
                code: FFmpegError.invalidData.code,
                function: "HLS: the subtitle rendition \(rendition.uri.absoluteString) is not a media playlist")
        }
        playlist = media
        if media.isLive {
            let refresher = HLSPlaylistRefresher(
                url: media.url, playlist: media, startMicroseconds: 0, client: client, parser: parser,
                control: readControl, clock: sourceOptions.clock,
                isInterrupted: { [interruptFlag] in interruptFlag.isAborted }, onChange: { _ in })
            self.refresher = refresher
            refresher.start()
        }
    }

    /// Live: waits until a reload lists segments past those read (adopting it: reading goes on at the segment whose
    /// media sequence number follows the last read) — true — or the playlist ended — false. Throws `exit` once
    /// interrupted.
    private func waitForMoreSegments() throws(FFmpegError) -> Bool {
        guard let refresher, var playlist else { return false }
        while true {
            if interruptFlag.isAborted { throw FFmpegError.exit }
            let state = refresher.state
            let latest = state.snapshot
            if latest.generation != adoptedGeneration {
                adoptedGeneration = latest.generation
                let nextSequence = playlist.mediaSequence + nextIndex
                playlist = latest.playlist
                self.playlist = playlist
                nextIndex = max(0, nextSequence - playlist.mediaSequence)
                if nextIndex < playlist.segments.count { return true }
            }
            if playlist.hasEndList { return false }
            // (A playlist that stopped updating loses its later cues, not the item: it is waited for until the end.)
            // Woken by a change, or by ``interrupt()`` at once.
            refresher.waitForChange(after: state.changes) { [interruptFlag] in interruptFlag.isAborted }
        }
    }

    var info: MediaInfo { streams }
    var isSeekable: Bool { false }
    var isLive: Bool { playlist?.isLive ?? false }
    var seekableRange: CMTimeRange? { nil }

    func codecParameters(stream index: Int) throws(FFmpegError) -> CodecParameters {
        guard index == rendition.stream.index, let description else { throw FFmpegError.streamNotFound }
        return try description.codecParameters(stream: 0, reportedIndex: index)
    }

    func kind(ofStream index: Int) -> StreamKind {
        index == rendition.stream.index ? .subtitle : .unknown
    }

    func timeBase(ofStream index: Int) -> Rational? {
        index == rendition.stream.index ? HLSSubtitleRendition.timeBase : nil
    }

    func setDiscard(keepingStreams streams: Set<Int>) {}

    /// The next cue of the rendition, in segment order.
    func read(into packet: Packet) throws(FFmpegError) -> ReadResult {
        while true {
            if interruptFlag.isAborted { throw FFmpegError.exit }
            if let (format, offset) = segment {
                if case .packet = try format.read(into: packet), let timeBase = format.timeBase(ofStream: 0) {
                    let target = HLSSubtitleRendition.timeBase
                    packet.retime(
                        from: timeBase, to: target,
                        adding: Rational.rescale(offset, from: Rational(1, 1_000_000), to: target))
                    packet.streamIndex = rendition.stream.index
                    return .packet
                }
                segment = nil
                continue
            }
            if let current = playlist, nextIndex >= current.segments.count, try waitForMoreSegments() {
                continue
            }
            guard let playlist, nextIndex < playlist.segments.count else {
                ended = true
                return .endOfFile
            }
            let next = playlist.segments[nextIndex]
            nextIndex += 1
            if next.isGap { continue }
            let stream = client.start(
                next.uri, kind: .media, mediaDuration: next.duration, content: .subtitleRendition)
            let data: Data
            do {
                data = try stream.readAll(
                    limit: Self.maximumSegmentBytes, isInterrupted: { [interruptFlag] in interruptFlag.isAborted })
            } catch {
                // A segment that cannot be fetched loses its cues, not the rendition.
                if error == FFmpegError.exit || interruptFlag.isAborted { throw FFmpegError.exit }
                continue
            }
            delivered += Int64(data.count)
            // A segment the demuxer cannot read loses its cues, not the rendition.
            guard
                let format = try? FormatContext(
                    reader: DataReader(data), name: next.uri.absoluteString, formatName: "webvtt",
                    interrupt: interruptFlag, probesStreams: false), format.streamCount > 0
            else { continue }
            segment = (format, HLSSubtitleRendition.timestampOffset(ofSegment: data))
        }
    }

    func attachedPicture(stream index: Int) -> Packet? { nil }
    var isAtEndOfInput: Bool { ended }
    var ioError: FFmpegError? { nil }
    var bytesRead: Int64 { delivered }

    /// Not seekable: the reader reads from start to end.
    func seek(toMicroseconds microseconds: Int64, minimum: Int64, maximum: Int64) throws(FFmpegError) {}

    func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?) {
        (nil, nil)
    }

    /// Ends this source's reading, not the played source's: its waits (for a reload, for a transfer's bytes) are
    /// woken and see the flag at once.
    func interrupt() {
        // (The refresher, reading the same flag, ends with it.)
        interruptFlag.abort()
        readControl.wakeWaiters()
    }

    var isInterrupted: Bool { interruptFlag.isAborted }

    func makeIndependentSource() -> any MediaSource {
        HLSSubtitleSource(
            rendition: rendition, streams: streams, sourceOptions: sourceOptions, client: client,
            readControl: readControl)
    }
}
