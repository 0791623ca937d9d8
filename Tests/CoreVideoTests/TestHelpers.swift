import CoreVideo
import Foundation
import OAVFLocking
import XCTest

/// The `OSType` spelled by a four-character string, e.g. `fourCC("BGRA")`.
func fourCC(_ code: String) -> OSType {
    precondition(code.utf8.count == 4, "fourCC needs four ASCII characters")
    return code.utf8.reduce(0) { $0 << 8 | OSType($1) }
}

/// Creates a pixel buffer or fails the test.
func makePixelBuffer(
    _ width: Int,
    _ height: Int,
    _ format: OSType,
    attributes: [String: Any]? = nil,
    file: StaticString = #filePath,
    line: UInt = #line
) throws -> CVPixelBuffer {
    var pixelBuffer: CVPixelBuffer?
    let status = CVPixelBufferCreate(nil, width, height, format, attributes.map { $0 as CFDictionary }, &pixelBuffer)
    XCTAssertEqual(status, kCVReturnSuccess, "CVPixelBufferCreate \(width)x\(height)", file: file, line: line)
    return try XCTUnwrap(pixelBuffer, file: file, line: line)
}

// The helpers below guard their state with the project's one lock, `ConditionLock` (a pthread mutex), rather than
// `Synchronization.Mutex`, so that tests stay clean under ThreadSanitizer (which reports false races inside
// `Mutex.withLock` on this toolchain).

/// A thread-safe counter for release callbacks.
final class Counter: @unchecked Sendable {
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var value = 0

    func increment() {
        lock.withLock { value += 1 }
    }

    var count: Int {
        lock.withLock { value }
    }
}

/// A clock the test moves by hand (DESIGN.md: time is injected).
final class FakeClock: @unchecked Sendable {
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var now = 0.0

    func advance(by seconds: Double) {
        lock.withLock { now += seconds }
    }

    var seconds: Double {
        lock.withLock { now }
    }
}

/// What went wrong on worker threads, for the test to assert on its own thread (XCTest's assertions are not
/// meant to be called from several threads at once).
final class ProblemLog: @unchecked Sendable {
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var messages: [String] = []

    /// Records `message` unless `condition` holds.
    func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        let text = message()
        lock.withLock { messages.append(text) }
    }

    /// Everything recorded, oldest first (at most the first 20).
    var all: [String] {
        lock.withLock { Array(messages.prefix(20)) }
    }
}

/// Runs `body(index)` for `index` in `0..<threads`, each on its own new thread, all released at once, and returns
/// when every one has finished. Dedicated threads rather than `DispatchQueue.concurrentPerform`, which may run
/// its iterations on as few threads as there are cores (two on the CI machines).
func runOnThreads(_ threads: Int, _ body: @escaping @Sendable (_ index: Int) -> Void) {
    let gate = ThreadGate(threads)
    for index in 0..<threads {
        let thread = Thread {
            gate.arriveAndWaitForAll()
            body(index)
            gate.leave()
        }
        thread.name = "CoreVideoTests.worker\(index)"
        thread.start()
    }
    gate.waitUntilAllLeft()
}

/// Lets worker threads start together and the test wait for them (a `ConditionLock`, which ThreadSanitizer follows).
private final class ThreadGate: @unchecked Sendable {
    private let condition = ConditionLock()
    private let threads: Int
    /// Guarded by `condition`.
    private var arrived = 0
    /// Guarded by `condition`.
    private var left = 0

    init(_ threads: Int) {
        self.threads = threads
    }

    func arriveAndWaitForAll() {
        condition.withLock {
            arrived += 1
            condition.broadcast()
            while arrived < threads { condition.wait() }
        }
    }

    func leave() {
        condition.withLock {
            left += 1
            condition.broadcast()
        }
    }

    func waitUntilAllLeft() {
        condition.withLock {
            while left < threads { condition.wait() }
        }
    }
}
