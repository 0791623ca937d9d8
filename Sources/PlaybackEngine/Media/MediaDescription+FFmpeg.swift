import CoreMedia
import FFmpegBridge

// Building the engine's descriptions from what libavformat reports; internal to the engine, so no FFmpeg type
// reaches the public layer.
extension MediaDescription {
    /// The description of a probed input.
    init(_ info: MediaInfo) {
        self.init()
        formatName = info.formatName
        formatLongName = info.formatLongName
        durationMicroseconds = info.durationMicroseconds
        startTimeMicroseconds = info.startTimeMicroseconds
        bitRate = info.bitRate
        isDurationEstimated = info.durationFromBitrate
        byteSize = info.byteSize
        metadata = info.metadata
        streams = info.streams.map(StreamDescription.init)
        chapters = info.chapters.map { c in
            ChapterDescription(
                start: CMTime(ffmpeg: c.start, timeBase: c.timeBase), end: CMTime(ffmpeg: c.end, timeBase: c.timeBase),
                metadata: c.metadata)
        }
    }
}
