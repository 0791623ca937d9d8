import CoreMedia
import FFmpegBridge

/// Where an item's media comes from (DESIGN's `Source`; mpv's `demuxer_desc`: open, read a packet, seek, close). The
/// engine's ``Demuxer`` thread drives one: it opens it, reads packets into the streams' queues, seeks it, and
/// reports its end and its errors; the decoders get their parameters from it.
///
/// Kinds: ``FFmpegSource`` (files and progressive HTTP through libavformat); an HTTP Live Streaming source (its own
/// playlist and segment logic, segments demuxed through libavformat) implements the same protocol.
///
/// Threads: ``open()`` and every reading member belong to one thread at a time — the preparation thread while it
/// opens, then the demux thread (the ``Demuxer`` owns the source between `start` and `stop`). ``interrupt()``,
/// ``isLocal`` and ``makeIndependentSource()`` may be used from any thread.
package protocol MediaSource: AnyObject, Sendable {
    /// Whether the media is on this machine (a file): reading it never waits for a network.
    var isLocal: Bool { get }

    /// Opens the input and probes its streams. Blocking; throws what prevented it (``interrupt()`` makes it throw
    /// `FFmpegError.exit`).
    func open() throws(FFmpegError)

    /// What the input holds, as ``open()`` probed it: its streams, timing, metadata.
    var info: MediaInfo { get }

    /// Whether the media can be seeked (an index, or a length to search in); after ``open()``.
    var isSeekable: Bool { get }

    /// Whether the media is live (still growing, no fixed end); after ``open()``.
    var isLive: Bool { get }

    /// The container-time range that can be seeked to (nil when nothing can be); after ``open()``.
    var seekableRange: CMTimeRange? { get }

    /// The decoder parameters of stream `index`.
    func codecParameters(stream index: Int) throws(FFmpegError) -> CodecParameters

    /// Stream `index`'s kind (`.unknown` out of range).
    func kind(ofStream index: Int) -> StreamKind

    /// Stream `index`'s time base (nil out of range).
    func timeBase(ofStream index: Int) -> Rational?

    /// Reads only `streams`; packets of other streams are discarded inside the source.
    func setDiscard(keepingStreams streams: Set<Int>)

    /// Reads the next packet into `packet`.
    func read(into packet: Packet) throws(FFmpegError) -> ReadResult

    /// A new reference to stream `index`'s attached picture (cover art), nil when it is not one.
    func attachedPicture(stream index: Int) -> Packet?

    /// Whether reading reached the end of the input.
    var isAtEndOfInput: Bool { get }

    /// The I/O layer's sticky error, if reading failed below the demuxer.
    var ioError: FFmpegError? { get }

    /// Bytes read from the input so far.
    var bytesRead: Int64 { get }

    /// Repositions at `microseconds` (container time) within `[minimum, maximum]` (`avformat_seek_file` semantics:
    /// by default a keyframe at or before the target).
    func seek(toMicroseconds microseconds: Int64, minimum: Int64, maximum: Int64) throws(FFmpegError)

    /// The index's keyframe timestamps (stream time base) at or before and after `timestamp`; nil where unknown.
    func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?)

    /// Makes a blocked or later read, open or seek return `FFmpegError.exit`, for good. Any thread.
    func interrupt()

    /// Whether ``interrupt()`` was called.
    var isInterrupted: Bool { get }

    /// Another, unopened source for the same media with the same options (reverse play reads its own). Any thread.
    func makeIndependentSource() -> any MediaSource

    /// An unopened source that reads subtitle stream `index` (container index) ahead of playback for a
    /// ``SubtitleTrackReader``, with the same stream list; nil when that would read the whole input a second time
    /// over the network. Any thread.
    func makeSubtitleSource(stream index: Int) -> (any MediaSource)?

    /// How container times map to dates (HLS program date time), as last known; nil for media without dates (files).
    /// Any thread.
    var dateMapping: DateMapping? { get }

    /// For live media, the container-time range that can be seeked to now (the playlist's window, moving as it is
    /// reloaded); nil for media whose seekable range is fixed at open (``seekableRange``). Any thread.
    var liveWindow: CMTimeRange? { get }

    /// Makes a read that waits for media to be published (a live playlist's reload) give up that wait and throw
    /// `FFmpegError.tryAgain`, so that the demux thread can act on a request (a seek) at once; a read that is not
    /// waiting is not disturbed beyond, at most, one such early return. Any thread.
    func wakeBlockedRead()

    /// Whether a read that ``wakeBlockedRead()`` gave back may have stopped within a packet (a custom input's bytes
    /// were awaited mid-packet): the demuxer's state then holds part of a packet, so the seek that follows is
    /// performed, never continued without seeking. Any thread.
    var yieldsWithinPackets: Bool { get }

    /// Whether the source's reading thread waits now for input that has not arrived (for HLS: a segment's bytes, a
    /// playlist's change, a retry's back-off), so that nothing it has received is still on its way to the demuxer's
    /// queues. A manual virtual clock stalls a network item only then (``VirtualStepper``). Any thread; true for
    /// sources that cannot tell (libavformat does their I/O).
    var isWaitingForInput: Bool { get }

    /// Whether a live source may use the network only for what is already listed: while true its playlists are not
    /// reloaded (a paused item that may not use the network, `canUseNetworkResourcesForLiveStreamingWhilePaused`).
    /// Any thread.
    func setLiveReloadsSuspended(_ suspended: Bool)

    /// For live media, the playlist's target duration in seconds (HLS `EXT-X-TARGETDURATION`): the unit of its
    /// reloads and of how far from the live edge playback starts; nil otherwise. Any thread.
    var liveTargetDuration: Double? { get }

    /// The variants a streamed presentation offers (HLS), in playlist order; empty for a single rendition (files).
    /// After ``open()``.
    var variants: [VariantDescription] { get }

    /// The closed-caption services the presentation announces in its video (HLS `CLOSED-CAPTIONS` renditions), in
    /// playlist order; empty when none are announced (files). After ``open()``.
    var closedCaptionServices: [ClosedCaptionDescription] { get }

    /// The source's own record of its network transfers and failed requests (HLS); nil when libavformat does the
    /// I/O (files, progressive HTTP). Any thread.
    var networkLog: NetworkLog? { get }

    /// The date ranges the presentation announces (HLS `EXT-X-DATERANGE`), in playlist order, as last known; empty
    /// for media without them (files). Any thread.
    var dateRanges: [DateRangeDescription] { get }

    /// Calls `handler` (on a thread of the source's — its reading thread, or the one reloading a live playlist — no
    /// lock held) after every change of ``dateRanges`` (a live playlist reloaded while playback waits, say). Any
    /// thread; one handler, the last set.
    func observeDateRanges(_ handler: @escaping @Sendable () -> Void)

    /// The last SHOUTcast/Icecast (ICY) metadata block the transport delivered (`StreamTitle='…';`), nil when none
    /// (files, and streams without ICY metadata). The reading thread.
    var icyMetadata: String? { get }

    /// Where a streamed source with variants (HLS) takes its caps and policy and records its variant decisions; nil
    /// for a single rendition. Any thread.
    var variantControl: VariantControl? { get }

    /// The timed metadata the source found outside its streams' packets since the last call (the ID3 tags of HLS
    /// fragmented-MP4 segments' `emsg` boxes, which libavformat skips), in the order found; empty for media without
    /// such (files). The reading thread, after each read.
    func takeTimedMetadata() -> [SourceTimedMetadata]
}

