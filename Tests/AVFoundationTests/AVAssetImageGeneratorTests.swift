import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// AVAssetImageGenerator against the fixtures: every image's frame index read from its pixels.
///
/// `h264_aac.mp4` is 10 s at 30 fps with 2 s closed GOPs (keyframes at frames 0, 60, 120 …) and B-frames.
final class AVAssetImageGeneratorTests: XCTestCase {
    /// One handler call.
    struct Answer: Sendable {
        var requested: CMTime
        var image: CGImage?
        var actual: CMTime
        var result: AVAssetImageGenerator.Result
        var error: NSError?
    }

    /// Runs `generateCGImagesAsynchronously` for `seconds` and returns the handler calls in the order they came,
    /// after checking that each time was answered exactly once. `onAnswer` runs inside the handler.
    func generate(
        _ generator: AVAssetImageGenerator, seconds: [Double],
        onAnswer: @escaping @Sendable (AVAssetImageGenerator, Int) -> Void = { _, _ in }
    ) -> [Answer] {
        let answers = Locked<[Answer]>([])
        let done = expectation(description: "every time answered")
        done.expectedFulfillmentCount = seconds.count
        let times = seconds.map { NSValue(time: CMTime(seconds: $0, preferredTimescale: 600)) }
        generator.generateCGImagesAsynchronously(forTimes: times) { requested, image, actual, result, error in
            let count = answers.withLock { list -> Int in
                list.append(
                    Answer(requested: requested, image: image, actual: actual, result: result, error: error as NSError?)
                )
                return list.count
            }
            onAnswer(generator, count)
            done.fulfill()
        }
        wait(for: [done], timeout: 60)
        let all = answers.current
        XCTAssertEqual(all.count, seconds.count)
        XCTAssertEqual(
            Set(all.map { $0.requested.seconds }), Set(times.map { $0.timeValue.seconds }), "each time once")
        return all
    }

    /// The frame index drawn on `image`.
    func index(_ image: CGImage?, quarterTurns: Int = 0) -> Int? {
        image.flatMap { FrameIndexReader.read(image: $0, quarterTurns: quarterTurns)?.index }
    }

