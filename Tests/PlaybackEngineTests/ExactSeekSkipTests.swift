import CoreMedia
import CoreVideo
import FFmpegBridge
import PlaybackEngine
import TestSupport
import XCTest

/// Exact seeks skip the pictures the target does not need (non-reference pictures before it) and still land on the
/// picture whose interval holds the target, whatever kind of picture that is. Which pictures are references comes
/// from ffprobe (every picture, then those a decoder told to skip non-reference frames still outputs), never from
/// the test.
final class ExactSeekSkipTests: XCTestCase {
    /// One picture of a fixture's video, in presentation order.
    struct Picture {
        /// Presentation timestamp in the stream's time base.
        var pts: Int64
        /// `I`, `P` or `B` (ffprobe's pict_type).
        var type: String
        /// Whether a decoder skipping non-reference frames still decodes it.
        var isReference: Bool
        /// Its presentation index, which the frame-index strip shows.
        var index: Int
    }

    /// The fixture's pictures in presentation order, per ffprobe.
    static func pictures(of fixture: Fixture) throws -> [Picture] {
        let path = try Fixtures.url(fixture).path
        func probe(_ extra: [String], entries: String) throws -> [[Substring]] {
            let result = try Subprocess.run(
                "ffprobe",
                ["-v", "error"] + extra + ["-select_streams", "v:0", "-show_frames", "-show_entries", entries]
                    + ["-of", "csv=p=0", path])
            XCTAssertEqual(result.status, 0, result.stderr)
            return result.stdout.split(separator: "\n").map {
                $0.split(separator: ",", omittingEmptySubsequences: false)
            }
        }
        let all = try probe([], entries: "frame=pts,pict_type").compactMap { fields -> (Int64, String)? in
            guard fields.count >= 2, let pts = Int64(fields[0]) else { return nil }
            return (pts, String(fields[1]))
        }
        let references = Set(
            try probe(["-skip_frame", "noref"], entries: "frame=pts").compactMap { $0.first.flatMap { Int64($0) } })
        return all.sorted { $0.0 < $1.0 }.enumerated().map { index, picture in
            Picture(pts: picture.0, type: picture.1, isReference: references.contains(picture.0), index: index)
        }
    }

    /// A video-only pipeline over `fixture` whose first act is an exact seek to `target` (stream time), so every
    /// picture the decoder makes is for that seek.
    private func harness(_ fixture: Fixture, seekingTo target: CMTime) throws -> PipelineHarness {
        let harness = try PipelineHarness(fixture, audio: false)
        harness.demuxer.seek(to: target, accurate: true)
        harness.start()
        return harness
    }

    /// The first picture the seek delivers.
    private func firstPicture(_ harness: PipelineHarness) -> VideoFrame? {
        var first: VideoFrame?
        harness.pump(video: { if first == nil { first = $0 } }, until: { first != nil })
        return first
    }

    /// Targets on an I, a P, a reference B and a non-reference B picture (each on its start and halfway through
    /// it), after a run of pictures of every kind.
    private func assertTargetsOnEveryKindLand(
        _ fixture: Fixture, kinds: [String], file: StaticString = #filePath
    )
        throws
    {
        let pictures = try Self.pictures(of: fixture)
        let video = try XCTUnwrap(try PipelineHarness(fixture, audio: false).video, file: file)
        let timeBase = video.decoder.timeBase
        var chosen: [(String, Picture)] = []
        let candidates = pictures.dropFirst(pictures.count / 3)
        for kind in kinds {
            let match: Picture?
            switch kind {
            case "I": match = pictures.first { $0.type == "I" }
            case "P": match = candidates.first { $0.type == "P" }
            case "refB": match = candidates.first { $0.type == "B" && $0.isReference }
            default: match = candidates.first { $0.type == "B" && !$0.isReference }
            }
            chosen.append((kind, try XCTUnwrap(match, "\(fixture) has no \(kind) picture", file: file)))
        }
        for (kind, picture) in chosen {
            let next = pictures.first { $0.pts > picture.pts }?.pts ?? picture.pts + 1
            for ticks in [picture.pts, picture.pts + (next - picture.pts) / 2] {
                let target = CMTime(ffmpeg: ticks, timeBase: timeBase)
                let harness = try harness(fixture, seekingTo: target)
                let first = try XCTUnwrap(firstPicture(harness), "\(fixture) \(kind) at \(ticks)", file: file)
                XCTAssertEqual(
                    frameIndex(of: first.pixelBuffer), picture.index, "\(fixture): a \(kind) picture at \(ticks)",
                    file: file)
                XCTAssertEqual(first.pts, CMTime(ffmpeg: picture.pts, timeBase: timeBase), file: file)
                harness.stop()
            }
        }
    }

    func test_h264BPyramid_exactTargetsOnEveryKindOfPicture_showTheTargetPicture() throws {
        let pictures = try Self.pictures(of: .bPyramidH264)
        // The fixture holds every kind (the test would prove nothing otherwise).
        XCTAssertTrue(pictures.contains { $0.type == "B" && $0.isReference })
        XCTAssertTrue(pictures.contains { $0.type == "B" && !$0.isReference })
        try assertTargetsOnEveryKindLand(.bPyramidH264, kinds: ["I", "P", "refB", "nonrefB"])
    }

    func test_hevcBPyramid_exactTargetsOnEveryKindOfPicture_showTheTargetPicture() throws {
        try assertTargetsOnEveryKindLand(.hevcBPyramid, kinds: ["I", "P", "refB", "nonrefB"])
    }

