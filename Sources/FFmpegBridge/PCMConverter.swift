import CFFmpeg
import CoreMedia

/// A linear PCM layout: what an asset reader's audio output settings ask for.
package struct PCMLayout: Hashable, Sendable {
    /// Frames per second.
    package var sampleRate: Int
    /// Channels per frame.
    package var channelCount: Int
    /// Bits per channel sample: 16 or 32 (integer), 32 or 64 (float).
    package var bitsPerChannel: Int
    /// Whether samples are floating point.
    package var isFloat: Bool
    /// Whether samples are big-endian (byte-swapped after conversion; libswresample writes native order).
    package var isBigEndian: Bool
    /// Whether each channel's samples follow each other's (planes back to back) instead of interleaved.
    package var isNonInterleaved: Bool

    /// A layout of every field given.
    package init(
        sampleRate: Int, channelCount: Int, bitsPerChannel: Int, isFloat: Bool, isBigEndian: Bool,
        isNonInterleaved: Bool
    ) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitsPerChannel = bitsPerChannel
        self.isFloat = isFloat
        self.isBigEndian = isBigEndian
        self.isNonInterleaved = isNonInterleaved
    }

    /// Bytes of one channel's sample.
    package var bytesPerSample: Int { bitsPerChannel / 8 }

    /// Bytes of one frame in one buffer: every channel when interleaved, one when not (Core Audio's `mBytesPerFrame`).
    package var bytesPerFrame: Int { isNonInterleaved ? bytesPerSample : bytesPerSample * channelCount }

    /// The libswresample sample format, nil when the layout has none (8- or 24-bit, 16-bit or 128-bit float…).
    var sampleFormat: AVSampleFormat? {
        switch (bitsPerChannel, isFloat) {
        case (16, false): return isNonInterleaved ? AV_SAMPLE_FMT_S16P : AV_SAMPLE_FMT_S16
        case (32, false): return isNonInterleaved ? AV_SAMPLE_FMT_S32P : AV_SAMPLE_FMT_S32
        case (32, true): return isNonInterleaved ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_FLT
        case (64, true): return isNonInterleaved ? AV_SAMPLE_FMT_DBLP : AV_SAMPLE_FMT_DBL
        default: return nil
        }
    }

    /// Whether the converter can produce the layout.
    package var isSupported: Bool {
        sampleFormat != nil && sampleRate > 0 && sampleRate <= 768_000 && channelCount > 0 && channelCount <= 64
    }
}

