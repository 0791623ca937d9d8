import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A fuzz input as a file that lives only in memory (`memfd_create`), opened by path as `/proc/self/fd/N`: no
/// temporary files. (FFmpegBridge reads bytes through a custom `AVIOContext` — ``MemoryReader``, which the subtitle
/// harness uses — but `AVPlayerItem(url:)` and `AVURLAsset(url:)`, which the media harnesses drive, take a URL.)
public final class MemoryFile {
    /// `file:///proc/self/fd/N`.
    public let url: URL
    private let fd: Int32

    /// `memfd_create` is not in the Swift Glibc module: looked up once.
    private static let create: (@convention(c) (UnsafePointer<CChar>, UInt32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "memfd_create") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafePointer<CChar>, UInt32) -> Int32).self)
    }()

    /// Holds `bytes`; nil when the kernel has no memfd.
    public init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let create = Self.create else { return nil }
        let fd = create("oavf-fuzz", 1)  // MFD_CLOEXEC
        guard fd >= 0 else { return nil }
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n <= 0 { break }
            offset += n
        }
        self.fd = fd
        url = URL(fileURLWithPath: "/proc/self/fd/\(fd)")
    }

    deinit { close(fd) }
}

/// Runs the main run loop (where the player delivers KVO and completions) until `condition` holds; traps after
/// `seconds` so libFuzzer records the input as a hang (a crash with this message) instead of waiting.
public func waitOrTrap(_ what: String, seconds: Double, _ condition: () -> Bool) {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { fatalError("hang: \(what) did not happen within \(seconds) s") }
        // `run(mode:before:)` returns as soon as the main queue has run something (statuses, notifications and
        // completions arrive there), so the wait neither spins nor sleeps past the event; the 5 ms bound covers a
        // condition set on another thread.
        _ = RunLoop.main.run(mode: .default, before: Date().addingTimeInterval(0.005))
    }
}

/// A value behind a lock, for completions called on other threads.
public final class Box<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    public init(_ value: Value) { stored = value }
    public var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    public func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}

/// libFuzzer's driver (in the runtime `-sanitize=fuzzer` links).
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32

/// Runs libFuzzer with the process's arguments. SwiftPM links an executable's entry point as `<Module>_main`, so
/// each harness defines that symbol and calls this instead of relying on libFuzzer's own `main`.
public func runFuzzer(
    _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ body: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments, body)
}
