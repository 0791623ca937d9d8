import CoreMedia
import CoreVideo
import FFmpegBridge
import PlaybackEngine
import TestSupport
import XCTest

/// Whole-file decodes through Demuxer → PacketQueue → decoders → FrameQueue, checked against the fixtures'
/// drawn frame indices, timestamps and tones.
final class PipelineDecodeTests: XCTestCase {
    func test_h264AAC_decodesEveryFrameInOrder_withExactTimestamps() throws {
        let harness = try PipelineHarness(.h264AAC)
        harness.start()
        let (video, audio, outcome) = harness.decodeAll()
        harness.stop()
        XCTAssertEqual(outcome, .finished)

        let facts = try XCTUnwrap(Fixture.h264AAC.facts.video)
        let indices = video.map { frameIndex(of: $0.pixelBuffer) ?? -1 }
        XCTAssertEqual(indices, Array(0..<300))
        XCTAssertEqual(
            video.map(\.pixelBuffer.pixelFormatType), Array(repeating: kCVPixelFormatType_420YpCbCr8Planar, count: 300),
            "yuv420p is wrapped, not converted")
        let first = try XCTUnwrap(video.first).pts
        for (frame, index) in zip(video, indices) {
            XCTAssertEqual((frame.pts - first).seconds, facts.presentationTime(ofFrame: index), accuracy: 1e-9)
            XCTAssertEqual(frame.duration.seconds, 1.0 / 30, accuracy: 1e-9)
        }
        XCTAssertEqual(first.seconds, 0, accuracy: 1e-9)
        XCTAssertEqual(video.filter(\.isKeyframe).count, 5, "2 s GOPs")
        XCTAssertEqual(Set(video.map(\.serial)).count, 1)
        XCTAssertEqual(harness.video?.decoder.decodeErrorCount, 0)

        // Audio: 10 s of 48 kHz stereo, contiguous, 440 Hz left / 660 Hz right.
        let frames = audio.reduce(0) { $0 + $1.frameCount }
        XCTAssertEqual(Double(frames), 480_000, accuracy: 1024)
        XCTAssertTrue(audio.allSatisfy { $0.format == .standard })
        for (previous, next) in zip(audio, audio.dropFirst()) {
            XCTAssertEqual(next.pts, previous.pts + previous.duration, "audio timestamps are contiguous")
        }
        let channels = ToneAnalyzer.deinterleave(interleavedSamples(audio), channelCount: 2)
        let tones = try XCTUnwrap(Fixture.h264AAC.facts.audio.first).tones
        for (channel, tone) in zip(channels, tones) {
            let frequency = try XCTUnwrap(ToneAnalyzer.dominantFrequency(of: channel, sampleRate: 48_000))
            XCTAssertEqual(frequency, tone, accuracy: tone * 0.005)
            // The encoder's first and last milliseconds ramp; judge continuity in between.
            let middle = Array(channel[4_800..<(channel.count - 4_800)])
            XCTAssertEqual(ToneAnalyzer.discontinuities(in: middle, sampleRate: 48_000, frequency: tone), [])
        }
        XCTAssertEqual(harness.audio?.decoder.decodeErrorCount, 0)
        XCTAssertTrue(harness.events.current.contains { if case .endOfFile = $0 { true } else { false } })
    }

    func test_variableFrameRate_ptsFollowThePattern() throws {
        let harness = try PipelineHarness(.variableFrameRate, audio: false)
        harness.start()
        let (video, _, outcome) = harness.decodeAll()
        XCTAssertEqual(outcome, .finished)
        let facts = try XCTUnwrap(Fixture.variableFrameRate.facts.video)
        XCTAssertEqual(video.map { frameIndex(of: $0.pixelBuffer) ?? -1 }, Array(0..<facts.frameCount))
        let first = try XCTUnwrap(video.first).pts
        XCTAssertEqual(
            video.map { ($0.pts - first).seconds * 30 }.map { $0.rounded() },
            facts.presentationTimes.map { ($0 * 30).rounded() })
        for (frame, time) in zip(video, facts.presentationTimes) {
            XCTAssertEqual((frame.pts - first).seconds, time, accuracy: 1e-6)
        }
    }

