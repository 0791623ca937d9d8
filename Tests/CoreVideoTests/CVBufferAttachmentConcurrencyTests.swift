import CoreVideo
import TestSupport
import XCTest

/// An attachment value that, when released, uses the attachment API itself (as an app object's `deinit` might).
/// Released under the buffer's lock, it would deadlock.
private final class ReentrantValue: @unchecked Sendable {
    let buffers: [CVBuffer]
    let released: Counter

    init(_ buffers: [CVBuffer], released: Counter) {
        self.buffers = buffers
        self.released = released
    }

    deinit {
        for buffer in buffers {
            _ = CVBufferCopyAttachment(buffer, "Reentrant", nil)
            CVBufferSetAttachment(buffer, "SetFromDeinit", 1, .shouldNotPropagate)
        }
        released.increment()
    }
}

/// Attachments set, read, removed and propagated from several threads at once, as when the engine stamps a frame's
/// colour description while the main thread inspects it. Run under `swift test --sanitize=thread`.
final class CVBufferAttachmentConcurrencyTests: XCTestCase {
    private let threads = 4
    private let rounds = 1_000

    func test_setCopyRemove_fromFourThreads_keepEveryThreadsLastValue() throws {
        let buffer = try makePixelBuffer(8, 8, kCVPixelFormatType_32BGRA)
        let problems = ProblemLog()
        let rounds = rounds
        runOnThreads(threads) { thread in
            for round in 0..<rounds {
                let own = "Thread\(thread).Key\(round % 8)"
                let mode: CVAttachmentMode = round.isMultiple(of: 3) ? .shouldNotPropagate : .shouldPropagate
                CVBufferSetAttachment(buffer, own, round, mode)
                var readMode = CVAttachmentMode.shouldPropagate
                let value = CVBufferCopyAttachment(buffer, own, &readMode) as? Int
                problems.check(value == round && readMode == mode, "\(own): \(String(describing: value)) \(readMode)")
                problems.check(CVBufferHasAttachment(buffer, own), "\(own) present")

                CVBufferSetAttachment(buffer, "Shared", "\(thread):\(round)", mode)
                let shared = CVBufferCopyAttachment(buffer, "Shared", nil) as? String
                problems.check(shared?.contains(":") == true, "Shared: \(String(describing: shared))")

                // A snapshot of each mode: no key may ever be seen in both.
                let propagated = (CVBufferCopyAttachments(buffer, .shouldPropagate) as? [String: Any]) ?? [:]
                let nonPropagated = (CVBufferCopyAttachments(buffer, .shouldNotPropagate) as? [String: Any]) ?? [:]
                problems.check(propagated[own] == nil || nonPropagated[own] == nil, "\(own) in both modes")

                if round % 8 == 7 {
                    CVBufferRemoveAttachment(buffer, "Thread\(thread).Key3")
                    problems.check(!CVBufferHasAttachment(buffer, "Thread\(thread).Key3"), "removed key still there")
                }
            }
        }
        XCTAssertEqual(problems.all, [])
        for thread in 0..<threads {
            for key in 0..<8 {
                let name = "Thread\(thread).Key\(key)"
                // The last round that wrote this key; key 3 was removed after its last write (round 999).
                let lastWrite = (0..<rounds).last { $0 % 8 == key }!
                var mode = CVAttachmentMode.shouldPropagate
                let value = CVBufferCopyAttachment(buffer, name, &mode) as? Int
                if key == 3 {
                    XCTAssertNil(value, name)
                } else {
                    XCTAssertEqual(value, lastWrite, name)
                    XCTAssertEqual(mode, lastWrite.isMultiple(of: 3) ? .shouldNotPropagate : .shouldPropagate, name)
                }
            }
        }
        let shared = try XCTUnwrap(CVBufferCopyAttachment(buffer, "Shared", nil) as? String)
        XCTAssertTrue(shared.hasSuffix(":\(rounds - 1)"), "one thread's last write wins: \(shared)")
    }

