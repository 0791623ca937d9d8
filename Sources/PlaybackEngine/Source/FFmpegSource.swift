import CoreMedia
import FFmpegBridge
import Foundation

/// A ``MediaSource`` read by libavformat: local files and anything its protocols reach (progressive HTTP, pipes), media
/// in memory, and locations whose bytes a ``CustomInputProvider`` supplies (an asset's resource loader).
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
    /// See ``MediaSource/isLocal``: libavformat's protocol for the location is "file", or the media is in memory
    /// (not for a custom input: its bytes may be on their way from anywhere).
    package let isLocal: Bool
    /// Media held in memory (`AVAudioPlayer(data:)`), read through a seekable custom I/O context instead of opening
    /// ``location`` (then only a name for logs); nil for a location libavformat opens.
    package let memory: [UInt8]?
    /// Who supplies the location's bytes when no libavformat protocol reads them (``SourceOptions/customInput``,
    /// when it reads ``location``): read through a seekable custom I/O context; nil for a location libavformat
    /// opens.
    package let customInput: CustomInputReference?
    /// The reader of ``customInput`` that ``open()`` made; then used by the reading thread only.
    private var customReader: (any CustomInputReader)?
    /// Wakes ``customReader``'s wait for bytes (``wakeBlockedRead()``); any thread.
    private let customWake = CustomInputWake()
    /// Whether the last read gave its thread back within a packet (``customReader`` threw `tryAgain`): the I/O
    /// context's failure is forgotten before the next read or seek. The reading thread.
    private var readerYielded = false
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
        let custom = sourceOptions.customInput.flatMap { $0.provider.reads(location) ? $0 : nil }
        customInput = custom
        isLocal = custom == nil && (FormatContext.protocolName(for: location) ?? "file") == "file"
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
        customInput = nil
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
        } else if let customInput {
            let reader = customInput.provider.makeReader(
                location: location, cancellation: cancellation, wake: customWake)
            customReader = reader
            // Nothing the bytes refer to (HLS segments, MOV references) is opened through a protocol.
            let demuxerOptions = ["protocol_whitelist": "none"].merging(options) { _, given in given }
            do {
                opened = try FormatContext(
                    reader: reader, name: location, options: demuxerOptions, interrupt: cancellation.interrupt)
            } catch {
                // The reader's own words, rather than the bare code libavformat passed on.
                if !cancellation.isCancelled, let failure = reader.failure { throw failure }
                throw error
            }
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
        resumeIfYielded()
        let result: ReadResult
        do {
            result = try opened.read(into: packet)
        } catch {
            if let failure = customReader?.failure { throw failure }
            if customReader != nil && error == FFmpegError.tryAgain { readerYielded = true }
            throw error
        }
        // A custom input that failed is not at its end: libavformat may take the failure for one.
        if case .endOfFile = result, let failure = customReader?.failure { throw failure }
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

    package var isAtEndOfInput: Bool { customReader?.failure == nil && opened.isAtEndOfInput }

    package var ioError: FFmpegError? { customReader?.failure ?? opened.ioError }

    package var bytesRead: Int64 { opened.ioBytesRead }

    package func seek(toMicroseconds microseconds: Int64, minimum: Int64, maximum: Int64) throws(FFmpegError) {
        kept = nil
        replay = []
        resumeIfYielded()
        do {
            try opened.seek(toMicroseconds: microseconds, minimum: minimum, maximum: maximum)
        } catch {
            if let failure = customReader?.failure { throw failure }
            throw error
        }
    }

    package func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?) {
        opened.keyframeTimestamps(stream: index, around: timestamp)
    }

    package func interrupt() { cancellation.cancel() }

    /// A custom input's read waiting for bytes gives the thread back (throws `tryAgain`), within a packet: the
    /// demuxer then seeks (``yieldsWithinPackets``). Files and protocols read by libavformat are not disturbed.
    package func wakeBlockedRead() { customWake.wake() }

    /// A custom input's reads may give their thread back within a packet.
    package var yieldsWithinPackets: Bool { customInput != nil }

    /// Forgets the I/O context's failure after a read gave its thread back.
    private func resumeIfYielded() {
        guard readerYielded else { return }
        readerYielded = false
        format?.resumeAfterReaderYielded()
    }

    package var isInterrupted: Bool { cancellation.isCancelled }

    package func makeIndependentSource() -> any MediaSource {
        if let memory { return FFmpegSource(memory: memory, name: location) }
        return FFmpegSource(location: location, sourceOptions: sourceOptions, options: options)
    }
}
