import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A dedicated, named, joinable OS thread for the engine's real-time work (DESIGN.md "Threads": demux
/// and decode never run on the Swift concurrency pool, where they could wait behind other tasks).
///
/// Foundation's `Thread` cannot be joined, and on Linux silently keeps an unnamed thread when the name
/// is longer than the kernel's 15 bytes; this type names the kernel thread with the first 15 bytes of
/// ``name`` (what `top -H` and debuggers show) and keeps the full name for diagnostics.
///
/// Thread-safe: `join` may be called from any thread but the worker itself, any number of times.
package final class WorkerThread: @unchecked Sendable {
    /// The full name, e.g. "oavf.video-decode".
    package let name: String
    /// The pthread, as `pthread_create` returned it; written in `init` only, read by `join`/`deinit`.
    private var thread = pthread_t()
    /// The worker's identity as the worker itself recorded it (`pthread_create` may store ``thread``
    /// after the new thread started running, so the worker must not read that); guarded by `lock`.
    private let identity: Locked<pthread_t?>
    /// Whether `join` already ran; guarded by `lock`.
    private var joined = false
    /// Guards `joined`.
    private let lock = ConditionLock()

    /// Starts a thread named `name` running `body`.
    package init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        let kernelName = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        let identity = Locked<pthread_t?>(nil)
        self.identity = identity
        let context = Unmanaged.passRetained(Context(name: kernelName, identity: identity, body: body)).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { raw in
                let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
                // Glibc's module map hides pthread_setname_np (_GNU_SOURCE); Foundation's setter calls it
                // for the current thread.
                Thread.current.name = context.name
                context.identity.withLock { $0 = pthread_self() }
                context.body()
                return nil
            }, context)
        // EAGAIN here means the process is out of threads: nothing the engine can recover from.
        precondition(result == 0, "pthread_create(\(name)) failed: \(result)")
    }

    /// Whether the caller is running on this thread.
    package var isCurrent: Bool {
        guard let worker = identity.current else { return false }
        return pthread_equal(pthread_self(), worker) != 0
    }

    /// Waits until the thread's body has returned. Returns at once if it already did, or when called
    /// from the worker thread itself (which cannot wait for itself; it ends when its body returns).
    package func join() {
        guard !isCurrent else { return }
        lock.lock()
        defer { lock.unlock() }
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    /// Detaches a thread nobody joined.
    deinit {
        // A thread nobody joined is detached, so its resources are released when it ends.
        if !joined { pthread_detach(thread) }
    }

    /// What the new thread needs, passed through `pthread_create`'s opaque pointer.
    private final class Context {
        /// The kernel thread name (at most 15 bytes).
        let name: String
        /// Where the worker records its own `pthread_self()`.
        let identity: Locked<pthread_t?>
        /// What the thread runs.
        let body: @Sendable () -> Void
        /// Bundles the fields.
        init(name: String, identity: Locked<pthread_t?>, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.identity = identity
            self.body = body
        }
    }
}
