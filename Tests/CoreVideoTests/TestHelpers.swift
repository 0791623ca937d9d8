import CoreVideo
import Synchronization
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

/// A thread-safe counter for release callbacks.
final class Counter: Sendable {
    private let value = Mutex(0)

    func increment() {
        value.withLock { $0 += 1 }
    }

    var count: Int {
        value.withLock { $0 }
    }
}

/// A clock the test moves by hand (DESIGN.md: time is injected).
final class FakeClock: Sendable {
    private let now = Mutex(0.0)

    func advance(by seconds: Double) {
        now.withLock { $0 += seconds }
    }

    var seconds: Double {
        now.withLock { $0 }
    }
}
