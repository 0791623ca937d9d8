import Foundation
import OAVFLocking
import TestSupport
import XCTest

@testable import AVFoundation

/// Chapters (MP4 and Matroska, written by ffmpeg from an ffmetadata file at test time) and track groups, read the
/// way apps read them.
final class AVAssetChapterTests: XCTestCase {
    /// h264_aac.mp4 (10 s, 30 fps) with chapters "Opening" 0–3 s, "Middle" 3–7 s, "End" 7–10 s, remuxed into `ext`.
    private func chaptered(_ ext: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-chapters-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let metadata = folder.appendingPathComponent("chapters.txt")
        try """
        ;FFMETADATA1
        [CHAPTER]
        TIMEBASE=1/1000
        START=0
        END=3000
        title=Opening
        [CHAPTER]
        TIMEBASE=1/1000
        START=3000
        END=7000
        title=Middle
        [CHAPTER]
        TIMEBASE=1/1000
        START=7000
        END=10000
        title=End

        """.write(to: metadata, atomically: true, encoding: .utf8)
        let output = folder.appendingPathComponent("chapters.\(ext)")
        let result = try Subprocess.run(
            "ffmpeg",
            [
                "-nostdin", "-v", "error", "-i", try fixture(.h264AAC).path, "-i", metadata.path, "-map", "0",
                "-map_chapters", "1", "-c", "copy", output.path,
            ])
        XCTAssertEqual(result.status, 0, result.stderr)
        return output
    }

    func test_chapters_areTimedMetadataGroups_withTheirTitlesAndRanges_MP4AndMatroska() async throws {
        for ext in ["mp4", "mkv"] {
            let asset = AVURLAsset(url: try chaptered(ext))
            let locales = try await asset.load(.availableChapterLocales)
            XCTAssertEqual(locales.map(\.identifier), ["und"], ext)
            let groups = try await asset.loadChapterMetadataGroups(
                withTitleLocale: Locale(identifier: "en"), containingItemsWithCommonKeys: [.commonKeyTitle])
            XCTAssertEqual(groups.map { $0.items.first?.stringValue }, ["Opening", "Middle", "End"], ext)
            XCTAssertEqual(groups.map { $0.timeRange.start.seconds }, [0, 3, 7], ext)
            XCTAssertEqual(groups.map { $0.timeRange.end.seconds }, [3, 7, 10], ext)
            XCTAssertEqual(groups.first?.items.first?.identifier, .commonIdentifierTitle)
            XCTAssertEqual(groups[1].items.first?.time.seconds, 3)
            let preferred = try await asset.loadChapterMetadataGroups(bestMatchingPreferredLanguages: ["fr", "en"])
            XCTAssertEqual(preferred.count, 3, ext)
        }
    }

    func test_chapterStart_isWhereAnExactSeekShowsTheChaptersFirstPicture() throws {
        let url = try chaptered("mp4")
        let asset = AVURLAsset(url: url)
        let groups = asset.chapterMetadataGroups(
            withTitleLocale: Locale(identifier: "en"), containingItemsWithCommonKeys: nil)
        let v = VirtualPlayer(mode: .manual)
        let item = AVPlayerItem(asset: asset)
        v.player.replaceCurrentItem(with: item)
        waitUntil("ready") { item.status == .readyToPlay }
        for (group, frame) in zip(groups, [0, 90, 210]) {
            let done = Locked<Bool?>(nil)
            item.seek(to: group.timeRange.start, toleranceBefore: .zero, toleranceAfter: .zero) { ok in
                done.withLock { $0 = ok }
            }
            waitUntil("seek") { done.withLock { $0 } != nil }
            XCTAssertEqual(v.frames.indices.last ?? nil, frame)
        }
    }

    func test_chapterLoading_completionHandler_and_none() throws {
        let done = Locked<[String?]?>(nil)
        AVURLAsset(url: try chaptered("mkv")).loadChapterMetadataGroups(
            withTitleLocale: Locale(identifier: "de"), containingItemsWithCommonKeys: []
        ) { groups, error in
            XCTAssertNil(error)
            done.withLock { $0 = groups?.map { $0.items.first?.stringValue } }
        }
        waitUntil("groups") { done.withLock { $0 } != nil }
        XCTAssertEqual(done.withLock { $0 }, ["Opening", "Middle", "End"])
        let plain = AVURLAsset(url: try fixture(.h264AAC))
        XCTAssertEqual(plain.availableChapterLocales, [])
        XCTAssertEqual(
            plain.chapterMetadataGroups(withTitleLocale: Locale(identifier: "en"), containingItemsWithCommonKeys: nil)
                .count, 0)
    }

    func test_trackGroups_areTheAlternativeAudioAndSubtitleTracks() async throws {
        let asset = AVURLAsset(url: try fixture(.multiAudioSubtitles))
        let (groups, tracks) = try await asset.load(.trackGroups, .tracks)
        let audio = tracks.filter { $0.mediaType == .audio }.map { NSNumber(value: $0.trackID) }
        let subtitles = tracks.filter { $0.mediaType == .subtitle }.map { NSNumber(value: $0.trackID) }
        XCTAssertEqual(groups.map(\.trackIDs), [audio, subtitles])
        let single = try await AVURLAsset(url: try fixture(.h264AAC)).load(.trackGroups)
        XCTAssertTrue(single.isEmpty)
    }
}

/// Cover art (an attached picture ffmpeg muxes in at test time) is an `artwork` item holding the image bytes.
final class AVAssetArtworkTests: XCTestCase {
    func test_coverArt_isAnArtworkItem_withTheImageBytes_M4AAndMP3() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-art-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cover = folder.appendingPathComponent("cover.png")
        let made = try Subprocess.run(
            "ffmpeg",
            ["-nostdin", "-v", "error", "-f", "lavfi", "-i", "color=red:s=64x48", "-frames:v", "1", cover.path])
        XCTAssertEqual(made.status, 0, made.stderr)
        let png = try Data(contentsOf: cover)
        for (name, source, extra, space, key) in [
            ("art.m4a", Fixture.audioOnly, [String](), AVMetadataKeySpace.iTunes, "covr"),
            ("art.mp3", Fixture.audioMP3, ["-id3v2_version", "3"], AVMetadataKeySpace.id3, "APIC"),
        ] {
            let output = folder.appendingPathComponent(name)
            let muxed = try Subprocess.run(
                "ffmpeg",
                [
                    "-nostdin", "-v", "error", "-i", try fixture(source).path, "-i", cover.path, "-map", "0:a", "-map",
                    "1",
                    "-c", "copy", "-disposition:v", "attached_pic",
                ] + extra + [output.path])
            XCTAssertEqual(muxed.status, 0, muxed.stderr)
            let asset = AVURLAsset(url: output)
            let common = try await asset.load(.commonMetadata)
            let art = try XCTUnwrap(
                AVMetadataItem.metadataItems(from: common, filteredByIdentifier: .commonIdentifierArtwork).first, name)
            XCTAssertEqual(art.dataValue, png, name)
            XCTAssertEqual(art.dataType, kCMMetadataBaseDataType_PNG, name)
            let all = try await asset.load(.metadata)
            XCTAssertTrue(
                all.contains {
                    $0.keySpace == space && ($0.key as? NSString) == key as NSString && $0.dataValue == png
                },
                name)
        }
    }
}
