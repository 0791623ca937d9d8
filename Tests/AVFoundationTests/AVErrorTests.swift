import TestSupport
import XCTest

@testable import AVFoundation

/// The README's "Errors" table, row by row: each bad input gives its code, a sentence naming the
/// file, and the underlying FFmpeg or POSIX error; nothing crashes or hangs.
final class AVErrorTests: XCTestCase {
    private func assertLoadFails(
        _ url: URL, code: AVError.Code, mentions words: [String], underlyingDomain: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) async {
        guard let error = await loadError(url, file: file, line: line) else { return }
        XCTAssertEqual(error.domain, AVFoundationErrorDomain, file: file, line: line)
        XCTAssertEqual(error.code, code.rawValue, "\(error.localizedDescription)", file: file, line: line)
        for w in words {
            XCTAssertTrue(
                error.localizedDescription.contains(w), "“\(error.localizedDescription)” lacks \(w)",
                file: file, line: line)
        }
        let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlyingDomain {
            XCTAssertEqual(underlying?.domain, underlyingDomain, file: file, line: line)
        }
        XCTAssertNotNil(error.userInfo[NSURLErrorKey], file: file, line: line)
    }

    func test_missingFile() async throws {
        let url = try Fixtures.directory().appendingPathComponent("no-such-file.mp4")
        await assertLoadFails(
            url, code: .contentIsUnavailable, mentions: ["no-such-file.mp4", "doesn’t exist"],
            underlyingDomain: NSPOSIXErrorDomain)
    }

    func test_directory() async throws {
        await assertLoadFails(try Fixtures.directory(), code: .fileFormatNotRecognized, mentions: ["folder"])
    }

    func test_zeroByteFile() async throws {
        await assertLoadFails(try fixture(.empty), code: .fileFormatNotRecognized, mentions: ["empty.mp4", "empty"])
    }

    func test_textFile() async throws {
        await assertLoadFails(
            try fixture(.text), code: .fileFormatNotRecognized, mentions: ["text.mp4", "not a media file"],
            underlyingDomain: AVError.ffmpegErrorDomain)
    }

    func test_truncatedFile() async throws {
        await assertLoadFails(
            try fixture(.truncated), code: .fileFailedToParse, mentions: ["truncated.mp4", "damaged"],
            underlyingDomain: AVError.ffmpegErrorDomain)
    }

    func test_corruptHeader() async throws {
        await assertLoadFails(
            try fixture(.corruptHeader), code: .fileFailedToParse, mentions: ["corrupt_header.mp4"],
            underlyingDomain: AVError.ffmpegErrorDomain)
    }

    func test_unsupportedCodec_loadsButIsNotPlayable() async throws {
        let asset = AVURLAsset(url: try fixture(.unknownCodec))
        let (tracks, playable) = try await asset.load(.tracks, .isPlayable)
        XCTAssertFalse(playable)
        XCTAssertEqual(tracks.map(\.mediaType), [.video])
        let trackPlayable = try await tracks[0].load(.isPlayable)
        XCTAssertFalse(trackPlayable)
        // The error a player item reports for it.
        let error = try XCTUnwrap(asset.playabilityError()) as NSError
        XCTAssertEqual(error.code, AVError.Code.decoderNotFound.rawValue)
        XCTAssertTrue(error.localizedDescription.contains("no decoder"), error.localizedDescription)
    }

    func test_unreadablePermissions() async throws {
        guard getuid() != 0 else {
            throw XCTSkip("root reads any file; AvplayTests covers this row by running avplay as nobody")
        }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("unreadable-\(getpid()).mp4")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: try fixture(.videoOnly), to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        chmod(copy.path, 0)
        await assertLoadFails(copy, code: .contentIsNotAuthorized, mentions: ["permission"])
    }

    func test_corruptMiddle_andTruncatedFaststart_stillLoad() async throws {
        for f in [Fixture.corruptMiddle, .truncatedFaststart] {
            let asset = AVURLAsset(url: try fixture(f))
            let (duration, playable) = try await asset.load(.duration, .isPlayable)
            XCTAssertTrue(playable, f.rawValue)
            XCTAssertEqual(duration.seconds, 10, accuracy: 0.1, f.rawValue)
        }
    }

    func test_unsupportedScheme() async throws {
        await assertLoadFails(
            URL(string: "gopher2://example.invalid/a.mp4")!, code: .formatUnsupported, mentions: ["scheme"])
    }

    func test_deadServer_failsWithoutHanging() async throws {
        // Port 9 on loopback: nothing listens, the connection is refused at once.
        let url = URL(string: "http://127.0.0.1:9/x.mp4")!
        await assertLoadFails(
            url, code: .contentIsUnavailable, mentions: ["reached"], underlyingDomain: NSURLErrorDomain)
        // As an app tells "cannot connect" from a broken stream on Apple's systems: the URL loading error underneath,
        // the FFmpeg error under that.
        guard let error = await loadError(url) else { return }
        let underlying = try XCTUnwrap(error.userInfo[NSUnderlyingErrorKey] as? NSError)
        XCTAssertEqual(underlying.code, NSURLErrorCannotConnectToHost)
        XCTAssertEqual(underlying.userInfo[NSURLErrorFailingURLErrorKey] as? URL, url)
        XCTAssertEqual((underlying.userInfo[NSUnderlyingErrorKey] as? NSError)?.domain, AVError.ffmpegErrorDomain)
    }

    func test_errorBridging() {
        let e = AVError(.decoderNotFound, userInfo: [NSLocalizedDescriptionKey: "x"])
        let ns = e as NSError
        XCTAssertEqual(ns.domain, "AVFoundationErrorDomain")
        XCTAssertEqual(ns.code, -11833)
        XCTAssertEqual(AVError.errorDomain, AVFoundationErrorDomain)
        XCTAssertEqual(AVError.decoderNotFound, .decoderNotFound)
        XCTAssertEqual(AVError.Code.fileFormatNotRecognized.rawValue, -11828)
        XCTAssertEqual(AVError.Code.contentIsUnavailable.rawValue, -11863)
    }
}
