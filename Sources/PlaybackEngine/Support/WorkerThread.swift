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
    /// The worker's identity as the worker itself recorded it (`pthread_create` may store the `pthread_t` after the
    /// new thread started running, so the worker must not read that).
    private let identity: Locked<pthread_t?>
    /// Whether the body has returned; guarded by its own lock, signalled when it becomes true.
    private let finished: Finished

    /// Starts a thread named `name` running `body`. The thread is detached: ``join()`` waits for its body to
    /// return, and a thread nobody joins leaves nothing behind when it ends (a reader that finished its track while
    /// its owner lives on, say).
    package init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        let kernelName = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        let identity = Locked<pthread_t?>(nil)
        self.identity = identity
        let finished = Finished()
        self.finished = finished
        let context = Unmanaged.passRetained(
            Context(name: kernelName, identity: identity, finished: finished, body: body)
        ).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { raw in
                let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
                // Glibc's module map hides pthread_setname_np (_GNU_SOURCE); Foundation's setter calls it
                // for the current thread.
                Thread.current.name = context.name
                context.identity.withLock { $0 = pthread_self() }
                context.body()
                context.finished.set()
                return nil
            }, context)
        pthread_attr_destroy(&attributes)
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
        finished.wait()
    }

    /// Whether a body has returned: set once by the worker, waited for by ``join()``.
    private final class Finished: @unchecked Sendable {
        private let lock = ConditionLock()
        private var done = false

        func set() {
            lock.withLock { done = true }
            lock.broadcast()
        }

        func wait() {
            lock.lock()
            while !done { lock.wait() }
            lock.unlock()
        }
    }

    /// What the new thread needs, passed through `pthread_create`'s opaque pointer.
    private final class Context {
        /// The kernel thread name (at most 15 bytes).
        let name: String
        /// Where the worker records its own `pthread_self()`.
        let identity: Locked<pthread_t?>
        /// Set when the body has returned.
        let finished: Finished
        /// What the thread runs.
        let body: @Sendable () -> Void
        /// Bundles the fields.
        init(name: String, identity: Locked<pthread_t?>, finished: Finished, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.identity = identity
            self.finished = finished
            self.body = body
        }
    }
}
