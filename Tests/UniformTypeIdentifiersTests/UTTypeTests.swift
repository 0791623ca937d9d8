import AVFoundation
import Foundation
import ImageIO
import TestSupport
import UniformTypeIdentifiers
import XCTest

/// UTType: lookups by identifier, extension and MIME type, conformance, coding; and a thumbnail written the way an iOS
/// app writes it (`UTType.png.identifier as CFString`), read back from the file by the frame index in its pixels.
final class UTTypeTests: XCTestCase {
    func testStaticTypesCarryApplesIdentifiersAndTags() {
        let expected: [(UTType, String, String?, String?)] = [
            (.png, "public.png", "png", "image/png"),
            (.jpeg, "public.jpeg", "jpeg", "image/jpeg"),
            (.heic, "public.heic", "heic", "image/heic"),
            (.gif, "com.compuserve.gif", "gif", "image/gif"),
            (.tiff, "public.tiff", "tiff", "image/tiff"),
            (.bmp, "com.microsoft.bmp", "bmp", "image/bmp"),
            (.mpeg4Movie, "public.mpeg-4", "mp4", "video/mp4"),
            (.quickTimeMovie, "com.apple.quicktime-movie", "mov", "video/quicktime"),
            (.mpeg4Audio, "public.mpeg-4-audio", "m4a", "audio/mp4"),
            (.mp3, "public.mp3", "mp3", "audio/mpeg"),
            (.wav, "com.microsoft.waveform-audio", "wav", "audio/vnd.wave"),
            (.aiff, "public.aiff-audio", "aiff", "audio/aiff"),
            (.m3uPlaylist, "public.m3u-playlist", "m3u", "audio/mpegurl"),
            (.plainText, "public.plain-text", "txt", "text/plain"),
            (.json, "public.json", "json", "application/json"),
            (.image, "public.image", nil, nil),
            (.movie, "public.movie", nil, nil),
            (.video, "public.video", nil, nil),
            (.audio, "public.audio", nil, nil),
            (.audiovisualContent, "public.audiovisual-content", nil, nil),
            (.data, "public.data", nil, nil),
            (.content, "public.content", nil, nil),
            (.item, "public.item", nil, nil),
            (.text, "public.text", nil, nil),
            (.url, "public.url", nil, nil),
            (.fileURL, "public.file-url", nil, nil),
        ]
        for (type, identifier, fileExtension, mime) in expected {
            XCTAssertEqual(type.identifier, identifier)
            XCTAssertEqual(type.preferredFilenameExtension, fileExtension, identifier)
            XCTAssertEqual(type.preferredMIMEType, mime, identifier)
            XCTAssertTrue(type.isDeclared, identifier)
            XCTAssertFalse(type.isDynamic, identifier)
            XCTAssertEqual(UTType(identifier), type, "looked up by its identifier")
            XCTAssertEqual(type.description, identifier)
        }
        XCTAssertEqual(UTType("PUBLIC.PNG")?.identifier, "public.png", "identifiers ignore letter case")
        XCTAssertNil(UTType("com.example.not-declared"))
        XCTAssertEqual(UTType.jpeg.tags[.filenameExtension], ["jpeg", "jpg", "jpe"])
        XCTAssertEqual(UTType.m3uPlaylist.tags[.mimeType]?.contains("application/vnd.apple.mpegurl"), true)
        XCTAssertTrue(UTType.png.isPublic)
        XCTAssertFalse(UTType.gif.isPublic)
        XCTAssertEqual(UTTagClass.filenameExtension.rawValue, "public.filename-extension")
        XCTAssertEqual(UTTagClass.mimeType.rawValue, "public.mime-type")
    }

