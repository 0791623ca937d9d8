import CoreVideo
import OAVFLocking
import XCTest

/// The buffers taken and not yet released, across threads: proves no two holders ever share a buffer or a block.
private final class HeldBuffers: @unchecked Sendable {
    private let lock = ConditionLock()
    /// Guarded by `lock`: base address of each held buffer's memory.
    private var addresses: Set<UnsafeMutableRawPointer> = []
    /// Guarded by `lock`.
    private var mostHeld = 0

    /// Registers a buffer just taken; false when its memory is already held by someone else.
    func take(_ buffer: CVPixelBuffer) -> Bool {
        guard let address = CVPixelBufferGetBaseAddressOfPlane(buffer, 0) else { return false }
        return lock.withLock {
            let (inserted, _) = addresses.insert(address)
            mostHeld = max(mostHeld, addresses.count)
            return inserted
        }
    }

    /// Unregisters a buffer about to be released.
    func give(_ buffer: CVPixelBuffer) {
        guard let address = CVPixelBufferGetBaseAddressOfPlane(buffer, 0) else { return }
        _ = lock.withLock { addresses.remove(address) }
    }

    var highWaterMark: Int { lock.withLock { mostHeld } }
}

/// One pool vending and recycling buffers on several threads at once, as a decoder thread takes while outputs and
/// layers release on theirs. Run under `swift test --sanitize=thread`.
final class CVPixelBufferPoolConcurrencyTests: XCTestCase {
    private let threads = 4
    private let rounds = 1_000

    private func makePool(poolAttributes: [String: Any]? = nil) throws -> CVPixelBufferPool {
        let attributes: [String: Any] = [
            kCVPixelBufferWidthKey as String: 64,
            kCVPixelBufferHeightKey as String: 48,
            kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange,
            kCVBufferPropagatedAttachmentsKey as String: [kCVImageBufferFieldCountKey as String: 1],
        ]
        var pool: CVPixelBufferPool?
        XCTAssertEqual(
            CVPixelBufferPoolCreate(nil, poolAttributes.map { $0 as CFDictionary }, attributes as CFDictionary, &pool),
            kCVReturnSuccess)
        return try XCTUnwrap(pool)
    }

    func test_takeAndRecycle_fromFourThreads_neverSharesABuffer_andReusesBlocks() throws {
        // Aging off, so every block comes back to the free list and the counters add up exactly.
        let pool = try makePool(poolAttributes: [kCVPixelBufferPoolMaximumBufferAgeKey as String: 0])
        let held = HeldBuffers()
        let problems = ProblemLog()
        let rounds = rounds
        runOnThreads(threads) { thread in
            for round in 0..<rounds {
                // Take one to three buffers, mark each with this thread's token, check the marks survived, release.
                var mine: [CVPixelBuffer] = []
                for _ in 0...(round % 3) {
                    var buffer: CVPixelBuffer?
                    let status = CVPixelBufferPoolCreatePixelBuffer(nil, pool, &buffer)
                    guard status == kCVReturnSuccess, let buffer else {
                        problems.check(false, "take failed: \(status)")
                        continue
                    }
                    problems.check(held.take(buffer), "a held buffer was vended twice")
                    problems.check(
                        CVBufferCopyAttachment(buffer, kCVImageBufferFieldCountKey, nil) as? Int == 1,
                        "initial attachment")
                    CVBufferSetAttachment(buffer, "Owner", thread, .shouldNotPropagate)
                    CVPixelBufferLockBaseAddress(buffer, [])
                    CVPixelBufferGetBaseAddressOfPlane(buffer, 0)!.storeBytes(of: UInt32(thread), as: UInt32.self)
                    CVPixelBufferUnlockBaseAddress(buffer, [])
                    mine.append(buffer)
                }
                for buffer in mine {
                    CVPixelBufferLockBaseAddress(buffer, .readOnly)
                    let mark = CVPixelBufferGetBaseAddressOfPlane(buffer, 0)!.load(as: UInt32.self)
                    CVPixelBufferUnlockBaseAddress(buffer, .readOnly)
                    problems.check(mark == UInt32(thread), "pixels written by thread \(mark) meanwhile")
                    problems.check(CVBufferCopyAttachment(buffer, "Owner", nil) as? Int == thread, "owner")
                    held.give(buffer)
                }
                mine.removeAll()  // recycled here, on this thread
            }
        }
        XCTAssertEqual(problems.all, [])
        let statistics = pool.statistics
        XCTAssertEqual(statistics.freeBufferCount, statistics.liveAllocationCount, "every block came back")
        XCTAssertEqual(statistics.allocationCount, statistics.liveAllocationCount, "no block was freed")
        // At most three buffers per thread exist at once: far fewer blocks than takes, and no more than that.
        XCTAssertLessThanOrEqual(statistics.allocationCount, threads * 3, "blocks were reused")
        XCTAssertLessThanOrEqual(held.highWaterMark, threads * 3)

        // A recycled buffer starts with the pool's attachments only (not a previous holder's).
        var buffer: CVPixelBuffer?
        CVPixelBufferPoolCreatePixelBuffer(nil, pool, &buffer)
        let reused = try XCTUnwrap(buffer)
        XCTAssertNil(CVBufferCopyAttachment(reused, "Owner", nil))
        XCTAssertEqual(reused.lockCount, 0)
        XCTAssertEqual(pool.statistics.allocationCount, statistics.allocationCount, "taken from the free list")
    }

