import CoreMedia
import FFmpegBridge
import XCTest

@testable import PlaybackEngine

/// ``CEA708Decoder`` fed byte sequences written from CEA-708-E: triplets → DTVCC packets → service blocks →
/// commands and text → cues (ASS event lines in the decoder's script).
final class CEA708DecoderTests: XCTestCase {
    // MARK: Building input

    /// A service block: header (service number, size; service 7 and an extended header byte for 7…63) and data.
    private func block(_ service: Int, _ data: [UInt8]) -> [UInt8] {
        precondition(data.count <= 31)
        if service >= 7 { return [UInt8(7 << 5 | data.count), UInt8(service)] + data }
        return [UInt8(service << 5 | data.count)] + data
    }

    /// A DTVCC packet of `blocks` with sequence number `sequence`, padded to an even size with a null block header.
    private func packet(_ sequence: Int, _ blocks: [UInt8]...) -> [UInt8] {
        var body = blocks.flatMap { $0 }
        if (1 + body.count) % 2 != 0 { body.append(0) }
        return [UInt8(sequence << 6 | ((1 + body.count) / 2) % 64)] + body
    }

    /// `packet` as `cc_data` triplets: `cc_type` 3 for its first two bytes, 2 for the rest.
    private func triplets(_ packet: [UInt8]) -> [UInt8] {
        stride(from: 0, to: packet.count, by: 2).flatMap { k -> [UInt8] in
            [k == 0 ? 0xFF : 0xFE, packet[k], k + 1 < packet.count ? packet[k + 1] : 0]
        }
    }

    private func t(_ seconds: Double) -> CMTime { CMTime(seconds: seconds, preferredTimescale: 90_000) }

    /// DF0: hidden (unless `visible`), row and column lock, relative positioning at 90 % down, 50 % across,
    /// anchor point bottom centre, `rows` rows, 32 columns, window style `style`, pen style 1.
    private func df0(visible: Bool = false, rows: Int = 1, style: UInt8 = 1) -> [UInt8] {
        [0x98, visible ? 0x38 : 0x18, 0x80 | 90, 50, 0x70 | UInt8(rows - 1), 31, style << 3 | 1]
    }

    private let dsw0: [UInt8] = [0x89, 0x01]
    private let hdw0: [UInt8] = [0x8A, 0x01]

    /// The event line text after the `{\an…\pos…}` placement block.
    private func text(_ cue: SubtitleCue) -> String {
        guard case .ass(let line) = cue.regions.first else { return "" }
        let fields = line.split(separator: ",", maxSplits: 8, omittingEmptySubsequences: false)
        let body = fields.count == 9 ? String(fields[8]) : line
        guard body.hasPrefix("{\\an"), let close = body.firstIndex(of: "}") else { return body }
        return String(body[body.index(after: close)...])
    }

    /// Decodes `packets` (each the data of one picture, 1/30 s apart from 0) with a decoder of `service`, then
    /// finishes it: every cue, in the order they ended.
    private func decode(_ pictures: [[UInt8]], service: Int = 1) -> [SubtitleCue] {
        var decoder = CEA708Decoder(service: service)
        var cues: [SubtitleCue] = []
        for (n, data) in pictures.enumerated() {
            cues += decoder.decode(data.isEmpty ? [] : triplets(data), at: t(Double(n) / 30))
        }
        return cues + decoder.finish()
    }

    /// Texts shown by a visible window 0 of `rows` rows written with `blocks` (service blocks of their own, after
    /// DF0's and before a final HDW).
    private func shownText(_ blocks: [UInt8]..., rows: Int = 1) -> [String] {
        let data = [block(1, df0(visible: true, rows: rows))] + blocks.map { block(1, $0) }
        return decode([packet(0, data.flatMap { $0 }), packet(1, block(1, hdw0))]).map(text)
    }

    // MARK: Packets and service blocks

