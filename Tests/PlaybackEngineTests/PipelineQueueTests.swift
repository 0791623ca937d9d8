import CoreMedia
import FFmpegBridge
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

/// The queues and primitives under the pipeline: serial semantics, totals, blocking and abort.
final class PipelineQueueTests: XCTestCase {
    /// The first `count` packets of `fixture`'s stream 0 (video).
    private func videoPackets(_ count: Int, of fixture: Fixture = .h264AAC) throws -> (FormatContext, [Packet]) {
        let format = try FormatContext(url: try Fixtures.url(fixture).path)
        var packets: [Packet] = []
        while packets.count < count {
            let packet = Packet()
            guard case .packet = try format.read(into: packet) else { break }
            if packet.streamIndex == 0 { packets.append(packet) }
        }
        return (format, packets)
    }

    /// Waits (polling) until `condition` holds: the waits below are for a thread to be blocked inside a queue, which
    /// the queues count under the lock the thread waits on (no event tells of it). Fails after the hang guard.
    private func waitUntil(
        _ what: String, file: StaticString = #filePath, line: UInt = #line, _ condition: () -> Bool
    ) {
        if !Poll.until(every: 0, condition) { XCTFail("timed out waiting for \(what)", file: file, line: line) }
    }

    func test_serial_ordersGenerations() {
        let first = Serial.initial
        XCTAssertLessThan(first, first.next())
        XCTAssertEqual(first.next(), Serial(rawValue: first.rawValue + 1))
        XCTAssertNotEqual(first, first.next())
    }

    func test_packetQueue_stampsSerials_andKeepsTotals() throws {
        let (format, packets) = try videoPackets(4)
        let timeBase = try XCTUnwrap(format.timeBase(ofStream: 0))
        let queue = PacketQueue(streamIndex: 0, timeBase: timeBase)
        XCTAssertEqual(queue.serial, .initial)
        for packet in packets.prefix(3) { XCTAssertTrue(queue.put(packet)) }
        XCTAssertEqual(queue.count, 3)
        XCTAssertEqual(queue.byteSize, packets.prefix(3).reduce(0) { $0 + $1.size + PacketQueue.perPacketOverhead })
        XCTAssertEqual(
            queue.duration, CMTime(ffmpeg: packets.prefix(3).reduce(0) { $0 + $1.duration }, timeBase: timeBase))
        let ends = packets.prefix(3).map { ($0.pts ?? 0) + $0.duration }
        XCTAssertEqual(queue.lastTimestamp, CMTime(ffmpeg: ends.max()!, timeBase: timeBase))

        guard case .packet(let taken, let serial) = queue.get(blocking: false) else { return XCTFail("no packet") }
        XCTAssertTrue(taken === packets[0])
        XCTAssertEqual(serial, .initial)
        queue.recycle(taken)
        XCTAssertEqual(queue.count, 2)

        queue.flush(dropFramesBefore: CMTime(value: 5, timescale: 1))
        let flushed = queue.serial
        XCTAssertEqual(flushed, Serial.initial.next())
        XCTAssertEqual(queue.count, 0)
        XCTAssertEqual(queue.byteSize, 0)
        XCTAssertNil(queue.lastTimestamp)
        XCTAssertEqual(queue.dropFramesBefore(serial: flushed), CMTime(value: 5, timescale: 1))
        XCTAssertNil(queue.dropFramesBefore(serial: .initial))
        guard case .empty = queue.get(blocking: false) else { return XCTFail("flush left packets") }

        queue.put(packets[3])
        queue.putEndOfStream()
        guard case .packet(_, let newSerial) = queue.get(blocking: false) else { return XCTFail("no packet") }
        XCTAssertEqual(newSerial, flushed)
        guard case .endOfStream(let endSerial) = queue.get(blocking: false) else { return XCTFail("no end marker") }
        XCTAssertEqual(endSerial, flushed)
        XCTAssertEqual(queue.pool.statistics.freeCount, 3, "taken, flushed and dropped packets were recycled")
    }

    func test_packetQueue_abortWakesABlockedReader_andRefusesPackets() throws {
        let (_, packets) = try videoPackets(1)
        let queue = PacketQueue(streamIndex: 0, timeBase: Rational(1, 30))
        let woke = expectation(description: "reader woke")
        let result = Locked<String>("")
        Thread.detachNewThread {
            switch queue.get(blocking: true) {
            case .aborted: result.withLock { $0 = "aborted" }
            default: result.withLock { $0 = "other" }
            }
            woke.fulfill()
        }
        waitUntil("the reader blocked in get") { queue.waitingReaderCount == 1 }
        queue.abort()
        wait(for: [woke], timeout: 30)
        XCTAssertEqual(result.current, "aborted")
        XCTAssertFalse(queue.put(packets[0]))
        XCTAssertEqual(queue.count, 0)
        let before = queue.serial
        queue.start()
        XCTAssertEqual(queue.serial, before.next(), "start moves to a new generation (ffplay)")
        XCTAssertTrue(queue.put(Packet()))
    }

    func test_packetQueue_signalsTheConsumerWakeup() throws {
        let (_, packets) = try videoPackets(1)
        let queue = PacketQueue(streamIndex: 0, timeBase: Rational(1, 30))
        let wakeup = ConditionLock()
        queue.setConsumerWakeup(wakeup)
        queue.put(packets[0])
        let signalled = Locked(false)
        // Set by the waiter while it holds `wakeup`, which it keeps until `wait` releases it: whoever then takes
        // `wakeup` and sees the flag knows the waiter is blocked inside `wait`, so the signal cannot come too early.
        let aboutToWait = Locked(false)
        let waiting = expectation(description: "waiter woke")
        Thread.detachNewThread {
            wakeup.lock()
            aboutToWait.withLock { $0 = true }
            let woke = wakeup.wait(timeout: 30)
            wakeup.unlock()
            signalled.withLock { $0 = woke }
            waiting.fulfill()
        }
        while !wakeup.withLock({ aboutToWait.current }) { sched_yield() }
        _ = queue.get(blocking: false)
        wait(for: [waiting], timeout: 31)
        XCTAssertTrue(signalled.current, "the waiter was woken by the signal, not by its timeout")
    }