    func testZeroToleranceAnswersThePictureShowingAtEachTimeInOnePass() throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: try fixture(.h264AAC)))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        // Unsorted on purpose; 3.35 s lies inside frame 100 (3.3333…3.3667 s).
        let seconds = [7.0, 0.0, 1.0, 3.35, 1.5, 9.9, 2.5]
        let answers = generate(generator, seconds: seconds)
        XCTAssertEqual(answers.map { $0.requested.seconds }, seconds.sorted(), "answered in time order")
        for a in answers {
            XCTAssertEqual(a.result, .succeeded, "\(a.requested.seconds): \(String(describing: a.error))")
            let expected = Int((a.requested.seconds * 30 + 1e-6).rounded(.down))
            XCTAssertEqual(index(a.image), expected, "picture at \(a.requested.seconds)")
            XCTAssertEqual(
                a.actual.seconds, Double(expected) / 30, accuracy: 0.001, "actualTime at \(a.requested.seconds)")
            XCTAssertEqual(a.image?.width, 320)
            XCTAssertEqual(a.image?.height, 240)
        }
        // One pass: 1.0 and 1.5 share the first GOP, 2.5 and 3.35 the second; one seek per GOP touched at most.
        let counters = try XCTUnwrap(generator.extractionCounters)
        XCTAssertLessThanOrEqual(counters.seeks, 5)
        // Never more pictures than the GOPs touched hold (each decoded once): 5 GOPs of 60.
        XCTAssertLessThanOrEqual(counters.picturesDecoded, 5 * 60)
    }

    func testDefaultToleranceAnswersWithTheKeyframeAloneWithoutDecodingPastIt() throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: try fixture(.h264AAC)))
        XCTAssertEqual(generator.requestedTimeToleranceBefore, .positiveInfinity)
        XCTAssertEqual(generator.requestedTimeToleranceAfter, .positiveInfinity)
        let seconds = [1.0, 1.9, 3.0, 5.5, 9.0]
        let answers = generate(generator, seconds: seconds)
        let keyframes = [0, 0, 60, 120, 240]
        for (a, key) in zip(answers, keyframes) {
            XCTAssertEqual(a.result, .succeeded)
            XCTAssertEqual(index(a.image), key, "keyframe for \(a.requested.seconds)")
            XCTAssertEqual(a.actual.seconds, Double(key) / 30, accuracy: 0.001)
        }
        // Four distinct keyframes: each decoded alone, nothing after it sent to the decoder.
        let counters = try XCTUnwrap(generator.extractionCounters)
        XCTAssertEqual(counters.packetsDecoded, 4)
        XCTAssertEqual(counters.picturesDecoded, 4)
    }

    func testAToleranceWindowStopsAtTheFirstPictureInside() throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: try fixture(.h264AAC)))
        generator.requestedTimeToleranceBefore = CMTime(value: 1, timescale: 2)
        generator.requestedTimeToleranceAfter = .zero
        // 3.0 s: the keyframe (2.0 s) is outside the window [2.5, 3.0]; the first picture inside is 2.5 s (75).
        let answers = generate(generator, seconds: [3.0])
        XCTAssertEqual(index(answers.first?.image), 75)
        XCTAssertEqual(answers.first?.actual.seconds ?? 0, 2.5, accuracy: 0.001)
    }

    func testPreferredTrackTransformTurnsTheImage() throws {
        let url = try fixture(.rotated90)
        let stored = AVAssetImageGenerator(asset: AVURLAsset(url: url))
        stored.requestedTimeToleranceBefore = .zero
        stored.requestedTimeToleranceAfter = .zero
        let plain = try stored.copyCGImage(at: CMTime(seconds: 1, preferredTimescale: 600), actualTime: nil)
        XCTAssertEqual(plain.width, 320)
        XCTAssertEqual(plain.height, 240)
        XCTAssertEqual(index(plain), 30)

        let turned = AVAssetImageGenerator(asset: AVURLAsset(url: url))
        turned.appliesPreferredTrackTransform = true
        turned.requestedTimeToleranceBefore = .zero
        turned.requestedTimeToleranceAfter = .zero
        turned.maximumSize = CGSize(width: 0, height: 160)
        var actual = CMTime.invalid
        let image = try turned.copyCGImage(at: CMTime(seconds: 1, preferredTimescale: 600), actualTime: &actual)
        XCTAssertEqual(image.width, 120, "portrait, fitted to 160 rows")
        XCTAssertEqual(image.height, 160)
        XCTAssertEqual(index(image, quarterTurns: 1), 30, "turned 90° clockwise")
        XCTAssertNil(index(image), "the strip is no longer along the top")
        XCTAssertEqual(actual.seconds, 1, accuracy: 0.001)
    }

    func testAFileWhoseTimestampsStartLateIsAnsweredInAssetTime() throws {
        // MPEG-TS timestamps start at 1.4 s (asset time 0); the video's first picture comes 21.3 ms after the audio.
        let asset = AVURLAsset(url: try fixture(.h264AACTS))
        let video = try XCTUnwrap(asset.tracks.first { $0.mediaType == .video })
        let start = video.timeRange.start.seconds
        XCTAssertEqual(start, 0.0213, accuracy: 0.001)
        let generator = AVAssetImageGenerator(asset: asset)
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let answers = generate(generator, seconds: [0, 1.0, 2.5])
        // 0 precedes the first picture, which answers it; then the picture showing at each time.
        let expected = [0, Int((1.0 - start) * 30), Int((2.5 - start) * 30)]
        XCTAssertEqual(answers.map { index($0.image) }, expected)
        for (a, frame) in zip(answers, expected) {
            XCTAssertEqual(a.actual.seconds, start + Double(frame) / 30, accuracy: 0.001)
        }
    }

    func testTimesOutsideTheAssetFailAndTheOthersSucceed() throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: try fixture(.h264AAC)))
        let answers = generate(generator, seconds: [-1, 4.2, 60])
        let byTime = Dictionary(uniqueKeysWithValues: answers.map { ($0.requested.seconds, $0) })
        XCTAssertEqual(byTime[-1]?.result, .failed)
        XCTAssertEqual(byTime[-1]?.error?.domain, AVFoundationErrorDomain)
        XCTAssertEqual(byTime[-1]?.error?.code, AVError.Code.noImageAtTime.rawValue)
        XCTAssertEqual(byTime[60]?.result, .failed)
        XCTAssertEqual(byTime[60]?.error?.code, AVError.Code.noImageAtTime.rawValue)
        XCTAssertEqual(index(byTime[4.2]?.image), 120)
    }

    func testADamagedFileFailsTheDamagedTimesAndAnswersTheOthers() throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: try fixture(.corruptMiddle)))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let seconds = stride(from: 0.0, to: 10.0, by: 0.5).map { $0 }
        let answers = generate(generator, seconds: seconds)
        var failed = 0
        for a in answers {
            if a.result == .succeeded {
                // A picture that is returned is the right one and readable: never a silent stand-in.
                XCTAssertEqual(index(a.image), Int((a.requested.seconds * 30).rounded()), "\(a.requested.seconds)")
            } else {
                failed += 1
                XCTAssertEqual(a.result, .failed)
                XCTAssertEqual(a.error?.domain, AVFoundationErrorDomain)
                XCTAssertNotNil(a.error?.userInfo[NSUnderlyingErrorKey], "says what FFmpeg reported")
            }
        }
        XCTAssertGreaterThan(failed, 0, "the noise in the middle damages some pictures")
        XCTAssertGreaterThan(answers.count - failed, seconds.count / 2, "the pictures around it are answered")
        XCTAssertEqual(answers.first?.result, .succeeded)
        XCTAssertEqual(answers.last?.result, .succeeded)
    }

    func testCancelAllCallsEveryRemainingHandlerWithCancelled() throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: try fixture(.h264AAC)))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let seconds = stride(from: 0.0, to: 9.5, by: 0.25).map { $0 }
        // Cancelled from inside the second handler: the rest must come back cancelled, each once.
        let answers = generate(generator, seconds: seconds) { generator, count in
            if count == 2 { generator.cancelAllCGImageGeneration() }
        }
        XCTAssertEqual(answers.prefix(2).map(\.result), [.succeeded, .succeeded])
        let cancelled = answers.dropFirst(2)
        XCTAssertFalse(cancelled.isEmpty)
        for a in cancelled {
            XCTAssertEqual(a.result, .cancelled)
            XCTAssertNil(a.image)
            XCTAssertEqual(a.error?.code, AVError.Code.operationCancelled.rawValue)
        }
        // The generator works again afterwards (a new input is opened).
        let again = generate(generator, seconds: [5.0])
        XCTAssertEqual(index(again.first?.image), 150)
    }

    func testAsyncImageAndImagesSequence() async throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: try fixture(.h264AAC)))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        generator.maximumSize = CGSize(width: 160, height: 160)
        let (image, actual) = try await generator.image(at: CMTime(seconds: 2.0, preferredTimescale: 600))
        XCTAssertEqual(image.width, 160)
        XCTAssertEqual(image.height, 120)
        XCTAssertEqual(index(image), 60)
        XCTAssertEqual(actual.seconds, 2.0, accuracy: 0.001)

        var seen: [Int?] = []
        var failures = 0
        let times = [0.5, 1.0, 99.0].map { CMTime(seconds: $0, preferredTimescale: 600) }
        for await result in generator.images(for: times) {
            switch result {
            case .success(let requested, let image, let actual):
                seen.append(index(image))
                XCTAssertEqual(actual.seconds, requested.seconds, accuracy: 0.001)
            case .failure(let requested, let error):
                failures += 1
                XCTAssertEqual(requested.seconds, 99)
                XCTAssertThrowsError(try result.image)
                XCTAssertEqual((error as NSError).code, AVError.Code.noImageAtTime.rawValue)
            }
        }
        XCTAssertEqual(seen, [15, 30])
        XCTAssertEqual(failures, 1)
    }

    func testAnAssetWithoutVideoFails() throws {
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: try fixture(.audioOnly)))
        XCTAssertThrowsError(try generator.copyCGImage(at: .zero, actualTime: nil)) { error in
            XCTAssertEqual((error as NSError).code, AVError.Code.operationNotSupportedForAsset.rawValue)
        }
    }
}

