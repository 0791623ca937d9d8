import CoreMedia
import FFmpegBridge
import Foundation
import PlaybackEngine

/// A ``MediaSource`` for an HTTP Live Streaming presentation (RFC 8216): fetches the playlists itself, plays one
/// variant, and feeds that variant's segments to libavformat through a custom I/O context (``SegmentFeed``), so the
/// engine sees one continuous input whose seeks land on segment boundaries.
///
/// - VOD (`EXT-X-ENDLIST`): the duration is the playlist's; seeking restarts the feed at the segment holding the
///   target (the ``Demuxer`` backs off if the keyframe found there is late, as it does for MPEG-TS files).
/// - Live and event: the playlist is reloaded when the feed has read its last segment (every target duration, half
///   of it after an unchanged reload, as RFC 8216 §6.3.4 says), playback starts three target durations from the
///   live edge (or at `EXT-X-START`), and the seekable range is the playlist's window.
///
/// Which variant: the first listed (adaptive choice belongs to a later layer). Threads: as ``MediaSource`` says;
/// ``interrupt()`` ends every transfer from any thread.
package final class HLSSource: MediaSource, @unchecked Sendable {
    /// The presentation's URL (a multivariant or a media playlist).
    package let url: URL
    package let sourceOptions: SourceOptions
    private let cancellation: Cancellation
    private let interruptFlag = InterruptFlag()
    private let client: HLSHTTPClient
    private let parser = HLSParser()
    /// Set by ``open()``; then owned by the reading thread.
    private var format: FormatContext?
    private var feed: SegmentFeed?
    private var openedInfo: MediaInfo?
    /// The multivariant playlist, when the URL named one.
    private(set) var multivariant: HLSMultivariantPlaylist?
    /// The variant being played (nil when the URL named a media playlist).
    private(set) var variant: HLSVariant?
    /// The media playlist being played, as last loaded.
    private(set) var mediaPlaylist: HLSMediaPlaylist?
    /// Container time (microseconds) of the start of the playlist's first listed segment.
    private var playlistStartMicroseconds: Int64 = 0
    /// Guards what callers on any thread read: the date mapping and the live window.
    private let publishLock = NSLock()
    private var publishedDateMapping: DateMapping?
    private var publishedLiveWindow: CMTimeRange?
    /// When the media playlist was last loaded, and whether that reload changed it (live).
    private var lastReload = Date()
    private var lastReloadChanged = true

    /// A source for the presentation at `url`.
    package init(url: URL, sourceOptions: SourceOptions = SourceOptions(), cancellation: Cancellation = Cancellation())
    {
        self.url = url
        self.sourceOptions = sourceOptions
        self.cancellation = cancellation
        client = HLSHTTPClient(options: sourceOptions)
    }

    deinit {
        client.invalidate()
    }

    /// Whether `url` names an HLS playlist (by its path extension, as Apple's players also decide when no MIME type is
    /// known).
    package static func handles(_ url: URL) -> Bool {
        let ext = url.pathExtension.lowercased()
        return ext == "m3u8" || ext == "m3u"
    }

    private var isInterruptedNow: Bool { interruptFlag.isAborted || cancellation.isCancelled }

    package var isLocal: Bool { url.isFileURL }

    package func open() throws(FFmpegError) {
        guard format == nil else { return }
        if isInterruptedNow { throw FFmpegError.exit }
        var playlist: HLSMediaPlaylist
        switch try load(url) {
        case .media(let media):
            playlist = media
        case .multivariant(let presentation):
            multivariant = presentation
            guard let chosen = presentation.variants.first(where: { !$0.isIFrameOnly }) else {
                throw FFmpegError(
                    code: FFmpegError.invalidData.code, function: "HLS: \(url.absoluteString) lists no variant")
            }
            variant = chosen
            guard case .media(let media) = try load(chosen.uri) else {
                throw FFmpegError(
                    code: FFmpegError.invalidData.code,
                    function: "HLS: the variant \(chosen.uri.absoluteString) is not a media playlist")
            }
            playlist = media
        }
        guard !playlist.segments.isEmpty else {
            throw FFmpegError(
                code: FFmpegError.invalidData.code, function: "HLS: \(playlist.url.absoluteString) lists no segment")
        }
        mediaPlaylist = playlist
        let feed = SegmentFeed(
            client: client, playlist: playlist, startIndex: Self.startIndex(of: playlist),
            isInterrupted: { [interruptFlag, cancellation] in interruptFlag.isAborted || cancellation.isCancelled })
        feed.waitForMoreSegments = { [unowned self] () throws(FFmpegError) -> Bool in try self.reloadForMore() }
        self.feed = feed
        let opened = try FormatContext(reader: feed, name: playlist.url.absoluteString, interrupt: interruptFlag)
        format = opened
        var info = opened.info
        // Item time zero is where the first segment read starts; the playlist's first segment starts before it by
        // the durations of the segments skipped (a live start).
        let firstRead = info.startTimeMicroseconds ?? 0
        let skipped = playlist.startOffset(ofSegment: Self.startIndex(of: playlist))
        playlistStartMicroseconds = firstRead - Int64((skipped * 1e6).rounded())
        info.startTimeMicroseconds = firstRead
        info.durationMicroseconds = playlist.isLive ? nil : Int64((playlist.duration * 1e6).rounded())
        info.durationFromBitrate = false
        info.byteSize = nil
        if let variant { info.bitRate = Int64(variant.bandwidth) }
        openedInfo = info
        lastReload = Date()
        publish(playlist)
    }

    package var dateMapping: DateMapping? { publishLock.withLock { publishedDateMapping } }

    package var liveWindow: CMTimeRange? { publishLock.withLock { publishedLiveWindow } }

    /// Publishes what `playlist` says for readers on other threads: every segment's program date time at the
    /// container time its segment starts, and (live) the window.
    private func publish(_ playlist: HLSMediaPlaylist) {
        let start = Double(playlistStartMicroseconds) / 1e6
        let anchors = playlist.segments.indices.compactMap { index in
            playlist.segments[index].programDateTime.map { (start + playlist.startOffset(ofSegment: index), $0) }
        }
        let mapping = DateMapping(anchors: anchors)
        let window = playlist.isLive ? Self.window(of: playlist, startingAt: playlistStartMicroseconds) : nil
        publishLock.withLock {
            publishedDateMapping = mapping
            publishedLiveWindow = window
        }
    }

    /// The container-time range `playlist` covers when its first segment starts at `start` microseconds.
    private static func window(of playlist: HLSMediaPlaylist, startingAt start: Int64) -> CMTimeRange {
        CMTimeRange(
            start: CMTime(microseconds: start),
            duration: CMTime(seconds: playlist.duration, preferredTimescale: 1_000_000))
    }

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

    /// Fetches and parses the playlist at `url`.
    private func load(_ url: URL) throws(FFmpegError) -> HLSPlaylist {
        let (data, finalURL) = try client.fetch(
            url, limit: parser.limits.maxBytes, isInterrupted: { [self] in isInterruptedNow })
        do {
            return try parser.parse(data, url: finalURL)
        } catch {
            throw FFmpegError(code: FFmpegError.invalidData.code, function: "HLS: \(finalURL.absoluteString): \(error)")
        }
    }

    /// Live: waits until the playlist's reload time and reloads it until it lists segments past the feed's, or ends.
    private func reloadForMore() throws(FFmpegError) -> Bool {
        guard let playlist = mediaPlaylist, playlist.isLive, let feed else { return false }
        while !isInterruptedNow {
            let interval = lastReloadChanged ? playlist.targetDuration : playlist.targetDuration / 2
            let due = lastReload.addingTimeInterval(interval)
            while Date() < due {
                if isInterruptedNow { throw FFmpegError.exit }
                Thread.sleep(forTimeInterval: min(0.05, max(0, due.timeIntervalSinceNow)))
            }
            guard case .media(let reloaded) = try load(playlist.url) else {
                throw FFmpegError(
                    code: FFmpegError.invalidData.code,
                    function: "HLS: \(playlist.url.absoluteString) became a multivariant playlist")
            }
            lastReload = Date()
            let lastSequence = playlist.mediaSequence + playlist.segments.count
            let reloadedEnd = reloaded.mediaSequence + reloaded.segments.count
            lastReloadChanged = reloadedEnd != lastSequence || reloaded.hasEndList != playlist.hasEndList
            if lastReloadChanged {
                playlistStartMicroseconds += Int64(
                    (playlist.startOffset(
                        ofSegment: min(playlist.segments.count, max(0, reloaded.mediaSequence - playlist.mediaSequence))
                    ) * 1e6)
                    .rounded())
                mediaPlaylist = reloaded
                feed.replace(playlist: reloaded)
                publish(reloaded)
                if feed.nextIndex < reloaded.segments.count { return true }
            }
            if reloaded.hasEndList { return feed.nextIndex < reloaded.segments.count }
        }
        throw FFmpegError.exit
    }

    private var opened: FormatContext {
        guard let format else { preconditionFailure("HLSSource used before open()") }
        return format
    }

    package var info: MediaInfo {
        guard let openedInfo else { preconditionFailure("HLSSource used before open()") }
        return openedInfo
    }

    package var isLive: Bool { mediaPlaylist?.isLive ?? false }

    package var isSeekable: Bool { mediaPlaylist != nil }

    package var seekableRange: CMTimeRange? {
        mediaPlaylist.map { Self.window(of: $0, startingAt: playlistStartMicroseconds) }
    }

    package func codecParameters(stream index: Int) throws(FFmpegError) -> CodecParameters {
        try opened.codecParameters(stream: index)
    }

    package func kind(ofStream index: Int) -> StreamKind { opened.kind(ofStream: index) }

    package func timeBase(ofStream index: Int) -> Rational? { opened.timeBase(ofStream: index) }

    package func setDiscard(keepingStreams streams: Set<Int>) { opened.setDiscard(keepingStreams: streams) }

    package func read(into packet: Packet) throws(FFmpegError) -> ReadResult { try opened.read(into: packet) }

    package func attachedPicture(stream index: Int) -> Packet? { nil }

    package var isAtEndOfInput: Bool { opened.isAtEndOfInput }

    package var ioError: FFmpegError? { opened.ioError }

    package var bytesRead: Int64 { feed?.bytesDelivered ?? 0 }

    /// Restarts the feed at the segment holding `microseconds` (container time); segments begin with a keyframe
    /// (`EXT-X-INDEPENDENT-SEGMENTS`, or closed GOPs as encoders write them for HLS).
    package func seek(toMicroseconds microseconds: Int64, minimum: Int64, maximum: Int64) throws(FFmpegError) {
        guard let playlist = mediaPlaylist, let feed else { throw FFmpegError.exit }
        let seconds = Double(microseconds - playlistStartMicroseconds) / 1e6
        let index =
            seconds <= 0 ? 0 : (playlist.segmentIndex(containing: seconds) ?? max(0, playlist.segments.count - 1))
        feed.restart(at: index)
        opened.discardBufferedInput()
    }

    /// No index: segment boundaries are the only keyframes known ahead of reading.
    package func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?) {
        (nil, nil)
    }

    package func interrupt() {
        interruptFlag.abort()
        cancellation.cancel()
        client.invalidate()
    }

    package var isInterrupted: Bool { isInterruptedNow }

    package func makeIndependentSource() -> any MediaSource {
        HLSSource(url: url, sourceOptions: sourceOptions)
    }
}