    func test_otherCodecsAndSizes_decodeEveryFrame() throws {
        for fixture in [Fixture.odd321x241, .hevcMKV, .vp9OpusWebM] {
            let harness = try PipelineHarness(fixture)
            harness.start()
            let (video, audio, outcome) = harness.decodeAll()
            harness.stop()
            let facts = try XCTUnwrap(fixture.facts.video)
            XCTAssertEqual(outcome, .finished, "\(fixture)")
            XCTAssertEqual(
                video.map { frameIndex(of: $0.pixelBuffer) ?? -1 }, Array(0..<facts.frameCount), "\(fixture)")
            XCTAssertEqual(video.first.map { CVPixelBufferGetWidth($0.pixelBuffer) }, facts.width, "\(fixture)")
            XCTAssertEqual(video.first.map { CVPixelBufferGetHeight($0.pixelBuffer) }, facts.height, "\(fixture)")
            XCTAssertEqual(harness.video?.decoder.decodeErrorCount, 0, "\(fixture)")
            if let track = fixture.facts.audio.first {
                let seconds = Double(audio.reduce(0) { $0 + $1.frameCount }) / 48_000
                XCTAssertEqual(seconds, fixture.facts.duration ?? 0, accuracy: 0.05, "\(fixture)")
                let channels = ToneAnalyzer.deinterleave(interleavedSamples(audio), channelCount: 2)
                for (channel, tone) in zip(channels, track.tones) {
                    let frequency = ToneAnalyzer.dominantFrequency(of: channel, sampleRate: 48_000) ?? 0
                    XCTAssertEqual(frequency, tone, accuracy: tone * 0.005, "\(fixture)")
                }
            }
        }
    }

    func test_audioOnlyFormats_resampleTo44100_withContiguousTimestamps() throws {
        let output = AudioFormat(sampleRate: 44_100, channelCount: 2)
        for fixture in [Fixture.audioMP3, .audioFLAC, .audioWAV, .audioOnly] {
            let harness = try PipelineHarness(fixture, audioFormat: output)
            XCTAssertNil(harness.video)
            harness.start()
            let (_, audio, outcome) = harness.decodeAll()
            harness.stop()
            XCTAssertEqual(outcome, .finished, "\(fixture)")
            let frames = audio.reduce(0) { $0 + $1.frameCount }
            XCTAssertEqual(Double(frames) / 44_100, 3, accuracy: 0.06, "\(fixture)")
            for (previous, next) in zip(audio, audio.dropFirst()) {
                XCTAssertEqual(next.pts, previous.pts + previous.duration, "\(fixture)")
            }
            let channels = ToneAnalyzer.deinterleave(interleavedSamples(audio), channelCount: 2)
            for (channel, tone) in zip(channels, [440.0, 660.0]) {
                let frequency = ToneAnalyzer.dominantFrequency(of: channel, sampleRate: 44_100) ?? 0
                XCTAssertEqual(frequency, tone, accuracy: tone * 0.002, "\(fixture)")
                let middle = Array(channel[4_410..<(channel.count - 4_410)])
                XCTAssertEqual(
                    ToneAnalyzer.discontinuities(in: middle, sampleRate: 44_100, frequency: tone), [], "\(fixture)")
            }
        }
    }

    func test_mpegTS_keepsContainerTimestamps() throws {
        let harness = try PipelineHarness(.h264AACTS)
        let start = try XCTUnwrap(harness.format.info.startTimeMicroseconds)
        harness.start()
        let (video, audio, outcome) = harness.decodeAll()
        XCTAssertEqual(outcome, .finished)
        XCTAssertEqual(video.map { frameIndex(of: $0.pixelBuffer) ?? -1 }, Array(0..<90))
        XCTAssertEqual(try XCTUnwrap(video.first).pts.seconds, Double(start) / 1e6, accuracy: 0.1)
        XCTAssertGreaterThan(try XCTUnwrap(video.first).pts.seconds, 1.0, "stream time, not item time")
        XCTAssertEqual(try XCTUnwrap(audio.first).pts.seconds, Double(start) / 1e6, accuracy: 0.1)
    }

