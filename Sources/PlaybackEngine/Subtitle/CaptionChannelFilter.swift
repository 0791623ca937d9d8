/// Keeps one CEA-608 caption channel (CC1…CC4) of a video stream's `cc_data` triplets, in the form libavcodec's
/// `ccaption` decoder reads as its first channel: field 1 (`cc_type` 0), data channel 1.
///
/// CEA-608 carries two channels per field: CC1 and CC2 in field 1, CC3 and CC4 in field 2. A control code's first
/// byte (0x10…0x1F, parity stripped) says its channel (bit 0x08: the field's second channel), and the characters
/// that follow belong to the channel of the last control code. The filter keeps the wanted field's pairs, blanks
/// (to the null pair 0x80 0x80) those of the other channel and extended data services (XDS, 0x01…0x0F), and moves
/// the wanted channel's control codes to data channel 1. `ccaption` itself decodes the first field it meets, data
/// channel 1 only: fed the filter's output, it decodes the wanted channel whatever else the stream carries.
///
/// A value with state (the channel of the last control code per call sequence): one per caption reader.
package struct CaptionChannelFilter: Sendable {
    /// The wanted channel, 1…4.
    package let channel: Int
    /// Whether the pairs being read belong to the wanted channel (set by each control code; false until one).
    private var inWantedChannel = false

    /// A filter keeping channel `channel` (1…4: CC1…CC4).
    package init(channel: Int) {
        precondition((1...4).contains(channel), "CaptionChannelFilter: channel \(channel) is not 1…4 (\(#function))")
        self.channel = channel
    }

    /// The field-1 triplets `ccaption` should read of `data` (`cc_data` triplets, any fields); empty when none of
    /// the channel's pairs are in it.
    package mutating func filter(_ data: [UInt8]) -> [UInt8] {
        let field: UInt8 = channel <= 2 ? 0 : 1
        let secondChannel = channel % 2 == 0
        var out: [UInt8] = []
        var carriesCaptions = false
        var i = 0
        while i + 2 < data.count {
            defer { i += 3 }
            // cc_valid, and cc_type the wanted field.
            guard data[i] & 0x04 != 0, data[i] & 0x03 == field else { continue }
            var first = data[i + 1] & 0x7F
            let second = data[i + 2] & 0x7F
            var keep = inWantedChannel
            if (0x10...0x1F).contains(first) {
                inWantedChannel = ((first & 0x08) != 0) == secondChannel
                keep = inWantedChannel
                first &= ~0x08
            } else if (0x01...0x0F).contains(first) {
                // Extended data services: of no caption channel.
                inWantedChannel = false
                keep = false
            } else if first == 0 && second == 0 {
                keep = true
            }
            out.append(0xFC)
            if keep {
                carriesCaptions = carriesCaptions || first != 0 || second != 0
                out.append(Self.oddParity(first))
                out.append(Self.oddParity(second))
            } else {
                out += [0x80, 0x80]
            }
        }
        return carriesCaptions ? out : []
    }

    /// `byte` (7 bits) with bit 7 set so the byte has an odd number of ones, as CEA-608 transmits it.
    static func oddParity(_ byte: UInt8) -> UInt8 {
        byte.nonzeroBitCount % 2 == 0 ? byte | 0x80 : byte
    }
}
