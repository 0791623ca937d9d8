import CFFmpeg

/// Maps high-dynamic-range pictures (PQ, HLG; BT.2020) to standard dynamic range BT.709 with libavfilter, the chain
/// media servers use for HDR thumbnails:
/// `zscale` to linear light (100 nits nominal peak) → 32-bit float RGB → `zscale` to BT.709 primaries →
/// `tonemap=hable` (no desaturation) → `zscale` to the BT.709 transfer and matrix, video range → 8-bit 4:2:0.
///
/// One frame in, one frame out (every filter of the chain is 1:1). The graph is rebuilt when the input's size,
/// format or colour description changes. Not thread-safe: one owner at a time.
package final class VideoToneMapper {
    /// The owned graph (frees its filters).
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    /// `buffer` and `buffersink`, owned by the graph.
    private var source: UnsafeMutablePointer<AVFilterContext>?
    private var sink: UnsafeMutablePointer<AVFilterContext>?
    /// What the graph was built for.
    private var configuration: [Int32] = []

    /// A mapper; the graph is built on first use.
    package init() {}

    /// Frees the graph.
    deinit {
        avfilter_graph_free(&graph)
    }

    /// Whether this FFmpeg build has the filters the chain needs (`zscale` needs libzimg).
    package static var isAvailable: Bool {
        avfilter_get_by_name("zscale") != nil && avfilter_get_by_name("tonemap") != nil
    }

    /// `frame` tone-mapped to SDR BT.709 (a new frame, 8-bit 4:2:0 video range).
    ///
    /// - Throws: `FFmpegError.patchWelcome` when the filters are missing, or libavfilter's failure.
    package func map(_ frame: Frame) throws(FFmpegError) -> Frame {
        let f = frame.pointer.pointee
        let wanted = [
            f.width, f.height, f.format, Int32(f.color_trc.rawValue), Int32(f.color_primaries.rawValue),
            Int32(f.colorspace.rawValue), Int32(f.color_range.rawValue),
        ]
        if wanted != configuration || graph == nil { try build(for: frame) }
        configuration = wanted
        let status = av_buffersrc_add_frame_flags(source, frame.pointer, Int32(AV_BUFFERSRC_FLAG_KEEP_REF))
        if status < 0 { throw FFmpegError(code: status, function: "av_buffersrc_add_frame_flags") }
        let out = Frame()
        let got = av_buffersink_get_frame(sink, out.pointer)
        if got < 0 { throw FFmpegError(code: got, function: "av_buffersink_get_frame") }
        return out
    }

    /// Builds the chain for pictures like `frame`.
    private func build(for frame: Frame) throws(FFmpegError) {
        avfilter_graph_free(&graph)
        source = nil
        sink = nil
        guard Self.isAvailable else { throw FFmpegError.patchWelcome }
        guard let made = avfilter_graph_alloc() else { throw FFmpegError.posix(ENOMEM) }
        graph = made
        made.pointee.nb_threads = 1
        let f = frame.pointer.pointee
        let sar = f.sample_aspect_ratio.num > 0 ? f.sample_aspect_ratio : AVRational(num: 1, den: 1)
        let arguments =
            "video_size=\(f.width)x\(f.height):pix_fmt=\(f.format):time_base=1/90000:"
            + "pixel_aspect=\(sar.num)/\(sar.den)"
        // What the input is, for the first zscale (unspecified primaries and matrix: BT.2020, as HDR video is).
        let transfer = f.color_trc == AVCOL_TRC_ARIB_STD_B67 ? "arib-std-b67" : "smpte2084"
        let primaries = f.color_primaries == AVCOL_PRI_BT709 ? "bt709" : "2020"
        let matrix = f.colorspace == AVCOL_SPC_BT709 ? "709" : "2020_ncl"
        let range = f.color_range == AVCOL_RANGE_JPEG ? "full" : "limited"
        let chain =
            "zscale=t=linear:npl=100:tin=\(transfer):pin=\(primaries):min=\(matrix):rin=\(range),format=gbrpf32le,"
            + "zscale=p=bt709,tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
        source = try create("buffer", "in", arguments, in: made)
        sink = try create("buffersink", "out", nil, in: made)
        // The chain's open ends: "in" is the buffer's output, "out" the sink's input. avfilter_graph_parse_ptr takes
        // the lists over and leaves in them what it did not use, freed here either way.
        var outs = avfilter_inout_alloc()
        var ins = avfilter_inout_alloc()
        defer {
            avfilter_inout_free(&ins)
            avfilter_inout_free(&outs)
        }
        guard let outputs = outs, let inputs = ins else { throw FFmpegError.posix(ENOMEM) }
        outputs.pointee.name = av_strdup("in")
        outputs.pointee.filter_ctx = source
        outputs.pointee.pad_idx = 0
        outputs.pointee.next = nil
        inputs.pointee.name = av_strdup("out")
        inputs.pointee.filter_ctx = sink
        inputs.pointee.pad_idx = 0
        inputs.pointee.next = nil
        let parsed = avfilter_graph_parse_ptr(made, chain, &ins, &outs, nil)
        if parsed < 0 {
            avfilter_graph_free(&graph)
            throw FFmpegError(code: parsed, function: "avfilter_graph_parse_ptr")
        }
        let configured = avfilter_graph_config(made, nil)
        if configured < 0 {
            avfilter_graph_free(&graph)
            throw FFmpegError(code: configured, function: "avfilter_graph_config")
        }
    }

    /// One filter instance in `graph`.
    private func create(
        _ name: String, _ instance: String, _ arguments: String?, in graph: UnsafeMutablePointer<AVFilterGraph>
    ) throws(FFmpegError) -> UnsafeMutablePointer<AVFilterContext> {
        guard let filter = avfilter_get_by_name(name) else { throw FFmpegError.patchWelcome }
        var context: UnsafeMutablePointer<AVFilterContext>?
        let status = avfilter_graph_create_filter(&context, filter, instance, arguments, nil, graph)
        guard status >= 0, let context else {
            avfilter_graph_free(&self.graph)
            throw FFmpegError(code: status, function: "avfilter_graph_create_filter(\(name))")
        }
        return context
    }
}
