import CoreMedia

/// Decodes one CEA-708 (DTVCC) caption service from the `cc_data` triplets of a video stream's pictures, in display
/// order, into cues: libavcodec decodes CEA-608 only, so this decoder is our own.
///
/// Layers (CEA-708-E §5–§8):
/// - *Triplets*: `cc_valid` with `cc_type` 3 starts a DTVCC packet, `cc_type` 2 continues it (two bytes each);
///   608 triplets (`cc_type` 0, 1) and invalid ones are skipped.
/// - *Packets*: a header byte (2-bit sequence number, 6-bit size code: `size × 2` bytes in all, 128 for 0) and
///   service blocks. A packet is decoded as soon as it is complete; one cut short by the next packet's start is
///   decoded as far as it goes. A gap in the sequence numbers is counted (``lostPackets``), nothing reset.
/// - *Service blocks*: a header byte (3-bit service number, 5-bit size), for service 7 an extended header byte
///   (services 7…63); a null block (service 0) ends the packet's blocks. Blocks of other services are skipped.
/// - *Commands and text*: ``CEA708Service``.
///
/// Cues: after each picture's data, every window's text (``CEA708Window/eventLine()``) is compared with what it
/// showed before. A change at picture time `t` ends the window's cue at `t` and starts the next at `t` — so a cue
/// starts when a window is displayed (`DSW`, `TGW`, a visible `DFx`, text written into a visible window) and ends
/// when it is hidden, cleared, deleted or its text changes. Cues are returned once they end; ``finish()`` returns
/// those still shown at the end of the stream, without an end.
///
/// A value with state: one per caption reader, fed from one thread.
package struct CEA708Decoder: Sendable {
    /// The service decoded (1…63).
    package let service: Int
    /// DTVCC packets whose sequence number did not follow the previous one's.
    package private(set) var lostPackets = 0
    /// The services whose blocks the packets so far carried (any service, decoded or not).
    package private(set) var servicesPresent: Set<Int> = []
    private var state = CEA708Service()
    /// The packet being assembled (header byte first) and its full size.
    private var packet: [UInt8] = []
    private var packetSize = 0
    private var lastSequence: Int?
    /// Per window ID, the event line it shows and since when.
    private var shown: [Int: (line: String, start: CMTime)] = [:]
    /// Whether a block of the service was interpreted since the windows were last compared.
    private var changed = false

    /// A decoder of service `service` (1…63: 1 is the primary caption service, 2 the secondary language).
    package init(service: Int) {
        precondition((1...63).contains(service), "CEA708Decoder: service \(service) is not 1…63 (\(#function))")
        self.service = service
    }

    /// The ASS script header the cues' event lines are styled and placed in: libass's default play resolution
    /// (384×288), a monospaced white style on an opaque black box, as libavcodec's `ccaption` draws CEA-608.
    package static let assHeader = """
        [Script Info]
        ; CEA-708 captions decoded by OpenAVFoundation
        ScriptType: v4.00+
        PlayResX: \(Int(CEA708Window.playResX))
        PlayResY: \(Int(CEA708Window.playResY))
        ScaledBorderAndShadow: yes

        [V4+ Styles]
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, \
        Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, \
        MarginR, MarginV, Encoding
        Style: Default,Monospace,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,3,1,0,7,0,0,0,0

        [Events]
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text

        """

    /// Decodes the `cc_data` triplets of the picture shown at `time` (any number of whole triplets; a partial one at
    /// the end is ignored) and returns the cues that ended at `time`, in window order.
    package mutating func decode(_ triplets: [UInt8], at time: CMTime) -> [SubtitleCue] {
        var i = 0
        while i + 2 < triplets.count {
            defer { i += 3 }
            let flags = triplets[i]
            guard flags & 0x04 != 0 else { continue }
            switch flags & 0x03 {
            case 3:
                if !packet.isEmpty { decodePacket() }
                packet = [triplets[i + 1], triplets[i + 2]]
                let code = Int(triplets[i + 1] & 0x3F)
                packetSize = code == 0 ? 128 : code * 2
            case 2:
                guard !packet.isEmpty else { continue }
                packet += [triplets[i + 1], triplets[i + 2]]
            default:
                continue
            }
            if packet.count >= packetSize { decodePacket() }
        }
        return changes(at: time)
    }

    /// The cues still shown at the end of the stream (without an end), in window order; the decoder forgets them.
    package mutating func finish() -> [SubtitleCue] {
        defer { shown = [:] }
        return shown.keys.sorted().map { id in
            let (line, start) = shown[id]!
            return SubtitleCue(start: start, end: nil, regions: [.ass(line)])
        }
    }

    /// Decodes the assembled packet (as far as it goes) and empties it.
    private mutating func decodePacket() {
        let data = packet.prefix(packetSize)
        packet = []
        guard let header = data.first else { return }
        let sequence = Int(header >> 6)
        if let last = lastSequence, sequence != (last + 1) % 4 { lostPackets += 1 }
        lastSequence = sequence
        var i = data.startIndex + 1
        while i < data.endIndex {
            var number = Int(data[i] >> 5)
            let size = Int(data[i] & 0x1F)
            i += 1
            if number == 0 { return }  // the null block: padding to the packet's end
            if number == 7 {
                guard i < data.endIndex else { return }
                number = Int(data[i] & 0x3F)
                i += 1
            }
            guard i + size <= data.endIndex else { return }
            servicesPresent.insert(number)
            if number == service {
                state.interpret(data[i..<(i + size)])
                changed = true
            }
            i += size
        }
    }

    /// Compares each window's event line with what it showed; returns the cues that ended at `time`.
    private mutating func changes(at time: CMTime) -> [SubtitleCue] {
        guard changed else { return [] }
        changed = false
        var ended: [SubtitleCue] = []
        for id in 0..<8 {
            let line = state.windows[id]?.eventLine()
            let before = shown[id]
            guard line != before?.line else { continue }
            if let before, time > before.start {
                ended.append(SubtitleCue(start: before.start, end: time, regions: [.ass(before.line)]))
            }
            shown[id] = line.map { ($0, time) }
        }
        return ended
    }
}
