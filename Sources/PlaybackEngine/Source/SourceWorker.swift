import Foundation
import OAVFLocking

/// The thread of a source that produces on its own (the reverse sources): a stop flag and a finished flag, with the
/// start/stop/join dance in one place.
///
/// Thread-safe: `stop()` and the flags may be used from any thread; the body runs on the worker thread.
package final class SourceWorker: @unchecked Sendable {
    /// Guards the flags and the thread below: any thread stops, the worker reads. Not an engine command: the worker
    /// thread is below the engine.
    private let lock = ConditionLock()
    // Guarded by `lock`.
    private var stopped = false
    private var finished = false
    private var thread: WorkerThread?

    package init() {}

    /// Runs `body` on a thread named `name`; the worker counts as finished when it returns.
    package func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let t = WorkerThread(name: name) { [self] in
            body()
            lock.withLock { finished = true }
        }
        lock.withLock { thread = t }
    }

    /// Whether ``stop(waking:)`` was called.
    package var isStopped: Bool { lock.withLock { stopped } }

    /// Whether the body returned.
    package var isFinished: Bool { lock.withLock { finished } }

    /// Sets the stop flag, runs `wake` (which interrupts the body's input and releases it from a blocking queue) and
    /// waits for the thread. Idempotent; any thread but the worker's.
    package func stop(waking wake: () -> Void) {
        let t: WorkerThread? = lock.withLock {
            stopped = true
            return thread
        }
        wake()
        t?.join()
    }
}
