import CFFmpeg

extension Frame {
    /// The channel layout a sample converter (``Resampler``, ``PCMConverter``) takes this audio frame's samples in: its
    /// own, or the default layout for its channel count when the order is unspecified. The caller owns the copy.
    ///
    /// - Throws: `invalidData` for a frame without a sample format, rate or channels; libavutil's failure to copy.
    func conversionChannelLayout() throws(FFmpegError) -> AVChannelLayout {
        let f = pointer.pointee
        guard f.sample_rate > 0, f.ch_layout.nb_channels > 0, f.format >= 0 else { throw FFmpegError.invalidData }
        var layout = AVChannelLayout()
        if f.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&layout, f.ch_layout.nb_channels)
        } else {
            var source = f.ch_layout
            let rc = av_channel_layout_copy(&layout, &source)
            if rc < 0 { throw FFmpegError(code: rc, function: "av_channel_layout_copy") }
        }
        return layout
    }
}
