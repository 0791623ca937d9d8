import CoreMedia
import FFmpegBridge
import OAVFLocking

/// The demuxed packets of one stream waiting for their decoder (ffplay's `PacketQueue`).
///
/// A FIFO of packets, each stamped with the queue's ``serial`` when it was put, with running totals
/// (count, bytes, duration) that the demuxer's back-pressure reads. ``flush(dropFramesBefore:)`` drops
/// everything and moves to the next serial, which is how a seek invalidates in-flight work: the decoder
/// sees packets of a new serial and resets itself, and everyone downstream drops frames of old serials.
/// At the end of the input the demuxer puts an end-of-stream marker so the decoder drains.
///
/// A queue starts running (not aborted) at ``Serial/initial``. ``abort()`` wakes blocked readers and
/// makes ``put(_:)`` refuse packets; ``start()`` clears the abort and moves to the next serial.
///
/// Threads: one producer (the demux thread) puts; one consumer (the stream's decode thread) gets and
/// recycles; any thread may flush, abort, start and read the totals. Everything mutable is guarded by
/// `lock`; the consumer's wake-up (``setConsumerWakeup(_:)``) is signalled outside it.
package final class PacketQueue: @unchecked Sendable {
    /// What ``get(blocking:)`` returns.
    package enum Result: Sendable {
        /// A packet (owned by the caller until it hands it to ``recycle(_:)``) and its serial.
        case packet(Packet, Serial)
        /// The input ended; the decoder should drain. Carries the serial it was queued under.
        case endOfStream(Serial)
        /// Nothing queued (non-blocking gets only).
        case empty
        /// The queue was aborted.
        case aborted
    }

    /// One queued item.
    private enum Entry {
        /// A packet and the serial current when it was put.
        case packet(Packet, Serial)
        /// The end-of-stream marker and the serial current when it was put.
        case endOfStream(Serial)
    }

    /// Bytes charged per queued packet on top of its payload, so that a flood of tiny packets still
    /// counts against the byte limit (ffplay charges `sizeof(MyAVPacketList)`).
    package static let perPacketOverhead = 128

    /// The container stream whose packets this queue carries.
    package let streamIndex: Int
    /// The stream's time base: packet timestamps and durations are in these units.
    package let timeBase: Rational
    /// Where blank packets come from and recycled ones go.
    package let pool: PacketPool

    /// Guards everything below and is the condition blocked readers wait on. The demux thread puts, a decode thread
    /// takes, the engine thread flushes. Not an engine command: the data path between threads (ffplay's `PacketQueue`),
    /// where a side blocks.
    private let lock = ConditionLock()
    /// Queued items, oldest first; guarded by `lock`.
    private var entries = RingBuffer<Entry>(capacity: 64)
    /// The current generation; guarded by `lock`.
    private var currentSerial = Serial.initial
    /// Set by `abort`, cleared by `start`; guarded by `lock`.
    private var aborted = false
    /// Readers inside a blocking ``get(blocking:)`` waiting for an item; guarded by `lock`.
    private var waitingReaders = 0
    /// Queued packets (end-of-stream markers excluded); guarded by `lock`.
    private var packetCount = 0
    /// Queued payload bytes plus `perPacketOverhead` per packet; guarded by `lock`.
    private var bytes = 0
    /// Sum of queued packet durations in `timeBase` units; guarded by `lock`.
    private var durationTicks: Int64 = 0
    /// Largest `pts + duration` (or `dts + duration`) put since the last flush; guarded by `lock`.
    private var lastEndTicks: Int64?
    /// The exact-seek target of the serial it was flushed into, if any; guarded by `lock`.
    private var dropTarget: (serial: Serial, time: CMTime)?
    /// Signalled (outside `lock`) whenever the consumer takes an item: the demuxer sleeps on it while
    /// the queues are full (ffplay's `continue_read_thread`). Guarded by `lock`.
    private var consumerWakeup: ConditionLock?

    /// An empty, running queue for stream `streamIndex` whose timestamps are in `timeBase`.
    ///
    /// - Parameter pool: where packets are recycled; by default a pool of the queue's own.
    package init(streamIndex: Int, timeBase: Rational, pool: PacketPool = PacketPool()) {
        self.streamIndex = streamIndex
        self.timeBase = timeBase
        self.pool = pool
    }

    // MARK: Producer

    /// Queues `packet`, taking ownership of it, stamped with the current serial.
    ///
    /// - Returns: false when the queue is aborted; the packet is then recycled.
    @discardableResult
    package func put(_ packet: Packet) -> Bool {
        let accepted = lock.withLock { () -> Bool in
            guard !aborted else { return false }
            entries.append(.packet(packet, currentSerial))
            packetCount += 1
            bytes += packet.size + Self.perPacketOverhead
            durationTicks += max(0, packet.duration)
            if let start = packet.pts ?? packet.dts {
                let end = start + max(0, packet.duration)
                lastEndTicks = max(lastEndTicks ?? end, end)
            }
            lock.signal()
            return true
        }
        if !accepted { pool.recycle(packet) }
        return accepted
    }

    /// Queues the payload of `source`, moved into a packet from ``pool``; `source` is left blank for
    /// the caller to read into again (the demuxer's path: no allocation per packet).
    @discardableResult
    package func put(movingFrom source: Packet) -> Bool {
        let packet = pool.take()
        packet.move(from: source)
        return put(packet)
    }

    /// Queues the end-of-stream marker that tells the decoder to drain (ffplay's null packet).
    package func putEndOfStream() {
        lock.withLock {
            guard !aborted else { return }
            entries.append(.endOfStream(currentSerial))
            lock.signal()
        }
    }

    // MARK: Consumer

    /// Takes the oldest item. With `blocking`, waits until there is one or the queue is aborted.
    package func get(blocking: Bool) -> Result {
        let (result, wakeup) = lock.withLock { () -> (Result, ConditionLock?) in
            while true {
                if aborted { return (.aborted, nil) }
                if let entry = entries.removeFirst() {
                    switch entry {
                    case .packet(let packet, let serial):
                        packetCount -= 1
                        bytes -= packet.size + Self.perPacketOverhead
                        durationTicks -= max(0, packet.duration)
                        return (.packet(packet, serial), consumerWakeup)
                    case .endOfStream(let serial):
                        return (.endOfStream(serial), consumerWakeup)
                    }
                }
                if !blocking { return (.empty, nil) }
                waitingReaders += 1
                lock.wait()
                waitingReaders -= 1
            }
        }
        wakeup?.signal()
        return result
    }

    /// How many readers are blocked in ``get(blocking:)`` waiting for an item (counted under the lock they wait on,
    /// so a reader counted here is inside the wait: an abort or a put now wakes it). For tests and diagnostics.
    package var waitingReaderCount: Int { lock.withLock { waitingReaders } }

    /// Returns a packet obtained from ``get(blocking:)`` to the pool. The caller must not touch it
    /// afterwards.
    package func recycle(_ packet: Packet) {
        pool.recycle(packet)
    }

    // MARK: Control

    /// Drops every queued item and moves to the next serial (a seek, ffplay's `packet_queue_flush`).
    ///
    /// - Parameter dropFramesBefore: for an exact seek, the target time: decoders drop frames of the
    ///   new serial that end before it (see ``dropFramesBefore(serial:)``).
    package func flush(dropFramesBefore target: CMTime? = nil) {
        var dropped: [Packet] = []
        lock.withLock {
            while let entry = entries.removeFirst() {
                if case .packet(let packet, _) = entry { dropped.append(packet) }
            }
            packetCount = 0
            bytes = 0
            durationTicks = 0
            lastEndTicks = nil
            currentSerial = currentSerial.next()
            dropTarget = target.map { (currentSerial, $0) }
            lock.broadcast()
        }
        for packet in dropped { pool.recycle(packet) }
    }

    /// Sets the exact-seek target of the current serial without flushing (an exact seek that continues forward from
    /// where the decoder is: ``Demuxer/seek(to:range:accurate:window:continuingFrom:)``); the decoder drops frames
    /// of this serial that end before it from its next frame on.
    package func setDropFramesBefore(_ target: CMTime) {
        lock.withLock { dropTarget = (currentSerial, target) }
    }

    /// Clears the abort flag and moves to the next serial, so a consumer restarting on this queue
    /// resets its decoder (ffplay's `packet_queue_start`). A new queue is already started.
    package func start() {
        lock.withLock {
            aborted = false
            currentSerial = currentSerial.next()
            dropTarget = nil
        }
    }

    /// Wakes every blocked ``get(blocking:)`` with `.aborted` and refuses further packets until
    /// ``start()``. Queued packets stay until ``flush(dropFramesBefore:)`` or deinit.
    package func abort() {
        lock.withLock {
            aborted = true
            lock.broadcast()
        }
    }

    /// Registers the lock to signal whenever the consumer takes an item (the demuxer's); `nil` removes it.
    package func setConsumerWakeup(_ wakeup: ConditionLock?) {
        lock.withLock { consumerWakeup = wakeup }
    }

    // MARK: State

    /// The current generation: packets stamped with another serial are stale.
    package var serial: Serial {
        lock.withLock { currentSerial }
    }

    /// Whether ``abort()`` was called since the last ``start()``.
    package var isAborted: Bool {
        lock.withLock { aborted }
    }

    /// Queued packets, not counting an end-of-stream marker.
    package var count: Int {
        lock.withLock { packetCount }
    }

    /// Queued bytes: payloads plus ``perPacketOverhead`` each.
    package var byteSize: Int {
        lock.withLock { bytes }
    }

    /// The sum of the queued packets' durations (zero when the container gives none).
    package var duration: CMTime {
        CMTime(ffmpeg: lock.withLock { durationTicks }, timeBase: timeBase)
    }

    /// The largest `pts + duration` queued since the last flush (stream time): how far the demuxer has
    /// read this stream, for buffered ranges. `nil` before the first timestamped packet.
    package var lastTimestamp: CMTime? {
        lock.withLock { lastEndTicks }.map { CMTime(ffmpeg: $0, timeBase: timeBase) }
    }

    /// The totals the demuxer's back-pressure reads, in one lock round trip.
    package var totals: (count: Int, bytes: Int, durationTicks: Int64) {
        lock.withLock { (packetCount, bytes, durationTicks) }
    }

    /// The presentation timestamps of the first `limit` queued packets of the current serial, oldest first (packets
    /// without one are left out): what the decoder will be sent next, for deciding whether a picture it is about to
    /// decode can be skipped before an exact-seek target.
    package func upcomingTimestamps(limit: Int) -> [Int64] {
        lock.withLock {
            var timestamps: [Int64] = []
            var offset = 0
            while offset < limit, let entry = entries[offset: offset] {
                offset += 1
                if case .packet(let packet, let serial) = entry, serial == currentSerial, let pts = packet.pts {
                    timestamps.append(pts)
                }
            }
            return timestamps
        }
    }

    /// The exact-seek target recorded by ``flush(dropFramesBefore:)`` when it moved to `serial`; nil
    /// when that flush had none, or `serial` is not the flush's serial.
    package func dropFramesBefore(serial: Serial) -> CMTime? {
        lock.withLock {
            guard let dropTarget, dropTarget.serial == serial else { return nil }
            return dropTarget.time
        }
    }
}
