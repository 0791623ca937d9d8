import CoreMedia
import Foundation
import PlaybackEngine
import TestSupport
import XCTest

/// Events are as of a command: the engine hands each event with the sequence number of the last command it had
/// applied, and answers every rate command with the time control it reached — changed or not — so an owner that set
/// a rate provisionally can tell a stale report (as of an earlier command) from the answer, and never has to decide
/// from its own copy.
final class EngineEventSequenceTests: XCTestCase {
    /// Time-control reports with the command each is as of.
    private final class Reports: Sendable {
        private let entries = Awaitable<[(TimeControl, UInt64)]>([])

        func record(_ event: EngineEvent, asOf: UInt64) {
            guard case .timeControlChanged(let t) = event else { return }
            entries.update { $0.append((t, asOf)) }
        }

        /// The first report as of `sequence` or later, waiting for it.
        func answer(to sequence: UInt64) -> TimeControl? {
            entries.wait { $0.contains { $0.1 >= sequence } }
            return entries.current.first { $0.1 >= sequence }?.0
        }

        /// Waits for a report of `t` as of `sequence` or later; whether it arrived.
        func waitFor(_ t: TimeControl, asOf sequence: UInt64) -> Bool {
            entries.wait { $0.contains { $0.0 == t && $0.1 >= sequence } }
        }
    }

    func test_everyRateCommand_isAnsweredWithTheTimeControlReached_changedOrNot() throws {
        let h = EngineHarness(clock: .manual)
        defer { h.shutdown() }
        let reports = Reports()
        h.engine.onEvent = { event, asOf in reports.record(event, asOf: asOf) }
        let a = try h.makeSession(.dumpH264FLAC)
        h.engine.setQueue([a])

        let play = h.engine.setRate(1)
        XCTAssertGreaterThan(play, 0)
        // Preparing, then playing: the first report as of the command is the waiting one or playing.
        let first = reports.answer(to: play)
        XCTAssertNotNil(first, "a report as of the play command")
        XCTAssertTrue(
            first == .playing || first == .waiting(.evaluatingBufferingRate), "got \(String(describing: first))")

        // Already playing at 1: a rate of 2 leaves the time control as it was, and the engine still answers.
        XCTAssertTrue(reports.waitFor(.playing, asOf: play), "playing once ready")
        let faster = h.engine.setRate(2)
        XCTAssertGreaterThan(faster, play)
        XCTAssertEqual(reports.answer(to: faster), .playing, "the unchanged time control is confirmed")

        let pause = h.engine.setRate(0)
        XCTAssertEqual(reports.answer(to: pause), .paused)
    }
}
