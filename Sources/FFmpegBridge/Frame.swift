import CFFmpeg

/// Owns one `AVFrame`. Not thread-safe; moves between threads through the engine's queues.
public final class Frame: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<AVFrame>

    public init() {
        guard let f = av_frame_alloc() else { fatalError("av_frame_alloc: out of memory") }
        pointer = f
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&f)
    }

    public var width: Int { Int(pointer.pointee.width) }
    public var height: Int { Int(pointer.pointee.height) }
    /// `AVPixelFormat` / `AVSampleFormat` raw value.
    public var format: Int32 { pointer.pointee.format }
    public var pixelFormatName: String? {
        av_get_pix_fmt_name(AVPixelFormat(rawValue: pointer.pointee.format)).map { String(cString: $0) }
    }
    /// Best-effort presentation timestamp in the stream time base.
    public var bestEffortTimestamp: Int64? {
        let t = pointer.pointee.best_effort_timestamp
        return t == Rational.noPTS ? nil : t
    }
    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }
    public var sampleRate: Int { Int(pointer.pointee.sample_rate) }
    public var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }
    public var isKeyframe: Bool { pointer.pointee.key_frame != 0 }

    /// Plane `i`'s data pointer and line size (bytes per row; may be negative for bottom-up images).
    public func plane(_ i: Int) -> (data: UnsafeMutablePointer<UInt8>?, lineSize: Int) {
        withUnsafePointer(to: pointer.pointee.data) { tuple in
            tuple.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { data in
                withUnsafePointer(to: pointer.pointee.linesize) { sizes in
                    sizes.withMemoryRebound(to: Int32.self, capacity: 8) { ls in
                        (data[i], Int(ls[i]))
                    }
                }
            }
        }
    }

    public func unref() { av_frame_unref(pointer) }

    /// Moves `other`'s picture or samples into this frame (`other` becomes blank).
    package func move(from other: Frame) {
        av_frame_unref(pointer)
        av_frame_move_ref(pointer, other.pointer)
    }
}
