import Foundation
import PlaybackEngine
import TestSupport
import XCTest

/// Checks the non-real-time sinks: ``CapturingAudioSink`` keeps exactly what is written, after the shared gain
/// stage, safely across threads; ``NullAudioSink`` counts and tracks the same gain.
final class AudioSinkTests: XCTestCase {
    /// `frames` frames of 0.5-amplitude sines at 48 kHz, 440 Hz left and 660 Hz right, from frame `start`.
    private func stereoSine(frames: Int, from start: Int = 0) -> [Float] {
        (0..<(frames * 2)).map { index in
            let frequency = index % 2 == 0 ? 440.0 : 660.0
            return Float(0.5 * sin(2 * Double.pi * frequency * Double(start + index / 2) / 48_000))
        }
    }

    /// Writes `samples` (interleaved stereo) to `sink` in pieces of `piece` frames.
    private func write(_ samples: [Float], to sink: any AudioSink, piece: Int = 256) {
        samples.withUnsafeBufferPointer { buffer in
            var frame = 0
            let frames = buffer.count / 2
            while frame < frames {
                let count = min(piece, frames - frame)
                sink.write(buffer.baseAddress! + 2 * frame, frameCount: count)
                frame += count
            }
        }
    }

    /// One channel of interleaved stereo.
    private func channel(_ index: Int, of samples: [Float]) -> [Float] {
        stride(from: index, to: samples.count, by: 2).map { samples[$0] }
    }

    func testCaptureKeepsExactlyWhatIsWritten() throws {
        let sink = CapturingAudioSink()
        XCTAssertFalse(sink.isRealTime)
        XCTAssertNil(sink.format)
        XCTAssertEqual(try sink.open(preferred: .standard), .standard)
        XCTAssertEqual(sink.format, .standard)
        XCTAssertEqual(sink.latency, 0)
        let input = stereoSine(frames: 4_800)
        for piece in [1, 7, 256, 4_800] {
            sink.reset()
            write(input, to: sink, piece: piece)
            XCTAssertEqual(sink.frameCount, 4_800)
            XCTAssertEqual(sink.samples, input, "pieces of \(piece) frames")
        }
        XCTAssertEqual(sink.droppedFrameCount, 0)
    }

    func testCaptureAtHalfVolumeIsSixDecibelsDown() throws {
        let sink = CapturingAudioSink()
        _ = try sink.open(preferred: .standard)
        sink.setVolume(0.5, muted: false)
        XCTAssertEqual(sink.volume, 0.5)
        let input = stereoSine(frames: 12_000)
        write(input, to: sink)
        XCTAssertEqual(sink.samples, input.map { $0 * 0.5 }, "a volume set before audio applies from the first frame")
        let full = ToneAnalyzer.rmsDBFS(of: channel(0, of: input))
        let half = ToneAnalyzer.rmsDBFS(of: channel(0, of: sink.samples))
        XCTAssertEqual(half - full, -6.02, accuracy: 0.01)
    }

    func testCaptureMutedIsExactSilenceAndVolumeSurvivesMute() throws {
        let sink = CapturingAudioSink()
        _ = try sink.open(preferred: .standard)
        sink.setVolume(0.8, muted: true)
        XCTAssertTrue(sink.isMuted)
        XCTAssertEqual(sink.volume, 0.8)
        write(stereoSine(frames: 2_400), to: sink)
        XCTAssertTrue(sink.samples.allSatisfy { $0 == 0 })
        XCTAssertEqual(sink.appliedGain, 0)
    }

    func testCaptureRampsAVolumeChangeWithoutClick() throws {
        let sink = CapturingAudioSink()
        _ = try sink.open(preferred: .standard)
        write(stereoSine(frames: 9_600), to: sink, piece: 1_024)
        sink.setVolume(0.5, muted: false)
        write(stereoSine(frames: 9_600, from: 9_600), to: sink, piece: 100)
        XCTAssertEqual(sink.appliedGain, 0.5)
        let captured = sink.samples
        let reference = stereoSine(frames: 19_200)
        for frame in 9_590..<10_100 {
            let gain: Float = frame < 9_600 ? 1 : frame >= 9_600 + 480 ? 0.5 : 1 - 0.5 * Float(frame - 9_599) / 480
            XCTAssertEqual(captured[2 * frame], reference[2 * frame] * gain, accuracy: 1e-5, "frame \(frame)")
        }
        for (index, tone) in [440.0, 660.0].enumerated() {
            let events = ToneAnalyzer.discontinuities(
                in: channel(index, of: captured), sampleRate: 48_000, frequency: tone)
            XCTAssertEqual(events, [], "channel \(index)")
        }
    }

