import CFFmpeg

/// The outcome of reading one packet: data, or the end of the input. Errors are thrown.
public enum ReadResult: Sendable {
    case packet
    case endOfFile
}

/// Owns an input `AVFormatContext`: opens a URL, probes its streams, reads packets and seeks.
///
/// Not thread-safe: one demux thread owns it. Only ``interrupt`` may be touched from elsewhere.
public final class FormatContext {
    private var context: UnsafeMutablePointer<AVFormatContext>?
    /// Cancels blocking I/O from any thread.
    public let interrupt: InterruptFlag
    public let url: String
    /// The custom I/O an input opened with a reader reads through (freed after the context is closed).
    let customIO: CustomIO?

    /// Opens `url` (a path or anything libavformat reads) and probes it (`avformat_find_stream_info`).
    ///
    /// - Parameter options: demuxer/protocol options (`AVDictionary`), e.g. `["user_agent": …]`.
    public convenience init(
        url: String, options: [String: String] = [:], interrupt: InterruptFlag = InterruptFlag()
    ) throws(FFmpegError) {
        try self.init(url: url, options: options, interrupt: interrupt, customIO: nil, formatName: nil)
    }

    init(
        url: String, options: [String: String], interrupt: InterruptFlag, customIO: CustomIO?, formatName: String?,
        probesStreams: Bool = true
    ) throws(FFmpegError) {
        FFmpegLog.configureFromEnvironment()
        self.url = url
        self.interrupt = interrupt
        self.customIO = customIO
        guard let ctx = avformat_alloc_context() else { throw FFmpegError.posix(ENOMEM) }
        ctx.pointee.interrupt_callback = AVIOInterruptCB(
            callback: InterruptFlag.callback, opaque: Unmanaged.passUnretained(interrupt).toOpaque())
        if let customIO {
            ctx.pointee.pb = customIO.context
            ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        }
        var dict: OpaquePointer? = nil
        for (k, v) in options { av_dict_set(&dict, k, v, 0) }
        defer { av_dict_free(&dict) }
        var c: UnsafeMutablePointer<AVFormatContext>? = ctx
        let format = formatName.flatMap { av_find_input_format($0) }
        let rc = avformat_open_input(&c, url, format, &dict)
        if rc < 0 {
            // avformat_open_input frees the context on failure.
            throw FFmpegError(code: rc, function: "avformat_open_input")
        }
        context = c
        guard probesStreams else { return }
        let probe = avformat_find_stream_info(c, nil)
        if probe < 0 {
            avformat_close_input(&context)
            throw FFmpegError(code: probe, function: "avformat_find_stream_info")
        }
    }

    deinit {
        avformat_close_input(&context)
    }

    var raw: UnsafeMutablePointer<AVFormatContext> { context! }

    /// A snapshot of what the demuxer knows.
    public var info: MediaInfo {
        let c = raw.pointee
        let noPTS = Rational.noPTS
        var streams: [StreamInfo] = []
        for i in 0..<Int(c.nb_streams) {
            if let s = c.streams[i] { streams.append(StreamInfo(s)) }
        }
        var chapters: [ChapterInfo] = []
        for i in 0..<Int(c.nb_chapters) {
            if let ch = c.chapters[i]?.pointee {
                chapters.append(
                    ChapterInfo(
                        timeBase: Rational(ch.time_base), start: ch.start, end: ch.end,
                        metadata: Dictionary(avDictionary: ch.metadata)))
            }
        }
        var size: Int64? = nil
        if let pb = c.pb {
            let s = avio_size(pb)
            if s > 0 { size = s }
        }
        let iformat = c.iformat.pointee
        return MediaInfo(
            formatName: iformat.name.map { String(cString: $0) } ?? "",
            formatLongName: iformat.long_name.map { String(cString: $0) } ?? "",
            durationMicroseconds: (c.duration == noPTS || c.duration <= 0) ? nil : c.duration,
            startTimeMicroseconds: c.start_time == noPTS ? nil : c.start_time,
            bitRate: c.bit_rate > 0 ? c.bit_rate : nil,
            durationFromBitrate: c.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE,
            byteSize: size,
            metadata: Dictionary(avDictionary: c.metadata),
            streams: streams,
            chapters: chapters)
    }

    /// Reads the next packet into `packet` (`av_read_frame`).
    public func read(into packet: Packet) throws(FFmpegError) -> ReadResult {
        packet.unref()
        let rc = av_read_frame(raw, packet.pointer)
        if rc == FFmpegError.endOfFile.code { return .endOfFile }
        // A read interrupted by our own abort is reported as end of input to the owner, who
        // knows it asked for the abort.
        if rc < 0 { throw FFmpegError(code: rc, function: "av_read_frame") }
        return .packet
    }

    /// Seeks so that the next packets start at or before `timestamp` (microseconds, `AV_TIME_BASE`)
    /// within `[minimum, maximum]` (`avformat_seek_file` on the default stream).
    public func seek(
        toMicroseconds timestamp: Int64, minimum: Int64 = Int64.min, maximum: Int64 = Int64.max
    ) throws(FFmpegError) {
        let rc = avformat_seek_file(raw, -1, minimum, timestamp, maximum, 0)
        if rc < 0 { throw FFmpegError(code: rc, function: "avformat_seek_file") }
    }

    /// The last SHOUTcast/Icecast (ICY) metadata block the HTTP protocol received (`StreamTitle='…';…`), nil when
    /// there is none: the http protocol's exported `icy_metadata_packet` option, found through the I/O context (as
    /// mpv reads it).
    public var icyMetadataPacket: String? {
        guard let pb = raw.pointee.pb else { return nil }
        var value: UnsafeMutablePointer<UInt8>?
        guard av_opt_get(pb, "icy_metadata_packet", AV_OPT_SEARCH_CHILDREN, &value) >= 0, let value else {
            return nil
        }
        defer { av_free(value) }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// Marks every stream except `keep` as discarded, so the demuxer skips their packets.
    public func setDiscard(keepingStreams keep: Set<Int>) {
        let c = raw.pointee
        for i in 0..<Int(c.nb_streams) {
            c.streams[i]?.pointee.discard = keep.contains(i) ? AVDISCARD_DEFAULT : AVDISCARD_ALL
        }
    }

    /// Pointer to a stream's codec parameters, for ``CodecContext`` and ``CodecParameters``.
    func codecParametersPointer(stream index: Int) -> UnsafeMutablePointer<AVCodecParameters>? {
        guard index >= 0, index < Int(raw.pointee.nb_streams) else { return nil }
        return raw.pointee.streams[index]?.pointee.codecpar
    }
}
