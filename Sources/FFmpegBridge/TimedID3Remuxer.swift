import CFFmpeg

/// Writes a copy of a media file with one more stream: timed ID3 tags (`AV_CODEC_ID_TIMED_ID3`, the data stream
/// that HTTP Live Streaming and broadcast MPEG-TS carry ID3 in), for test media. ffmpeg's command line cannot make
/// such packets, so they are handed in whole.
///
/// Every stream of the input is copied packet by packet (no decoding), timestamps unchanged; the tags are
/// interleaved by time with them through `av_interleaved_write_frame`.
public enum TimedID3Remuxer {
    /// One ID3 tag to write: its bytes (a whole ID3v2 tag, header included) and its time in input container
    /// time, microseconds.
    public struct Tag: Sendable {
        public var microseconds: Int64
        public var bytes: [UInt8]
        public init(microseconds: Int64, bytes: [UInt8]) {
            self.microseconds = microseconds
            self.bytes = bytes
        }
    }

    /// Copies `input` into `output` (muxer `formatName`, e.g. "mpegts") with `tags` as a timed ID3 data stream
    /// (the last stream).
    public static func remux(input: String, output: String, formatName: String, tags: [Tag]) throws(FFmpegError) {
        let source = try FormatContext(url: input)
        var out: UnsafeMutablePointer<AVFormatContext>?
        var rc = avformat_alloc_output_context2(&out, nil, formatName, output)
        guard rc >= 0, let out else { throw FFmpegError(code: rc, function: "avformat_alloc_output_context2") }
        defer {
            if out.pointee.pb != nil { avio_closep(&out.pointee.pb) }
            avformat_free_context(out)
        }
        let input = source.raw
        var timeBases: [AVRational] = []
        for i in 0..<Int(input.pointee.nb_streams) {
            guard let inStream = input.pointee.streams[i], let stream = avformat_new_stream(out, nil) else {
                throw FFmpegError.posix(ENOMEM)
            }
            rc = avcodec_parameters_copy(stream.pointee.codecpar, inStream.pointee.codecpar)
            if rc < 0 { throw FFmpegError(code: rc, function: "avcodec_parameters_copy") }
            stream.pointee.codecpar.pointee.codec_tag = 0
            stream.pointee.time_base = inStream.pointee.time_base
            timeBases.append(inStream.pointee.time_base)
        }
        guard let id3 = avformat_new_stream(out, nil) else { throw FFmpegError.posix(ENOMEM) }
        id3.pointee.codecpar.pointee.codec_type = AVMEDIA_TYPE_DATA
        id3.pointee.codecpar.pointee.codec_id = AV_CODEC_ID_TIMED_ID3
        id3.pointee.time_base = AVRational(num: 1, den: 90_000)
        let id3Index = Int32(timeBases.count)

        rc = avio_open(&out.pointee.pb, output, AVIO_FLAG_WRITE)
        if rc < 0 { throw FFmpegError(code: rc, function: "avio_open") }
        rc = avformat_write_header(out, nil)
        if rc < 0 { throw FFmpegError(code: rc, function: "avformat_write_header") }
        let id3TimeBase = id3.pointee.time_base

        let packet = Packet()
        var pending = tags.sorted { $0.microseconds < $1.microseconds }[...]
        func writeTag(_ tag: Tag) throws(FFmpegError) {
            guard let tagPacket = av_packet_alloc() else { throw FFmpegError.posix(ENOMEM) }
            var owned: UnsafeMutablePointer<AVPacket>? = tagPacket
            defer { av_packet_free(&owned) }
            var rc = av_new_packet(tagPacket, Int32(tag.bytes.count))
            if rc < 0 { throw FFmpegError(code: rc, function: "av_new_packet") }
            tag.bytes.withUnsafeBufferPointer { bytes in
                if let base = bytes.baseAddress { tagPacket.pointee.data.update(from: base, count: bytes.count) }
            }
            let pts = av_rescale_q(tag.microseconds, AVRational(num: 1, den: 1_000_000), id3TimeBase)
            tagPacket.pointee.pts = pts
            tagPacket.pointee.dts = pts
            tagPacket.pointee.stream_index = id3Index
            tagPacket.pointee.flags |= AV_PKT_FLAG_KEY
            rc = av_interleaved_write_frame(out, tagPacket)
            if rc < 0 { throw FFmpegError(code: rc, function: "av_interleaved_write_frame") }
        }
        while true {
            packet.unref()
            if case .endOfFile = try source.read(into: packet) { break }
            let index = packet.streamIndex
            guard index < timeBases.count else { continue }
            let p = packet.pointer
            if p.pointee.dts != Rational.noPTS {
                let micros = av_rescale_q(p.pointee.dts, timeBases[index], AVRational(num: 1, den: 1_000_000))
                while let next = pending.first, next.microseconds <= micros {
                    try writeTag(next)
                    pending.removeFirst()
                }
            }
            rc = av_interleaved_write_frame(out, p)
            if rc < 0 { throw FFmpegError(code: rc, function: "av_interleaved_write_frame") }
        }
        for tag in pending { try writeTag(tag) }
        rc = av_write_trailer(out)
        if rc < 0 { throw FFmpegError(code: rc, function: "av_write_trailer") }
    }
}