    func testCaptureMutingMidStreamFadesToSilence() throws {
        let sink = CapturingAudioSink()
        _ = try sink.open(preferred: .standard)
        write(stereoSine(frames: 4_800), to: sink)
        sink.setVolume(1, muted: true)
        write(stereoSine(frames: 4_800, from: 4_800), to: sink)
        let left = channel(0, of: sink.samples)
        XCTAssertTrue(left[(4_800 + 480)...].allSatisfy { $0 == 0 })
        let events = ToneAnalyzer.discontinuities(in: left, sampleRate: 48_000, frequency: 440)
        XCTAssertEqual(events.map(\.kind), [.silence], "a fade, then silence, and no click")
    }

    func testCaptureCapDropsTheRestAndCountsIt() throws {
        let sink = CapturingAudioSink(maximumFrameCount: 1_000)
        _ = try sink.open(preferred: .standard)
        let input = stereoSine(frames: 1_500)
        write(input, to: sink, piece: 300)
        XCTAssertEqual(sink.frameCount, 1_000)
        XCTAssertEqual(sink.droppedFrameCount, 500)
        XCTAssertEqual(sink.samples, Array(input.prefix(2_000)))
        sink.reset()
        XCTAssertEqual(sink.frameCount, 0)
        XCTAssertEqual(sink.droppedFrameCount, 0)
    }

    func testCaptureLifecycle() throws {
        let sink = CapturingAudioSink()
        let input = stereoSine(frames: 100)
        write(input, to: sink)
        XCTAssertEqual(sink.frameCount, 0, "writes before open are dropped")
        _ = try sink.open(preferred: .standard)
        XCTAssertTrue(sink.isOpen)
        sink.pause()
        XCTAssertTrue(sink.isPaused)
        sink.resume()
        XCTAssertFalse(sink.isPaused)
        write(input, to: sink)
        sink.close()
        XCTAssertFalse(sink.isOpen)
        write(input, to: sink)
        XCTAssertEqual(sink.frameCount, 100, "writes after close are dropped; what was captured stays")
        _ = try sink.open(preferred: .standard)
        XCTAssertEqual(sink.frameCount, 100, "reopening in the same format keeps the capture")
        _ = try sink.open(preferred: AudioFormat(sampleRate: 44_100, channelCount: 1))
        XCTAssertEqual(sink.frameCount, 0, "another format starts a new capture")
        XCTAssertThrowsError(try sink.open(preferred: AudioFormat(sampleRate: 48_000, channelCount: 0)))
    }

    func testCaptureIsSafeUnderConcurrentWritesAndReads() throws {
        let sink = CapturingAudioSink()
        _ = try sink.open(preferred: .standard)
        let writers = 4
        let writes = 200
        let piece = 64
        DispatchQueue.concurrentPerform(iterations: writers + 2) { worker in
            if worker < writers {
                // Each writer's samples all hold its own number, so torn writes would show as mixed pieces.
                let block = [Float](repeating: Float(worker + 1) / 8, count: piece * 2)
                for _ in 0..<writes {
                    block.withUnsafeBufferPointer { sink.write($0.baseAddress!, frameCount: piece) }
                }
            } else {
                for _ in 0..<200 {
                    let frames = sink.frameCount
                    XCTAssertLessThanOrEqual(sink.samples.count, 2 * writers * writes * piece)
                    XCTAssertEqual(frames % piece, 0)
                    sink.setVolume(1, muted: false)
                }
            }
        }
        let samples = sink.samples
        XCTAssertEqual(sink.frameCount, writers * writes * piece)
        var pieces = [Float: Int]()
        for start in stride(from: 0, to: samples.count, by: 2 * piece) {
            let block = samples[start..<(start + 2 * piece)]
            XCTAssertTrue(block.allSatisfy { $0 == block.first }, "piece at \(start) was interleaved with another")
            pieces[block.first!, default: 0] += 1
        }
        XCTAssertEqual(pieces.count, writers)
        XCTAssertTrue(pieces.values.allSatisfy { $0 == writes })
    }

    func testNullSinkCountsAndTracksTheGain() throws {
        let sink = NullAudioSink()
        XCTAssertFalse(sink.isRealTime)
        XCTAssertEqual(try sink.open(preferred: .standard), .standard)
        XCTAssertNil(sink.appliedGain)
        write(stereoSine(frames: 1_000), to: sink)
        XCTAssertEqual(sink.appliedGain, 1)
        sink.setVolume(0.5, muted: false)
        write(stereoSine(frames: 240), to: sink, piece: 240)
        XCTAssertEqual(try XCTUnwrap(sink.appliedGain), 0.75, accuracy: 1e-5, "half way down a 10 ms ramp")
        write(stereoSine(frames: 240), to: sink, piece: 240)
        XCTAssertEqual(sink.appliedGain, 0.5)
        XCTAssertEqual(sink.frameCount, 1_480)
        sink.setVolume(0.5, muted: true)
        XCTAssertTrue(sink.isMuted)
        sink.pause()
        XCTAssertTrue(sink.isPaused)
        sink.close()
        write(stereoSine(frames: 10), to: sink)
        XCTAssertEqual(sink.frameCount, 1_480, "writes after close are dropped")
        XCTAssertEqual(sink.latency, 0)
    }
}
