/// The state of one CEA-708 caption service: its eight windows and the current one, changed by the commands and
/// text of the service's blocks (CEA-708-E §7, §8).
///
/// Every code's parameter length is honoured, so unknown and unsupported commands are skipped whole; a command cut
/// off by the end of its block is dropped. Text goes to the current window (none: dropped).
///
/// Interpreted: C0 `ETX`, `BS`, `FF`, `CR`, `HCR` (`NUL` and the others skipped; `P16` writes its 16-bit
/// character); G0 (0x7F the music note), G1; `EXT1` with G2 and G3 characters (C2 and C3 codes skipped, the
/// variable-length C3 codes by their length byte); C1 `CW0`–`CW7`, `CLW`, `DSW`, `HDW`, `TGW`, `DLW`, `RST`,
/// `SPA`, `SPC`, `SPL`, `SWA`, `DF0`–`DF7`. `DLY` and `DLC` are skipped: a delay is not held.
struct CEA708Service: Sendable, Equatable {
    /// The windows by ID (nil: not defined).
    private(set) var windows: [CEA708Window?] = Array(repeating: nil, count: 8)
    /// The window text and pen commands go to.
    private(set) var current: Int?

    /// Interprets one service block's data.
    mutating func interpret(_ block: ArraySlice<UInt8>) {
        var i = block.startIndex
        let end = block.endIndex
        /// The `count` parameter bytes after the code at `i`, or nil when the block ends first.
        func parameters(_ count: Int, after code: Int = 1) -> ArraySlice<UInt8>? {
            i + code + count <= end ? block[(i + code)..<(i + code + count)] : nil
        }
        while i < end {
            let code = block[i]
            switch code {
            case 0x10:
                // EXT1: the next byte is of the extended sets.
                guard i + 1 < end else { return }
                let ext = block[i + 1]
                guard let length = extendedLength(ext, next: i + 2 < end ? block[i + 2] : nil) else { return }
                guard i + 2 + length <= end else { return }
                if (0x20...0x7F).contains(ext), let c = CEA708Characters.g2(ext) {
                    write(c)
                } else if ext >= 0xA0, let c = CEA708Characters.g3(ext) {
                    write(c)
                }
                i += 2 + length
            case 0x00...0x1F:
                // C0: 0x00–0x0F take no parameter, 0x11–0x17 one byte, 0x18–0x1F two.
                let count = code < 0x10 ? 0 : code < 0x18 ? 1 : 2
                guard let p = parameters(count) else { return }
                control(code, p)
                i += 1 + count
            case 0x20...0x7F:
                write(CEA708Characters.g0(code))
                i += 1
            case 0x80...0x9F:
                let count = Self.c1ParameterCount(code)
                guard let p = parameters(count) else { return }
                command(code, p)
                i += 1 + count
            default:
                write(CEA708Characters.g1(code))
                i += 1
            }
        }
    }

    /// The bytes after an `EXT1` code `ext` that belong to it (`next` is the byte after `ext`, if any): C2 codes
    /// take 0–3 parameter bytes by range, C3 codes 4 or 5, and 0x90–0x9F a header byte whose low six bits count the
    /// bytes that follow it. Nil when a variable-length code's header is missing.
    private func extendedLength(_ ext: UInt8, next: UInt8?) -> Int? {
        switch ext {
        case 0x00...0x07: return 0
        case 0x08...0x0F: return 1
        case 0x10...0x17: return 2
        case 0x18...0x1F: return 3
        case 0x80...0x87: return 4
        case 0x88...0x8F: return 5
        case 0x90...0x9F: return next.map { 1 + Int($0 & 0x3F) }
        default: return 0
        }
    }

    /// Parameter bytes of C1 code `code` (CEA-708-E Table 8).
    static func c1ParameterCount(_ code: UInt8) -> Int {
        switch code {
        case 0x88...0x8D: return 1  // CLW, DSW, HDW, TGW, DLW, DLY
        case 0x90, 0x92: return 2  // SPA, SPL
        case 0x91: return 3  // SPC
        case 0x97: return 4  // SWA
        case 0x98...0x9F: return 6  // DF0–DF7
        default: return 0  // CW0–CW7, DLC, RST, reserved 0x93–0x96
        }
    }

    /// A C0 control code with its parameter bytes.
    private mutating func control(_ code: UInt8, _ p: ArraySlice<UInt8>) {
        switch code {
        case 0x08: edit { $0.backspace() }
        case 0x0C: edit { $0.formFeed() }
        case 0x0D: edit { $0.carriageReturn() }
        case 0x0E: edit { $0.horizontalCarriageReturn() }
        case 0x18:
            // P16: a 16-bit character code.
            let value = UInt32(p[p.startIndex]) << 8 | UInt32(p[p.startIndex + 1])
            if let scalar = Unicode.Scalar(value), value >= 0x20 { write(Character(scalar)) }
        default: break  // NUL, ETX (end of text: nothing is held back to flush), reserved codes
        }
    }

    /// A C1 command with its parameter bytes.
    private mutating func command(_ code: UInt8, _ p: ArraySlice<UInt8>) {
        let bitmap = p.first ?? 0
        func each(_ body: (inout CEA708Window) -> Void) {
            for id in 0..<8 where bitmap & (1 << id) != 0 && windows[id] != nil {
                body(&windows[id]!)
            }
        }
        switch code {
        case 0x80...0x87:
            let id = Int(code & 0x07)
            if windows[id] != nil { current = id }
        case 0x88: each { $0.clear() }
        case 0x89: each { $0.isVisible = true }
        case 0x8A: each { $0.isVisible = false }
        case 0x8B: each { $0.isVisible.toggle() }
        case 0x8C:
            for id in 0..<8 where bitmap & (1 << id) != 0 {
                windows[id] = nil
                if current == id { current = nil }
            }
        case 0x8F:
            windows = Array(repeating: nil, count: 8)
            current = nil
        case 0x90: edit { $0.setPenAttributes(p) }
        case 0x91: edit { $0.setPenColour(p) }
        case 0x92: edit { $0.setPenLocation(p) }
        case 0x97: edit { $0.setAttributes(p) }
        case 0x98...0x9F:
            let id = Int(code - 0x98)
            var w = windows[id] ?? CEA708Window()
            w.define(p, isNew: windows[id] == nil)
            windows[id] = w
            current = id
        default: break  // DLY, DLC (delays are not held), reserved codes
        }
    }

    /// Changes the current window, if there is one.
    private mutating func edit(_ body: (inout CEA708Window) -> Void) {
        guard let id = current, windows[id] != nil else { return }
        body(&windows[id]!)
    }

    /// Writes `character` at the current window's pen.
    private mutating func write(_ character: Character) {
        edit { $0.write(character) }
    }
}
