import CFFmpeg

// Frame fields the playback pipeline reads after decoding (the decode thread owns the frame).
extension Frame {
    /// The frame's own timestamp (`pts`), in the decoder's packet time base; nil when unknown.
    package var pts: Int64? {
        pointer.pointee.pts == Rational.noPTS ? nil : pointer.pointee.pts
    }

    /// The duration of the packet the frame came from, in the packet time base; 0 when unknown.
    package var packetDuration: Int64 {
        max(0, pointer.pointee.pkt_duration)
    }

    /// Whether the decoder flagged the frame as damaged: `AV_FRAME_FLAG_CORRUPT`, or any
    /// `decode_error_flags` (invalid bitstream, missing reference, concealment).
    package var isCorrupt: Bool {
        pointer.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 || pointer.pointee.decode_error_flags != 0
    }

    /// Whether the frame's YCbCr samples are full range (JPEG) rather than video range.
    package var isFullRange: Bool {
        pointer.pointee.color_range == AVCOL_RANGE_JPEG
            || pointer.pointee.format == AV_PIX_FMT_YUVJ420P.rawValue
            || pointer.pointee.format == AV_PIX_FMT_YUVJ422P.rawValue
            || pointer.pointee.format == AV_PIX_FMT_YUVJ444P.rawValue
    }

    /// The sample aspect ratio (pixel width : height), nil when unknown.
    package var sampleAspectRatio: Rational? {
        Rational(pointer.pointee.sample_aspect_ratio).nonZero
    }

    /// `AVSampleFormat` name for audio frames ("fltp", "s16"), nil when unknown.
    package var sampleFormatName: String? {
        av_get_sample_fmt_name(AVSampleFormat(rawValue: pointer.pointee.format)).map { String(cString: $0) }
    }

    /// An identity for the frame's colour description (primaries, transfer, matrix, range, chroma
    /// siting, aspect ratio), so a caller can cache the attachments it derives from it.
    package var colorDescriptionKey: UInt64 {
        let f = pointer.pointee
        var key = UInt64(UInt8(truncatingIfNeeded: f.color_primaries.rawValue))
        key = key << 8 | UInt64(UInt8(truncatingIfNeeded: f.color_trc.rawValue))
        key = key << 8 | UInt64(UInt8(truncatingIfNeeded: f.colorspace.rawValue))
        key = key << 8 | UInt64(UInt8(truncatingIfNeeded: f.color_range.rawValue))
        key = key << 8 | UInt64(UInt8(truncatingIfNeeded: f.chroma_location.rawValue))
        let sar = f.sample_aspect_ratio
        key = key << 12 | UInt64(UInt16(truncatingIfNeeded: sar.num) & 0xFFF)
        key = key << 12 | UInt64(UInt16(truncatingIfNeeded: sar.den) & 0xFFF)
        return key
    }
}
