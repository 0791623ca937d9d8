import CoreMedia
import Foundation
import PlaybackEngine
import TestSupport
import XCTest

/// Event histories (OpenCombine's `TrackingSubscriber` style; DESIGN.md principle 8): each test drives the engine
/// with a sequence of commands and compares the full list of what it reported — every ``EngineEvent`` and seek
/// completion as a short string, sessions named A, B, … — with a literal list.
///
/// `bufferChanged` is left out (it follows how far the demuxer read when the engine looked). Each history was the
/// same on many repeated runs, also under load. Where commands must reach the engine between two of its steps (two
/// seeks both pending at once; a pause that a step already under way must not undo, see
/// ``testPauseRightAfterPlay()``), the test gives them from the engine thread while it delivers an event
/// (``EventHistory/perform(when:_:)``); otherwise commands come from the test thread once the history shows the
/// engine got where the command expects.
final class EngineEventHistoryTests: XCTestCase {
    private var harness: EngineHarness!

    override func tearDown() {
        harness?.shutdown()
        harness = nil
        super.tearDown()
    }

    private func makeHarness(clock: VirtualClock.Mode = .untimed) -> EngineHarness {
        let h = EngineHarness(clock: clock)
        harness = h
        return h
    }

    private static let fixture = Fixture.dumpH264FLAC

    private func seconds(_ value: Int64) -> CMTime { CMTime(value: value, timescale: 1) }

    /// Compares the settled history with `expected` (once it is at least as long, or the wait timed out), showing a
    /// diff on a mismatch.
    private func assertHistory(_ expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        _ = harness.history.wait(timeout: EngineHarness.timeout) { $0.count >= expected.count }
        let actual = harness.settledHistory()
        if actual != expected {
            let diff = LineDiff.unified(expected: expected, actual: actual, actualName: "this run") ?? ""
            XCTFail("history differs:\n\(diff)", file: file, line: line)
        }
    }

    /// End action pause: the item plays to its end, then the engine sets the rate to 0 itself and pauses.
    func testPlayToEndWithPause() throws {
        let h = makeHarness()
        let a = try h.makeSession(Self.fixture)
        h.engine.setEndAction(.pause)
        h.engine.setQueue([a])
        h.wait(for: "itemReady(A)")
        h.engine.setRate(1)
        h.wait(for: "itemPlayedToEnd(A)")
        assertHistory([
            "itemReady(A)", "timeControl(playing)", "itemPlayedToEnd(A)", "rateChanged(0.0)", "timeControl(paused)",
        ])
        XCTAssertEqual(h.engine.currentTime(of: a), CMTime(value: 4000, timescale: 1000))
    }

    /// End action advance with two items: B is prepared while A plays, A's end moves the queue to B, which plays on
    /// at the same rate; after B the queue is empty and the engine waits for an item.
    ///
    /// On a manual clock moved past A's end only once B is ready. On an untimed clock the history depends on a race
    /// in today's engine: B's preparation starts when A has been read to its end and runs on a background queue while
    /// A plays as fast as it decodes, so under load A can end first (`currentItemChanged(A→B)`,
    /// `timeControl(waiting(evaluatingBufferingRate))`, `itemReady(B)`, `timeControl(playing)`; seen once in 10 runs
    /// beside a build). The pictures and audio are the same either way (`PlaybackDumpTests`).
    func testQueueOfTwoAdvances() throws {
        let h = makeHarness(clock: .manual)
        let a = try h.makeSession(Self.fixture)
        let b = try h.makeSession(Self.fixture)
        h.engine.setEndAction(.advance)
        // From the engine thread as it delivers A's readiness: the start is reported before B, queued only now, can
        // be prepared.
        h.history.perform(when: "itemReady(A)") { [engine = h.engine] in
            engine.setRate(1)
            engine.setQueue([a, b])
        }
        h.engine.setQueue([a])
        h.wait(for: "itemReady(B)")
        h.clock.advance(by: seconds(5))
        h.wait(for: "currentItemChanged(A→B)")
        // B's clock starts at whatever the manual clock reads when the engine next steps (not where A ended), so
        // time moved before that step is not B's: move it on until B has played to its end too.
        h.advanceClock(by: seconds(5), until: "currentItemChanged(B→none)")
        assertHistory([
            "itemReady(A)", "timeControl(playing)", "itemReady(B)", "itemPlayedToEnd(A)", "currentItemChanged(A→B)",
            "itemPlayedToEnd(B)", "currentItemChanged(B→none)", "timeControl(waiting(noItemToPlay))",
        ])
    }

    /// A seek while paused jumps (periodic observers hear of the jump) and completes true once the picture at the
    /// target is shown.
    func testSeekWhilePaused() throws {
        let h = makeHarness()
        let a = try h.makeSession(Self.fixture)
        h.engine.setQueue([a])
        h.wait(for: "itemReady(A)")
        h.observePeriodically(every: seconds(1))
        h.engine.seek(a, to: seconds(2), mode: .exact, completion: h.seekCompletion)
        h.wait(for: "seek(true)")
        assertHistory(["itemReady(A)", "timeJumped(A)", "periodic(2/1)", "seek(true)"])
        XCTAssertEqual(h.engine.currentTime(of: a), seconds(2))
    }