/// Converts decoded audio (any sample format, rate and channel layout) into one ``PCMLayout`` with
/// libswresample, using its default options as the `ffmpeg` tool's automatic conversion does, so the samples
/// match `ffmpeg -f s16le` / `-f f32le` bit for bit when the rate and channels are kept. Also accepts interleaved
/// 32-bit float at the output rate (what a mix is summed in).
///
/// Converted frames collect in an internal buffer, taken out as a `CMBlockBuffer` with
/// ``takeBlockBuffer(droppingFirst:keeping:)``. The context is rebuilt when the input format changes mid-stream.
///
/// Not thread-safe: one owner at a time.
package final class PCMConverter {
    /// What the converter produces.
    package let layout: PCMLayout
    /// The output format (``PCMLayout/sampleFormat``).
    private let outputFormat: AVSampleFormat
    /// The owned context, for `input`.
    private var context: OpaquePointer?
    /// The input the context was built for.
    private var input: (format: Int32, sampleRate: Int32, layout: AVChannelLayout)?
    /// The output layout (libavutil's default order for the channel count); owned.
    private var outputLayout = AVChannelLayout()
    /// Converted frames not yet taken: one allocation per output plane (one when interleaved), `capacity` bytes
    /// each; owned, freed in `deinit`.
    private var planes: [UnsafeMutableRawPointer]
    /// Bytes allocated per plane.
    private var capacity = 0
    /// How many frames `planes` holds.
    package private(set) var bufferedFrames = 0

    /// A converter producing `layout`.
    ///
    /// - Throws: `FFmpegError.patchWelcome` when the layout is not ``PCMLayout/isSupported``.
    package init(layout: PCMLayout) throws(FFmpegError) {
        guard layout.isSupported, let format = layout.sampleFormat else { throw FFmpegError.patchWelcome }
        self.layout = layout
        outputFormat = format
        planes = (0..<(layout.isNonInterleaved ? layout.channelCount : 1)).map { _ in
            UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 16)
        }
        av_channel_layout_default(&outputLayout, Int32(layout.channelCount))
    }

    /// Frees the context and the channel layouts.
    deinit {
        swr_free(&context)
        if var old = input?.layout { av_channel_layout_uninit(&old) }
        av_channel_layout_uninit(&outputLayout)
        for plane in planes { plane.deallocate() }
    }

    /// Converts `frame` and appends the result to the buffered frames.
    ///
    /// - Throws: libswresample's failure for an input it cannot convert (`invalidData` for a frame without a format).
    package func append(_ frame: Frame) throws(FFmpegError) {
        let f = frame.pointer.pointee
        let layout = try frame.conversionChannelLayout()
        try configure(format: f.format, sampleRate: f.sample_rate, layout: layout)
        let data = UnsafeMutableRawPointer(frame.pointer.pointee.extended_data)?
            .assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        try run(input: data, count: Int(f.nb_samples))
    }

    /// Converts `count` interleaved float frames of ``PCMLayout/channelCount`` channels at the output rate and
    /// appends the result.
    package func append(interleavedFloat samples: UnsafePointer<Float>, count: Int) throws(FFmpegError) {
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(self.layout.channelCount))
        try configure(
            format: AV_SAMPLE_FMT_FLT.rawValue, sampleRate: Int32(self.layout.sampleRate), layout: layout)
        var plane: UnsafePointer<UInt8>? = UnsafeRawPointer(samples).assumingMemoryBound(to: UInt8.self)
        try withUnsafeMutablePointer(to: &plane) { (pointer) throws(FFmpegError) in
            try run(input: pointer, count: count)
        }
    }

    /// Flushes what libswresample still holds (its filter delay, at the end of the input) into the buffered frames.
    package func drain() throws(FFmpegError) {
        guard context != nil else { return }
        try run(input: nil, count: 0)
    }

    /// Takes buffered frames out as one block: planes back to back when non-interleaved, byte-swapped for a
    /// big-endian layout. The first `dropped` frames are discarded, then at most `keeping` kept (nil: all); the
    /// buffer is emptied.
    package func takeBlockBuffer(droppingFirst dropped: Int = 0, keeping: Int? = nil) -> (CMBlockBuffer, Int) {
        let start = min(max(0, dropped), bufferedFrames)
        let count = min(keeping ?? Int.max, bufferedFrames - start)
        let planeBytes = count * layout.bytesPerFrame
        let startByte = start * layout.bytesPerFrame
        let sampleBytes = layout.bytesPerSample
        let swaps = layout.isBigEndian
        let block = CMBlockBuffer(length: planeBytes * planes.count) { destination in
            for (index, plane) in planes.enumerated() where planeBytes > 0 {
                let target = destination.baseAddress! + index * planeBytes
                target.copyMemory(from: plane + startByte, byteCount: planeBytes)
                if swaps { Self.swapBytes(target, count: planeBytes, width: sampleBytes) }
            }
        }
        bufferedFrames = 0
        return (block, count)
    }

    /// Discards buffered frames and what libswresample holds (after a seek), keeping the configuration.
    package func reset() {
        bufferedFrames = 0
        if let context, swr_init(context) < 0 {
            swr_free(&self.context)
        }
    }

    // MARK: Private

    /// Converts `count` input frames (nil input: flush) and appends them to `planes`.
    private func run(input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int) throws(FFmpegError) {
        let room = Int(swr_get_out_samples(context, Int32(count)))
        guard room > 0 else { return }
        let used = bufferedFrames * layout.bytesPerFrame
        let needed = used + room * layout.bytesPerFrame
        if needed > capacity {
            let grown = max(needed, capacity * 2)
            for index in planes.indices {
                let larger = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
                if used > 0 { larger.copyMemory(from: planes[index], byteCount: used) }
                planes[index].deallocate()
                planes[index] = larger
            }
            capacity = grown
        }
        var pointers: [UnsafeMutablePointer<UInt8>?] = planes.map {
            ($0 + used).assumingMemoryBound(to: UInt8.self)
        }
        let written = swr_convert(context, &pointers, Int32(room), input, Int32(count))
        if written < 0 { throw FFmpegError(code: written, function: "swr_convert") }
        bufferedFrames += Int(written)
    }

    /// Rebuilds the context when the input differs from the current one; takes ownership of `layout`.
    private func configure(format: Int32, sampleRate: Int32, layout: AVChannelLayout) throws(FFmpegError) {
        var wanted = layout
        if context != nil, var current = input?.layout, input?.format == format, input?.sampleRate == sampleRate,
            av_channel_layout_compare(&current, &wanted) == 0
        {
            av_channel_layout_uninit(&wanted)
            return
        }
        swr_free(&context)
        if var old = input?.layout { av_channel_layout_uninit(&old) }
        input = nil
        let rc = swr_alloc_set_opts2(
            &context, &outputLayout, outputFormat, Int32(self.layout.sampleRate), &wanted,
            AVSampleFormat(rawValue: format), sampleRate, 0, nil)
        if rc < 0 {
            av_channel_layout_uninit(&wanted)
            throw FFmpegError(code: rc, function: "swr_alloc_set_opts2")
        }
        let initialised = swr_init(context)
        if initialised < 0 {
            swr_free(&context)
            av_channel_layout_uninit(&wanted)
            throw FFmpegError(code: initialised, function: "swr_init")
        }
        input = (format, sampleRate, wanted)
    }

    /// Reverses the byte order of every `width`-byte sample in `count` bytes at `pointer`.
    private static func swapBytes(_ pointer: UnsafeMutableRawPointer, count: Int, width: Int) {
        let bytes = pointer.assumingMemoryBound(to: UInt8.self)
        var offset = 0
        while offset + width <= count {
            var low = offset
            var high = offset + width - 1
            while low < high {
                bytes.swapAt(low, high)
                low += 1
                high -= 1
            }
            offset += width
        }
    }
}

extension UnsafeMutablePointer where Pointee == UInt8 {
    /// Exchanges the bytes at `i` and `j`.
    fileprivate func swapAt(_ i: Int, _ j: Int) {
        let t = self[i]
        self[i] = self[j]
        self[j] = t
    }
}
