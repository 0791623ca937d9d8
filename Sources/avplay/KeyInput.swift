import AVFoundation

#if canImport(Glibc)
import Glibc
#endif

/// A key the player reacts to, decoded from the bytes a terminal sends.
enum Key: Equatable, Sendable {
    case character(Character)
    case up
    case down
    case left
    case right
}

extension Key {
    /// The key a window key stands for; nil for keys the player does not use.
    init?(_ windowKey: AVPlayerLayerWindowEvent.Key) {
        switch windowKey {
        case .character(let c): self = .character(c)
        case .left: self = .left
        case .right: self = .right
        case .up: self = .up
        case .down: self = .down
        case .escape, .enter: return nil
        }
    }
}

/// Turns terminal input bytes into keys: printable ASCII as characters, `ESC [ A…D` (and the
/// application-mode `ESC O A…D`) as arrows. Other escape sequences are consumed and dropped.
/// Bytes may arrive split across reads; the state carries over.
struct KeyParser {
    private enum State {
        case normal
        case escape
        case sequence
    }

    private var state = State.normal

    /// Feeds `bytes` and returns the keys they complete, in order.
    mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [Key] where Bytes.Element == UInt8 {
        var keys: [Key] = []
        for byte in bytes {
            switch state {
            case .normal:
                if byte == 0x1B {
                    state = .escape
                } else if byte >= 0x20 && byte < 0x7F {
                    keys.append(.character(Character(UnicodeScalar(byte))))
                }
            case .escape:
                // `[` starts a CSI sequence, `O` an SS3 one; anything else was a lone escape.
                state = byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") ? .sequence : .normal
            case .sequence:
                // Parameters and intermediates (0x20…0x3F) continue the sequence; a final byte ends it.
                guard byte >= 0x40 && byte <= 0x7E else { continue }
                state = .normal
                switch byte {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                case UInt8(ascii: "C"): keys.append(.right)
                case UInt8(ascii: "D"): keys.append(.left)
                default: break
                }
            }
        }
        return keys
    }
}

/// The terminal's settings before `avplay` switched it to raw input, so every way out — `q`, the end of
/// the queue, Ctrl-C, SIGTERM — puts them back. Globals because signal handlers cannot capture context.
/// Heap storage handed to `tcgetattr`/`tcsetattr` as a plain pointer: the address Swift passes for `&global` need not
/// be the global's own storage (AddressSanitizer caught `tcgetattr` writing its 60 bytes just past the variable), and a
/// signal handler must not go through an accessor.
nonisolated(unsafe) private let savedTerminalSettings: UnsafeMutablePointer<termios> = {
    let settings = UnsafeMutablePointer<termios>.allocate(capacity: 1)
    settings.initialize(to: termios())
    return settings
}()
nonisolated(unsafe) private var terminalIsRaw: Int32 = 0

/// Raw (non-canonical, no echo) keyboard input on standard input, and its undoing.
enum TerminalInput {
    /// Whether standard input is a terminal (keys are read only then).
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Switches standard input to single-key input without echo (signals such as Ctrl-C still work),
    /// and arranges for the saved settings to come back at exit and on SIGINT, SIGTERM, SIGHUP.
    static func enterRawMode() {
        guard isInteractive, tcgetattr(STDIN_FILENO, savedTerminalSettings) == 0 else { return }
        var raw = savedTerminalSettings.pointee
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return }
        terminalIsRaw = 1
        atexit { TerminalInput.restore() }
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            signal(sig) { sig in
                TerminalInput.restore()
                // Only async-signal-safe calls here: end the status line and leave.
                let newline: [UInt8] = [0x0D, 0x0A]
                _ = newline.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, 2) }
                _exit(128 + sig)
            }
        }
    }

    /// Puts back the settings saved by `enterRawMode()` (once; async-signal-safe).
    static func restore() {
        guard terminalIsRaw == 1 else { return }
        terminalIsRaw = 0
        tcsetattr(STDIN_FILENO, TCSANOW, savedTerminalSettings)
    }

    /// Reads keys on a background thread and hands each to `handler` on the main queue.
    static func startReading(_ handler: @escaping @MainActor (Key) -> Void) {
        let box = KeyHandlerBox(handler)
        let thread = Thread {
            var parser = KeyParser()
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }  // end of input or an error: no more keys
                for key in parser.feed(buffer[0..<count]) {
                    DispatchQueue.main.async { MainActor.assumeIsolated { box.handler(key) } }
                }
            }
        }
        thread.name = "avplay keys"
        thread.start()
    }
}

/// Carries the main-actor key handler to the reader thread, which only ever calls it on the main queue.
private final class KeyHandlerBox: @unchecked Sendable {
    let handler: @MainActor (Key) -> Void
    init(_ handler: @escaping @MainActor (Key) -> Void) { self.handler = handler }
}
