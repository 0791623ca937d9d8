import CFFmpeg

extension FormatContext {
    /// The demuxer's index entries for the keyframes nearest `timestamp` (stream time base): the last
    /// at or before it and the first after it. Timestamps are what the index stores (decode times for
    /// MP4, presentation times for Matroska cues); nil where the index has none. Demux thread only.
    public func keyframeTimestamps(stream index: Int, around timestamp: Int64) -> (atOrBefore: Int64?, after: Int64?) {
        guard index >= 0, index < Int(raw.pointee.nb_streams), let stream = raw.pointee.streams[index] else {
            return (nil, nil)
        }
        var before: Int64?
        var after: Int64?
        let b = av_index_search_timestamp(stream, timestamp, AVSEEK_FLAG_BACKWARD)
        if b >= 0, let e = avformat_index_get_entry(stream, b) { before = e.pointee.timestamp }
        let a = av_index_search_timestamp(stream, timestamp + 1, 0)
        if a >= 0, let e = avformat_index_get_entry(stream, a) { after = e.pointee.timestamp }
        return (before, after)
    }
}
