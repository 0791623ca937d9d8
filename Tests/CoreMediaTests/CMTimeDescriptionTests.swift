import CoreMedia
import Foundation
import XCTest

/// Descriptions and dictionary representations of times, ranges and mappings.
final class CMTimeDescriptionTests: XCTestCase {
    func testTimeDescriptions() {
        XCTAssertEqual(CMTimeCopyDescription(allocator: nil, time: t(3, 1)), "{3/1 = 3.000}")
        XCTAssertEqual(CMTimeCopyDescription(allocator: nil, time: t(-1, 4)), "{-1/4 = -0.250}")
        XCTAssertEqual(CMTimeCopyDescription(allocator: nil, time: roundedTime(1, 3)), "{1/3 = 0.333, rounded}")
        XCTAssertEqual(CMTimeCopyDescription(allocator: nil, time: t(1, 2, epoch: 2)), "{1/2 = 0.500, epoch 2}")
        XCTAssertEqual(CMTimeCopyDescription(allocator: nil, time: .invalid), "{INVALID}")
        XCTAssertEqual(CMTimeCopyDescription(allocator: nil, time: .indefinite), "{INDEFINITE}")
        XCTAssertEqual(CMTimeCopyDescription(allocator: nil, time: .positiveInfinity), "{+INFINITY}")
        XCTAssertEqual(CMTimeCopyDescription(allocator: nil, time: .negativeInfinity), "{-INFINITY}")
        CMTimeShow(t(1, 2))
    }

    func testRangeAndMappingDescriptions() {
        let timeRange = CMTimeRange(start: .zero, duration: t(10, 1))
        XCTAssertEqual(CMTimeRangeCopyDescription(allocator: nil, range: timeRange), "{{0/1 = 0.000}, {10/1 = 10.000}}")
        let mapping = CMTimeMapping(source: timeRange, target: .invalid)
        XCTAssertEqual(
            CMTimeMappingCopyDescription(allocator: nil, mapping: mapping),
            "{source = {{0/1 = 0.000}, {10/1 = 10.000}}, target = {{INVALID}, {INVALID}}}")
        CMTimeRangeShow(timeRange)
        CMTimeMappingShow(mapping)
    }

    func testTimeDictionaryRoundTrip() throws {
        let times = [
            t(1, 2), roundedTime(-7, 3), t(5, 600, epoch: 4), CMTime.invalid, .indefinite, .positiveInfinity,
            .negativeInfinity, t(.max, .max), t(.min, 1),
        ]
        for time in times {
            let dictionary = try XCTUnwrap(CMTimeCopyAsDictionary(time, allocator: nil))
            let back = CMTimeMakeFromDictionary(dictionary)
            XCTAssertEqual(fields(back), fields(time))
        }
    }

    func testTimeDictionaryKeys() throws {
        XCTAssertEqual(kCMTimeValueKey, "value")
        XCTAssertEqual(kCMTimeScaleKey, "timescale")
        XCTAssertEqual(kCMTimeEpochKey, "epoch")
        XCTAssertEqual(kCMTimeFlagsKey, "flags")
        let dictionary = try XCTUnwrap(CMTimeCopyAsDictionary(t(5, 600, epoch: 2), allocator: nil) as? [String: Any])
        XCTAssertEqual((dictionary[kCMTimeValueKey] as? NSNumber)?.int64Value, 5)
        XCTAssertEqual((dictionary[kCMTimeScaleKey] as? NSNumber)?.int32Value, 600)
        XCTAssertEqual((dictionary[kCMTimeEpochKey] as? NSNumber)?.int64Value, 2)
        XCTAssertEqual((dictionary[kCMTimeFlagsKey] as? NSNumber)?.uint32Value, 1)
    }

    func testMalformedTimeDictionariesGiveInvalid() {
        XCTAssertFalse(CMTimeMakeFromDictionary(nil).isValid)
        XCTAssertFalse(CMTimeMakeFromDictionary(NSDictionary()).isValid)
        let missingEpoch: NSDictionary = [
            "value": NSNumber(value: 1), "timescale": NSNumber(value: 2), "flags": NSNumber(value: 1),
        ]
        XCTAssertFalse(CMTimeMakeFromDictionary(missingEpoch).isValid)
        let hugeTimescale: NSDictionary = [
            "value": NSNumber(value: 1), "timescale": NSNumber(value: Int64(1) << 40), "flags": NSNumber(value: 1),
            "epoch": NSNumber(value: 0),
        ]
        XCTAssertFalse(CMTimeMakeFromDictionary(hugeTimescale).isValid)
        let strings: NSDictionary = ["value": "1", "timescale": "2", "flags": "1", "epoch": "0"]
        XCTAssertFalse(CMTimeMakeFromDictionary(strings).isValid)
    }

    func testRangeAndMappingDictionaryRoundTrip() throws {
        XCTAssertEqual(kCMTimeRangeStartKey, "start")
        XCTAssertEqual(kCMTimeRangeDurationKey, "duration")
        XCTAssertEqual(kCMTimeMappingSourceKey, "source")
        XCTAssertEqual(kCMTimeMappingTargetKey, "target")
        let timeRange = CMTimeRange(start: t(1, 2, epoch: 1), duration: roundedTime(1, 3))
        let rangeBack = CMTimeRangeMakeFromDictionary(
            try XCTUnwrap(CMTimeRangeCopyAsDictionary(timeRange, allocator: nil)))
        XCTAssertEqual(fields(rangeBack.start), fields(timeRange.start))
        XCTAssertEqual(fields(rangeBack.duration), fields(timeRange.duration))
        XCTAssertFalse(CMTimeRangeMakeFromDictionary(NSDictionary()).isValid)

        let mapping = CMTimeMappingMakeEmpty(target: CMTimeRange(start: t(4, 1), duration: t(2, 1)))
        let mappingBack = CMTimeMappingMakeFromDictionary(
            try XCTUnwrap(CMTimeMappingCopyAsDictionary(mapping, allocator: nil)))
        XCTAssertEqual(fields(mappingBack.source.start), fields(mapping.source.start))
        XCTAssertEqual(fields(mappingBack.source.duration), fields(mapping.source.duration))
        XCTAssertEqual(fields(mappingBack.target.start), fields(mapping.target.start))
        XCTAssertEqual(fields(mappingBack.target.duration), fields(mapping.target.duration))
        XCTAssertFalse(CMTimeMappingMakeFromDictionary(NSDictionary()).source.isValid)
    }
}
