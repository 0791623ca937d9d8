import FFmpegBridge

/// A source that finds a video stream's caption data itself, as it reads the stream for playback, and hands it to a
/// ``SubtitleTrackReader`` instead of packets: an HLS source's closed captions, whose video a second reader would
/// download a second time. The reader then calls only ``MediaSource/open()``,
/// ``MediaSource/timeBase(ofStream:)``, ``readCaptionData()`` and ``MediaSource/interrupt()``.
package protocol CaptionDataSource: MediaSource {
    /// The next caption data the played source found, blocking until there is some or it has caught up; throws
    /// `FFmpegError.exit` once interrupted (the only way it ends: playback may seek back and read more).
    func readCaptionData() throws(FFmpegError) -> CaptionDataRead
}

/// What ``CaptionDataSource/readCaptionData()`` gives.
package enum CaptionDataRead: Sendable, Equatable {
    /// The `cc_data` triplets of the video packet at `pts` (the stream's time base), any fields.
    case data(pts: Int64, triplets: [UInt8])
    /// Everything found so far has been given, and the played source has read to its end: what the reader holds
    /// back to put in display order can be decoded.
    case caughtUp
}
