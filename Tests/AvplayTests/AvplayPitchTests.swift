import Foundation
import TestSupport
import XCTest

/// `--pitch` chooses the item's audioTimePitchAlgorithm; a 3 s file at rate 2 ends in about 1.5 s.
final class AvplayPitchTests: XCTestCase {
    private func run(_ arguments: [String]) throws -> (status: Int32, seconds: Double, stderr: String) {
        let r = try Subprocess.run(
            AvplayInfoTests.binary.path, arguments, changes: ["SDL_AUDIODRIVER": "dummy", "DISPLAY": nil], timeout: 30)
        return (r.status, r.seconds, r.stderr)
    }

    func test_pitchAlgorithms_playAtRate2() throws {
        let file = try Fixtures.url(.audioOnly).path
        for name in ["timedomain", "spectral", "varispeed"] {
            let r = try run(["--quiet", "--no-window", "--pitch", name, "--rate", "2", file])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            XCTAssertLessThan(r.seconds, 2.8, "\(name): 3 s of media at rate 2")
        }
    }

    func test_unknownPitch_isAUsageError() throws {
        let r = try run(["--pitch", "bogus", try Fixtures.url(.audioOnly).path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--pitch takes"), r.stderr)
    }
}
