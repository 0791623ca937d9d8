import FFmpegBridge
import OAVFLocking

/// Cancels blocking media I/O (opening, probing, reading) from another thread: the call in progress, and any
/// later one given the same token, fails with a ``MediaFailure`` of kind ``MediaFailureKind/cancelled``.
///
/// One token per operation; cancelling is permanent. Thread-safe: any thread may cancel or ask.
package final class Cancellation: Sendable {
    /// The flag libavformat polls; what the engine hands to the I/O it starts with this token.
    let interrupt = InterruptFlag()

    /// What ``cancel()`` runs (nil once it ran): the wakes of waits that do not poll the flag (an HLS source's).
    private let onCancel = Locked<[@Sendable () -> Void]?>([])

    /// A token not yet cancelled.
    package init() {}

    /// Cancels: blocked I/O returns soon (libavformat polls the flag; the waits registered with
    /// ``whenCancelled(_:)`` are woken), later I/O fails at once.
    package func cancel() {
        interrupt.abort()
        let actions = onCancel.withLock { registered in
            defer { registered = nil }
            return registered ?? []
        }
        for action in actions { action() }
    }

    /// Runs `action` when the token is cancelled (at once when it already is), on the cancelling thread with no
    /// lock held: a source whose waits sleep until signalled wakes them there. Any thread.
    package func whenCancelled(_ action: @escaping @Sendable () -> Void) {
        let registered = onCancel.withLock {
            guard $0 != nil else { return false }
            $0?.append(action)
            return true
        }
        if !registered { action() }
    }

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool { interrupt.isAborted }
}
