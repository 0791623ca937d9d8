import CFFmpeg

/// Content sniffing without opening a demuxer, so that "not a media file" can be told apart from
/// "a media file whose structure is broken" (`AVError.fileFormatNotRecognized` vs `.fileFailedToParse`).
public enum FormatProbe {
    /// The short name of the container format the first bytes of `path` look like, or nil when no
    /// demuxer recognises them with reasonable confidence (score above `AVPROBE_SCORE_RETRY`).
    public static func recognizedFormat(path: String, maxBytes: Int = 1 << 20) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        let padding = Int(AVPROBE_PADDING_SIZE)
        var buffer = [UInt8](repeating: 0, count: maxBytes + padding)
        let count = fread(&buffer, 1, maxBytes, file)
        guard count > 0 else { return nil }
        return recognizedFormat(bytes: buffer, count: count, filename: path)
    }

    static func recognizedFormat(bytes: [UInt8], count: Int, filename: String) -> String? {
        var bytes = bytes
        return bytes.withUnsafeMutableBufferPointer { buf -> String? in
            filename.withCString { name -> String? in
                var pd = AVProbeData()
                pd.filename = name
                pd.buf = buf.baseAddress
                pd.buf_size = Int32(count)
                var score: Int32 = 0
                guard let format = av_probe_input_format3(&pd, 1, &score), score > AVPROBE_SCORE_MAX / 4 else {
                    return nil
                }
                return String(cString: format.pointee.name)
            }
        }
    }
}