    func testLookupsByFilenameExtensionAndMIMEType() {
        XCTAssertEqual(UTType(filenameExtension: "jpg"), .jpeg)
        XCTAssertEqual(UTType(filenameExtension: "JPG"), .jpeg, "extensions ignore letter case")
        XCTAssertEqual(UTType(filenameExtension: "mp4"), .mpeg4Movie)
        XCTAssertEqual(UTType(filenameExtension: "mov"), .quickTimeMovie)
        XCTAssertEqual(UTType(filenameExtension: "m3u8"), .m3uPlaylist)
        XCTAssertEqual(UTType(filenameExtension: "ts"), .mpeg2TransportStream)
        XCTAssertEqual(UTType(filenameExtension: "wave"), .wav)
        // Two types declare m4a; the more specific one (Apple's m4a audio, AVFileType.m4a) is preferred.
        XCTAssertEqual(UTType(filenameExtension: "m4a")?.identifier, "com.apple.m4a-audio")
        XCTAssertEqual(
            UTType.types(tag: "m4a", tagClass: .filenameExtension, conformingTo: nil).map(\.identifier),
            ["com.apple.m4a-audio", "public.mpeg-4-audio"])
        XCTAssertEqual(UTType(filenameExtension: "m4a", conformingTo: .mpeg4Audio)?.conforms(to: .audio), true)
        XCTAssertNil(UTType(filenameExtension: "mp4", conformingTo: .audio), "an MPEG-4 movie is not audio")
        XCTAssertNil(UTType(filenameExtension: "nosuchextension"))

        XCTAssertEqual(UTType(mimeType: "image/png"), .png)
        XCTAssertEqual(UTType(mimeType: "IMAGE/JPEG"), .jpeg)
        XCTAssertEqual(UTType(mimeType: "video/mp4"), .mpeg4Movie)
        XCTAssertEqual(UTType(mimeType: "application/vnd.apple.mpegurl"), .m3uPlaylist)
        XCTAssertEqual(UTType(mimeType: "audio/x-wav"), .wav)
        XCTAssertEqual(UTType(mimeType: "audio/mpeg"), .mp3)
        XCTAssertNil(UTType(mimeType: "application/x-nothing-declares-this"))
        XCTAssertEqual(UTType(tag: "png", tagClass: .filenameExtension, conformingTo: .image), .png)
        XCTAssertNil(UTType(tag: "png", tagClass: .mimeType, conformingTo: nil), "png is an extension, not a MIME type")
    }

    func testFileNamesFromTypes() {
        let folder = URL(fileURLWithPath: "/tmp/posters")
        XCTAssertEqual(folder.appendingPathComponent("frame", conformingTo: .png).lastPathComponent, "frame.png")
        XCTAssertEqual(folder.appendingPathComponent("puppy.jpg", conformingTo: .jpeg).lastPathComponent, "puppy.jpg")
        XCTAssertEqual(
            folder.appendingPathComponent("puppy.jpg", conformingTo: .png).lastPathComponent, "puppy.jpg.png",
            "an extension of another type is kept and the type's appended")
        XCTAssertEqual(folder.appendingPathComponent("m", conformingTo: .image).lastPathComponent, "m", "no extension")
        var url = folder.appendingPathComponent("clip")
        url.appendPathExtension(for: .mpeg4Movie)
        XCTAssertEqual(url.lastPathComponent, "clip.mp4")
        url.appendPathExtension(for: .movie)
        XCTAssertEqual(url.lastPathComponent, "clip.mp4", "already a movie's extension")
        var playlist = folder
        playlist.appendPathComponent("index", conformingTo: .m3uPlaylist)
        XCTAssertEqual(playlist.path, "/tmp/posters/index.m3u")
    }

    func testConformanceFollowsApplesHierarchy() throws {
        XCTAssertTrue(UTType.png.conforms(to: .image))
        XCTAssertTrue(UTType.png.conforms(to: .data))
        XCTAssertTrue(UTType.png.conforms(to: .item))
        XCTAssertTrue(UTType.png.conforms(to: .content))
        XCTAssertTrue(UTType.png.conforms(to: .png), "a type conforms to itself")
        XCTAssertFalse(UTType.png.conforms(to: .jpeg))
        XCTAssertFalse(UTType.image.conforms(to: .png))
        XCTAssertTrue(UTType.heic.conforms(to: .image), "through public.heif-standard")
        XCTAssertFalse(UTType.heic.conforms(to: .heif))
        XCTAssertTrue(UTType.mpeg4Movie.conforms(to: .movie))
        XCTAssertTrue(UTType.mpeg4Movie.conforms(to: .audiovisualContent))
        XCTAssertFalse(UTType.mpeg4Movie.conforms(to: .video), "a movie may have sound; video has none")
        XCTAssertTrue(UTType.mpeg4Audio.conforms(to: .audio))
        XCTAssertTrue(UTType.mpeg4Audio.conforms(to: .mpeg4Movie))
        XCTAssertTrue(UTType.mp3.conforms(to: .audiovisualContent))
        XCTAssertFalse(UTType.mp3.conforms(to: .movie))
        XCTAssertTrue(UTType.m3uPlaylist.conforms(to: .text))
        XCTAssertTrue(UTType.m3uPlaylist.conforms(to: .playlist))
        XCTAssertTrue(UTType.json.conforms(to: .text))
        XCTAssertTrue(UTType.fileURL.conforms(to: .url))
        XCTAssertTrue(UTType.fileURL.conforms(to: .data))
        XCTAssertFalse(UTType.folder.conforms(to: .data))
        XCTAssertTrue(UTType.folder.conforms(to: .item))

        XCTAssertEqual(
            UTType.heic.supertypes.map(\.identifier).sorted(),
            ["public.content", "public.data", "public.heif-standard", "public.image", "public.item"])
        XCTAssertEqual(UTType.item.supertypes, [])
        XCTAssertTrue(UTType.image.isSupertype(of: .png))
        XCTAssertTrue(UTType.png.isSubtype(of: .image))
        XCTAssertFalse(UTType.png.isSubtype(of: .png))
        XCTAssertFalse(UTType.png.isSupertype(of: .png))
        let standard = try XCTUnwrap(UTType("public.heif-standard"))
        XCTAssertEqual(standard.preferredFilenameExtension, nil)
        XCTAssertTrue(UTType.heif.isSubtype(of: standard))
    }

