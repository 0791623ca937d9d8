import CFFmpeg

/// A linear libavfilter audio chain over interleaved 32-bit float PCM: `abuffer` → the given filters →
/// `aformat` (back to interleaved float at the same rate and channels) → `abuffersink`.
///
/// Used by the engine's time-pitch stage for `atempo` chains (WSOLA time stretching). Samples go in with
/// ``send(_:frameCount:)`` and come out, in whatever block sizes the filters produce, through
/// ``receive(_:)``. Filters created with a name can be retuned while running with
/// ``sendCommand(to:command:argument:)`` (e.g. `atempo`'s `tempo`).
///
/// Owns its `AVFilterGraph` (freed in `deinit`, which frees every filter in it) and one reusable `AVFrame`.
/// Not thread-safe: one owner serialises every call.
package final class AudioFilterGraph {
    /// One filter of the chain: libavfilter's filter name, its instance name (the target of commands),
    /// and its option string (`"tempo=0.5"`).
    package struct Filter: Sendable, Hashable {
        package var name: String
        package var instanceName: String
        package var arguments: String

        package init(name: String, instanceName: String, arguments: String) {
            self.name = name
            self.instanceName = instanceName
            self.arguments = arguments
        }
    }

    /// Frames per second in and out.
    package let sampleRate: Int
    /// Interleaved channels in and out.
    package let channelCount: Int
    /// The owned graph.
    private var graph: UnsafeMutablePointer<AVFilterGraph>?
    /// `abuffer` and `abuffersink` (owned by the graph).
    private let source: UnsafeMutablePointer<AVFilterContext>
    private let sink: UnsafeMutablePointer<AVFilterContext>
    /// Reused for every send and receive.
    private let frame: UnsafeMutablePointer<AVFrame>
    /// The channel layout of every frame; owned, uninit in deinit.
    private var layout: AVChannelLayout
    /// Pts of the next input sample, in 1/sampleRate.
    private var nextPts: Int64 = 0

    /// Builds and configures the chain.
    ///
    /// - Throws: the libavfilter failure (unknown filter, bad option, impossible format negotiation).
    package init(sampleRate: Int, channelCount: Int, filters: [Filter]) throws(FFmpegError) {
        precondition(sampleRate > 0 && channelCount > 0, "AudioFilterGraph: invalid format")
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(channelCount))
        let built: (UnsafeMutablePointer<AVFilterContext>, UnsafeMutablePointer<AVFilterContext>)
        let graph: UnsafeMutablePointer<AVFilterGraph>
        do throws(FFmpegError) {
            (graph, built) = try Self.build(
                sampleRate: sampleRate, layout: &layout, filters: filters)
        } catch {
            av_channel_layout_uninit(&layout)
            throw error
        }
        guard let frame = av_frame_alloc() else { fatalError("AudioFilterGraph: out of memory") }
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.layout = layout
        self.graph = graph
        self.frame = frame
        (source, sink) = built
    }

    /// Allocates and configures the graph; frees it again if any step fails.
    private static func build(
        sampleRate: Int, layout: inout AVChannelLayout, filters: [Filter]
    ) throws(FFmpegError)
        -> (
            UnsafeMutablePointer<AVFilterGraph>,
            (UnsafeMutablePointer<AVFilterContext>, UnsafeMutablePointer<AVFilterContext>)
        )
    {
        // Nil also when libavfilter cannot be opened (it is loaded on first use: Sources/CFFmpegFilterLoader).
        guard let graph = avfilter_graph_alloc() else { throw FFmpegError.posix(ENOSYS) }
        // One thread: the stage runs inside the caller's pull, not on libavfilter's worker threads.
        graph.pointee.nb_threads = 1
        var layoutName = [CChar](repeating: 0, count: 128)
        av_channel_layout_describe(&layout, &layoutName, layoutName.count)
        let layoutString = String(decoding: layoutName.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)

        func create(
            _ name: String, _ instance: String, _ arguments: String?
        ) throws(FFmpegError)
            -> UnsafeMutablePointer<AVFilterContext>
        {
            guard let filter = avfilter_get_by_name(name) else {
                throw FFmpegError(code: CFFmpeg_AVERROR_PATCHWELCOME(), function: "avfilter_get_by_name(\(name))")
            }
            var context: UnsafeMutablePointer<AVFilterContext>?
            let status = avfilter_graph_create_filter(&context, filter, instance, arguments, nil, graph)
            guard status >= 0, let context else {
                throw FFmpegError(code: status, function: "avfilter_graph_create_filter(\(name))")
            }
            return context
        }

        do throws(FFmpegError) {
            let sourceArguments =
                "time_base=1/\(sampleRate):sample_rate=\(sampleRate):sample_fmt=flt:channel_layout=\(layoutString)"
            let source = try create("abuffer", "in", sourceArguments)
            let sink = try create("abuffersink", "out", nil)
            var chain = [source]
            for filter in filters {
                chain.append(try create(filter.name, filter.instanceName, filter.arguments))
            }
            chain.append(
                try create(
                    "aformat", "format",
                    "sample_fmts=flt:sample_rates=\(sampleRate):channel_layouts=\(layoutString)"))
            chain.append(sink)
            for index in 1..<chain.count {
                let status = avfilter_link(chain[index - 1], 0, chain[index], 0)
                if status < 0 { throw FFmpegError(code: status, function: "avfilter_link") }
            }
            let status = avfilter_graph_config(graph, nil)
            if status < 0 { throw FFmpegError(code: status, function: "avfilter_graph_config") }
            return (graph, (source, sink))
        } catch {
            var owned: UnsafeMutablePointer<AVFilterGraph>? = graph
            avfilter_graph_free(&owned)
            throw error
        }
    }

    /// Frees the graph (and its filters), the frame and the layout.
    deinit {
        var owned: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&owned)
        avfilter_graph_free(&graph)
        av_channel_layout_uninit(&layout)
    }

    /// Feeds `frameCount` interleaved frames (copied into a new reference-counted buffer).
    package func send(_ samples: UnsafePointer<Float>, frameCount: Int) throws(FFmpegError) {
        guard frameCount > 0 else { return }
        frame.pointee.nb_samples = Int32(frameCount)
        frame.pointee.format = AV_SAMPLE_FMT_FLT.rawValue
        frame.pointee.sample_rate = Int32(sampleRate)
        frame.pointee.pts = nextPts
        var status = av_channel_layout_copy(&frame.pointee.ch_layout, &layout)
        if status < 0 { throw FFmpegError(code: status, function: "av_channel_layout_copy") }
        status = av_frame_get_buffer(frame, 0)
        if status < 0 {
            av_frame_unref(frame)
            throw FFmpegError(code: status, function: "av_frame_get_buffer")
        }
        if let data = frame.pointee.data.0 {
            UnsafeMutableRawPointer(data).copyMemory(
                from: samples, byteCount: frameCount * channelCount * MemoryLayout<Float>.size)
        }
        nextPts += Int64(frameCount)
        // Without AV_BUFFERSRC_FLAG_KEEP_REF the buffer source takes the reference and resets `frame`.
        status = av_buffersrc_add_frame_flags(source, frame, 0)
        if status < 0 {
            av_frame_unref(frame)
            throw FFmpegError(code: status, function: "av_buffersrc_add_frame_flags")
        }
    }

    /// Signals end of input: the filters flush what they hold on the following ``receive(_:)`` calls.
    package func sendEndOfStream() throws(FFmpegError) {
        let status = av_buffersrc_add_frame_flags(source, nil, 0)
        if status < 0 { throw FFmpegError(code: status, function: "av_buffersrc_add_frame_flags") }
    }

    /// Hands every output block ready now to `body` (interleaved samples and their frame count, valid only
    /// during the call) and returns how many frames it handed over in all.
    package func receive(_ body: (UnsafePointer<Float>, Int) -> Void) throws(FFmpegError) -> Int {
        var total = 0
        while true {
            let status = av_buffersink_get_frame(sink, frame)
            if status == CFFmpeg_AVERROR(EAGAIN) || status == CFFmpeg_AVERROR_EOF() { return total }
            if status < 0 { throw FFmpegError(code: status, function: "av_buffersink_get_frame") }
            let count = Int(frame.pointee.nb_samples)
            if count > 0, let data = frame.pointee.data.0 {
                body(UnsafeRawPointer(data).assumingMemoryBound(to: Float.self), count)
                total += count
            }
            av_frame_unref(frame)
        }
    }

    /// Sends `command` with `argument` to the filter named `instanceName` (e.g. `"tempo"`, `"1.5"` to an
    /// `atempo`); it applies to samples processed from now on.
    package func sendCommand(to instanceName: String, command: String, argument: String) throws(FFmpegError) {
        var response = [CChar](repeating: 0, count: 64)
        let status = avfilter_graph_send_command(graph, instanceName, command, argument, &response, 64, 0)
        if status < 0 { throw FFmpegError(code: status, function: "avfilter_graph_send_command") }
    }
}