/// HDR: a 10-bit PQ source tone-mapped to SDR, compared with ffmpeg's own tone mapping of the same picture.
final class AVAssetImageGeneratorHDRTests: XCTestCase {
    /// The mean luma (BT.601 weights, 0…255) of `image`'s rows below the frame-index strip.
    static func meanLuma(_ image: CGImage) -> Double {
        let offsets = image.oavfComponentOffsets!
        var sum = 0.0
        var count = 0
        image.oavfBytes.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            for y in stride(from: image.height / 4, to: image.height, by: 2) {
                for x in stride(from: 0, to: image.width, by: 2) {
                    let p = y * image.bytesPerRow + 4 * x
                    sum +=
                        0.299 * Double(raw[p + offsets.red]) + 0.587 * Double(raw[p + offsets.green]) + 0.114
                        * Double(raw[p + offsets.blue])
                    count += 1
                }
            }
        }
        return sum / Double(count)
    }

    func testPQIsToneMappedLikeFFmpegByDefaultAndClippedUnderMatchSource() throws {
        let url = try HDRFixture.url()
        let sdr = AVAssetImageGenerator(asset: AVURLAsset(url: url))
        XCTAssertEqual(sdr.dynamicRangePolicy, .forceSDR)
        sdr.requestedTimeToleranceBefore = .zero
        sdr.requestedTimeToleranceAfter = .zero
        let mapped = try sdr.copyCGImage(at: CMTime(value: 1, timescale: 1), actualTime: nil)
        XCTAssertEqual(FrameIndexReader.read(image: mapped)?.index, 30)

        let raw = AVAssetImageGenerator(asset: AVURLAsset(url: url))
        raw.dynamicRangePolicy = .matchSource
        raw.requestedTimeToleranceBefore = .zero
        raw.requestedTimeToleranceAfter = .zero
        let clipped = try raw.copyCGImage(at: CMTime(value: 1, timescale: 1), actualTime: nil)
        XCTAssertEqual(FrameIndexReader.read(image: clipped)?.index, 30)

        // ffmpeg's tone mapping of the same picture (frame 30).
        let mappedLuma = Self.meanLuma(mapped)
        let clippedLuma = Self.meanLuma(clipped)
        // ffmpeg: 105 tone-mapped, 126 converted as it is (PQ levels read as SDR: washed out).
        let referenceMapped = try Self.referenceLuma(url: url, filter: HDRFixture.toneMapFilter)
        let referenceClipped = try Self.referenceLuma(url: url, filter: nil)
        XCTAssertEqual(mappedLuma, referenceMapped, accuracy: 3, "tone-mapped like ffmpeg's zscale + tonemap chain")
        XCTAssertEqual(clippedLuma, referenceClipped, accuracy: 3, "converted as ffmpeg converts it")
        XCTAssertGreaterThan(clippedLuma - mappedLuma, 10, "tone mapping darkens the washed-out picture")
    }

    /// The mean luma of ffmpeg's frame 30 below the strip (RGB, the same weights as ``meanLuma(_:)``), through
    /// `filter` (tone mapping, or none).
    static func referenceLuma(url: URL, filter: String?) throws -> Double {
        let chain = ["select=eq(n\\,30)", filter, "format=rgb24"].compactMap { $0 }.joined(separator: ",")
        let result = try Subprocess.run(
            "ffmpeg",
            [
                "-nostdin", "-hide_banner", "-loglevel", "error", "-i", url.path, "-vf", chain, "-frames:v", "1",
                "-f", "rawvideo", "-",
            ])
        let bytes = [UInt8](result.stdoutData)
        let (width, height) = (320, 240)
        XCTAssertEqual(bytes.count, 3 * width * height, result.stderr)
        guard bytes.count == 3 * width * height else { return .nan }
        var sum = 0.0
        var count = 0
        for y in stride(from: height / 4, to: height, by: 2) {
            for x in stride(from: 0, to: width, by: 2) {
                let p = 3 * (y * width + x)
                sum += 0.299 * Double(bytes[p]) + 0.587 * Double(bytes[p + 1]) + 0.114 * Double(bytes[p + 2])
                count += 1
            }
        }
        return sum / Double(count)
    }
}
