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
