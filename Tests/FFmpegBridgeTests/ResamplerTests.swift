import FFmpegBridge
import TestSupport
import XCTest

final class ResamplerTests: XCTestCase {
    /// After `flush()` (what a seek does), the resampler converts exactly as a new one would: no sample of the
    /// old position leaks into the new one, and the filter phase starts where a fresh context starts.
    func test_flush_convertsAsANewResamplerWould() throws {
        let frames = try decodedAudio(count: 12)
        XCTAssertEqual(frames.first?.sampleRate, 48_000)

        let reused = Resampler(outputSampleRate: 44_100, outputChannelCount: 2)
        let before = try convert(frames[0..<6], with: reused)
        reused.flush()
        XCTAssertEqual(reused.delay, 0, "flush drops the delay line")
        let afterFlush = try convert(frames[6...], with: reused)
        let fresh = try convert(frames[6...], with: Resampler(outputSampleRate: 44_100, outputChannelCount: 2))

        XCTAssertGreaterThan(before.count, 6 * 1024 * 2 * 44_100 / 48_000 / 2, "the first frames came out")
        XCTAssertEqual(afterFlush.count, fresh.count)
        XCTAssertEqual(afterFlush, fresh, "sample for sample what a new resampler gives")
        XCTAssertGreaterThan(fresh.map(abs).max() ?? 0, 0.05, "the fixture's tone, not silence")
    }

    private func decodedAudio(count: Int) throws -> [Frame] {
        let format = try FormatContext(url: try Fixtures.url(.h264AAC).path)
        let stream = try XCTUnwrap(format.info.streams.firstIndex { $0.kind == .audio })
        let decoder = try CodecContext(format: format, stream: stream)
        let packet = Packet()
        var frames: [Frame] = []
        while frames.count < count, case .packet = try format.read(into: packet) {
            guard packet.streamIndex == stream else { continue }
            _ = try decoder.send(packet)
            var frame = Frame()
            while case .frame = try decoder.receive(into: frame) {
                frames.append(frame)
                frame = Frame()
            }
        }
        return frames
    }

    private func convert(_ frames: ArraySlice<Frame>, with resampler: Resampler) throws -> [Float] {
        var out: [Float] = []
        for frame in frames {
            let capacity = try resampler.prepare(for: frame)
            var buffer = [Float](repeating: 0, count: capacity * resampler.outputChannelCount)
            let written = try buffer.withUnsafeMutableBufferPointer {
                try resampler.convert(frame, into: $0.baseAddress!, capacity: capacity)
            }
            out += buffer.prefix(written * resampler.outputChannelCount)
        }
        return out
    }
}