    func test_bulkSetAndRemoveAll_raceReaders_whoSeeWholeUpdatesOnly() throws {
        let buffer = try makePixelBuffer(8, 8, kCVPixelFormatType_32BGRA)
        let problems = ProblemLog()
        let rounds = rounds
        runOnThreads(threads) { thread in
            for round in 0..<rounds {
                if thread < 2 {
                    // Writers: a whole generation of three keys at once, or nothing at all.
                    let generation = thread * rounds + round
                    let all: [String: Any] = ["A": generation, "B": generation, "C": generation]
                    CVBufferSetAttachments(buffer, all as CFDictionary, .shouldPropagate)
                    if round.isMultiple(of: 5) { CVBufferRemoveAllAttachments(buffer) }
                } else {
                    let seen = (CVBufferCopyAttachments(buffer, .shouldPropagate) as? [String: Any]) ?? [:]
                    let values = Set(["A", "B", "C"].map { seen[$0] as? Int })
                    problems.check(values.count == 1, "a torn update: \(seen)")
                }
            }
        }
        XCTAssertEqual(problems.all, [])
    }

    func test_propagation_whileSourceAndDestinationChange_endsWithTheSourcesValues() throws {
        let source = try makePixelBuffer(8, 8, kCVPixelFormatType_32BGRA)
        let destination = try makePixelBuffer(8, 8, kCVPixelFormatType_32BGRA)
        CVBufferSetAttachment(source, "Kept", "source", .shouldNotPropagate)
        let rounds = rounds
        runOnThreads(threads) { thread in
            for round in 0..<rounds {
                switch thread {
                case 0: CVBufferSetAttachment(source, "Colour", round, .shouldPropagate)
                case 1: CVBufferSetAttachment(destination, "Colour", -round, .shouldNotPropagate)
                case 2: CVBufferRemoveAttachment(destination, "Colour")
                default: CVBufferPropagateAttachments(source, destination)
                }
                // Every thread also propagates a buffer onto itself now and then (same lock stripe both ends).
                if round.isMultiple(of: 50) { CVBufferPropagateAttachments(source, source) }
            }
        }
        CVBufferPropagateAttachments(source, destination)
        var mode = CVAttachmentMode.shouldNotPropagate
        XCTAssertEqual(CVBufferCopyAttachment(destination, "Colour", &mode) as? Int, rounds - 1)
        XCTAssertEqual(mode, .shouldPropagate)
        XCTAssertNil(CVBufferCopyAttachment(destination, "Kept", nil), "non-propagated attachments stay behind")
        XCTAssertEqual(CVBufferCopyAttachment(source, "Kept", nil) as? String, "source")
    }

    func test_replacedAndRemovedValues_areReleasedOutsideTheLock() throws {
        let buffer = try makePixelBuffer(8, 8, kCVPixelFormatType_32BGRA)
        let other = try makePixelBuffer(8, 8, kCVPixelFormatType_32BGRA)
        let released = Counter()
        let done = DispatchSemaphore(value: 0)
        // On a worker thread: if a value were released under the lock its deinit would deadlock, and the
        // test fails on the timeout instead of hanging.
        Thread {
            func value() -> ReentrantValue { ReentrantValue([buffer, other], released: released) }
            CVBufferSetAttachment(buffer, "Reentrant", value(), .shouldPropagate)
            CVBufferSetAttachment(buffer, "Reentrant", value(), .shouldNotPropagate)  // replaces
            CVBufferRemoveAttachment(buffer, "Reentrant")  // removes
            CVBufferSetAttachment(buffer, "Reentrant", value(), .shouldPropagate)
            CVBufferRemoveAllAttachments(buffer)  // removes all
            CVBufferSetAttachment(other, "Reentrant", value(), .shouldPropagate)
            CVBufferSetAttachment(buffer, "Reentrant", value(), .shouldPropagate)
            CVBufferPropagateAttachments(buffer, other)  // replaces the other's value
            CVBufferSetAttachments(buffer, ["Reentrant": 0] as CFDictionary, .shouldPropagate)  // replaces
            CVBufferRemoveAllAttachments(other)  // removes the last one
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + Awaitable<Void>.hangGuard) == .success else {
            // Touching the buffers now would block this thread on the worker's lock too.
            return XCTFail("a value was released under the buffer's lock: its deinit deadlocked")
        }
        XCTAssertEqual(released.count, 5)
        XCTAssertEqual(CVBufferCopyAttachment(buffer, "SetFromDeinit", nil) as? Int, 1)
    }
}
