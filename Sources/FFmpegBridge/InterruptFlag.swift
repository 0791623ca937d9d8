import CFFmpeg
import Synchronization

/// Cancels blocking libavformat I/O (ffplay's `decode_interrupt_cb`).
///
/// libavformat polls the flag during network and file reads; once ``abort()`` is called, or the
/// optional deadline passes, the blocked call returns `AVERROR_EXIT`. Thread-safe.
public final class InterruptFlag: Sendable {
    /// Set by ``abort()`` on any thread, polled by libavformat inside I/O. One flag, so an `Atomic`, not a lock.
    private let aborted = Atomic<Bool>(false)
    /// Monotonic nanoseconds after which I/O is interrupted; 0 = no deadline. One value, so an `Atomic`, not a lock.
    private let deadline = Atomic<UInt64>(0)

    public init() {}

    public func abort() { aborted.store(true, ordering: .relaxed) }
    public var isAborted: Bool { aborted.load(ordering: .relaxed) }

    /// Interrupts I/O that is still blocked `seconds` from now; `nil` clears the deadline.
    public func setTimeout(_ seconds: Double?) {
        guard let seconds else {
            deadline.store(0, ordering: .relaxed)
            return
        }
        deadline.store(Self.now() + UInt64(max(0, seconds) * 1e9), ordering: .relaxed)
    }

    var shouldInterrupt: Bool {
        if isAborted { return true }
        let d = deadline.load(ordering: .relaxed)
        return d != 0 && Self.now() > d
    }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The C callback libavformat calls; `opaque` is an unretained `InterruptFlag`.
    static let callback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { opaque in
        guard let opaque else { return 0 }
        return Unmanaged<InterruptFlag>.fromOpaque(opaque).takeUnretainedValue().shouldInterrupt ? 1 : 0
    }
}