    func test_frameQueue_ringBlocksTheWriterWhileFull() {
        let queue = FrameQueue<Int>(capacity: 3)
        for value in 0..<3 { XCTAssertTrue(queue.push(value, serial: .initial)) }
        XCTAssertEqual(queue.count, 3)
        let pushed = expectation(description: "fourth push")
        let returned = Locked(false)
        Thread.detachNewThread {
            _ = queue.push(3, serial: .initial)
            returned.withLock { $0 = true }
            pushed.fulfill()
        }
        waitUntil("the writer blocked in push") { queue.waitingWriterCount == 1 }
        XCTAssertFalse(returned.current, "writer waits for room")
        XCTAssertEqual(queue.count, 3)
        XCTAssertEqual(queue.peek()?.element, 0)
        XCTAssertEqual(queue.peekNext()?.element, 1)
        XCTAssertEqual(queue.pop()?.element, 0)
        wait(for: [pushed], timeout: 30)
        XCTAssertEqual(queue.waitingWriterCount, 0)
        XCTAssertEqual((0..<3).compactMap { _ in queue.pop()?.element }, [1, 2, 3])
        XCTAssertNil(queue.pop())
        XCTAssertFalse(queue.waitUntilReadable(timeout: 0.02))
    }

    func test_frameQueue_abortReleasesABlockedWriter_andStaleFramesAreDropped() {
        let queue = FrameQueue<Int>(capacity: 2)
        queue.push(0, serial: .initial)
        queue.push(1, serial: .initial)
        let result = Locked<Bool?>(nil)
        let done = expectation(description: "push returned")
        Thread.detachNewThread {
            let accepted = queue.push(2, serial: .initial)
            result.withLock { $0 = accepted }
            done.fulfill()
        }
        waitUntil("the writer blocked in push") { queue.waitingWriterCount == 1 }
        queue.abort()
        wait(for: [done], timeout: 30)
        XCTAssertEqual(result.current, false)
        XCTAssertFalse(queue.waitUntilReadable(timeout: 0.01))
        queue.start()
        queue.flush()
        XCTAssertEqual(queue.count, 0)

        let next = Serial.initial.next()
        queue.push(10, serial: .initial)
        queue.push(11, serial: next)
        XCTAssertEqual(queue.dropStale(current: next), 1)
        XCTAssertEqual(queue.peek()?.element, 11)
        XCTAssertEqual(queue.peek()?.serial, next)
    }

    func test_frameQueue_pushGivesUpWhenCancelled() {
        let queue = FrameQueue<Int>(capacity: 1)
        queue.push(0, serial: .initial)
        let cancel = Locked(false)
        let done = expectation(description: "push returned")
        let result = Locked<Bool?>(nil)
        Thread.detachNewThread {
            let accepted = queue.push(1, serial: .initial, cancelIf: { cancel.current })
            result.withLock { $0 = accepted }
            done.fulfill()
        }
        waitUntil("the writer waiting for room") { queue.waitingWriterCount == 1 }
        cancel.withLock { $0 = true }
        wait(for: [done], timeout: 30)
        XCTAssertEqual(result.current, false)
        XCTAssertFalse(queue.isAborted)
        XCTAssertEqual(queue.count, 1)
    }

    func test_conditionLock_timedWaitTimesOut() {
        let lock = ConditionLock()
        let start = Date()
        let signalled = lock.withLock { lock.wait(timeout: 0.05) }  // real time by design: a timed wait's length
        XCTAssertFalse(signalled)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.045)
    }

    func test_ringBuffer_growsKeepingOrder() {
        var ring = RingBuffer<Int>(capacity: 2)
        ring.append(0)
        ring.append(1)
        XCTAssertEqual(ring.removeFirst(), 0)
        for value in 2..<10 { ring.append(value) }
        XCTAssertEqual(ring.count, 9)
        XCTAssertEqual(ring[offset: 1], 2)
        XCTAssertEqual((0..<9).compactMap { _ in ring.removeFirst() }, Array(1..<10))
        XCTAssertTrue(ring.isEmpty)
    }

    func test_pools_reuseWhatComesBack() {
        let packets = PacketPool(maximumFreeCount: 2)
        let taken = (0..<3).map { _ in packets.take() }
        for packet in taken { packets.recycle(packet) }
        XCTAssertEqual(packets.statistics.allocationCount, 3)
        XCTAssertEqual(packets.statistics.freeCount, 2)
        _ = packets.take()
        XCTAssertEqual(packets.statistics.allocationCount, 3)

        let audio = AudioBufferPool()
        do {
            let first = audio.makeBuffer(minimumCapacity: 2048)
            XCTAssertEqual(first.capacity, 2048)
            XCTAssertEqual(audio.statistics.outstandingCount, 1)
        }
        XCTAssertEqual(audio.statistics.freeCount, 1)
        for _ in 0..<100 {
            let buffer = audio.makeBuffer(minimumCapacity: 1920)
            buffer.baseAddress[0] = 1
        }
        XCTAssertEqual(audio.statistics.allocationCount, 1, "one block serves every frame in turn")
    }
}
