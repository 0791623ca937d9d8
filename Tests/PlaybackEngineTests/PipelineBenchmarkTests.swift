import CoreMedia
import PlaybackEngine
import TestSupport
import XCTest

/// Throughput of the pipeline on the 1080p fixture, against `ffmpeg -i F -f null -`. Skipped unless
/// `OAVF_BENCH=1`, as it takes seconds and measures the machine as much as the code; run it in release:
/// `OAVF_BENCH=1 swift test -c release --filter PipelineBenchmark`.
final class PipelineBenchmarkTests: XCTestCase {
    func test_decode1080p_wallTime() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["OAVF_BENCH"] == "1", "set OAVF_BENCH=1")
        let url = try Fixtures.url(.longGOP1080p)

        let started = Date()
        let harness = try PipelineHarness(.longGOP1080p)
        harness.start()
        var videoFrames = 0
        var audioFrames = 0
        let outcome = harness.pump(
            timeout: 300, video: { _ in videoFrames += 1 }, audio: { audioFrames += $0.frameCount })
        harness.stop()
        let pipeline = Date().timeIntervalSince(started)
        XCTAssertEqual(outcome, .finished)
        XCTAssertEqual(videoFrames, 900)

        let reference = Date()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ffmpeg", "-nostdin", "-loglevel", "error", "-i", url.path, "-f", "null", "-"]
        try process.run()
        process.waitUntilExit()
        let ffmpeg = Date().timeIntervalSince(reference)
        print(
            String(
                format: "PipelineBenchmark 1080p: pipeline %.2f s (%d frames, %d audio frames), ffmpeg -f null %.2f s",
                pipeline, videoFrames, audioFrames, ffmpeg))
    }
}
