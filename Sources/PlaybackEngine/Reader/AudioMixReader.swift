import CoreMedia
import FFmpegBridge
import Foundation

/// Reads several audio streams of an input and mixes them (AVAssetReaderAudioMixOutput's engine): each stream is
/// decoded by its own ``TrackReader`` into interleaved 32-bit float at the output's rate and channel count, scaled by
/// its volume curve, summed, and converted to the requested layout.
///
/// Every stream is taken to start at the reader's start time (tracks are laid side by side from there). A stream
/// that ends early contributes silence. Chunks are at most ``chunkFrames`` frames.
///
/// Not thread-safe: one caller at a time; the cancellation token given to `init` interrupts it from any thread.
package final class AudioMixReader {
    /// One reader per stream, with its volume curve and the float frames it has decoded but not yet mixed.
    private struct Input {
        let reader: TrackReader
        let volume: VolumeCurve?
        var pending: [Float] = []
        var ended = false
    }

    /// Tuning: frames per mixed chunk (about 85 ms at 48 kHz; the size Apple's mixes come in is similar).
    static let chunkFrames = 4096

    private var inputs: [Input]
    /// The layout every stream is decoded to before mixing.
    private let mixLayout: PCMLayout
    /// Converts the mix to the output layout.
    private let converter: PCMConverter
    /// Output frames handed out so far.
    private var framesOut: Int64 = 0
    /// The reader's start, on the output's frame grid.
    private let firstFrame: Int64
    /// Whether everything has been handed out.
    private var finished = false

    /// A mixer of `streams` (each with its volume curve, whose times are seconds of the asset's timeline) of `url`
    /// into `layout`, from `start` to `end`, interrupted by `cancellation`.
    ///
    /// - Throws: `FFmpegError.patchWelcome` for a layout the converter cannot produce.
    package init(
        url: URL, sourceOptions: SourceOptions, factory: MediaSourceFactory, streams: [(Int, VolumeCurve?)],
        layout: PCMLayout, start: CMTime, end: CMTime?, cancellation: Cancellation
    ) throws {
        mixLayout = PCMLayout(
            sampleRate: layout.sampleRate, channelCount: layout.channelCount, bitsPerChannel: 32, isFloat: true,
            isBigEndian: false, isNonInterleaved: false)
        converter = try PCMConverter(layout: layout)
        let request = PCMRequest(
            sampleRate: layout.sampleRate, channelCount: layout.channelCount, bitsPerChannel: 32, isFloat: true,
            isBigEndian: false, isNonInterleaved: false)
        inputs = streams.map { stream, volume in
            Input(
                reader: TrackReader(
                    url: url, sourceOptions: sourceOptions, factory: factory, streamIndex: stream,
                    output: .audio(request), start: start, end: end, cancellation: cancellation),
                volume: volume)
        }
        let rate = Int32(layout.sampleRate)
        firstFrame = start.isNumeric ? CMTimeConvertScale(start, timescale: rate, method: .default).value : 0
    }

    /// Opens every stream's reader.
    package func open() throws {
        for input in inputs { try input.reader.open() }
    }

    /// The next mixed chunk, nil at the end.
    package func next() throws -> TrackSample? {
        guard !finished else { return nil }
        let channels = mixLayout.channelCount
        let wanted = Self.chunkFrames * channels
        for index in inputs.indices {
            while !inputs[index].ended && inputs[index].pending.count < wanted {
                guard let sample = try inputs[index].reader.next() else {
                    inputs[index].ended = true
                    break
                }
                if case .audio(let block, let count, _, _) = sample {
                    block.withUnsafeBytes { raw in
                        inputs[index].pending.append(
                            contentsOf: raw.bindMemory(to: Float.self).prefix(count * channels))
                    }
                }
            }
        }
        let available = inputs.map { $0.pending.count / channels }.max() ?? 0
        let frames = min(Self.chunkFrames, available)
        guard frames > 0 else {
            finished = true
            return nil
        }
        var mix = [Float](repeating: 0, count: frames * channels)
        let rate = Double(mixLayout.sampleRate)
        for index in inputs.indices {
            let taken = min(frames, inputs[index].pending.count / channels) * channels
            let volume = inputs[index].volume
            inputs[index].pending.withUnsafeBufferPointer { source in
                for sampleIndex in 0..<taken {
                    var gain: Float = 1
                    if let volume {
                        let frame = sampleIndex / channels
                        gain = volume.value(at: Double(firstFrame + framesOut + Int64(frame)) / rate)
                    }
                    mix[sampleIndex] += source[sampleIndex] * gain
                }
            }
            inputs[index].pending.removeFirst(taken)
        }
        try mix.withUnsafeBufferPointer { try converter.append(interleavedFloat: $0.baseAddress!, count: frames) }
        let time = CMTime(value: firstFrame + framesOut, timescale: Int32(mixLayout.sampleRate))
        framesOut += Int64(frames)
        let (block, count) = converter.takeBlockBuffer()
        return .audio(block, frameCount: count, layout: converter.layout, presentationTime: time)
    }
}