    /// The exact bytes `scripts/make-fixtures` (cc708.py) sends for caption 1 of service 1, worked out by hand from
    /// CEA-708-E: frame 20 defines the window, 22–23 set the pen and write the text, 30 shows it, 42 hides it.
    func test_fixtureBytes_forCaption1_decodeToItsCue() {
        let frame20: [UInt8] = [
            0xFF, 0x0A, 0x31,  // packet start: sequence 0, size code 10 (20 bytes); block: service 1, 17 bytes
            0xFE, 0x98, 0x18,  // DF0: hidden, row and column lock, priority 0
            0xFE, 0xDA, 0x32,  // relative positioning, anchor 90 % down; 50 % across
            0xFE, 0x70, 0x1F,  // anchor point 7 (bottom centre), 1 row; 32 columns
            0xFE, 0x09, 0x88,  // window style 1, pen style 1; CLW
            0xFE, 0x01, 0x97,  // window 0; SWA
            0xFE, 0x00, 0x00,  // opaque black fill; no border
            0xFE, 0x0E, 0x00,  // L-R print, B-T scroll, centred; snap
            0xFE, 0x92, 0x00,  // SPL row 0
            0xFE, 0x00, 0x00,  // column 0; null block (padding)
        ]
        let frame22: [UInt8] = [
            0xFF, 0x4D, 0x38,  // sequence 1, size code 13 (26 bytes); service 1, 24 bytes
            0xFE, 0x90, 0x05,  // SPA: standard size, normal offset
            0xFE, 0x00, 0x91,  // upright, no underline; SPC
            0xFE, 0x3F, 0x00,  // solid white; solid black background
            0xFE, 0x00, 0x53,  // no edge; "S"
            0xFE, 0x45, 0x52, 0xFE, 0x56, 0x49, 0xFE, 0x43, 0x45, 0xFE, 0x31, 0x20, 0xFE, 0x31, 0x20,  // ERVICE1 1
        ]
        let frame23: [UInt8] = [0xFE, 0x41, 0x54, 0xFE, 0x20, 0x31, 0xFE, 0x2E, 0x30]  // "AT 1.0"
        let frame30: [UInt8] = [0xFF, 0x82, 0x22, 0xFE, 0x89, 0x01]  // sequence 2, 4 bytes; service 1, 2: DSW 0
        let frame42: [UInt8] = [0xFF, 0x02, 0x22, 0xFE, 0x8A, 0x01]  // sequence 0, 4 bytes; service 1, 2: HDW 0
        let padding: [UInt8] = [0xFA, 0x00, 0x00]
        var decoder = CEA708Decoder(service: 1)
        var cues: [SubtitleCue] = []
        for frame in 0..<60 {
            let data: [UInt8] =
                [0xFC, 0x80, 0x80]
                + ([20: frame20, 22: frame22, 23: frame23, 30: frame30, 42: frame42][frame] ?? padding)
            cues += decoder.decode(data, at: CMTime(value: Int64(frame), timescale: 30))
        }
        XCTAssertEqual(
            cues,
            [
                SubtitleCue(
                    start: CMTime(value: 30, timescale: 30), end: CMTime(value: 42, timescale: 30),
                    regions: [.ass("0,0,Default,,0,0,0,,{\\an8\\pos(192,221)}SERVICE1 1 AT 1.0")])
            ])
        XCTAssertEqual(decoder.lostPackets, 1, "sequence 2 then 0: one packet missing between them")
        XCTAssertEqual(decoder.servicesPresent, [1])
        XCTAssertEqual(decoder.finish(), [])
    }

    func test_popOnCaption_definedHidden_isACueFromShowToHide() {
        let cues = decode([
            packet(0, block(1, df0() + Array("HELLO".utf8))), [], packet(1, block(1, dsw0)), [],
            packet(2, block(1, hdw0)),
        ])
        XCTAssertEqual(cues.count, 1)
        XCTAssertEqual(cues.first?.start, t(2.0 / 30))
        XCTAssertEqual(cues.first?.end, t(4.0 / 30))
        // Box: 90 % − 1/15 of the safe area down, 50 % − 32/84 across; the safe area is the middle 80 %.
        XCTAssertEqual(cues.first?.regions, [.ass("0,0,Default,,0,0,0,,{\\an7\\pos(75,221)}HELLO")])
    }

