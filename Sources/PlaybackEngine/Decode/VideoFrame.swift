import CoreMedia
import CoreVideo

/// One decoded picture on its way to the video renderers (an element of the video `FrameQueue`).
///
/// A value moved between threads whole: written by the video decode thread, read by whoever pops it.
/// The pixel buffer usually wraps the decoder's own memory (no copy); treat its pixels as read-only.
package struct VideoFrame: Sendable {
    /// The picture. Keeps the decoded frame alive for as long as anyone holds it.
    package var pixelBuffer: CVPixelBuffer
    /// Presentation time in stream time, exact, in the stream's timescale (best-effort timestamp, or
    /// extrapolated from the previous frame when the stream has none).
    package var pts: CMTime
    /// How long the picture lasts: the packet's duration, else one frame at the stream's guessed rate,
    /// else zero.
    package var duration: CMTime
    /// The packet-queue serial it was decoded under; stale when the queue has moved on.
    package var serial: Serial
    /// Whether the decoder marked it a keyframe.
    package var isKeyframe: Bool

    /// A frame with the given fields.
    package init(pixelBuffer: CVPixelBuffer, pts: CMTime, duration: CMTime, serial: Serial, isKeyframe: Bool) {
        self.pixelBuffer = pixelBuffer
        self.pts = pts
        self.duration = duration
        self.serial = serial
        self.isKeyframe = isKeyframe
    }
}