    func test_buffersReleasedOnOtherThreads_returnToThePool() throws {
        let pool = try makePool(poolAttributes: [kCVPixelBufferPoolMaximumBufferAgeKey as String: 0])
        // Taken here, released by four threads at once (a sink dropping the picture it last showed).
        let handOff = HandOff(try (0..<(threads * 8)).map { _ in try pool.makePixelBuffer() })
        runOnThreads(threads) { thread in
            handOff.drop(every: thread, of: 4)
        }
        let statistics = pool.statistics
        XCTAssertEqual(statistics.allocationCount, threads * 8)
        XCTAssertEqual(statistics.freeBufferCount, threads * 8)
        XCTAssertEqual(statistics.liveAllocationCount, threads * 8)
    }

    func test_allocationThreshold_holdsUnderContention() throws {
        let pool = try makePool(poolAttributes: [kCVPixelBufferPoolMaximumBufferAgeKey as String: 0])
        let aux = [kCVPixelBufferPoolAllocationThresholdKey as String: 3]
        let held = HeldBuffers()
        let problems = ProblemLog()
        let refused = Counter()
        let rounds = rounds
        runOnThreads(threads) { _ in
            for _ in 0..<rounds {
                var buffer: CVPixelBuffer?
                let status = CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(
                    nil, pool, aux as CFDictionary, &buffer)
                guard let buffer else {
                    problems.check(status == kCVReturnWouldExceedAllocationThreshold, "status \(status)")
                    refused.increment()
                    continue
                }
                problems.check(held.take(buffer), "a held buffer was vended twice")
                held.give(buffer)
            }
        }
        XCTAssertEqual(problems.all, [])
        XCTAssertLessThanOrEqual(held.highWaterMark, 3)
        XCTAssertLessThanOrEqual(pool.statistics.allocationCount, 3)
        XCTAssertEqual(pool.statistics.freeBufferCount, pool.statistics.liveAllocationCount)
    }

    func test_flushAndAging_raceTakeAndRecycle_andTheCountersStayConsistent() throws {
        let clock = FakeClock()
        let pool = try CVPixelBufferPool(
            poolAttributes: [kCVPixelBufferPoolMaximumBufferAgeKey as String: 0.5],
            pixelBufferAttributes: [
                kCVPixelBufferWidthKey as String: 32, kCVPixelBufferHeightKey as String: 32,
                kCVPixelBufferPixelFormatTypeKey as String: kCVPixelFormatType_32BGRA,
            ],
            clock: { clock.seconds })
        let problems = ProblemLog()
        let rounds = rounds
        runOnThreads(threads) { thread in
            for round in 0..<rounds {
                switch thread {
                case 0:
                    CVPixelBufferPoolFlush(pool, round.isMultiple(of: 2) ? .excessBuffers : [])
                case 1:
                    clock.advance(by: 0.01)
                    let statistics = pool.statistics
                    problems.check(
                        statistics.freeBufferCount <= statistics.liveAllocationCount
                            && statistics.liveAllocationCount <= statistics.allocationCount,
                        "inconsistent counters \(statistics)")
                default:
                    do {
                        let buffers = try (0...(round % 2)).map { _ in try pool.makePixelBuffer() }
                        problems.check(Set(buffers).count == buffers.count, "the same buffer twice")
                    } catch {
                        problems.check(false, "take failed: \(error)")
                    }
                }
            }
        }
        XCTAssertEqual(problems.all, [])
        CVPixelBufferPoolFlush(pool, .excessBuffers)
        XCTAssertEqual(pool.statistics.freeBufferCount, 0)
        XCTAssertEqual(pool.statistics.liveAllocationCount, 0, "every block returned, then freed")
    }

    func test_buffersOutlivingThePool_areFreedWhileOtherThreadsReleaseThem() throws {
        let threads = threads
        for _ in 0..<20 {
            // Only the hand-offs hold the pool and its buffers: one thread drops the pool while the others drop
            // the buffers, so the pool closes while blocks come back.
            let (poolHandOff, bufferHandOff) = try makePoolAndBuffers(count: threads * 2)
            weak let pool = poolHandOff.first
            runOnThreads(threads + 1) { thread in
                if thread == threads {
                    poolHandOff.drop(every: 0, of: 1)
                } else {
                    bufferHandOff.drop(every: thread, of: threads)
                }
            }
            XCTAssertNil(pool, "the pool went away")
        }
    }

    private func makePoolAndBuffers(count: Int) throws -> (HandOff<CVPixelBufferPool>, HandOff<CVPixelBuffer>) {
        let pool = try makePool()
        return (HandOff([pool]), HandOff(try (0..<count).map { _ in try pool.makePixelBuffer() }))
    }
}

/// Objects handed from the test to worker threads, each dropping its share.
private final class HandOff<Object: AnyObject>: @unchecked Sendable {
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var objects: [Object?]

    init(_ objects: [Object]) {
        self.objects = objects
    }

    /// The first object, if not dropped yet.
    var first: Object? {
        lock.withLock { objects.first ?? nil }
    }

    /// Releases the objects whose index is `share` modulo `shares`, one at a time, outside the lock.
    func drop(every share: Int, of shares: Int) {
        for index in stride(from: share, to: lock.withLock { objects.count }, by: shares) {
            let object = lock.withLock { () -> Object? in
                defer { objects[index] = nil }
                return objects[index]
            }
            withExtendedLifetime(object) {}  // the last reference: a buffer's block goes back to its pool here
        }
    }
}
