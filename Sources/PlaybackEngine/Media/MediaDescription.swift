import CoreMedia
import Foundation

/// Everything the demuxer knows about an input after probing it: the container and its streams, in the engine's
/// terms. ``MediaProbe/describe(url:options:cancellation:)`` builds it; the public layer makes an asset of it.
///
/// Container times are in microseconds. A value type: any thread.
package struct MediaDescription: Sendable {
    /// The demuxer's short name list ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", …).
    package var formatName = ""
    /// The demuxer's descriptive name ("QuickTime / MOV").
    package var formatLongName = ""
    /// The container's duration in microseconds, if known.
    package var durationMicroseconds: Int64?
    /// The container's first timestamp in microseconds, if known (arbitrary clock values in MPEG-TS).
    package var startTimeMicroseconds: Int64?
    /// The container's total bits per second, if known.
    package var bitRate: Int64?
    /// Whether the duration was estimated from the bit rate (MP3 without an index, raw streams) rather than read
    /// from timestamps: Apple's "not precise".
    package var isDurationEstimated = false
    /// Size of the input in bytes, if the I/O layer knows it.
    package var byteSize: Int64?
    /// The container's tags, keys lower-cased ("title", "artist", …).
    package var metadata: [String: String] = [:]
    /// Whether the media is live (a live or event stream still growing): no duration, a moving seekable window.
    package var isLive = false
    /// The variants a streamed presentation offers (HLS), in playlist order; empty for files.
    package var variants: [VariantDescription] = []
    /// The closed-caption services a streamed presentation announces in its video (HLS `CLOSED-CAPTIONS`
    /// renditions), in playlist order; empty for files (whose captions ``StreamDescription/hasClosedCaptions`` finds).
    package var closedCaptions: [ClosedCaptionDescription] = []
    /// Cover art: the bytes of each attached picture (a JPEG or PNG image, as the container stores it) and its codec
    /// ("mjpeg", "png" …), in stream order.
    package var artwork: [(data: Data, codecName: String)] = []
    /// The container's chapters, in order.
    package var chapters: [ChapterDescription] = []
    /// A QuickTime / MP4 file's movie header: the rate, volume and display matrix (`a b u c d v x y w`) the whole
    /// presentation prefers; nil for other containers.
    package var moviePreferences: (rate: Double, volume: Double, matrix: [Double])?
    /// The streams, in container order (``StreamDescription/index`` is the position).
    package var streams: [StreamDescription] = []

    /// An empty description; the engine fills it in (tests set what they need).
    package init() {}

    /// The container's duration, if known (timescale 1 000 000).
    package var duration: CMTime? { durationMicroseconds.map { CMTime(value: $0, timescale: 1_000_000) } }
}
