import CoreVideo
import XCTest

final class CVPixelBufferPoolTests: XCTestCase {
    private func pixelBufferAttributes(
        _ width: Int = 320,
        _ height: Int = 240,
        _ format: Any = kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange
    ) -> [String: Any] {
        [
            kCVPixelBufferWidthKey as String: width,
            kCVPixelBufferHeightKey as String: height,
            kCVPixelBufferPixelFormatTypeKey as String: format,
        ]
    }

    private func makePool(
        _ attributes: [String: Any]? = nil, poolAttributes: [String: Any]? = nil
    ) throws
        -> CVPixelBufferPool
    {
        var pool: CVPixelBufferPool?
        let status = CVPixelBufferPoolCreate(
            kCFAllocatorDefault, poolAttributes.map { $0 as CFDictionary },
            (attributes ?? pixelBufferAttributes()) as CFDictionary, &pool)
        XCTAssertEqual(status, kCVReturnSuccess)
        return try XCTUnwrap(pool)
    }

    private func vend(_ pool: CVPixelBufferPool) throws -> CVPixelBuffer {
        var pb: CVPixelBuffer?
        XCTAssertEqual(CVPixelBufferPoolCreatePixelBuffer(kCFAllocatorDefault, pool, &pb), kCVReturnSuccess)
        return try XCTUnwrap(pb)
    }

    // MARK: Creation

    func testPoolBuffersHaveTheRequestedGeometry() throws {
        let pool = try makePool(pixelBufferAttributes(321, 241))
        let buffer = try vend(pool)
        XCTAssertEqual(CVPixelBufferGetWidth(buffer), 321)
        XCTAssertEqual(CVPixelBufferGetHeight(buffer), 241)
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(buffer), kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        XCTAssertEqual(CVPixelBufferGetWidthOfPlane(buffer, 1), 161)
        XCTAssertEqual(CVPixelBufferGetHeightOfPlane(buffer, 1), 121)
        XCTAssertEqual(CVPixelBufferGetBytesPerRowOfPlane(buffer, 0), 384)
    }

