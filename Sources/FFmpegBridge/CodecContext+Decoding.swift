import CFFmpeg

/// Which frames a decoder may skip decoding (`AVCodecContext.skip_frame`, an `AVDiscard` level), for
/// fast-forward and scrubbing: fewer frames decoded, the rest never produced.
package enum FrameSkipping: Sendable, Equatable {
    /// Decode every frame (`AVDISCARD_DEFAULT`).
    case none
    /// Skip frames no other frame references, e.g. B-frames (`AVDISCARD_NONREF`).
    case nonReference
    /// Decode keyframes only (`AVDISCARD_NONKEY`).
    case nonKey

    /// The `AVDiscard` level.
    var discard: AVDiscard {
        switch self {
        case .none: return AVDISCARD_DEFAULT
        case .nonReference: return AVDISCARD_NONREF
        case .nonKey: return AVDISCARD_NONKEY
        }
    }
}

// Decoder controls used by the playback pipeline's decode threads (the context's owner).
extension CodecContext {
    /// Which frames the decoder skips; takes effect from the next packet.
    package var frameSkipping: FrameSkipping {
        get {
            switch raw.pointee.skip_frame {
            case AVDISCARD_NONREF: return .nonReference
            case AVDISCARD_NONKEY: return .nonKey
            default: return .none
            }
        }
        set { raw.pointee.skip_frame = newValue.discard }
    }

    /// The decoder's short name ("h264", "libdav1d").
    package var decoderName: String {
        raw.pointee.codec.map { String(cString: $0.pointee.name) } ?? "none"
    }

    /// How many threads libavcodec runs for this decoder, once opened.
    package var threadCount: Int { Int(raw.pointee.thread_count) }

    /// Whether the decoder runs frame threads (which delay output by about one frame per thread).
    package var isFrameThreaded: Bool {
        raw.pointee.active_thread_type & FF_THREAD_FRAME != 0
    }
}