/// A piece of timed metadata a source found beside its streams (see ``MediaSource/takeTimedMetadata()``): the bytes
/// of one ID3 tag and when it takes effect, in container time.
package struct SourceTimedMetadata: Sendable, Equatable {
    package var bytes: [UInt8]
    package var time: CMTime

    package init(bytes: [UInt8], time: CMTime) {
        self.bytes = bytes
        self.time = time
    }
}

extension MediaSource {
    /// Local media is read through a second time; network media is not.
    package func makeSubtitleSource(stream index: Int) -> (any MediaSource)? {
        isLocal ? makeIndependentSource() : nil
    }

    /// Files carry no date mapping.
    package var dateMapping: DateMapping? { nil }

    /// Files have a fixed seekable range.
    package var liveWindow: CMTimeRange? { nil }

    /// Files are not live.
    package var liveTargetDuration: Double? { nil }

    /// libavformat's reads do not wait for publication.
    package func wakeBlockedRead() {}

    /// Sources that yield do so between whole packets.
    package var yieldsWithinPackets: Bool { false }

    /// libavformat does the I/O: the source cannot tell (see the requirement).
    package var isWaitingForInput: Bool { true }

    /// Files are not reloaded.
    package func setLiveReloadsSuspended(_ suspended: Bool) {}

    /// Files are one rendition.
    package var variants: [VariantDescription] { [] }

    /// Files announce no caption services (their captions are found in the video).
    package var closedCaptionServices: [ClosedCaptionDescription] { [] }

    /// libavformat's I/O keeps no such record.
    package var networkLog: NetworkLog? { nil }

    /// Files announce no date ranges.
    package var dateRanges: [DateRangeDescription] { [] }

    /// Files announce no date ranges: nothing to observe.
    package func observeDateRanges(_ handler: @escaping @Sendable () -> Void) {}

    /// Only libavformat's HTTP protocol delivers ICY metadata.
    package var icyMetadata: String? { nil }

    /// A single rendition has no variants to choose from.
    package var variantControl: VariantControl? { nil }

    /// libavformat delivers what it finds as packets.
    package func takeTimedMetadata() -> [SourceTimedMetadata] { [] }

    /// Seeks near `microseconds`: a keyframe at or before it, else the first one after it.
    package func seek(toMicroseconds microseconds: Int64) throws(FFmpegError) {
        try seek(toMicroseconds: microseconds, minimum: Int64.min, maximum: Int64.max)
    }

    /// Seeks to a keyframe at or before `microseconds`, at most `maximum`.
    package func seek(toMicroseconds microseconds: Int64, maximum: Int64) throws(FFmpegError) {
        try seek(toMicroseconds: microseconds, minimum: Int64.min, maximum: maximum)
    }
}