    /// Two seeks given together: the first is superseded (false) as the second is asked for; only the second is
    /// performed (one jump) and completes true.
    ///
    /// The superseded completion keeps its place among the events (``EventOutbox/completeInOrder(_:_:)``): its
    /// `false` comes before the second seek's jump also when the second lands in the iteration that took both (its
    /// picture was decoded already: decoders that ran ahead of a slow engine thread, seen under ThreadSanitizer) —
    /// Apple completes a superseded seek at once.
    func testTwoSeeksBackToBack() throws {
        let h = makeHarness()
        let a = try h.makeSession(Self.fixture)
        h.history.perform(when: "itemReady(A)") { [engine = h.engine, completion = h.seekCompletion] in
            engine.seek(a, to: CMTime(value: 1, timescale: 1), mode: .exact, completion: completion)
            engine.seek(a, to: CMTime(value: 3, timescale: 1), mode: .exact, completion: completion)
        }
        h.engine.setQueue([a])
        h.wait(for: "seek(true)")
        assertHistory(["itemReady(A)", "seek(false)", "timeJumped(A)", "seek(true)"])
        XCTAssertEqual(h.engine.currentTime(of: a), seconds(3))
    }

    /// A seek on an item that is queued but not current completes false at once and changes nothing.
    func testSeekOnItemThatIsNotCurrent() throws {
        let h = makeHarness()
        let a = try h.makeSession(Self.fixture)
        let b = try h.makeSession(Self.fixture)
        h.engine.setQueue([a, b])
        h.wait(for: "itemReady(A)")
        h.engine.seek(b, to: seconds(1), mode: .exact, completion: h.seekCompletion)
        assertHistory(["itemReady(A)", "seek(false)"])
        XCTAssertEqual(h.engine.currentTime(of: a), .zero)
    }

    /// Play then pause at once on a manual clock: both changes are reported, in order, and no time passes.
    ///
    /// Both commands are given on the engine thread as it delivers `itemReady(A)`, i.e. between two of its steps.
    /// Given from another thread, today's engine may report `timeControl(playing)`, `timeControl(paused)` once more
    /// after them: a step that read rate 1 before the pause restarts the clock (`startIfNeeded` with the rate it read)
    /// and the next step pauses again (seen in about 1 of 20 runs).
    func testPauseRightAfterPlay() throws {
        let h = makeHarness(clock: .manual)
        let a = try h.makeSession(Self.fixture)
        h.history.perform(when: "itemReady(A)") { [engine = h.engine] in
            engine.setRate(1)
            engine.setRate(0)
        }
        h.engine.setQueue([a])
        h.wait(for: "timeControl(paused)")
        assertHistory(["itemReady(A)", "timeControl(playing)", "timeControl(paused)"])
        XCTAssertEqual(h.engine.currentTime(of: a), .zero)
    }

    /// A file that does not exist fails to prepare; playing it then waits (the engine does not skip it), as a player
    /// just asked to play does (the reason its owner announced at once: the failure stays the last change).
    func testMissingFileFails() throws {
        let h = makeHarness()
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-missing-\(UUID()).mkv")
        let a = h.makeSession(location: missing.path)
        h.engine.setQueue([a])
        h.wait(for: "itemFailed(A)")
        h.engine.setRate(1)
        h.wait(for: "timeControl(waiting(evaluatingBufferingRate))")
        assertHistory(["itemFailed(A)", "timeControl(waiting(evaluatingBufferingRate))"])
    }

    /// A file that is not media (text, made in a temporary folder) fails to prepare.
    func testNonMediaFileFails() throws {
        let h = makeHarness()
        let folder = try temporaryFolder(self)
        let file = folder.appendingPathComponent("notes.mkv")
        try Data("This is not a movie.\n".utf8).write(to: file)
        let a = h.makeSession(location: file.path)
        h.engine.setQueue([a])
        h.wait(for: "itemFailed(A)")
        assertHistory(["itemFailed(A)"])
    }

    /// Stepping while playing pauses first: the engine reports the rate it set (0) and the pause, then the step's
    /// jump. (Play and step are given between two engine steps, as in ``testPauseRightAfterPlay()``, whose note on
    /// commands from other threads applies here too.)
    func testStepWhilePlayingPauses() throws {
        let h = makeHarness(clock: .manual)
        let a = try h.makeSession(Self.fixture)
        h.engine.setQueue([a])
        h.wait(for: "itemReady(A)")
        h.history.perform(when: "timeControl(playing)") { [engine = h.engine] in engine.step(a, by: 1) }
        h.engine.setRate(1)
        h.wait(for: "timeJumped(A)")
        assertHistory([
            "itemReady(A)", "timeControl(playing)", "rateChanged(0.0)", "timeControl(paused)", "timeJumped(A)",
        ])
    }

    /// A forward end time ends the item there, as its end would (end action pause); periodic observers hear of the
    /// start and of the crossing, at exact times, on a manual clock moved past the end in one go.
    func testForwardEndTime() throws {
        let h = makeHarness(clock: .manual)
        let a = try h.makeSession(Self.fixture)
        h.engine.setForwardPlaybackEndTime(seconds(1), for: a)
        h.engine.setQueue([a])
        h.wait(for: "itemReady(A)")
        h.observePeriodically(every: seconds(1))
        h.engine.setRate(1)
        h.wait(for: "periodic(0/1)")
        h.clock.advance(by: seconds(2))
        h.wait(for: "itemPlayedToEnd(A)")
        assertHistory([
            "itemReady(A)", "timeControl(playing)", "periodic(0/1)", "itemPlayedToEnd(A)", "rateChanged(0.0)",
            "timeControl(paused)", "periodic(1/1)",
        ])
        XCTAssertEqual(h.engine.currentTime(of: a), seconds(1))
    }
}
