import CoreMedia
import FFmpegBridge

/// One stream of an input as the demuxer sees it after probing: what the public layer builds an asset track from.
///
/// Timestamps (``startTime``, ``duration``) are in the stream's own ``timeBase`` so nothing is rounded on the way
/// up; ``time(inTimeBase:)`` turns them into `CMTime` exactly. A value type: any thread.
package struct StreamDescription: Sendable {
    /// Index in the container's stream array (what an `ItemDescriptor` names to play it).
    package var index = 0
    /// The container's own identifier for the stream (MP4 track ID, MPEG-TS PID, …); 0 if none.
    package var containerID: Int32 = 0
    /// What the stream carries.
    package var kind = MediaKind.unknown
    /// The codec's short name ("h264", "aac"), or "none" when the container names a codec FFmpeg does not know.
    package var codecName = "none"
    /// The codec's descriptive name ("H.264 / AVC / MPEG-4 AVC / MPEG-4 part 10").
    package var codecLongName = "none"
    /// The codec's profile name ("High", "LC"), if known.
    package var profileName: String?
    /// The container's four-character code tag (0 when the container has none).
    package var codecTag: UInt32 = 0
    /// Whether this build has a decoder for the codec.
    package var hasDecoder = false
    /// The unit of ``startTime`` and ``duration``, in seconds.
    package var timeBase = MediaRational(1, 1_000_000)
    /// First presentation timestamp in ``timeBase`` units, if known.
    package var startTime: Int64?
    /// Duration in ``timeBase`` units, if known.
    package var duration: Int64?
    /// Bits per second, if the stream says.
    package var bitRate: Int64?
    /// The container's flags for the stream's role.
    package var dispositions: StreamDispositions = []
    /// The stream's tags, keys lower-cased ("language", "title", …).
    package var metadata: [String: String] = [:]

    /// Video: coded width in pixels (0 otherwise).
    package var width = 0
    /// Video: coded height in pixels (0 otherwise).
    package var height = 0
    /// Video: the shape of a pixel (width / height), if the stream says.
    package var sampleAspectRatio: MediaRational?
    /// Video: the average frame rate, if known.
    package var averageFrameRate: MediaRational?
    /// Video: the lowest frame rate that represents every timestamp exactly (FFmpeg's `r_frame_rate`), if known.
    package var realFrameRate: MediaRational?
    /// Video: display rotation in degrees counter-clockwise, 0 when none.
    package var rotationDegrees = 0.0
    /// Video: whether the display matrix mirrors the picture horizontally.
    package var isMirrored = false
    /// Video: whether the codec reorders frames (B-frames).
    package var hasReordering = false
    /// Whether the (H.264 or HEVC) video carries CEA-608 closed captions in its SEI: found by
    /// ``MediaProbe/describe(url:options:cancellation:factory:)`` in the first packets of media on this machine.
    package var hasClosedCaptions = false
    /// The CEA-708 services the (H.264 or HEVC) video carries in its SEI, ascending: found like
    /// ``hasClosedCaptions``; service 1 whenever DTVCC data is there at all (the first packets may carry only
    /// padding).
    package var cea708Services: [Int] = []

    /// Audio: samples per second (0 otherwise).
    package var sampleRate = 0
    /// Audio: number of channels (0 otherwise).
    package var channelCount = 0
    /// Audio: FFmpeg's name for the channel layout ("stereo", "5.1(side)"), if known.
    package var channelLayoutName: String?

    /// A stream with every field empty or zero; the engine fills it in (tests set what they need).
    package init() {}

    /// The stream's language tag as the container spells it (ISO 639-2 usually), if any.
    package var language: String? { metadata["language"] }
    /// The stream's title tag, if any.
    package var title: String? { metadata["title"] }

    /// A timestamp in ``timeBase`` units as a `CMTime`, exactly: the time base's denominator is the timescale when
    /// its numerator is 1 (the usual case); invalid for a time base that is not positive.
    package func time(inTimeBase value: Int64) -> CMTime {
        CMTime(ffmpeg: value, timeBase: timeBase.rational)
    }

    /// `microseconds` in ``timeBase`` units, rounded to nearest (halves away from zero).
    package func timeBaseValue(microseconds: Int64) -> Int64 {
        MediaRational.rescale(microseconds, from: MediaRational(1, 1_000_000), to: timeBase)
    }
}