    func testFormatArrayUsesTheFirstAllocatableFormat() throws {
        let first = try makePool(
            pixelBufferAttributes(
                16, 16, [kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange, kCVPixelFormatType_32BGRA]))
        XCTAssertEqual(
            CVPixelBufferGetPixelFormatType(try vend(first)),
            kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange)
        let skipsUnknown = try makePool(
            pixelBufferAttributes(
                16, 16, [NSNumber(value: fourCC("zzzz")), NSNumber(value: kCVPixelFormatType_32BGRA)]))
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(try vend(skipsUnknown)), kCVPixelFormatType_32BGRA)
    }

    func testCreationErrors() {
        var pool: CVPixelBufferPool?
        var missingWidth = pixelBufferAttributes()
        missingWidth[kCVPixelBufferWidthKey as String] = nil
        XCTAssertEqual(
            CVPixelBufferPoolCreate(nil, nil, missingWidth as CFDictionary, &pool),
            kCVReturnInvalidPixelBufferAttributes)
        XCTAssertEqual(CVPixelBufferPoolCreate(nil, nil, nil, &pool), kCVReturnInvalidPixelBufferAttributes)
        XCTAssertEqual(
            CVPixelBufferPoolCreate(
                nil, nil, pixelBufferAttributes(16, 16, fourCC("zzzz")) as CFDictionary,
                &pool), kCVReturnInvalidPixelFormat)
        XCTAssertEqual(
            CVPixelBufferPoolCreate(
                nil, nil, pixelBufferAttributes(16, 16, "BGRA") as CFDictionary,
                &pool), kCVReturnInvalidPixelBufferAttributes)
        let badPool: [String: Any] = [kCVPixelBufferPoolMaximumBufferAgeKey as String: "forever"]
        XCTAssertEqual(
            CVPixelBufferPoolCreate(
                nil, badPool as CFDictionary, pixelBufferAttributes() as CFDictionary,
                &pool), kCVReturnInvalidPoolAttributes)
        XCTAssertNil(pool)
    }

    func testAttributesRoundTrip() throws {
        let poolAttributes: [String: Any] = [kCVPixelBufferPoolMinimumBufferCountKey as String: 3]
        let pool = try makePool(poolAttributes: poolAttributes)
        let pixel = try XCTUnwrap(CVPixelBufferPoolGetPixelBufferAttributes(pool) as? [String: Any])
        XCTAssertEqual(pixel[kCVPixelBufferWidthKey as String] as? Int, 320)
        XCTAssertEqual(
            pixel[kCVPixelBufferPixelFormatTypeKey as String] as? OSType,
            kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        let poolCopy = try XCTUnwrap(CVPixelBufferPoolGetAttributes(pool) as? [String: Any])
        XCTAssertEqual(poolCopy[kCVPixelBufferPoolMinimumBufferCountKey as String] as? Int, 3)
    }

    // MARK: Recycling

    func testDroppedBufferMemoryIsReused() throws {
        let pool = try makePool()
        var buffer: CVPixelBuffer? = try vend(pool)
        let address = CVPixelBufferGetBaseAddressOfPlane(buffer!, 0)
        buffer = nil
        XCTAssertEqual(pool.statistics.freeBufferCount, 1)
        let again = try vend(pool)
        XCTAssertEqual(CVPixelBufferGetBaseAddressOfPlane(again, 0), address)
        XCTAssertEqual(pool.statistics.allocationCount, 1)
    }

    func testSteadyStateAllocatesOnlyAsManyBlocksAsAreInFlight() throws {
        let pool = try makePool()
        for _ in 0..<10 {
            let held = try (0..<4).map { _ in try vend(pool) }
            XCTAssertEqual(Set(held.map { CVPixelBufferGetBaseAddressOfPlane($0, 0) }).count, 4)
        }
        XCTAssertEqual(pool.statistics.allocationCount, 4)
        XCTAssertEqual(pool.statistics.liveAllocationCount, 4)
        XCTAssertEqual(pool.statistics.freeBufferCount, 4)
    }

    func testConcurrentVendingAndReturningIsThreadSafeAndBounded() throws {
        let pool = try makePool(pixelBufferAttributes(64, 64, kCVPixelFormatType_32BGRA))
        let workers = 8
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for iteration in 0..<200 {
                var pb: CVPixelBuffer?
                CVPixelBufferPoolCreatePixelBuffer(nil, pool, &pb)
                guard let pb, let base = CVPixelBufferGetBaseAddress(pb) else { return XCTFail("no buffer") }
                base.storeBytes(of: UInt32(worker << 16 | iteration), as: UInt32.self)
                XCTAssertEqual(base.load(as: UInt32.self), UInt32(worker << 16 | iteration))
            }
        }
        let statistics = pool.statistics
        XCTAssertLessThanOrEqual(statistics.allocationCount, workers)
        XCTAssertEqual(statistics.freeBufferCount, statistics.liveAllocationCount)
    }

    func testEachVendedBufferStartsWithTheAttributeAttachmentsOnly() throws {
        var attributes = pixelBufferAttributes()
        attributes[kCVBufferPropagatedAttachmentsKey as String] = [
            kCVImageBufferColorPrimariesKey as String: kCVImageBufferColorPrimaries_ITU_R_709_2
        ]
        let pool = try makePool(attributes)
        var first: CVPixelBuffer? = try vend(pool)
        XCTAssertEqual(CVBufferCopyAttachment(first!, kCVImageBufferColorPrimariesKey, nil) as? String, "ITU_R_709_2")
        CVBufferSetAttachment(first!, "Scratch", 1, .shouldNotPropagate)
        first = nil
        let second = try vend(pool)
        XCTAssertFalse(CVBufferHasAttachment(second, "Scratch"))
        XCTAssertTrue(CVBufferHasAttachment(second, kCVImageBufferColorPrimariesKey))
    }

    func testBuffersMayOutliveTheirPool() throws {
        var pool: CVPixelBufferPool? = try makePool()
        let buffer = try vend(pool!)
        pool = nil
        CVPixelBufferLockBaseAddress(buffer, [])
        CVPixelBufferGetBaseAddressOfPlane(buffer, 1)?.storeBytes(of: 7, as: UInt8.self)
        CVPixelBufferUnlockBaseAddress(buffer, [])
    }

    // MARK: Aging and flushing

    func testUnusedBuffersAgeOutOnTheInjectedClock() throws {
        let clock = FakeClock()
        let pool = try CVPixelBufferPool(
            poolAttributes: nil, pixelBufferAttributes: pixelBufferAttributes(), clock: { clock.seconds })
        var buffer: CVPixelBuffer? = try pool.makePixelBuffer()
        buffer = nil
        clock.advance(by: 0.5)
        CVPixelBufferPoolFlush(pool, [])
        XCTAssertEqual(pool.statistics.freeBufferCount, 1, "younger than the default one second")
        clock.advance(by: 0.6)
        CVPixelBufferPoolFlush(pool, [])
        XCTAssertEqual(pool.statistics.freeBufferCount, 0)
        XCTAssertEqual(pool.statistics.liveAllocationCount, 0)
        buffer = try pool.makePixelBuffer()
        XCTAssertEqual(pool.statistics.allocationCount, 2)
        _ = buffer
    }

    func testAgingKeepsTheMinimumBufferCountAndZeroAgeDisablesIt() throws {
        let clock = FakeClock()
        let pool = try CVPixelBufferPool(
            poolAttributes: [
                kCVPixelBufferPoolMinimumBufferCountKey as String: 2,
                kCVPixelBufferPoolMaximumBufferAgeKey as String: 0.25,
            ],
            pixelBufferAttributes: pixelBufferAttributes(), clock: { clock.seconds })
        var held: [CVPixelBuffer] = try (0..<3).map { _ in try pool.makePixelBuffer() }
        held.removeAll()
        clock.advance(by: 10)
        CVPixelBufferPoolFlush(pool, [])
        XCTAssertEqual(pool.statistics.freeBufferCount, 2)

        let noAging = try CVPixelBufferPool(
            poolAttributes: [kCVPixelBufferPoolMaximumBufferAgeKey as String: 0],
            pixelBufferAttributes: pixelBufferAttributes(), clock: { clock.seconds })
        var buffer: CVPixelBuffer? = try noAging.makePixelBuffer()
        buffer = nil
        clock.advance(by: 1000)
        CVPixelBufferPoolFlush(noAging, [])
        XCTAssertEqual(noAging.statistics.freeBufferCount, 1)
        _ = buffer
    }

    func testFlushExcessBuffersFreesAllUnusedButNotBuffersInUse() throws {
        let pool = try makePool()
        let inUse = try vend(pool)
        var others: [CVPixelBuffer] = try (0..<3).map { _ in try vend(pool) }
        others.removeAll()
        XCTAssertEqual(pool.statistics.freeBufferCount, 3)
        CVPixelBufferPoolFlush(pool, .excessBuffers)
        XCTAssertEqual(pool.statistics.freeBufferCount, 0)
        XCTAssertEqual(pool.statistics.liveAllocationCount, 1)
        XCTAssertNotNil(CVPixelBufferGetBaseAddressOfPlane(inUse, 0))
        XCTAssertEqual(CVPixelBufferPoolFlushFlags.excessBuffers.rawValue, 1)
    }

    func testAllocationThreshold() throws {
        let pool = try makePool()
        let aux = [kCVPixelBufferPoolAllocationThresholdKey as String: 2] as CFDictionary
        var a: CVPixelBuffer?
        var b: CVPixelBuffer?
        var c: CVPixelBuffer?
        XCTAssertEqual(CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &a), kCVReturnSuccess)
        XCTAssertEqual(CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &b), kCVReturnSuccess)
        XCTAssertEqual(
            CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &c),
            kCVReturnWouldExceedAllocationThreshold)
        XCTAssertNil(c)
        a = nil
        XCTAssertEqual(CVPixelBufferPoolCreatePixelBufferWithAuxAttributes(nil, pool, aux, &c), kCVReturnSuccess)
        XCTAssertEqual(pool.statistics.allocationCount, 2)
        _ = (b, c)
    }

    func testPoolsCompareByIdentity() throws {
        let a = try makePool()
        let b = try makePool()
        XCTAssertEqual(a, a)
        XCTAssertNotEqual(a, b)
    }
}
