import CoreMedia
import Foundation
import XCTest

/// `NSValue(time:)`, `NSValue(timeRange:)`, `NSValue(timeMapping:)` and their getters.
final class NSValueCoreMediaTests: XCTestCase {
    func testLayoutsHaveNoPadding() {
        XCTAssertEqual(MemoryLayout<CMTime>.size, 24)
        XCTAssertEqual(MemoryLayout<CMTimeRange>.size, 48)
        XCTAssertEqual(MemoryLayout<CMTimeMapping>.size, 96)
    }

    func testTimeRoundTrip() {
        let times = [
            t(1, 2), roundedTime(-7, 3), t(5, 600, epoch: 4), CMTime.invalid, .indefinite, .positiveInfinity,
            .negativeInfinity, t(.min, .max), CMTime(value: 9, timescale: 8, flags: [], epoch: 7),
        ]
        for time in times {
            XCTAssertEqual(fields(NSValue(time: time).timeValue), fields(time))
        }
    }

    func testTimeRangeRoundTrip() {
        let timeRange = CMTimeRange(start: t(1, 2, epoch: 3), duration: roundedTime(10, 3))
        let back = NSValue(timeRange: timeRange).timeRangeValue
        XCTAssertEqual(fields(back.start), fields(timeRange.start))
        XCTAssertEqual(fields(back.duration), fields(timeRange.duration))
        XCTAssertFalse(NSValue(timeRange: .invalid).timeRangeValue.isValid)
    }

    func testTimeMappingRoundTrip() {
        let mapping = CMTimeMapping(
            source: CMTimeRange(start: t(1, 1), duration: t(2, 1)),
            target: CMTimeRange(start: t(3, 1), duration: t(4, 1)))
        let back = NSValue(timeMapping: mapping).timeMappingValue
        XCTAssertEqual(fields(back.source.start), fields(mapping.source.start))
        XCTAssertEqual(fields(back.source.duration), fields(mapping.source.duration))
        XCTAssertEqual(fields(back.target.start), fields(mapping.target.start))
        XCTAssertEqual(fields(back.target.duration), fields(mapping.target.duration))
    }

    func testEqualityAndHashFollowTheBytes() {
        let a = NSValue(time: t(1, 2))
        let b = NSValue(time: t(1, 2))
        XCTAssertTrue(a.isEqual(b))
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.hash, b.hash)
        XCTAssertNotEqual(a, NSValue(time: t(1, 3)))
        XCTAssertNotEqual(a, NSValue(time: t(500, 1000)), "byte-wise, like NSValue on Apple's systems")
        XCTAssertNotEqual(NSValue(timeRange: CMTimeRange(start: .zero, duration: t(1, 1))), a)
    }

    func testArraysOfRanges() {
        // As AVPlayerItem.loadedTimeRanges hands them out.
        let ranges = [
            CMTimeRange(start: .zero, duration: t(5, 1)), CMTimeRange(start: t(10, 1), duration: t(2_500, 1000)),
        ]
        let values: [NSValue] = ranges.map { NSValue(timeRange: $0) }
        XCTAssertEqual(values.map(\.timeRangeValue), ranges)
        let buffered = values.map(\.timeRangeValue).reduce(CMTime.zero) { $0 + $1.duration }
        XCTAssertEqual(buffered, t(15, 2))
        let boxed: [Any] = values
        XCTAssertEqual((boxed.first as? NSValue)?.timeRangeValue, ranges.first)
        XCTAssertTrue(values.contains(NSValue(timeRange: ranges[1])))
    }

    func testGettersRefuseOtherContents() {
        XCTAssertFalse(NSValue(timeRange: CMTimeRange(start: .zero, duration: t(1, 1))).timeValue.isValid)
        XCTAssertFalse(NSValue(time: t(1, 1)).timeRangeValue.isValid)
        XCTAssertFalse(NSValue(time: t(1, 1)).timeMappingValue.source.isValid)
        var number: Int64 = 42
        XCTAssertFalse(NSValue(bytes: &number, objCType: "q").timeValue.isValid)
    }

    func testCopiesKeepTheirContents() throws {
        let value = NSValue(time: t(7, 9))
        let copy = try XCTUnwrap(value.copy() as? NSValue)
        assertNumeric(copy.timeValue, 7, 9)
    }
}
