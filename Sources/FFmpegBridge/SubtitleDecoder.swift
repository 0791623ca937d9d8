import CFFmpeg

/// One region of a decoded subtitle (libavcodec's `AVSubtitleRect`).
public enum SubtitleRegion: Sendable, Equatable {
    /// An ASS event line (`ReadOrder,Layer,Style,Name,MarginL,MarginR,MarginV,Effect,Text`): what libavcodec turns
    /// every text format (SubRip, WebVTT, mov_text, ASS/SSA, CEA-608) into, with the styling as ASS override tags.
    case ass(String)
    /// Plain text, without markup.
    case text(String)
    /// A picture (PGS, DVB, VobSub): `width`×`height` RGBA pixels (straight alpha, rows packed) placed at `x`, `y`
    /// in the codec's frame (``SubtitleDecoder/frameSize``).
    case bitmap(x: Int, y: Int, width: Int, height: Int, rgba: [UInt8])
}

/// One decoded subtitle (libavcodec's `AVSubtitle`), timed relative to its packet.
public struct DecodedSubtitle: Sendable, Equatable {
    /// The packet's presentation time (stream time base); nil when the packet had none.
    public var packetPTS: Int64?
    /// The subtitle's own time in microseconds (`AVSubtitle.pts`): the packet's, or for decoders that emit a
    /// subtitle once it is over (`ccaption`), the time it began; nil when unknown. The offsets count from it.
    public var pts: Int64?
    /// Milliseconds after ``pts`` the subtitle is shown from (`start_display_time`).
    public var startOffset: Int64
    /// Milliseconds after ``pts`` it is shown until (`end_display_time`); nil when the stream does not say
    /// (it lasts until the next subtitle).
    public var endOffset: Int64?
    /// What it shows; empty for a subtitle that clears the screen (bitmap formats send one).
    public var regions: [SubtitleRegion]
}

/// Owns a subtitle decoder `AVCodecContext` for one stream (`avcodec_decode_subtitle2`: subtitles have no
/// send/receive API).
///
/// Not thread-safe: one thread owns it.
public final class SubtitleDecoder {
    private var context: UnsafeMutablePointer<AVCodecContext>?
    /// The time base of the packets given to ``decode(_:)``.
    public let timeBase: Rational

    /// Opens a decoder from a stream's copied parameters.
    ///
    /// - Throws: `FFmpegError.decoderNotFound` when this build has no decoder for the codec;
    ///   `FFmpegError.invalidData` when the stream is not a subtitle stream.
    package init(parameters: CodecParameters, timeBase: Rational) throws(FFmpegError) {
        guard parameters.kind == .subtitle else { throw FFmpegError.invalidData }
        guard let codec = avcodec_find_decoder(parameters.pointer.pointee.codec_id) else {
            throw FFmpegError.decoderNotFound
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw FFmpegError.posix(ENOMEM) }
        context = ctx
        try FFmpegError.check(avcodec_parameters_to_context(ctx, parameters.pointer), "avcodec_parameters_to_context")
        ctx.pointee.pkt_timebase = timeBase.av
        self.timeBase = timeBase
        try FFmpegError.check(avcodec_open2(ctx, codec, nil), "avcodec_open2")
    }