    func test_windowCommands_endTheCue_eachItsWay() {
        let write = packet(0, block(1, df0(visible: true) + Array("AB".utf8)))
        for (name, command) in [
            ("HDW", hdw0), ("TGW", [0x8B, 0x01]), ("CLW", [0x88, 0x01]), ("DLW", [0x8C, 0x01]), ("RST", [0x8F]),
            ("FF", [0x0C]),
        ] as [(String, [UInt8])] {
            var decoder = CEA708Decoder(service: 1)
            XCTAssertEqual(decoder.decode(triplets(write), at: t(0)), [], name)
            let ended = decoder.decode(triplets(packet(1, block(1, command))), at: t(1))
            XCTAssertEqual(ended.map(text), ["AB"], name)
            XCTAssertEqual(ended.first?.end, t(1), name)
            XCTAssertEqual(decoder.finish(), [], "\(name): nothing shown after it")
        }
        // TGW twice shows it again; text written into a shown window replaces its cue.
        let cues = decode([
            packet(0, block(1, df0() + Array("A".utf8))), packet(1, block(1, [0x8B, 0x01])),
            packet(2, block(1, Array("B".utf8))), packet(3, block(1, [0x8B, 0x01, 0x8B, 0x01])),
        ])
        XCTAssertEqual(cues.map(text), ["A", "AB"])
        XCTAssertEqual(cues.map(\.start), [t(1.0 / 30), t(2.0 / 30)])
        XCTAssertEqual(cues.map(\.end), [t(2.0 / 30), nil])
    }

    func test_currentWindow_CWnSelectsADefinedWindowOnly() {
        // Window 1 at the top; CW0 goes back to window 0; CW5 (undefined) leaves the current window as it was.
        let df1: [UInt8] = [0x99, 0x38, 0x80 | 10, 50, 0x10, 31, 0x09]
        let data = df0(visible: true) + Array("A".utf8) + df1 + Array("B".utf8) + [0x80] + Array("C".utf8) + [0x85]
        let cues = decode([packet(0, block(1, data + Array("D".utf8)))])
        XCTAssertEqual(cues.map(text), ["ACD", "B"], "window order")
        XCTAssertEqual(cues.map(\.end), [nil, nil])
    }

    func test_otherServices_areSkipped_andExtendedServiceHeadersRead() {
        let data = packet(
            0, block(2, df0(visible: true) + Array("TWO".utf8)), block(10, df0(visible: true) + Array("TEN".utf8)),
            block(1, df0(visible: true) + Array("ONE".utf8)))
        var decoder = CEA708Decoder(service: 1)
        _ = decoder.decode(triplets(data), at: t(0))
        XCTAssertEqual(decoder.servicesPresent, [1, 2, 10])
        XCTAssertEqual(decoder.finish().map(text), ["ONE"])
        XCTAssertEqual(decode([data], service: 2).map(text), ["TWO"])
        XCTAssertEqual(decode([data], service: 10).map(text), ["TEN"])
        // A null block ends the packet's blocks.
        XCTAssertEqual(decode([packet(0, [0x00], block(1, df0(visible: true) + [0x41]))]), [])
    }

