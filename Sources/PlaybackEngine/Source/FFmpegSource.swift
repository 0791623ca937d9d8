import CoreMedia
import FFmpegBridge
import Foundation

/// A ``MediaSource`` read by libavformat: local files and anything its protocols reach (progressive HTTP, pipes).
///
/// Network inputs get the protocol options of their ``SourceOptions`` (a read that stalls too long fails, so a dead
/// server cannot hang playback; a dropped HTTP connection reconnects at the same offset; user agent and headers).
///
/// Threads: the `FormatContext` belongs to whichever thread reads (see ``MediaSource``); ``interrupt()`` and the
/// constant properties are safe from any thread.
package final class FFmpegSource: MediaSource, @unchecked Sendable {
    /// A path or URL libavformat opens.
    package let location: String
    /// How to open a network input.
    package let sourceOptions: SourceOptions
    /// Further demuxer and protocol options, given as they are to libavformat (they win over ``sourceOptions``).
    package let options: [String: String]
    /// See ``MediaSource/isLocal``: libavformat's protocol for the location is "file", or the media is in memory.
    package let isLocal: Bool
    /// Media held in memory (`AVAudioPlayer(data:)`), read through a seekable custom I/O context instead of opening
    /// ``location`` (then only a name for logs); nil for a location libavformat opens.
    package let memory: [UInt8]?
    /// Aborts blocking I/O; its flag is the format context's interrupt callback.
    private let cancellation: Cancellation
    /// The opened input; set by ``open()`` on the reading thread, then used by that thread only.
    private var format: FormatContext?
    /// What the input holds, read once by ``open()``.
    private var openedInfo: MediaInfo?
    /// The local file as it was just before ``open()`` opened it (nil for other inputs, or before opening).
    package private(set) var openedFile: FileIdentity?
    /// Packets read since ``keepPacketsRead()``, while it is in effect.
    private var kept: [Packet]?
    /// Packets ``read(into:)`` gives again before reading on (see ``replayKeptPackets()``), oldest first.
    private var replay: ArraySlice<Packet> = []
    /// The streams ``setDiscard(keepingStreams:)`` keeps (nil: all): replayed packets of others are skipped, as
    /// libavformat skips them.
    private var readStreams: Set<Int>?

    /// A source for `location` (a path or a URL).
    package init(
        location: String, sourceOptions: SourceOptions = SourceOptions(), options: [String: String] = [:],
        cancellation: Cancellation = Cancellation()
    ) {
        self.location = location
        self.sourceOptions = sourceOptions
        self.options = options
        self.cancellation = cancellation
        isLocal = (FormatContext.protocolName(for: location) ?? "file") == "file"
        memory = nil
    }

    /// A source for media held in memory: `bytes` are demuxed through a seekable custom I/O context (no protocol is
    /// opened, so no other file or URL can be reached from them). `name` names the input in logs.
    package init(memory bytes: [UInt8], name: String, cancellation: Cancellation = Cancellation()) {
        location = name
        sourceOptions = SourceOptions()
        // Nothing the bytes refer to (HLS segments, MOV references) is opened.
        options = ["protocol_whitelist": "none"]
        self.cancellation = cancellation
        isLocal = true
        memory = bytes
    }

    /// A source for `url` (a file URL opens its path).
    package convenience init(url: URL, sourceOptions: SourceOptions = SourceOptions()) {
        self.init(location: url.mediaLocation, sourceOptions: sourceOptions)
    }

    /// The options libavformat gets: ``sourceOptions``' own, the protocol whitelist for the location, then
    /// ``options`` (which win).
    package var effectiveOptions: [String: String] {
        var own = sourceOptions.libavformatOptions(isLocal: isLocal, location: location)
        own["protocol_whitelist"] = Self.protocolWhitelist(for: location)
        return own.merging(options) { _, given in given }
    }

    /// The libavformat protocols an input at `location` may open, for itself and for everything it refers to
    /// (`protocol_whitelist`; libavformat hands it down to nested opens: HLS segments and keys, concat parts, MOV
    /// data references), so a file or playlist cannot make the player open other URLs or local files:
    /// - a local file: `file`, and `crypto`, which only decrypts what `file` reads (AES-128 HLS segments of a local
    ///   playlist). No network (a local playlist cannot make the player connect anywhere), no `pipe`, `fd`, `data`,
    ///   `subfile`, `concat` (byte ranges of, or joins with, other files).
    /// - an `http` or `https` URL: `http,https,tcp,tls,crypto` (redirects between the two, TLS over TCP, AES-128 HLS).
    ///   No `file`: a remote playlist cannot read local files.
    /// - anything else the user named (`rtmp:`, `pipe:` …): that protocol and the network transports beneath it
    ///   (`tcp,udp,tls,rtp`), never `file`.
    package static func protocolWhitelist(for location: String) -> String {
        switch FormatContext.protocolName(for: location) ?? "file" {
        case "file": "file,crypto"
        case "http", "https": "http,https,tcp,tls,crypto"
        case let other: "\(other),tcp,udp,tls,rtp"
        }
    }

    package func open() throws(FFmpegError) {
        guard format == nil else { return }
        if cancellation.isCancelled { throw FFmpegError.exit }
        let opened: FormatContext
        if let memory {
            opened = try FormatContext(
                reader: MemoryByteStreamReader(bytes: memory), name: location, options: options,
                interrupt: cancellation.interrupt)
        } else {
            if isLocal { openedFile = FileIdentity(path: location) }
            opened = try FormatContext(url: location, options: effectiveOptions, interrupt: cancellation.interrupt)
        }
        format = opened
        openedInfo = opened.info
    }

    /// The opened context (a programming error before ``open()``).
    private var opened: FormatContext {
        guard let format else { preconditionFailure("FFmpegSource used before open()") }
        return format
    }

    /// As probed when the source was opened.
    package var info: MediaInfo {
        guard let openedInfo else { preconditionFailure("FFmpegSource used before open()") }
        return openedInfo
    }

    package var isLive: Bool { !isLocal && opened.durationMicroseconds == nil }

    package var isSeekable: Bool { !isLive }

    package var seekableRange: CMTimeRange? {
        guard let duration = opened.durationMicroseconds, !isLive else { return nil }
        let start = CMTime(microseconds: opened.startTimeMicroseconds ?? 0)
        return CMTimeRange(start: start, duration: CMTime(microseconds: duration))
    }

    package func codecParameters(stream index: Int) throws(FFmpegError) -> CodecParameters {
        try opened.codecParameters(stream: index)
    }

    package func kind(ofStream index: Int) -> StreamKind { opened.kind(ofStream: index) }

    package func timeBase(ofStream index: Int) -> Rational? { opened.timeBase(ofStream: index) }

    package func setDiscard(keepingStreams streams: Set<Int>) {
        readStreams = streams
        opened.setDiscard(keepingStreams: streams)
    }

    package func read(into packet: Packet) throws(FFmpegError) -> ReadResult {
        while let next = replay.popFirst() {
            if let readStreams, !readStreams.contains(next.streamIndex) { continue }
            packet.move(from: next)
            kept?.append(packet.reference())
            return .packet
        }
        let result = try opened.read(into: packet)
        if kept != nil, case .packet = result { kept?.append(packet.reference()) }
        return result
    }

    /// Keeps (references to) the packets read from now on, until ``replayKeptPackets()``: an asset's description
    /// reads the first packets of a file (looking for closed captions) and hands the source on to playback, which
    /// then reads from the start, as from a source opened for it, without opening and probing the file again.
    package func keepPacketsRead() {
        if kept == nil { kept = [] }
    }

    /// Makes the next reads give the packets kept since ``keepPacketsRead()`` again, in order, before reading on
    /// (skipping streams discarded meanwhile), and stops keeping. A seek forgets them.
    package func replayKeptPackets() {
        guard let packets = kept else { return }
        kept = nil
        replay = ArraySlice(packets + replay)
    }

    package func attachedPicture(stream index: Int) -> Packet? { opened.attachedPicture(stream: index) }

    package var icyMetadata: String? { isLocal ? nil : opened.icyMetadataPacket }

    package var isAtEndOfInput: Bool { opened.isAtEndOfInput }

    package var ioError: FFmpegError? { opened.ioError }

    package var bytesRead: Int64 { opened.ioBytesRead }

    package func seek(toMicroseconds microseconds: Int64, minimum: Int64, maximum: Int64) throws(FFmpegError) {
        kept = nil
        replay = []
        try opened.seek(toMicroseconds: microseconds, minimum: minimum, maximum: maximum)
    }

    package func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?) {
        opened.keyframeTimestamps(stream: index, around: timestamp)
    }

    package func interrupt() { cancellation.cancel() }

    package var isInterrupted: Bool { cancellation.isCancelled }

    package func makeIndependentSource() -> any MediaSource {
        if let memory { return FFmpegSource(memory: memory, name: location) }
        return FFmpegSource(location: location, sourceOptions: sourceOptions, options: options)
    }
}