    func test_vp9WithHiddenFrames_exactTargets_showTheTargetPicture() throws {
        // VP9 has no B pictures: a keyframe and inter pictures (every one a reference here).
        try assertTargetsOnEveryKindLand(.vp9AltRef, kinds: ["I", "P"])
    }

    /// The last picture of a long GOP needs only the reference pictures before it: the decoder makes no more than
    /// those plus the target.
    private func assertLastPictureOfTheGOP_decodesOnlyReferencesBeforeIt(
        _ fixture: Fixture, file: StaticString = #filePath
    ) throws {
        let pictures = try Self.pictures(of: fixture)
        let last = try XCTUnwrap(pictures.last, file: file)
        let referencesBefore = pictures.filter { $0.isReference && $0.pts < last.pts }.count
        XCTAssertLessThan(referencesBefore + 1, pictures.count, "the GOP has pictures to skip", file: file)
        let timeBase = try XCTUnwrap(try PipelineHarness(fixture, audio: false).video, file: file).decoder.timeBase
        let harness = try harness(fixture, seekingTo: CMTime(ffmpeg: last.pts, timeBase: timeBase))
        var shown: [Int] = []
        XCTAssertEqual(harness.pump(video: { shown.append(frameIndex(of: $0.pixelBuffer) ?? -1) }), .finished)
        XCTAssertEqual(shown, [last.index], file: file)
        let status = try XCTUnwrap(harness.video, file: file).decoder.status
        XCTAssertLessThanOrEqual(status.framesProduced, referencesBefore + 1, file: file)
        XCTAssertGreaterThan(status.packetsSentSkippingNonReference, 0, file: file)
    }

    func test_h264_seekToTheLastPictureOfA300PictureGOP_decodesOnlyTheReferencesBeforeItAndIt() throws {
        try assertLastPictureOfTheGOP_decodesOnlyReferencesBeforeIt(.bPyramidH264)
    }

    func test_hevc_seekToTheLastPictureOfTheGOP_decodesOnlyTheReferencesBeforeItAndIt() throws {
        try assertLastPictureOfTheGOP_decodesOnlyReferencesBeforeIt(.hevcBPyramid)
    }

    func test_afterAnExactSeek_everyPictureIsDecodedAgain() throws {
        // Skipping ends at the target: playback from there shows every picture, in order.
        let pictures = try Self.pictures(of: .bPyramidH264)
        let target = pictures[200]
        let timeBase = try XCTUnwrap(try PipelineHarness(.bPyramidH264, audio: false).video).decoder.timeBase
        let harness = try harness(.bPyramidH264, seekingTo: CMTime(ffmpeg: target.pts, timeBase: timeBase))
        var shown: [Int] = []
        XCTAssertEqual(harness.pump(video: { shown.append(frameIndex(of: $0.pixelBuffer) ?? -1) }), .finished)
        XCTAssertEqual(shown, Array(200..<300))
    }
}

/// The picture shown at a time is the last that starts at or before it, also where millisecond timestamps leave a gap
/// between one picture's end (its start plus its rounded duration) and the next one's start: a target in the gap, or
/// just before the next picture (a backward step's target), shows the earlier picture, not the next.
final class ExactSeekGapTests: XCTestCase {
    func test_matroskaMillisecondTimestamps_targetJustBeforeAPicture_showsThePictureBefore() throws {
        let pictures = try ExactSeekSkipTests.pictures(of: .hevcMKV)
        let timeBase = try XCTUnwrap(try PipelineHarness(.hevcMKV, audio: false).video).decoder.timeBase
        XCTAssertEqual(timeBase, Rational(1, 1000))
        // Pictures whose predecessor ends before they start (33 ms durations, 33.3 ms apart), in both GOPs.
        let chosen = [2, 3, 31, 65, 89].map { pictures[$0] }
        for picture in chosen {
            let before = pictures[picture.index - 1]
            for target in [
                CMTime(ffmpeg: picture.pts, timeBase: timeBase) - CMTime(value: 1, timescale: 1_000_000),
                CMTime(value: 2 * picture.pts - 1, timescale: 2000),
            ] {
                let harness = try PipelineHarness(.hevcMKV, audio: false)
                harness.demuxer.seek(to: target, accurate: true)
                harness.start()
                var first: VideoFrame?
                harness.pump(video: { if first == nil { first = $0 } }, until: { first != nil })
                harness.stop()
                let shown = try XCTUnwrap(first, "a picture for \(target.seconds) s")
                XCTAssertEqual(frameIndex(of: shown.pixelBuffer), before.index, "target \(target.seconds) s")
                XCTAssertEqual(shown.pts, CMTime(ffmpeg: before.pts, timeBase: timeBase))
            }
        }
    }

    func test_targetInTheLastPicture_afterItsEnd_showsTheLastPicture() throws {
        // The end of the stream releases the picture held back for the target.
        let pictures = try ExactSeekSkipTests.pictures(of: .hevcMKV)
        let last = try XCTUnwrap(pictures.last)
        let harness = try PipelineHarness(.hevcMKV, audio: false)
        harness.demuxer.seek(to: CMTime(value: last.pts + 40, timescale: 1000), accurate: true)
        harness.start()
        var shown: [Int] = []
        XCTAssertEqual(harness.pump(video: { shown.append(frameIndex(of: $0.pixelBuffer) ?? -1) }), .finished)
        harness.stop()
        XCTAssertEqual(shown, [last.index])
    }
}