    func test_packets_decodeWhenComplete_cutShortOnes_asFarAsTheyGo() {
        // A packet spread over two pictures: decoded with the second.
        let whole = triplets(packet(0, block(1, df0(visible: true) + Array("SPLIT".utf8))))
        var decoder = CEA708Decoder(service: 1)
        XCTAssertEqual(decoder.decode(Array(whole[..<9]), at: t(0)), [])
        XCTAssertEqual(decoder.decode(Array(whole[9...]), at: t(1)), [])
        let cues = decoder.finish()
        XCTAssertEqual(cues.map(text), ["SPLIT"])
        XCTAssertEqual(cues.first?.start, t(1))
        // 608 triplets (cc_type 0, 1) and invalid ones in between change nothing.
        var mixed: [UInt8] = []
        for k in stride(from: 0, to: whole.count, by: 3) {
            mixed += [0xFC, 0x94, 0x20, 0xFD, 0x80, 0x80, 0xFA, 0x41, 0x41] + whole[k..<(k + 3)]
        }
        var d2 = CEA708Decoder(service: 1)
        _ = d2.decode(mixed, at: t(0))
        XCTAssertEqual(d2.finish().map(text), ["SPLIT"])
        // A packet cut short by the next start: its whole blocks are decoded, the cut one is not.
        let first = packet(0, block(1, df0(visible: true) + [0x41]), block(1, [0x42, 0x43]))
        let cut = Array(triplets(first).dropLast(3))
        var d3 = CEA708Decoder(service: 1)
        _ = d3.decode(cut + triplets(packet(1, block(1, [0x44]))), at: t(0))
        XCTAssertEqual(d3.finish().map(text), ["AD"])
        XCTAssertEqual(d3.lostPackets, 0)
        // Size code 0: 128 bytes.
        var big = [UInt8(0x40)] + block(1, df0(visible: true) + Array("BIG".utf8))
        big += [UInt8](repeating: 0, count: 128 - big.count)
        var d4 = CEA708Decoder(service: 1)
        let bigTriplets = triplets(big)
        _ = d4.decode(Array(bigTriplets.dropLast(3)), at: t(0))
        XCTAssertEqual(d4.finish(), [], "not complete before its 128th byte")
        _ = d4.decode(Array(bigTriplets.suffix(3)), at: t(1))
        XCTAssertEqual(d4.finish().map(text), ["BIG"])
    }

    // MARK: Characters

    func test_characterSets_G0_G1_G2_G3_andP16() {
        XCTAssertEqual(shownText([0x41, 0x7F, 0x20, 0xE9, 0xA9]), ["A\u{266A} é©"])
        // EXT1: … “ ” ‘ ’ ™ • Š œ, transparent space, the CC icon; G2 0x22 is unassigned: nothing.
        let g2: [UInt8] = [0x25, 0x33, 0x34, 0x31, 0x32, 0x39, 0x35, 0x2A, 0x3C, 0x20, 0x22, 0x7D]
        XCTAssertEqual(
            shownText(g2.flatMap { [0x10, $0] } + [0x10, 0xA0, 0x41]),
            ["\u{2026}\u{201C}\u{201D}\u{2018}\u{2019}\u{2122}\u{2022}\u{0160}\u{0153} \u{2500}\u{1F16D}A"])
        XCTAssertEqual(shownText([0x18, 0x00, 0x41, 0x18, 0x30, 0x42]), ["A\u{3042}"], "P16")
        // Braces and backslashes stay text.
        XCTAssertEqual(shownText(Array("{a}\\N".utf8)), ["\\{a\\}\\\u{2060}N"])
    }

    // MARK: C0

    func test_C0_BS_CR_HCR_FF_ETX_NUL() {
        XCTAssertEqual(shownText(Array("ABX".utf8) + [0x08] + Array("C".utf8)), ["ABC"], "BS")
        XCTAssertEqual(shownText(Array("ONE".utf8) + [0x0D] + Array("TWO".utf8), rows: 2), ["ONE\\NTWO"], "CR")
        // Roll-up: a carriage return on the last row scrolls the rows up.
        XCTAssertEqual(
            shownText(Array("A".utf8) + [0x0D] + Array("B".utf8) + [0x0D] + Array("C".utf8), rows: 2), ["B\\NC"])
        XCTAssertEqual(shownText(Array("OLD".utf8) + [0x0E] + Array("NEW".utf8)), ["NEW"], "HCR")
        XCTAssertEqual(shownText(Array("OLD".utf8) + [0x0C] + Array("NEW".utf8)), ["NEW"], "FF")
        XCTAssertEqual(shownText([0x41, 0x03, 0x00, 0x42]), ["AB"], "ETX, NUL")
        // 0x11–0x17 take one parameter byte, 0x19–0x1F two: skipped whole.
        XCTAssertEqual(shownText([0x41, 0x11, 0x42, 0x43, 0x1F, 0x44, 0x45, 0x46]), ["ACF"])
    }

