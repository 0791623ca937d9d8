import CoreMedia

/// One block of decoded, resampled audio on its way to the audio sink (an element of the audio
/// `FrameQueue`).
///
/// A value moved between threads whole: written by the audio decode thread, read by whoever pops it.
/// The samples live in a pooled ``AudioSampleBuffer`` that returns to its pool when the last frame
/// referring to it is dropped.
package struct AudioFrame: Sendable {
    /// Interleaved float samples; the first `frameCount * format.channelCount` are valid.
    package var samples: AudioSampleBuffer
    /// Sample frames (one sample per channel each).
    package var frameCount: Int
    /// Rate and channel count of `samples` (the decoder's output format).
    package var format: AudioFormat
    /// Presentation time of the first sample in stream time, with the output sample rate as timescale.
    package var pts: CMTime
    /// The packet-queue serial it was decoded under; stale when the queue has moved on.
    package var serial: Serial

    /// A frame with the given fields.
    package init(samples: AudioSampleBuffer, frameCount: Int, format: AudioFormat, pts: CMTime, serial: Serial) {
        self.samples = samples
        self.frameCount = frameCount
        self.format = format
        self.pts = pts
        self.serial = serial
    }

    /// How long the frame plays: `frameCount` at the output rate.
    package var duration: CMTime {
        CMTime(value: Int64(frameCount), timescale: Int32(format.sampleRate))
    }

    /// The valid interleaved samples. Valid while this frame (or another reference to `samples`) lives.
    package var interleavedSamples: UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: samples.baseAddress, count: frameCount * format.channelCount)
    }
}
