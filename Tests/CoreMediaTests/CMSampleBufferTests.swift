import CoreMedia
import CoreVideo
import Foundation
import XCTest

/// CMSampleBuffer and CMBlockBuffer: the C-style accessors and the Swift members agree, and misuse answers with
/// Apple's status codes.
final class CMSampleBufferTests: XCTestCase {
    private func pcmBuffer() -> CMSampleBuffer {
        let block = CMBlockBuffer(length: 16) { bytes in
            for i in 0..<16 { bytes[i] = UInt8(i) }
        }
        return CMSampleBuffer(
            formatDescription: nil, dataBuffer: block, imageBuffer: nil, numSamples: 4,
            timings: [
                CMSampleTimingInfo(
                    duration: CMTime(value: 1, timescale: 48_000),
                    presentationTimeStamp: CMTime(value: 480, timescale: 48_000), decodeTimeStamp: .invalid)
            ],
            sampleSizes: [4])
    }

    func test_blockBuffer_copyAndPointer() throws {
        let block = try XCTUnwrap(pcmBuffer().dataBuffer)
        XCTAssertEqual(CMBlockBufferGetDataLength(block), 16)
        XCTAssertFalse(block.isEmpty)
        var out = [UInt8](repeating: 0, count: 4)
        XCTAssertEqual(CMBlockBufferCopyDataBytes(block, atOffset: 6, dataLength: 4, destination: &out), 0)
        XCTAssertEqual(out, [6, 7, 8, 9])
        XCTAssertEqual(
            CMBlockBufferCopyDataBytes(block, atOffset: 14, dataLength: 4, destination: &out),
            kCMBlockBufferBadLengthParameterErr)
        XCTAssertEqual(
            CMBlockBufferCopyDataBytes(block, atOffset: 17, dataLength: 1, destination: &out),
            kCMBlockBufferBadOffsetParameterErr)
        var length = 0
        var total = 0
        var pointer: UnsafeMutablePointer<CChar>?
        XCTAssertEqual(
            CMBlockBufferGetDataPointer(
                block, atOffset: 10, lengthAtOffsetOut: &length, totalLengthOut: &total, dataPointerOut: &pointer), 0)
        XCTAssertEqual(length, 6)
        XCTAssertEqual(total, 16)
        XCTAssertEqual(pointer.map { UInt8(bitPattern: $0[0]) }, 10)
        XCTAssertEqual(try block.dataBytes(), Data(0..<16))
        var small = [UInt8](repeating: 0, count: 8)
        XCTAssertThrowsError(try small.withUnsafeMutableBytes { try block.copyDataBytes(to: $0) })
    }

    func test_sampleBuffer_timingOfLinearPCM() throws {
        let buffer = pcmBuffer()
        XCTAssertEqual(CMSampleBufferGetNumSamples(buffer), 4)
        XCTAssertEqual(CMSampleBufferGetPresentationTimeStamp(buffer), CMTime(value: 480, timescale: 48_000))
        XCTAssertEqual(CMSampleBufferGetOutputPresentationTimeStamp(buffer), buffer.presentationTimeStamp)
        XCTAssertEqual(CMSampleBufferGetDuration(buffer), CMTime(value: 4, timescale: 48_000))
        XCTAssertFalse(CMSampleBufferGetDecodeTimeStamp(buffer).isValid)
        XCTAssertEqual(CMSampleBufferGetTotalSampleSize(buffer), 16)
        XCTAssertNil(CMSampleBufferGetImageBuffer(buffer))
        XCTAssertTrue(CMSampleBufferGetDataBuffer(buffer) === buffer.dataBuffer)

        var needed = 0
        XCTAssertEqual(
            CMSampleBufferGetSampleTimingInfoArray(buffer, entryCount: 0, arrayToFill: nil, entriesNeededOut: &needed),
            0)
        XCTAssertEqual(needed, 1)
        var timings = [CMSampleTimingInfo](repeating: .invalid, count: 1)
        XCTAssertEqual(
            CMSampleBufferGetSampleTimingInfoArray(
                buffer, entryCount: 1, arrayToFill: &timings, entriesNeededOut: &needed), 0)
        XCTAssertEqual(timings, try buffer.sampleTimingInfos())
        var third = CMSampleTimingInfo()
        XCTAssertEqual(CMSampleBufferGetSampleTimingInfo(buffer, at: 2, timingInfoOut: &third), 0)
        XCTAssertEqual(third.presentationTimeStamp, CMTime(value: 482, timescale: 48_000))
        XCTAssertEqual(
            CMSampleBufferGetSampleTimingInfo(buffer, at: 4, timingInfoOut: &third),
            kCMSampleBufferError_SampleIndexOutOfRange)
    }

