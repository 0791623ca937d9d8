/// Decoded frames of one stream waiting to be presented (ffplay's `FrameQueue`): a fixed-capacity
/// ring whose fullness is the decoder's back-pressure.
///
/// The writer (the decode thread) blocks in ``push(_:serial:)`` while the ring is full. The reader
/// (the renderer: video refresh, audio callback) never blocks unless it asks to
/// (``waitUntilReadable(timeout:)``): it peeks at the head, decides, and pops. Each element carries the
/// serial of the packets it was decoded from; the reader drops elements whose serial is not its packet
/// queue's current one (``dropStale(current:)``), also while paused, or a decoder blocked on a ring
/// full of stale frames cannot deliver the first frame after a seek.
///
/// Capacities (ffplay): 3 video pictures (enough to look one frame ahead and keep decoding while one is
/// shown), 9 audio frames (about 0.2 s of AAC, so the audio callback never waits on the decoder).
///
/// Threads: one writer, one reader at a time; any thread may ``flush()``, ``abort()``, ``start()`` and
/// read ``count``. Everything is guarded by one ``ConditionLock``, which both sides wait on.
import OAVFLocking

package final class FrameQueue<Element: Sendable>: @unchecked Sendable {
    /// ffplay's `VIDEO_PICTURE_QUEUE_SIZE`: one shown, one next, one being decoded.
    package static var videoCapacity: Int { 3 }
    /// ffplay's `SAMPLE_QUEUE_SIZE`: enough decoded audio to ride out a slow video decode.
    package static var audioCapacity: Int { 9 }

    /// The most elements the ring holds.
    package let capacity: Int
    /// Guards everything below; both the writer (waiting for room) and the reader (waiting for an element) wait on it.
    /// A decode thread and the engine thread (or the audio device thread). Not an engine command: the data path between
    /// threads (ffplay's `FrameQueue`), where a side blocks.
    private let lock = ConditionLock()
    /// The elements, oldest first; never more than `capacity`. Guarded by `lock`.
    private var ring: RingBuffer<(element: Element, serial: Serial)>
    /// Set by `abort`, cleared by `start`; guarded by `lock`.
    private var aborted = false
    /// Writers inside `push` waiting for room; guarded by `lock`.
    private var waitingWriters = 0
    /// Called (outside `lock`) after each push: the engine thread, waiting for a picture without blocking on this
    /// queue (it sleeps in its mailbox, where a command also wakes it), is woken by it. Guarded by `lock`.
    private var readerWakeup: (@Sendable () -> Void)?

    /// An empty, running queue holding at most `capacity` elements.
    package init(capacity: Int) {
        precondition(capacity > 0, "FrameQueue capacity must be positive")
        self.capacity = capacity
        ring = RingBuffer(capacity: capacity)
    }

    // MARK: Writer

    /// Appends `element`, decoded from packets of `serial`, waiting while the ring is full.
    ///
    /// - Returns: false when the queue is (or becomes) aborted; the element is dropped.
    @discardableResult
    package func push(_ element: Element, serial: Serial) -> Bool {
        push(element, serial: serial, cancelIf: nil)
    }

    /// Like ``push(_:serial:)``, but also gives up (returning false) when `cancel` becomes true while
    /// waiting for room; it is polled every `pollInterval` seconds. Decoders pass "the packet queue moved
    /// to another serial", so they do not hold a stale frame while a seek waits for them.
    package func push(
        _ element: Element, serial: Serial, cancelIf cancel: (() -> Bool)?, pollInterval: Double = 0.01
    ) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        while ring.count >= capacity && !aborted {
            if let cancel {
                lock.unlock()
                let cancelled = cancel()
                lock.lock()
                if cancelled { return false }
                if ring.count < capacity || aborted { break }
                waitingWriters += 1
                lock.wait(timeout: pollInterval)
                waitingWriters -= 1
            } else {
                waitingWriters += 1
                lock.wait()
                waitingWriters -= 1
            }
        }
        guard !aborted else { return false }
        ring.append((element, serial))
        lock.broadcast()
        if let wake = readerWakeup {
            lock.unlock()
            wake()
            lock.lock()
        }
        return true
    }

    /// Sets what each push calls after it (outside the queue's lock; nil: nothing): a reader that waits for an
    /// element somewhere else than on this queue (the engine thread, in its mailbox) is woken by it. Any thread.
    package func setReaderWakeup(_ wake: (@Sendable () -> Void)?) {
        lock.withLock { readerWakeup = wake }
    }

    /// How many writers are blocked in ``push(_:serial:)`` waiting for room (counted under the lock they wait on, so
    /// a writer counted here is inside the wait: a signal sent now reaches it). For tests and diagnostics.
    package var waitingWriterCount: Int { lock.withLock { waitingWriters } }

    // MARK: Reader

    /// The oldest element and its serial, without removing it.
    package func peek() -> (element: Element, serial: Serial)? {
        lock.withLock { ring.first }
    }

    /// The element after the oldest one (the next picture, to compute the current one's duration).
    package func peekNext() -> (element: Element, serial: Serial)? {
        lock.withLock { ring[offset: 1] }
    }

    /// Removes and returns the oldest element, making room for the writer.
    @discardableResult
    package func pop() -> (element: Element, serial: Serial)? {
        lock.withLock {
            let first = ring.removeFirst()
            if first != nil { lock.broadcast() }
            return first
        }
    }

    /// Pops leading elements whose serial is not `current`.
    ///
    /// - Returns: how many were dropped.
    @discardableResult
    package func dropStale(current: Serial) -> Int {
        lock.withLock {
            var dropped = 0
            while let first = ring.first, first.serial != current {
                ring.removeFirst()
                dropped += 1
            }
            if dropped > 0 { lock.broadcast() }
            return dropped
        }
    }

    /// Waits until an element is available, at most `timeout` seconds.
    ///
    /// - Returns: true when an element is available; false on timeout or abort.
    package func waitUntilReadable(timeout: Double) -> Bool {
        lock.withLock {
            guard ring.isEmpty, !aborted else { return !aborted }
            var now = MonotonicTime.now
            let deadline = now + timeout
            while ring.isEmpty && !aborted && now < deadline {
                lock.wait(timeout: deadline - now)
                now = MonotonicTime.now
            }
            return !ring.isEmpty && !aborted
        }
    }

    // MARK: Control

    /// Drops every element and wakes a writer waiting for room.
    package func flush() {
        lock.withLock {
            ring.removeAll()
            lock.broadcast()
        }
    }

    /// Wakes the writer and any waiting reader; pushes fail until ``start()``.
    package func abort() {
        lock.withLock {
            aborted = true
            lock.broadcast()
        }
    }

    /// Clears the abort flag.
    package func start() {
        lock.withLock { aborted = false }
    }

    /// Whether ``abort()`` was called since the last ``start()``.
    package var isAborted: Bool {
        lock.withLock { aborted }
    }

    /// The number of queued elements.
    package var count: Int {
        lock.withLock { ring.count }
    }
}
