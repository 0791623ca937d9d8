import AVFoundation
import Foundation
import OAVFLocking
import TestSupport
import XCTest

/// Track associations and sample times: the forced-only subtitle track of a full subtitle track's language
/// (`forced_subs.mkv`: English, English forced, French forced), nothing for other tracks or types; a track time maps
/// to itself (one identity segment). Public API only.
final class TrackAssociationTests: XCTestCase {
    func test_aFullSubtitleTrack_isAssociatedWithTheForcedOnlyTrackOfItsLanguage() async throws {
        let asset = AVURLAsset(url: try fixture(.forcedSubtitles))
        let subtitles = try await asset.loadTracks(withMediaType: .subtitle)
        XCTAssertEqual(subtitles.count, 3)
        let full = subtitles[0]
        let englishForced = subtitles[1]
        let fullCharacteristics = try await full.load(.mediaCharacteristics)
        let forcedCharacteristics = try await englishForced.load(.mediaCharacteristics)
        XCTAssertFalse(fullCharacteristics.contains(.containsOnlyForcedSubtitles))
        XCTAssertTrue(forcedCharacteristics.contains(.containsOnlyForcedSubtitles))

        let fullTypes = try await full.load(.availableTrackAssociationTypes)
        XCTAssertEqual(fullTypes, [.forcedSubtitlesOnly])
        let associated = try await full.loadAssociatedTracks(ofType: .forcedSubtitlesOnly)
        XCTAssertEqual(associated.map(\.trackID), [englishForced.trackID])
        // Not symmetric; nothing of the other types; nothing for other tracks.
        let forcedTypes = try await englishForced.load(.availableTrackAssociationTypes)
        XCTAssertEqual(forcedTypes, [])
        let fromForced = try await englishForced.loadAssociatedTracks(ofType: .forcedSubtitlesOnly)
        XCTAssertEqual(fromForced, [])
        let chapters = try await full.loadAssociatedTracks(ofType: .chapterList)
        XCTAssertEqual(chapters, [])
        let audio = try await asset.loadTracks(withMediaType: .audio)
        for track in audio {
            let types = try await track.load(.availableTrackAssociationTypes)
            XCTAssertEqual(types, [])
        }
        let handled = Locked<[CMPersistentTrackID]?>(nil)
        full.loadAssociatedTracks(ofType: .forcedSubtitlesOnly) { tracks, _ in
            handled.withLock { $0 = tracks?.map(\.trackID) }
        }
        XCTAssertEqual(handled.withLock { $0 }, [englishForced.trackID])
        XCTAssertEqual(
            [
                AVAssetTrack.AssociationType.audioFallback, .chapterList, .forcedSubtitlesOnly, .selectionFollower,
                .timecode,
            ]
            .map(\.rawValue),
            ["fall", "chap", "forc", "folw", "tmcd"])
    }

    func test_samplePresentationTime_isTheTrackTime_insideTheTrack() async throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let videos = try await asset.loadTracks(withMediaType: .video)
        let video = try XCTUnwrap(videos.first)
        let time = CMTime(value: 33, timescale: 10)
        let sampleTime = try await video.loadSamplePresentationTime(forTrackTime: time)
        XCTAssertEqual(sampleTime, time)
        let handled = Locked<CMTime?>(nil)
        video.loadSamplePresentationTime(forTrackTime: .zero) { t, _ in handled.withLock { $0 = t } }
        XCTAssertEqual(handled.withLock { $0 }, .zero)
    }
}