    func test_oddSize_isWrappedWithRoundedUpChromaPlanes() throws {
        let harness = try PipelineHarness(.odd321x241)
        harness.start()
        var buffer: CVPixelBuffer?
        harness.pump(video: { buffer = buffer ?? $0.pixelBuffer }, until: { buffer != nil })
        let pixels = try XCTUnwrap(buffer)
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(pixels), kCVPixelFormatType_420YpCbCr8Planar)
        XCTAssertEqual(CVPixelBufferGetWidthOfPlane(pixels, 1), 161)
        XCTAssertEqual(CVPixelBufferGetHeightOfPlane(pixels, 2), 121)
    }

    func test_requestedOutputFormats_areConvertedWithTheScaler() throws {
        for type in [
            kCVPixelFormatType_32BGRA, kCVPixelFormatType_420YpCbCr8BiPlanarVideoRange, kCVPixelFormatType_32RGBA,
        ] {
            let harness = try PipelineHarness(.videoOnly, audio: false, outputPixelFormatType: type)
            harness.start()
            let (video, _, outcome) = harness.decodeAll()
            XCTAssertEqual(outcome, .finished)
            XCTAssertEqual(video.map { frameIndex(of: $0.pixelBuffer) ?? -1 }, Array(0..<90), "\(type)")
            XCTAssertTrue(video.allSatisfy { CVPixelBufferGetPixelFormatType($0.pixelBuffer) == type })
            if type == kCVPixelFormatType_32BGRA {
                XCTAssertNil(
                    CVBufferCopyAttachment(video[0].pixelBuffer, kCVImageBufferYCbCrMatrixKey, nil), "RGB has no matrix"
                )
            }
        }
    }

    /// Formats that cannot be wrapped (4:4:4, planar 10-bit, RGB, 4:2:2 full range): the frames are re-encoded
    /// losslessly from the fixture and must come out converted to `y420` with the same indices — 10-bit 4:2:0 to
    /// bi-planar 10-bit (`x420`, P010), keeping its precision.
    func test_unwrappableFormats_areConvertedToPlanar420() throws {
        let folder = try temporaryFolder(self)
        for pixelFormat in ["yuv444p", "yuv420p10le", "rgb24", "yuvj422p"] {
            let file = folder.appendingPathComponent("\(pixelFormat).mkv")
            try transcode(.videoOnly, frames: 20, to: file, ["-pix_fmt", pixelFormat])
            let harness = try PipelineHarness(url: file)
            harness.start()
            let (video, _, outcome) = harness.decodeAll()
            harness.stop()
            XCTAssertEqual(outcome, .finished, pixelFormat)
            XCTAssertEqual(video.map { frameIndex(of: $0.pixelBuffer) ?? -1 }, Array(0..<20), pixelFormat)
            XCTAssertEqual(
                Set(video.map { CVPixelBufferGetPixelFormatType($0.pixelBuffer) }),
                [
                    pixelFormat == "yuv420p10le"
                        ? kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange : kCVPixelFormatType_420YpCbCr8Planar
                ],
                pixelFormat)
            XCTAssertEqual(harness.video?.decoder.decodeErrorCount, 0, pixelFormat)
        }
    }

    /// 10-bit 4:2:0 keeps its range: a full-range stream comes as `xf20`, a video-range one as `x420`.
    func test_tenBitFullRange_isConvertedToXF20() throws {
        let folder = try temporaryFolder(self)
        for (range, format) in [
            ("pc", kCVPixelFormatType_420YpCbCr10BiPlanarFullRange),
            ("tv", kCVPixelFormatType_420YpCbCr10BiPlanarVideoRange),
        ] {
            let file = folder.appendingPathComponent("p10-\(range).mkv")
            try transcode(.videoOnly, frames: 5, to: file, ["-pix_fmt", "yuv420p10le", "-color_range", range])
            let harness = try PipelineHarness(url: file)
            harness.start()
            let (video, _, outcome) = harness.decodeAll()
            harness.stop()
            XCTAssertEqual(outcome, .finished, range)
            XCTAssertEqual(video.map { frameIndex(of: $0.pixelBuffer) ?? -1 }, Array(0..<5), range)
            XCTAssertEqual(Set(video.map { CVPixelBufferGetPixelFormatType($0.pixelBuffer) }), [format], range)
        }
    }

    func test_colourAttachments_followTheStream() throws {
        let folder = try temporaryFolder(self)
        let file = folder.appendingPathComponent("bt709.mkv")
        try transcode(
            .videoOnly, frames: 5, to: file,
            ["-pix_fmt", "yuv420p", "-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709"])
        let harness = try PipelineHarness(url: file)
        harness.start()
        let (video, _, _) = harness.decodeAll()
        let pixels = try XCTUnwrap(video.first?.pixelBuffer)
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(pixels), kCVPixelFormatType_420YpCbCr8Planar)
        XCTAssertEqual(
            CVBufferCopyAttachment(pixels, kCVImageBufferYCbCrMatrixKey, nil) as? String,
            kCVImageBufferYCbCrMatrix_ITU_R_709_2)
        XCTAssertEqual(
            CVBufferCopyAttachment(pixels, kCVImageBufferColorPrimariesKey, nil) as? String,
            kCVImageBufferColorPrimaries_ITU_R_709_2)
        XCTAssertEqual(
            CVBufferCopyAttachment(pixels, kCVImageBufferTransferFunctionKey, nil) as? String,
            kCVImageBufferTransferFunction_ITU_R_709_2)

        // Untagged streams carry no colour keys: nothing is invented.
        let plain = try PipelineHarness(.videoOnly, audio: false)
        plain.start()
        var buffer: CVPixelBuffer?
        plain.pump(video: { buffer = buffer ?? $0.pixelBuffer }, until: { buffer != nil })
        XCTAssertNil(CVBufferCopyAttachment(try XCTUnwrap(buffer), kCVImageBufferYCbCrMatrixKey, nil))
    }

    func test_corruptMiddle_decodesToTheEndCountingErrors() throws {
        let harness = try PipelineHarness(.corruptMiddle)
        harness.start()
        let (video, audio, outcome) = harness.decodeAll()
        harness.stop()
        XCTAssertEqual(outcome, .finished)
        let errors = (harness.video?.decoder.decodeErrorCount ?? 0) + (harness.audio?.decoder.decodeErrorCount ?? 0)
        XCTAssertGreaterThan(errors, 0)
        XCTAssertEqual(harness.fatalErrors.current, [])
        XCTAssertGreaterThan(video.count, 250, "most frames survive")
        XCTAssertEqual(video.last.map { frameIndex(of: $0.pixelBuffer) }, 299, "decoding reaches the last frame")
        XCTAssertGreaterThan(audio.reduce(0) { $0 + $1.frameCount }, 400_000)
    }

    func test_truncatedFaststart_endsEarlyWithoutHanging() throws {
        let harness = try PipelineHarness(.truncatedFaststart)
        harness.start()
        let started = Date()
        let (video, audio, outcome) = harness.decodeAll()
        harness.stop()
        XCTAssertEqual(outcome, .finished)
        XCTAssertLessThan(Date().timeIntervalSince(started), Awaitable<Void>.hangGuard, "no hang")
        let ended = harness.events.current.contains {
            switch $0 {
            case .endOfFile, .readError: return true
            default: return false
            }
        }
        XCTAssertTrue(ended)
        XCTAssertTrue(harness.demuxer.isAtEndOfFile)
        XCTAssertEqual(try XCTUnwrap(harness.demuxer.bufferedEnd).seconds, 6, accuracy: 0.5, "where the data ends")
        let lastVideo = try XCTUnwrap(video.last).pts.seconds
        let dataEnd = try XCTUnwrap(Fixture.truncatedFaststart.facts.dataEndsAfter)
        XCTAssertEqual(lastVideo, dataEnd, accuracy: 1.0)
        XCTAssertEqual(video.map { frameIndex(of: $0.pixelBuffer) ?? -1 }, Array(0..<video.count))
        XCTAssertGreaterThan(audio.count, 0)
    }
}