    /// Opens libavcodec's CEA-608 decoder (`ccaption`), fed the `cc_data` triplets a ``ClosedCaptionExtractor``
    /// finds in video packets of time base `timeBase` (``decode(captionData:pts:)``).
    public init(closedCaptionsWithTimeBase timeBase: Rational) throws(FFmpegError) {
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_EIA_608) else { throw FFmpegError.decoderNotFound }
        guard let ctx = avcodec_alloc_context3(codec) else { throw FFmpegError.posix(ENOMEM) }
        context = ctx
        ctx.pointee.pkt_timebase = timeBase.av
        ctx.pointee.time_base = timeBase.av
        self.timeBase = timeBase
        try FFmpegError.check(avcodec_open2(ctx, codec, nil), "avcodec_open2")
    }

    deinit {
        avcodec_free_context(&context)
    }

    /// Decodes the caption triplets of one picture shown at `pts` (in display order: the decoder keeps the
    /// caption state from picture to picture).
    public func decode(captionData: [UInt8], pts: Int64) throws(FFmpegError) -> DecodedSubtitle? {
        guard !captionData.isEmpty else { return nil }
        let packet = Packet()
        try FFmpegError.check(av_new_packet(packet.pointer, Int32(captionData.count)), "av_new_packet")
        captionData.withUnsafeBytes { bytes in
            packet.pointer.pointee.data.update(
                from: bytes.bindMemory(to: UInt8.self).baseAddress!, count: captionData.count)
        }
        packet.pointer.pointee.pts = pts
        packet.pointer.pointee.dts = pts
        return try decode(packet)
    }

    /// The ASS script header libavcodec made for the stream (`[Script Info]`, `[V4+ Styles]`, `[Events]` format):
    /// the styles ASS events name. Nil for bitmap formats.
    public var assHeader: String? {
        guard let header = context?.pointee.subtitle_header, let size = context?.pointee.subtitle_header_size,
            size > 0
        else { return nil }
        return String(decoding: UnsafeBufferPointer(start: header, count: Int(size)), as: UTF8.self)
    }

    /// The codec's frame size (bitmap subtitles are placed in it); zeros when unknown.
    public var frameSize: (width: Int, height: Int) {
        (Int(context?.pointee.width ?? 0), Int(context?.pointee.height ?? 0))
    }

    /// Decodes one packet; nil when it produced no subtitle (a fragment, or data the decoder skipped). Throws
    /// what libavcodec reported for a damaged packet.
    public func decode(_ packet: Packet) throws(FFmpegError) -> DecodedSubtitle? {
        guard let ctx = context else { return nil }
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        let rc = avcodec_decode_subtitle2(ctx, &subtitle, &got, packet.pointer)
        defer { if got != 0 { avsubtitle_free(&subtitle) } }
        try FFmpegError.check(rc, "avcodec_decode_subtitle2")
        guard got != 0 else { return nil }
        var regions: [SubtitleRegion] = []
        for i in 0..<Int(subtitle.num_rects) {
            guard let rect = subtitle.rects[i] else { continue }
            if let region = Self.region(rect.pointee) { regions.append(region) }
        }
        let end = subtitle.end_display_time
        return DecodedSubtitle(
            packetPTS: packet.pts, pts: subtitle.pts == Rational.noPTS ? nil : subtitle.pts,
            startOffset: Int64(subtitle.start_display_time),
            endOffset: end == 0 || end == UInt32.max ? nil : Int64(end), regions: regions)
    }

    /// Forgets partial state (after a seek).
    public func flush() {
        if let ctx = context { avcodec_flush_buffers(ctx) }
    }

    private static func region(_ rect: AVSubtitleRect) -> SubtitleRegion? {
        switch rect.type {
        case SUBTITLE_ASS:
            return rect.ass.map { .ass(String(cString: $0)) }
        case SUBTITLE_TEXT:
            return rect.text.map { .text(String(cString: $0)) }
        case SUBTITLE_BITMAP:
            return bitmap(rect)
        default:
            return nil
        }
    }

    /// A paletted bitmap (`data[0]` indices, `data[1]` the palette as native-endian 32-bit ARGB) as RGBA.
    private static func bitmap(_ rect: AVSubtitleRect) -> SubtitleRegion? {
        let (w, h) = (Int(rect.w), Int(rect.h))
        guard w > 0, h > 0, w <= 16384, h <= 16384, let indices = rect.data.0, let palette = rect.data.1 else {
            return nil
        }
        let colours = Int(max(0, min(256, rect.nb_colors)))
        let stride = Int(rect.linesize.0)
        guard stride >= w else { return nil }
        var rgba = [UInt8](repeating: 0, count: w * h * 4)
        palette.withMemoryRebound(to: UInt32.self, capacity: 256) { argb in
            for y in 0..<h {
                for x in 0..<w {
                    let index = Int(indices[y * stride + x])
                    guard index < colours else { continue }
                    let c = argb[index]
                    let o = (y * w + x) * 4
                    rgba[o] = UInt8((c >> 16) & 0xFF)
                    rgba[o + 1] = UInt8((c >> 8) & 0xFF)
                    rgba[o + 2] = UInt8(c & 0xFF)
                    rgba[o + 3] = UInt8(c >> 24)
                }
            }
        }
        return .bitmap(x: Int(rect.x), y: Int(rect.y), width: w, height: h, rgba: rgba)
    }
}
