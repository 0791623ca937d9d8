import FFmpegBridge

/// Cancels blocking media I/O (opening, probing, reading) from another thread: the call in progress, and any
/// later one given the same token, fails with a ``MediaFailure`` of kind ``MediaFailureKind/cancelled``.
///
/// One token per operation; cancelling is permanent. Thread-safe: any thread may cancel or ask.
package final class Cancellation: Sendable {
    /// The flag libavformat polls; what the engine hands to the I/O it starts with this token.
    let interrupt = InterruptFlag()

    /// A token not yet cancelled.
    package init() {}

    /// Cancels: blocked I/O returns soon (libavformat polls the flag), later I/O fails at once.
    package func cancel() { interrupt.abort() }

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool { interrupt.isAborted }
}
