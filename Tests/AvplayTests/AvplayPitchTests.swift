import Foundation
import TestSupport
import XCTest

/// `--pitch` chooses the item's audioTimePitchAlgorithm, and a file plays to its end at the `--rate` asked for. How
/// each algorithm sounds at each rate is measured in-process on a virtual clock (TimePitchTests, AVPlayerRateTests);
/// here the command line's plumbing is checked from its event log, without timing the run.
final class AvplayPitchTests: XCTestCase {
    private func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let r = try Subprocess.run(
            AvplayInfoTests.binary.path, arguments, changes: ["SDL_AUDIODRIVER": "dummy", "DISPLAY": nil], timeout: 30)
        return (r.status, r.stdout, r.stderr)
    }

    func test_pitchAlgorithms_playAtRate2() throws {
        let file = try Fixtures.url(.audioOnly).path
        for (name, rawValue) in [("timedomain", "TimeDomain"), ("spectral", "Spectral"), ("varispeed", "Varispeed")] {
            let r = try run(["--events", "--no-window", "--pitch", name, "--rate", "2", file])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr)")
            let events = r.stdout.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            XCTAssertTrue(events.contains { $0["event"] as? String == "rate" && $0["rate"] as? Double == 2 }, r.stdout)
            XCTAssertTrue(
                events.contains { $0["status"] as? String == "readyToPlay" && $0["pitch"] as? String == rawValue },
                "\(name): \(r.stdout)")
            XCTAssertTrue(events.contains { $0["event"] as? String == "end" }, "\(name) plays to its end: \(r.stdout)")
        }
    }

    func test_unknownPitch_isAUsageError() throws {
        let r = try run(["--pitch", "bogus", try Fixtures.url(.audioOnly).path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--pitch takes"), r.stderr)
    }
}