    func testCodingRoundTripsAndKeepsUnknownIdentifiers() throws {
        let types: [UTType] = [.png, .mpeg4Movie, .m3uPlaylist]
        let data = try JSONEncoder().encode(types)
        XCTAssertEqual(String(decoding: data, as: UTF8.self), #"["public.png","public.mpeg-4","public.m3u-playlist"]"#)
        XCTAssertEqual(try JSONDecoder().decode([UTType].self, from: data), types)
        let unknown = try JSONDecoder().decode(UTType.self, from: Data(#""com.example.custom""#.utf8))
        XCTAssertEqual(unknown.identifier, "com.example.custom")
        XCTAssertFalse(unknown.isDeclared)
        XCTAssertTrue(unknown.conforms(to: unknown))
        XCTAssertFalse(unknown.conforms(to: .data))
        XCTAssertEqual(unknown.tags, [:])
        XCTAssertEqual(Set([UTType.png, UTType("public.PNG")!, .jpeg]).count, 2, "hashed like they compare")
    }

    /// A poster frame written as an iOS app writes it: `AVAssetImageGenerator`, then `CGImageDestination` with the
    /// type named by `UTType.png.identifier` / `UTType.jpeg.identifier`, the file named by its preferred extension.
    func testAThumbnailWrittenWithUTTypeReadsBackWithItsFrameIndex() throws {
        let movie = try Fixtures.url(.h264AAC)
        XCTAssertEqual(UTType(filenameExtension: movie.pathExtension)?.conforms(to: .movie), true)
        let generator = AVAssetImageGenerator(asset: AVURLAsset(url: movie))
        generator.requestedTimeToleranceBefore = .zero
        generator.requestedTimeToleranceAfter = .zero
        generator.maximumSize = CGSize(width: 320, height: 0)
        let image = try generator.copyCGImage(at: CMTime(value: 5, timescale: 2), actualTime: nil)
        XCTAssertEqual(FrameIndexReader.read(image: image)?.index, 75, "2.5 s at 30 fps")

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-uttype-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        for type in [UTType.png, UTType.jpeg] {
            let url = folder.appendingPathComponent("poster").appendingPathExtension(type.preferredFilenameExtension!)
            let destination = try XCTUnwrap(
                CGImageDestinationCreateWithURL(url as CFURL, type.identifier as CFString, 1, nil), type.identifier)
            CGImageDestinationAddImage(
                destination, image, [kCGImageDestinationLossyCompressionQuality: 0.9] as CFDictionary)
            XCTAssertTrue(CGImageDestinationFinalize(destination), type.identifier)
            XCTAssertEqual(UTType(filenameExtension: url.pathExtension), type)
            let decoded = try XCTUnwrap(StillImageFileDecoder.decode(url), type.identifier)
            XCTAssertEqual(decoded.width, 320)
            XCTAssertEqual(FrameIndexReader.read(image: decoded)?.index, 75, type.identifier)
        }
        // The types ImageIO writes are the ones UTType names; one it does not write is refused.
        XCTAssertEqual(
            CGImageDestinationCopyTypeIdentifiers() as? [String], [UTType.png.identifier, UTType.jpeg.identifier])
        XCTAssertNil(
            CGImageDestinationCreateWithURL(
                folder.appendingPathComponent("poster.gif") as CFURL, UTType.gif.identifier as CFString, 1, nil))
    }
}