    // MARK: C1 and the extended codes: parameters honoured

    func test_delaysAndReservedAndExtendedCodes_skipTheirParameters() {
        // DLY (1 byte), DLC, reserved 0x93–0x96 (none), and EXT1 C2 0x08 (1), 0x10 (2), 0x18 (3), C3 0x80 (4),
        // 0x88 (5) and 0x90 (a length byte: 3 more).
        XCTAssertEqual(
            shownText(
                [0x41, 0x8D, 0x42, 0x8E, 0x93, 0x96, 0x43]
                    + [0x10, 0x08, 0x44, 0x10, 0x10, 0x44, 0x44, 0x10, 0x18, 0x44, 0x44, 0x44, 0x45],
                [0x10, 0x80, 0x44, 0x44, 0x44, 0x44, 0x10, 0x88, 0x44, 0x44, 0x44, 0x44, 0x44]
                    + [0x10, 0x90, 0x03, 0x44, 0x44, 0x44, 0x46]),
            ["ACEF"])
        // A command cut off by the end of its block is dropped, and the block's end is its end.
        XCTAssertEqual(shownText([0x41, 0x92, 0x00]), ["A"])
    }

    func test_penAttributesAndColour_becomeASSTags() {
        let italic: [UInt8] = [0x90, 0x05, 0x80]
        let underline: [UInt8] = [0x90, 0x05, 0x40]
        let plain: [UInt8] = [0x90, 0x05, 0x00]
        let yellow: [UInt8] = [0x91, 0x3C, 0x00, 0x00]
        let white: [UInt8] = [0x91, 0x3F, 0x00, 0x00]
        XCTAssertEqual(
            shownText([0x41] + italic + [0x42] + underline + [0x43] + plain + [0x44]),
            ["A{\\i1}B{\\i0\\u1}C{\\u0}D"])
        XCTAssertEqual(shownText(yellow + [0x41] + white + [0x42]), ["{\\c&H00FFFF&}A{\\c&HFFFFFF&}B"])
        // Two-bit components: 1 → 0x55, 2 → 0xAA (red 1, green 2, blue 0).
        XCTAssertEqual(shownText([0x91, 0x18, 0x00, 0x00, 0x41]), ["{\\c&H00AA55&}A"])
        // A predefined pen style on an existing window resets the pen.
        XCTAssertEqual(shownText(italic + [0x41] + df0(visible: true) + [0x42]), ["{\\i1}A{\\i0}B"])
    }

    // MARK: Placement

