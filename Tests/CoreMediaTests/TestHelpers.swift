import CoreMedia
import XCTest

/// Asserts a time's exact fields (not just rational equality): a valid numeric time with this value and timescale,
/// `.hasBeenRounded` set or not, and this epoch.
func assertNumeric(
    _ time: CMTime, _ value: Int64, _ timescale: Int32, rounded: Bool = false, epoch: Int64 = 0,
    file: StaticString = #filePath, line: UInt = #line
) {
    XCTAssertTrue(time.isNumeric, "not numeric: \(fields(time))", file: file, line: line)
    XCTAssertEqual(time.value, value, "value of \(fields(time))", file: file, line: line)
    XCTAssertEqual(time.timescale, timescale, "timescale of \(fields(time))", file: file, line: line)
    XCTAssertEqual(
        time.flags.contains(.hasBeenRounded), rounded, "rounded flag of \(fields(time))", file: file, line: line)
    XCTAssertEqual(time.epoch, epoch, "epoch of \(fields(time))", file: file, line: line)
}

/// The four fields, for failure messages (the module deliberately has no `CustomStringConvertible`).
func fields(_ time: CMTime) -> String {
    "CMTime(value: \(time.value), timescale: \(time.timescale), flags: \(time.flags.rawValue), epoch: \(time.epoch))"
}

/// Shorthand for a valid time with epoch 0.
func t(_ value: Int64, _ timescale: Int32) -> CMTime {
    CMTime(value: value, timescale: timescale)
}

/// Shorthand for a valid time in an epoch.
func t(_ value: Int64, _ timescale: Int32, epoch: Int64) -> CMTime {
    CMTimeMakeWithEpoch(value: value, timescale: timescale, epoch: epoch)
}

/// A numeric time that already carries `.hasBeenRounded`.
func roundedTime(_ value: Int64, _ timescale: Int32) -> CMTime {
    CMTime(value: value, timescale: timescale, flags: [.valid, .hasBeenRounded], epoch: 0)
}
