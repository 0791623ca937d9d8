import CFFmpeg

// What the playback pipeline's demux thread needs from its FormatContext beyond reading and seeking.
// Like the rest of FormatContext, these belong to the thread that owns the context.
extension FormatContext {
    /// A copy of stream `index`'s codec parameters, for a decoder on another thread.
    ///
    /// Call it on the thread that owns the context (typically before the demuxer starts).
    /// - Throws: `FFmpegError.streamNotFound` for an index out of range.
    /// - Parameter reportedIndex: the stream's index as the parameters report it (a source that merges several
    ///   inputs numbers their streams one after another); `index` by default.
    package func codecParameters(stream index: Int, reportedIndex: Int? = nil) throws(FFmpegError) -> CodecParameters {
        guard let parameters = codecParametersPointer(stream: index), let stream = raw.pointee.streams[index] else {
            throw FFmpegError.streamNotFound
        }
        let guessed = Rational(av_guess_frame_rate(raw, stream, nil)).nonZero
        return try CodecParameters(
            copying: parameters, streamIndex: reportedIndex ?? index, timeBase: Rational(stream.pointee.time_base),
            frameRate: parameters.pointee.codec_type == AVMEDIA_TYPE_VIDEO ? guessed : nil)
    }

    /// The number of streams in the container.
    package var streamCount: Int { Int(raw.pointee.nb_streams) }

    /// Stream `index`'s time base, or nil for an index out of range.
    package func timeBase(ofStream index: Int) -> Rational? {
        guard index >= 0, index < streamCount, let stream = raw.pointee.streams[index] else { return nil }
        return Rational(stream.pointee.time_base)
    }

    /// Stream `index`'s kind (`.unknown` for an index out of range).
    package func kind(ofStream index: Int) -> StreamKind {
        guard index >= 0, index < streamCount, let stream = raw.pointee.streams[index] else { return .unknown }
        return StreamKind(stream.pointee.codecpar.pointee.codec_type)
    }

    /// A new reference to stream `index`'s attached picture (cover art) when the stream is one
    /// (`AV_DISPOSITION_ATTACHED_PIC`), else nil. ffplay queues it after opening and after every seek,
    /// because `av_read_frame` returns it only once.
    package func attachedPicture(stream index: Int) -> Packet? {
        guard index >= 0, index < streamCount, let stream = raw.pointee.streams[index],
            stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0
        else { return nil }
        let packet = Packet()
        guard av_packet_ref(packet.pointer, &stream.pointee.attached_pic) >= 0 else {
            return nil
        }
        return packet
    }

    /// Whether the I/O layer reached the end of the input (`avio_feof`); false without I/O context.
    package var isAtEndOfInput: Bool {
        guard let pb = raw.pointee.pb else { return false }
        return avio_feof(pb) != 0
    }

    /// The I/O layer's sticky error (`AVIOContext.error`), if any: a read failed below the demuxer.
    package var ioError: FFmpegError? {
        guard let pb = raw.pointee.pb, pb.pointee.error < 0 else { return nil }
        return FFmpegError(code: pb.pointee.error, function: "avio_read")
    }

    /// Bytes the I/O layer has read from the input so far (`AVIOContext.bytes_read`); 0 without I/O.
    package var ioBytesRead: Int64 {
        raw.pointee.pb?.pointee.bytes_read ?? 0
    }

    /// The container's start time in microseconds (`AV_TIME_BASE`), if known.
    package var startTimeMicroseconds: Int64? {
        raw.pointee.start_time == Rational.noPTS ? nil : raw.pointee.start_time
    }

    /// The container's duration in microseconds, if known.
    package var durationMicroseconds: Int64? {
        let duration = raw.pointee.duration
        return duration == Rational.noPTS || duration <= 0 ? nil : duration
    }
}

extension FormatContext {
    /// The name of the libavformat protocol that would read `url` (`avio_find_protocol_name`): "file" for a path or
    /// a `file:` URL, "http", "https", "tcp" … for network inputs; nil when no protocol handles it.
    package static func protocolName(for url: String) -> String? {
        avio_find_protocol_name(url).map { String(cString: $0) }
    }
}