    func test_placement_followsAnchorPenLocationAndJustification() {
        func line(_ data: [UInt8]) -> String? {
            if case .ass(let l) = decode([packet(0, block(1, data))]).first?.regions.first { return l }
            return nil
        }
        // Left-justified, the pen at row 1, column 5 of a 2-row window: one row below the box's top, 5 columns in.
        // Box: 2/15 of the safe area high, its bottom at 90 %: top 76.67 %, row 1 at 83.33 % → 76.67 % of the
        // picture → 221; with row 0 written too, the text starts at the top: 71.33 % → 205.
        XCTAssertEqual(
            line(df0(visible: true, rows: 2) + [0x92, 0x01, 0x05] + Array("X".utf8)),
            "0,0,Default,,0,0,0,,{\\an7\\pos(112,221)}X")
        XCTAssertEqual(
            line(df0(visible: true, rows: 2) + [0x92, 0x01, 0x05] + Array("X".utf8) + [0x92, 0x00, 0x05, 0x59]),
            "0,0,Default,,0,0,0,,{\\an7\\pos(112,205)}Y\\NX")
        // Window style 3: centred, at the box's middle; SWA right: at its right edge.
        XCTAssertEqual(
            line(df0(visible: true, style: 3) + Array("X".utf8)), "0,0,Default,,0,0,0,,{\\an8\\pos(192,221)}X")
        XCTAssertEqual(
            line(df0(visible: true) + [0x97, 0, 0, 0x01, 0] + Array("X".utf8)),
            "0,0,Default,,0,0,0,,{\\an9\\pos(309,221)}X")
        // Absolute positioning (75 × 210 grid), anchor point 0 at (0, 0): the safe area's top left.
        XCTAssertEqual(
            line([0x98, 0x38, 0x00, 0x00, 0x00, 31, 0x09] + Array("X".utf8)),
            "0,0,Default,,0,0,0,,{\\an7\\pos(38,29)}X")
        // Anchor point 8 (bottom right) at (74, 209), 1 row, 10 columns: the box's top left is 1/15 up and 10/42
        // left of the safe area's bottom right.
        XCTAssertEqual(
            line([0x98, 0x38, 74, 209, 0x80, 9, 0x09] + Array("X".utf8)),
            "0,0,Default,,0,0,0,,{\\an7\\pos(271,241)}X")
    }

    // MARK: Service names

    func test_instreamIDs_nameA608ChannelOrA708Service() {
        XCTAssertEqual(ClosedCaptionService(instreamID: "CC1"), .cea608(channel: 1))
        XCTAssertEqual(ClosedCaptionService(instreamID: "CC4"), .cea608(channel: 4))
        XCTAssertEqual(ClosedCaptionService(instreamID: "SERVICE1"), .cea708(service: 1))
        XCTAssertEqual(ClosedCaptionService(instreamID: "SERVICE63"), .cea708(service: 63))
        for bad in ["CC0", "CC5", "cc1", "SERVICE0", "SERVICE64", "SERVICE01", "SERVICE+1", "SERVICE", "SERVICE100"] {
            XCTAssertNil(ClosedCaptionService(instreamID: bad), bad)
        }
        let description = ClosedCaptionDescription(streamIndex: 0, instreamID: "SERVICE2", name: "Second")
        XCTAssertEqual(description.service, .cea708(service: 2))
    }

    // MARK: Robustness

    /// Random bytes as triplets, and random command bytes in well-formed packets of service 1: nothing traps or
    /// loops, every cue ends after it starts and its line is an event line of the decoder's script.
    func test_randomInput_neverTraps_andCuesStayWellFormed() {
        var rng = SplitMix64(seed: 708)
        var cueCount = 0
        for round in 0..<400 {
            var decoder = CEA708Decoder(service: 1 + round % 3)
            var cues: [SubtitleCue] = []
            for picture in 0..<30 {
                var data: [UInt8]
                if round % 2 == 0 {
                    data = (0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                } else {
                    let body = (0..<Int(rng.next() % 30)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                    data = triplets(packet(picture % 4, block(1 + round % 3, body)))
                }
                cues += decoder.decode(data, at: t(Double(picture) / 30))
            }
            cues += decoder.finish()
            cueCount += cues.count
            for cue in cues {
                if let end = cue.end { XCTAssertGreaterThan(end, cue.start) }
                guard case .ass(let line) = cue.regions.first, cue.regions.count == 1 else {
                    return XCTFail("one ASS region")
                }
                XCTAssertTrue(line.hasPrefix("0,0,Default,,0,0,0,,{\\an"), line)
            }
        }
        XCTAssertGreaterThan(cueCount, 50, "random commands defined, wrote and showed windows")
    }
}

/// A small deterministic generator (SplitMix64) for reproducible random input.
private struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
