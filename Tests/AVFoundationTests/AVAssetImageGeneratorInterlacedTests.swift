import Foundation
import TestSupport
import XCTest

@testable import AVFoundation

/// AVAssetImageGenerator on interlaced H.264 (field-coded, top field first), made at test time from `h264_aac.mp4`.
///
/// What Apple does: its documentation says nothing of deinterlacing for image generation; the generator hands back
/// the decoded frame. The same here: a frame's two fields come woven as the decoder made them (no deinterlacing
/// filter), so an interlaced picture of progressive content reads as that picture, and a frame whose fields come from
/// two moments shows one in its even rows and the other in its odd rows.
final class AVAssetImageGeneratorInterlacedTests: XCTestCase {
    /// Encodes the first 4 s of `h264_aac.mp4` as interlaced H.264 (`+ildct+ilme`, x264 `interlaced=1:tff=1`) after
    /// `filter`, into a temporary file removed after the test; checks ffprobe sees it as top field first.
    private func interlaced(_ filter: String, keyint: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("interlaced-\(UUID().uuidString).mp4")
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        let made = try Subprocess.run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-y", "-i", try Fixtures.url(.h264AAC).path, "-t", "4", "-an", "-vf",
                filter, "-c:v", "libx264", "-preset", "ultrafast", "-flags", "+ildct+ilme", "-x264-params",
                "interlaced=1:tff=1:keyint=\(keyint):min-keyint=\(keyint):scenecut=0", url.path,
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let probe = try Subprocess.run(
            "ffprobe", ["-v", "error", "-show_entries", "stream=field_order", "-of", "csv=p=0", url.path])
        XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "tt", "field-coded, top first")
        return url
    }

    /// The image made of `image`'s even rows (`parity` 0) or odd rows (1).
    private func field(_ image: CGImage, parity: Int) -> CGImage? {
        guard let data = image.dataProvider?.data as Data? else { return nil }
        var rows = Data()
        for y in stride(from: parity, to: image.height, by: 2) {
            rows.append(data[(y * image.bytesPerRow)..<(y * image.bytesPerRow + image.bytesPerRow)])
        }
        guard let provider = CGDataProvider(data: rows as CFData), let space = image.colorSpace else { return nil }
        return CGImage(
            width: image.width, height: image.height / 2, bitsPerComponent: 8, bitsPerPixel: 32,
            bytesPerRow: image.bytesPerRow, space: space, bitmapInfo: image.bitmapInfo, provider: provider,
            decode: nil, shouldInterpolate: false, intent: .defaultIntent)
    }

    func testFieldCodedProgressivePicturesAreAnsweredExactly_andKeyframesWithinTolerance() async throws {
        let url = try interlaced("setfield=tff", keyint: 60)
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: url))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        var found: [Int?] = []
        for await result in generator.images(
            for: [0.5, 1.0, 2.2, 3.3].map { CMTime(seconds: $0, preferredTimescale: 600) })
        {
            let image = try result.image
            XCTAssertEqual([image.width, image.height], [320, 240], "a whole frame, both fields")
            found.append(FrameIndexReader.read(image: image)?.index)
        }
        XCTAssertEqual(found, [15, 30, 66, 99])

        // The default tolerances: the keyframe at or before each time (keyframes every 60 frames).
        let fast = AVAssetImageGenerator(asset: AVURLAsset(url: url))
        var keyframes: [Int?] = []
        for await result in fast.images(for: [1.0, 3.3].map { CMTime(seconds: $0, preferredTimescale: 600) }) {
            keyframes.append(FrameIndexReader.read(image: try result.image)?.index)
        }
        XCTAssertEqual(keyframes, [0, 60])
    }

    func testFieldsFromTwoMomentsComeWoven_notDeinterlaced() async throws {
        // `interlace` weaves source frames 2k (top field, even rows) and 2k + 1 (bottom, odd rows) into frame k at
        // 15 frames a second.
        let url = try interlaced("interlace=scan=tff:lowpass=0", keyint: 30)
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: url))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        let (image, actual) = try await generator.image(at: CMTime(seconds: 1.0, preferredTimescale: 600))
        XCTAssertEqual(actual.seconds, 1.0, accuracy: 0.001)
        XCTAssertEqual([image.width, image.height], [320, 240])
        let top = try XCTUnwrap(field(image, parity: 0))
        let bottom = try XCTUnwrap(field(image, parity: 1))
        XCTAssertEqual(FrameIndexReader.read(image: top)?.index, 30, "the top field: source frame 30")
        XCTAssertEqual(FrameIndexReader.read(image: bottom)?.index, 31, "the bottom field: source frame 31")
    }
}
