import AVFoundation
import TestSupport
import XCTest

/// Every container/codec fixture loads with the tracks, codecs and sizes ffprobe sees.
final class AVAssetTrackFormatsTests: XCTestCase {
    private func tracks(_ f: Fixture) async throws -> [AVAssetTrack] {
        let asset = AVURLAsset(url: try fixture(f))
        let (tracks, playable) = try await asset.load(.tracks, .isPlayable)
        XCTAssertTrue(playable, "\(f.rawValue) should be playable")
        return tracks
    }

    private func subType(_ t: AVAssetTrack) async throws -> CMFormatDescription.MediaSubType? {
        try await t.load(.formatDescriptions).first?.mediaSubType
    }

    func test_containersAndCodecs() async throws {
        let expectations: [(Fixture, [AVMediaType], [CMFormatDescription.MediaSubType])] = [
            (.hevcMKV, [.video, .audio], [.hevc, .mpeg4AAC]),
            (.vp9OpusWebM, [.video, .audio], [.vp9, .opus]),
            (.h264AACTS, [.video, .audio], [.h264, .mpeg4AAC]),
            (.audioMP3, [.audio], [.mpegLayer3]),
            (.audioFLAC, [.audio], [.flac]),
            (.audioWAV, [.audio], [.linearPCM]),
            (.videoOnly, [.video], [.h264]),
            (.audioOnly, [.audio], [.mpeg4AAC]),
        ]
        for (f, types, codecs) in expectations {
            let t = try await tracks(f)
            XCTAssertEqual(t.map(\.mediaType), types, f.rawValue)
            var got: [CMFormatDescription.MediaSubType] = []
            for track in t { got.append(try await subType(track) ?? .init(0)) }
            XCTAssertEqual(got, codecs, f.rawValue)
        }
    }

    func test_durations_matchTheFixtures() async throws {
        for f in [Fixture.hevcMKV, .vp9OpusWebM, .h264AACTS, .audioMP3, .audioFLAC, .audioWAV, .audioOnly] {
            let d = try await AVURLAsset(url: try fixture(f)).load(.duration)
            XCTAssertEqual(d.seconds, 3, accuracy: 0.1, f.rawValue)
        }
    }

    func test_rotated90_preferredTransformIsApplesPortraitMatrix() async throws {
        let t = try await tracks(.rotated90)
        let video = try XCTUnwrap(t.first { $0.mediaType == .video })
        let (size, transform) = try await video.load(.naturalSize, .preferredTransform)
        XCTAssertEqual(size, CGSize(width: 320, height: 240))
        XCTAssertEqual(transform, CGAffineTransform(a: 0, b: 1, c: -1, d: 0, tx: 240, ty: 0))
        let shown = CGRect(origin: .zero, size: size).applying(transform)
        XCTAssertEqual(shown, CGRect(x: 0, y: 0, width: 240, height: 320))
    }

    func test_oddSize() async throws {
        let t = try await tracks(.odd321x241)
        let size = try await t[0].load(.naturalSize)
        XCTAssertEqual(size, CGSize(width: 321, height: 241))
    }

    func test_variableFrameRate_nominalRateIsTheAverage() async throws {
        let t = try await tracks(.variableFrameRate)
        let video = try XCTUnwrap(t.first { $0.mediaType == .video })
        let fps = try await video.load(.nominalFrameRate)
        let facts = try XCTUnwrap(Fixture.variableFrameRate.facts.video)
        let times = facts.presentationTimes
        let average = Double(times.count - 1) / (times.last! - times.first!)
        XCTAssertLessThan(fps, 30)
        XCTAssertEqual(Double(fps), average, accuracy: 2.5)
    }

    func test_multiAudio_languagesTitlesAndEnabledFlags() async throws {
        let t = try await tracks(.multiAudioSubtitles)
        XCTAssertEqual(t.map(\.mediaType), [.video, .audio, .audio, .subtitle, .subtitle])
        var languages: [String?] = []
        var tags: [String?] = []
        for track in t.dropFirst() {
            languages.append(try await track.load(.languageCode))
            tags.append(try await track.load(.extendedLanguageTag))
        }
        XCTAssertEqual(languages, ["eng", "fra", "eng", "fra"])
        XCTAssertEqual(tags, ["en", "fr", "en", "fr"])
        let enabledEnglish = try await t[1].load(.isEnabled)
        XCTAssertTrue(enabledEnglish)
        let subs = try await t[3].load(.formatDescriptions)
        XCTAssertEqual(subs.first?.mediaType, .subtitle)
        let vtt = try await t[4].load(.formatDescriptions)
        XCTAssertEqual(vtt.first?.mediaSubType, .webVTT)
        let legible = try await t[3].load(.mediaCharacteristics)
        XCTAssertEqual(legible, [.legible])
    }
}
