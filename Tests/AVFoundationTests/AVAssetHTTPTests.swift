import AVFoundation
import TestSupport
import XCTest

/// Progressive HTTP through libavformat, against a loopback server.
final class AVAssetHTTPTests: XCTestCase {
    var server: HTTPTestServer!

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    func test_loadsOverHTTP_likeTheLocalFile() async throws {
        let remote = AVURLAsset(url: server.url(Fixture.h264AAC.rawValue))
        let local = AVURLAsset(url: try fixture(.h264AAC))
        let (rd, rt) = try await remote.load(.duration, .tracks)
        let (ld, lt) = try await local.load(.duration, .tracks)
        XCTAssertEqual(rd, ld)
        XCTAssertEqual(rd.timescale, ld.timescale)
        XCTAssertEqual(rt.map(\.mediaType), lt.map(\.mediaType))
    }

    func test_httpStatuses_mapToCodes() async throws {
        let rows: [(Int, AVError.Code, String)] = [
            (404, .contentIsUnavailable, "404"),
            (403, .contentIsNotAuthorized, "refused"),
            (500, .serverIncorrectlyConfigured, "5xx"),
        ]
        for (status, code, phrase) in rows {
            guard let error = await loadError(server.url("status/\(status)")) else { continue }
            XCTAssertEqual(error.domain, AVFoundationErrorDomain)
            XCTAssertEqual(error.code, code.rawValue, "HTTP \(status): \(error.localizedDescription)")
            XCTAssertTrue(error.localizedDescription.contains(phrase), error.localizedDescription)
            XCTAssertEqual((error.userInfo[NSUnderlyingErrorKey] as? NSError)?.domain, AVError.ffmpegErrorDomain)
        }
    }
}
