import Foundation
import OAVFLocking

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
    /// The worker's identity as the worker itself recorded it (`pthread_create` may store ``thread`` after the new
    /// thread started running, so the worker must not read that). Written by the worker, read by joiners. Not an engine
    /// command: thread plumbing below the engine.
    private let identity: Locked<pthread_t?>
    /// Who releases the pthread (a joiner, the thread itself, or `deinit`), shared with the thread.
    private let state = State()

    /// Starts a thread named `name` running `body`.
    package init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        let kernelName = String(decoding: name.utf8.prefix(15), as: UTF8.self)
        let identity = Locked<pthread_t?>(nil)
        self.identity = identity
        let context = Unmanaged.passRetained(
            Context(name: kernelName, identity: identity, state: state, body: body)
        ).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { raw in
                let context = Unmanaged<Context>.fromOpaque(raw!).takeRetainedValue()
                // Glibc's module map hides pthread_setname_np (_GNU_SOURCE); Foundation's setter calls it
                // for the current thread.
                Thread.current.name = context.name
                context.identity.withLock { $0 = pthread_self() }
                context.body()
                // Nobody is joining: the thread releases itself (a finished thread nobody joins — a reader that
                // read its whole track while its owner lives on — would otherwise be a leaked thread at exit).
                if context.state.bodyEnded() { pthread_detach(pthread_self()) }
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

    /// Waits until the thread's body has returned (and, when this call is the one that joins, until the thread has
    /// ended). Returns at once if it already did, or when called from the worker thread itself (which cannot wait
    /// for itself; it ends when its body returns).
    package func join() {
        guard !isCurrent else { return }
        if state.claim() {
            pthread_join(thread, nil)
            state.joinEnded()
        } else {
            state.waitUntilReleased()
        }
    }

    /// Detaches a thread nobody joined.
    deinit {
        // A thread nobody joined is detached, so its resources are released when it ends.
        if state.claim() { pthread_detach(thread) }
    }

    /// Who releases the pthread: exactly one of a joiner (`pthread_join`), the thread itself when its body ends
    /// unjoined (`pthread_detach`), or the owner's `deinit` (`pthread_detach`) claims it.
    private final class State: @unchecked Sendable {
        /// Guards who claimed the pthread: joiner, the thread itself, or `deinit`, on any of those threads. Not an
        /// engine command: thread plumbing below the engine.
        private let lock = ConditionLock()
        private var claimed = false
        /// The claim ended: joined, or the body ended and the thread detached itself.
        private var released = false

        /// Claims the pthread; false when another already did.
        func claim() -> Bool {
            lock.withLock {
                if claimed { return false }
                claimed = true
                return true
            }
        }

        /// The body returned: true when the thread must detach itself (nobody claimed it).
        func bodyEnded() -> Bool {
            let detaches: Bool = lock.withLock {
                if claimed { return false }
                claimed = true
                released = true
                return true
            }
            if detaches { lock.broadcast() }
            return detaches
        }

        /// The joiner's `pthread_join` returned.
        func joinEnded() {
            lock.withLock { released = true }
            lock.broadcast()
        }

        /// Waits until the claim ended (another joiner joined, or the thread detached itself after its body). A
        /// `deinit` claim never ends, but nobody can call `join` then.
        func waitUntilReleased() {
            lock.lock()
            while !released { lock.wait() }
            lock.unlock()
        }
    }

    /// What the new thread needs, passed through `pthread_create`'s opaque pointer.
    private final class Context {
        /// The kernel thread name (at most 15 bytes).
        let name: String
        /// Where the worker records its own `pthread_self()`. Not an engine command: thread plumbing below the engine.
        let identity: Locked<pthread_t?>
        /// Shared with the ``WorkerThread``.
        let state: State
        /// What the thread runs.
        let body: @Sendable () -> Void
        /// Bundles the fields.
        init(name: String, identity: Locked<pthread_t?>, state: State, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.identity = identity
            self.state = state
            self.body = body
        }
    }
}