    func test_sampleBuffer_tooSmallArrayAndNoTiming() {
        let untimed = CMSampleBuffer(
            formatDescription: nil, dataBuffer: nil, imageBuffer: nil, numSamples: 0, timings: [], sampleSizes: [])
        var needed = -1
        XCTAssertEqual(
            CMSampleBufferGetSampleTimingInfoArray(untimed, entryCount: 0, arrayToFill: nil, entriesNeededOut: &needed),
            kCMSampleBufferError_BufferHasNoSampleTimingInfo)
        XCTAssertFalse(untimed.presentationTimeStamp.isValid)
        XCTAssertFalse(untimed.duration.isValid)

        let two = CMSampleBuffer(
            formatDescription: nil, dataBuffer: nil, imageBuffer: nil, numSamples: 2,
            timings: [
                CMSampleTimingInfo(
                    duration: CMTime(value: 1, timescale: 30), presentationTimeStamp: CMTime(value: 2, timescale: 30),
                    decodeTimeStamp: CMTime(value: 0, timescale: 30)),
                CMSampleTimingInfo(
                    duration: CMTime(value: 1, timescale: 30), presentationTimeStamp: CMTime(value: 1, timescale: 30),
                    decodeTimeStamp: CMTime(value: 1, timescale: 30)),
            ],
            sampleSizes: [10, 20])
        var one = [CMSampleTimingInfo](repeating: .invalid, count: 1)
        XCTAssertEqual(
            CMSampleBufferGetSampleTimingInfoArray(two, entryCount: 1, arrayToFill: &one, entriesNeededOut: &needed),
            kCMSampleBufferError_ArrayTooSmall)
        XCTAssertEqual(needed, 2)
        XCTAssertEqual(two.presentationTimeStamp, CMTime(value: 1, timescale: 30), "the earliest")
        XCTAssertEqual(two.decodeTimeStamp, CMTime(value: 0, timescale: 30))
        XCTAssertEqual(two.duration, CMTime(value: 2, timescale: 30))
        XCTAssertEqual(two.totalSampleSize, 30)
    }

    func test_invalidate_once() {
        let buffer = pcmBuffer()
        XCTAssertTrue(CMSampleBufferIsValid(buffer))
        XCTAssertEqual(CMSampleBufferInvalidate(buffer), 0)
        XCTAssertFalse(buffer.isValid)
        XCTAssertEqual(CMSampleBufferInvalidate(buffer), kCMSampleBufferError_Invalidated)
    }

    func test_imageBuffer() throws {
        var pixelBuffer: CVPixelBuffer?
        XCTAssertEqual(CVPixelBufferCreate(nil, 8, 4, kCVPixelFormatType_32BGRA, nil, &pixelBuffer), kCVReturnSuccess)
        let image = try XCTUnwrap(pixelBuffer)
        let buffer = CMSampleBuffer(
            formatDescription: nil, dataBuffer: nil, imageBuffer: image, numSamples: 1,
            timings: [
                CMSampleTimingInfo(
                    duration: CMTime(value: 1, timescale: 30), presentationTimeStamp: .zero, decodeTimeStamp: .invalid)
            ],
            sampleSizes: [])
        XCTAssertTrue(CMSampleBufferGetImageBuffer(buffer) === image)
        XCTAssertNil(buffer.dataBuffer)
        XCTAssertEqual(buffer.totalSampleSize, 0)
    }
}
