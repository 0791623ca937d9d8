import CoreVideo
import XCTest

/// Base-address locking on one buffer from several threads at once, as when a decoder thread, a video output and
/// the main thread all read the same picture. Run under `swift test --sanitize=thread` to check for races.
final class CVPixelBufferConcurrencyTests: XCTestCase {
    private let threads = 4
    private let rounds = 2_000

    func test_readOnlyAndReadWriteLocks_fromFourThreads_balanceToZero() throws {
        let buffer = try makePixelBuffer(64, 48, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange)
        let problems = ProblemLog()
        let rounds = rounds
        runOnThreads(threads) { thread in
            for round in 0..<rounds {
                // Nest the two kinds in an order that differs by thread and round.
                let outer: CVPixelBufferLockFlags = (thread + round).isMultiple(of: 2) ? .readOnly : []
                let inner: CVPixelBufferLockFlags = outer == .readOnly ? [] : .readOnly
                problems.check(CVPixelBufferLockBaseAddress(buffer, outer) == kCVReturnSuccess, "lock \(outer)")
                problems.check(CVPixelBufferLockBaseAddress(buffer, inner) == kCVReturnSuccess, "lock \(inner)")
                problems.check(buffer.lockCount >= 2, "this thread holds two locks")
                problems.check(CVPixelBufferGetBaseAddressOfPlane(buffer, 1) != nil, "plane 1 address")
                problems.check(CVPixelBufferUnlockBaseAddress(buffer, inner) == kCVReturnSuccess, "unlock \(inner)")
                problems.check(CVPixelBufferUnlockBaseAddress(buffer, outer) == kCVReturnSuccess, "unlock \(outer)")
            }
        }
        XCTAssertEqual(problems.all, [])
        XCTAssertEqual(buffer.lockCount, 0)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, .readOnly), kCVReturnError, "no read-only lock left")
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, []), kCVReturnError, "no read-write lock left")
    }

    func test_locksHeldAcrossTheHammering_surviveIt_andMismatchedUnlocksChangeNothing() throws {
        let buffer = try makePixelBuffer(16, 16, kCVPixelFormatType_32BGRA)
        XCTAssertEqual(CVPixelBufferLockBaseAddress(buffer, .readOnly), kCVReturnSuccess)
        let problems = ProblemLog()
        let rounds = rounds
        runOnThreads(threads) { thread in
            let flags: CVPixelBufferLockFlags = thread.isMultiple(of: 2) ? .readOnly : []
            for _ in 0..<rounds {
                CVPixelBufferLockBaseAddress(buffer, flags)
                problems.check(CVPixelBufferUnlockBaseAddress(buffer, flags) == kCVReturnSuccess, "unlock \(flags)")
            }
        }
        XCTAssertEqual(problems.all, [])
        XCTAssertEqual(buffer.lockCount, 1, "the test's own read-only lock")
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, []), kCVReturnInvalidArgument, "mismatched flags")
        XCTAssertEqual(buffer.lockCount, 1)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, .readOnly), kCVReturnSuccess)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, .readOnly), kCVReturnError)
    }

    func test_unbalancedUnlocksRacingLocks_neverDriveTheCountBelowZero() throws {
        let buffer = try makePixelBuffer(16, 16, kCVPixelFormatType_32BGRA)
        let succeeded = Counter()
        let rounds = rounds
        // Two threads lock, two unlock without having locked: every successful unlock consumes one lock.
        runOnThreads(threads) { thread in
            for _ in 0..<rounds {
                if thread < 2 {
                    CVPixelBufferLockBaseAddress(buffer, .readOnly)
                } else if CVPixelBufferUnlockBaseAddress(buffer, .readOnly) == kCVReturnSuccess {
                    succeeded.increment()
                }
            }
        }
        XCTAssertEqual(buffer.lockCount, 2 * rounds - succeeded.count)
        for _ in 0..<buffer.lockCount {
            XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, .readOnly), kCVReturnSuccess)
        }
        XCTAssertEqual(buffer.lockCount, 0)
        XCTAssertEqual(CVPixelBufferUnlockBaseAddress(buffer, .readOnly), kCVReturnError)
    }

    func test_manyBuffers_lockedFromFourThreads_keepTheirOwnCounts() throws {
        // Buffers share lock stripes: one buffer's count must not leak into another's.
        let buffers = try (0..<32).map { _ in try makePixelBuffer(8, 8, kCVPixelFormatType_OneComponent8) }
        let problems = ProblemLog()
        let rounds = rounds / 4
        runOnThreads(threads) { thread in
            for _ in 0..<rounds {
                for (index, buffer) in buffers.enumerated() where index % 4 == thread {
                    CVPixelBufferLockBaseAddress(buffer, [])
                }
                for (index, buffer) in buffers.enumerated() where index % 4 == thread {
                    problems.check(buffer.lockCount == 1, "buffer \(index) locked once, by thread \(thread)")
                    CVPixelBufferUnlockBaseAddress(buffer, [])
                }
            }
        }
        XCTAssertEqual(problems.all, [])
        XCTAssertEqual(buffers.map(\.lockCount), Array(repeating: 0, count: buffers.count))
    }
}
