import AVFoundation
import TestSupport
import XCTest

final class AVMetadataTests: XCTestCase {
    func test_mp4_commonMetadata() async throws {
        let asset = AVURLAsset(url: try fixture(.h264AAC))
        let (common, all, formats) = try await asset.load(.commonMetadata, .metadata, .availableMetadataFormats)
        func value(_ key: AVMetadataKey) -> String? { common.first { $0.commonKey == key }?.stringValue }
        XCTAssertEqual(value(.commonKeyTitle), "OpenAVFoundation Test")
        XCTAssertEqual(value(.commonKeyArtist), "Fixture Artist")
        XCTAssertEqual(value(.commonKeyAlbumName), "Fixture Album")
        XCTAssertTrue(common.allSatisfy { $0.keySpace == .common })
        XCTAssertEqual(formats, [.iTunesMetadata])

        let title = AVMetadataItem.metadataItems(from: all, filteredByIdentifier: .commonIdentifierTitle)
        XCTAssertEqual(title.first?.stringValue, "OpenAVFoundation Test")
        let iTunesTitle = AVMetadataItem.metadataItems(from: all, withKey: "\u{a9}nam", keySpace: .iTunes)
        XCTAssertEqual(iTunesTitle.first?.identifier?.rawValue, "itsk/%A9nam")
        let byCommonKey = AVMetadataItem.metadataItems(
            from: common, withKey: AVMetadataKey.commonKeyArtist.rawValue, keySpace: .common)
        XCTAssertEqual(byCommonKey.first?.stringValue, "Fixture Artist")

        let creation = try await asset.load(.creationDate)
        let date = try await XCTUnwrap(creation).load(.dateValue)
        XCTAssertEqual(date, ISO8601DateFormatter().date(from: "2020-01-02T03:04:05Z"))
    }

    func test_mp3_id3Metadata() async throws {
        let asset = AVURLAsset(url: try fixture(.audioMP3))
        let (all, formats) = try await asset.load(.metadata, .availableMetadataFormats)
        XCTAssertEqual(formats, [.id3Metadata])
        let title = all.first { $0.commonKey == .commonKeyTitle }
        XCTAssertEqual(title?.keySpace, .id3)
        XCTAssertEqual(title?.identifier?.rawValue, "id3/TIT2")
        XCTAssertEqual(title?.stringValue, Fixture.audioMP3.facts.metadata["title"])
    }

    /// audio.mp3 retagged by ffmpeg at test time: each ID3 frame the reader produces is found by Apple's key constant
    /// (`AVMetadataItem.metadataItems(from:withKey:keySpace:)`, as KDEAudioPlayer reads the track number).
    func test_mp3_id3Frames_foundByApplesKeyConstants() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-id3-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("tagged.mp3")
        let tags: [(String, String, AVMetadataKey)] = [
            ("album", "Fixture Album", .id3MetadataKeyAlbumTitle),
            ("album_artist", "Fixture Band", .id3MetadataKeyBand),
            ("composer", "Fixture Composer", .id3MetadataKeyComposer), ("date", "2020", .id3MetadataKeyRecordingTime),
            ("genre", "Test Tones", .id3MetadataKeyContentType), ("copyright", "CC0", .id3MetadataKeyCopyright),
            ("track", "3/12", .id3MetadataKeyTrackNumber),
            ("disc", "1/2", .id3MetadataKeyPartOfASet), ("publisher", "Fixture Label", .id3MetadataKeyPublisher),
            ("language", "eng", .id3MetadataKeyLanguage),
        ]
        var arguments = [
            "-nostdin", "-v", "error", "-i", try fixture(.audioMP3).path, "-c", "copy", "-id3v2_version", "4",
        ]
        for (tag, value, _) in tags { arguments += ["-metadata", "\(tag)=\(value)"] }
        // Not bitexact: the muxer then writes its own name as the encoder (`TSSE`), which a `-metadata` cannot replace.
        let result = try Subprocess.run("ffmpeg", arguments + [output.path])
        XCTAssertEqual(result.status, 0, result.stderr)

        let all = try await AVURLAsset(url: output).load(.metadata)
        for (tag, value, key) in tags {
            let found = AVMetadataItem.metadataItems(from: all, withKey: key, keySpace: .id3)
            XCTAssertEqual(found.count, 1, tag)
            XCTAssertEqual(found.first?.stringValue, value, tag)
            XCTAssertEqual(found.first?.identifier?.rawValue, "id3/\(key.rawValue)", tag)
        }
        let encoder = AVMetadataItem.metadataItems(
            from: all, withKey: AVMetadataKey.id3MetadataKeyEncodedWith, keySpace: .id3)
        XCTAssertEqual(encoder.count, 1)
        XCTAssertEqual(
            encoder.first?.stringValue?.hasPrefix("Lavf"), true, "\(String(describing: encoder.first?.stringValue))")
    }

    func test_identifiers_keySpacesAndKeys_roundTrip() {
        let cases: [(AVMetadataKeySpace, String, String)] = [
            (.id3, "TIT2", "id3/TIT2"), (.common, "title", "common/title"), (.iTunes, "\u{a9}nam", "itsk/%A9nam"),
            (.icy, "StreamTitle", "icy/StreamTitle"),
            (.hlsDateRange, "X-COM-EXAMPLE-AD-ID", "lsdr/X-COM-EXAMPLE-AD-ID"),
            (.quickTimeMetadata, "com.apple.quicktime.title", "mdta/com.apple.quicktime.title"),
            (.ffmpeg, "clé/€", "org.ffmpeg/cl%E9%2F%E2%82%AC"),
        ]
        for (space, key, raw) in cases {
            let identifier = AVMetadataItem.identifier(forKey: key, keySpace: space)
            XCTAssertEqual(identifier?.rawValue, raw)
            XCTAssertEqual(AVMetadataItem.keySpace(forIdentifier: AVMetadataIdentifier(rawValue: raw)), space, raw)
            XCTAssertEqual(AVMetadataItem.key(forIdentifier: AVMetadataIdentifier(rawValue: raw)) as? String, key, raw)
        }
        XCTAssertEqual(AVMetadataIdentifier.id3MetadataTitleDescription.rawValue, "id3/TIT2")
        XCTAssertEqual(AVMetadataIdentifier.icyMetadataStreamTitle.rawValue, "icy/StreamTitle")
        XCTAssertNil(AVMetadataItem.keySpace(forIdentifier: AVMetadataIdentifier(rawValue: "no-slash")))
        XCTAssertNil(AVMetadataItem.key(forIdentifier: AVMetadataIdentifier(rawValue: "/x")))
    }
}
