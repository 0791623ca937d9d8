/// Finds CEA-608/708 caption data (ATSC A/53 "GA94" user data, SEI payload type 4) in H.264 and HEVC packets,
/// without decoding the pictures: the 3-byte `cc_data` triplets libavcodec's `eia_608` (`ccaption`) decoder takes.
///
/// Packets are length-prefixed NAL units (MP4, Matroska: `avcC`/`hvcC` extradata) or Annex B start codes
/// (MPEG-TS, raw streams). Pure and value-typed: any thread.
public struct ClosedCaptionExtractor: Sendable {
    /// The video codec.
    public enum Codec: Sendable { case h264, hevc }

    public let codec: Codec
    /// NAL length-prefix size (1, 2 or 4) for length-prefixed packets; nil for Annex B.
    public let lengthSize: Int?

    /// An extractor for `codec` packets whose decoder configuration is `extradata` (`avcC`/`hvcC` means
    /// length-prefixed NAL units; anything else, Annex B).
    public init(codec: Codec, extradata: [UInt8]) {
        self.codec = codec
        switch codec {
        case .h264:
            lengthSize = extradata.count >= 7 && extradata[0] == 1 ? Int(extradata[4] & 3) + 1 : nil
        case .hevc:
            lengthSize = extradata.count >= 23 && extradata[0] == 1 ? Int(extradata[21] & 3) + 1 : nil
        }
    }

    /// An extractor for the stream `parameters` describe; nil for codecs other than H.264 and HEVC.
    package init?(parameters: CodecParameters) {
        switch parameters.codecName {
        case "h264": self.init(codec: .h264, extradata: parameters.extradata)
        case "hevc": self.init(codec: .hevc, extradata: parameters.extradata)
        default: return nil
        }
    }

    /// The `cc_data` triplets of `packet` (empty when it carries none).
    public func captionData(in packet: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        forEachNAL(in: packet) { nal in
            let header = codec == .h264 ? 1 : 2
            guard nal.count > header else { return }
            let type = codec == .h264 ? Int(nal[0] & 0x1F) : Int((nal[0] >> 1) & 0x3F)
            guard type == (codec == .h264 ? 6 : 39) else { return }
            Self.seiCaptions(Self.unescaped(nal.dropFirst(header)), into: &out)
        }
        return out
    }

    /// Calls `body` with each NAL unit of `data` (header included, start code or length excluded).
    private func forEachNAL(in data: UnsafeRawBufferPointer, _ body: ([UInt8]) -> Void) {
        let bytes = Array(data)
        if let size = lengthSize {
            var i = 0
            while i + size <= bytes.count {
                var length = 0
                for k in 0..<size { length = length << 8 | Int(bytes[i + k]) }
                i += size
                guard length > 0, i + length <= bytes.count else { return }
                body(Array(bytes[i..<(i + length)]))
                i += length
            }
            return
        }
        // Annex B: NAL units between 00 00 01 start codes.
        var starts: [Int] = []
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 {
                starts.append(i + 3)
                i += 3
            } else {
                i += 1
            }
        }
        for (n, start) in starts.enumerated() {
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : bytes.count
            while end > start && bytes[end - 1] == 0 { end -= 1 }  // a 4-byte start code's leading zero
            if end > start { body(Array(bytes[start..<end])) }
        }
    }

    /// `rbsp` with emulation-prevention bytes (00 00 03) removed.
    private static func unescaped(_ rbsp: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(rbsp.count)
        var zeros = 0
        for b in rbsp {
            if zeros >= 2 && b == 3 {
                zeros = 0
                continue
            }
            out.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Appends the caption triplets of the SEI messages in `sei` to `out`.
    private static func seiCaptions(_ sei: [UInt8], into out: inout [UInt8]) {
        var i = 0
        func number() -> Int? {
            var value = 0
            while i < sei.count {
                let b = Int(sei[i])
                i += 1
                value += b
                if b != 0xFF { return value }
            }
            return nil
        }
        while i < sei.count, sei[i] != 0x80 {
            guard let type = number(), let size = number(), i + size <= sei.count else { return }
            let payload = sei[i..<(i + size)]
            i += size
            guard type == 4 else { continue }
            // itu_t_t35 country code (US), provider (ATSC), "GA94", user_data_type_code 3 (cc_data).
            let p = Array(payload)
            guard p.count >= 10, p[0] == 0xB5, p[1] == 0x00, p[2] == 0x31, p[3] == 0x47, p[4] == 0x41, p[5] == 0x39,
                p[6] == 0x34, p[7] == 0x03, p[8] & 0x40 != 0
            else { continue }
            let count = Int(p[8] & 0x1F)
            let start = 10  // after the flags byte and em_data
            guard start + count * 3 <= p.count else { continue }
            out += p[start..<(start + count * 3)]
        }
    }
}
