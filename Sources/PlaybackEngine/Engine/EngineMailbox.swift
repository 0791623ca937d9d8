/// Where commands wait for the engine thread, and what wakes it (ffplay's `continue_read_thread`, mpv's
/// `mp_wakeup_core`). Shared by the ``PlayerEngine`` handle (any thread posts) and its ``EngineCore`` (the engine
/// thread takes and sleeps).
///
/// Thread-safe: every member may be used from any thread; one ``ConditionLock`` guards it all and is held only to
/// copy values in or out.
import OAVFLocking

final class EngineMailbox: @unchecked Sendable {
    /// Guards the fields below and is the condition the engine thread sleeps on. It is the command channel itself: any
    /// caller thread posts under it.
    private let lock = ConditionLock()
    /// Commands posted and not taken yet; guarded by `lock`.
    private var pending: [EngineCommand] = []
    /// The last sequence number handed out; guarded by `lock`.
    private var lastSequence: UInt64 = 0
    /// Wake-ups since the engine thread last slept; guarded by `lock`.
    private var wakeups = 0
    /// Set once by ``requestStop()``; guarded by `lock`.
    private var stopRequested = false
    /// The owner's event handler; guarded by `lock`.
    private var handler: EngineEventHandler?

    /// Posts `action` as of host time `host`; returns its sequence number. Wakes the engine thread.
    ///
    /// After ``requestStop()`` nothing is applied any more: a seek posted then completes `false` at once, on the
    /// caller's thread (the engine thread completes those posted before it, when it stops: ``takeAfterStop(into:)``).
    @discardableResult
    func post(_ action: EngineCommand.Action, host: UInt64) -> UInt64 {
        lock.lock()
        lastSequence += 1
        let sequence = lastSequence
        let stopped = stopRequested
        if !stopped { pending.append(EngineCommand(sequence: sequence, host: host, action: action)) }
        lock.unlock()
        if stopped {
            action.completion?(false)
        } else {
            lock.broadcast()
        }
        return sequence
    }

    /// Takes the commands posted before the stop that the engine thread's last ``take(into:)`` missed (it stops
    /// without applying them; their seeks must still complete). Call after ``requestStop()`` was seen.
    func takeAfterStop(into buffer: inout [EngineCommand]) {
        precondition(isStopRequested, "takeAfterStop before requestStop")
        take(into: &buffer)
    }

    /// Takes every pending command (engine thread), reusing `buffer`'s storage.
    func take(into buffer: inout [EngineCommand]) {
        buffer.removeAll(keepingCapacity: true)
        lock.lock()
        swap(&buffer, &pending)
        lock.unlock()
    }

    /// Wakes the engine thread without a command (a manual clock moved, a queue got data).
    func wake() {
        lock.lock()
        wakeups += 1
        lock.unlock()
        lock.broadcast()
    }

    /// Sleeps up to `seconds` unless a command, a wake-up or a stop request arrived since the last sleep (engine
    /// thread).
    func sleep(upTo seconds: Double) {
        lock.lock()
        if pending.isEmpty && wakeups == 0 && !stopRequested && seconds > 0 {
            lock.wait(timeout: seconds)
        }
        wakeups = 0
        lock.unlock()
    }

    /// Asks the engine thread to end. Idempotent.
    func requestStop() {
        lock.lock()
        stopRequested = true
        lock.unlock()
        lock.broadcast()
    }

    /// Whether ``requestStop()`` was called (loops that wait for decoders check it).
    var isStopRequested: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequested
    }

    /// The owner's handler for engine events; events wait for it while it is nil.
    var eventHandler: EngineEventHandler? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return handler
        }
        set {
            lock.lock()
            handler = newValue
            wakeups += 1
            lock.unlock()
            lock.broadcast()
        }
    }
}
