import CoreMedia
import Foundation
import PlaybackEngine
import TestSupport
import XCTest

/// Golden playback dumps (Media3's `PlaybackOutput` + `DumpFileAsserts`; DESIGN.md principle 8): each test plays the
/// dump fixture on an untimed virtual clock and compares every presented picture (item time, frame index read from
/// its pixels) and every captured audio chunk (position, hash) with `Golden/<test>.dump`.
///
/// `make golden` (`OAVF_UPDATE_GOLDEN=1`) rewrites the files from today's engine; review their diff before
/// committing. Each scenario was run many times in a row, also under load, before its file was checked in: a
/// mismatch is a behaviour change, not noise.
final class PlaybackDumpTests: XCTestCase {
    private var harness: EngineHarness!

    override func setUp() {
        super.setUp()
        harness = EngineHarness(clock: .untimed)
    }

    override func tearDown() {
        harness.shutdown()
        harness = nil
        super.tearDown()
    }

    private static let fixture = Fixture.dumpH264FLAC

    /// Item time `value` milliseconds (the fixture's Matroska timestamps are milliseconds).
    private func ms(_ value: Int64) -> CMTime { CMTime(value: value, timescale: 1000) }

    /// Makes A (the dump fixture), puts it in the queue with `endAction`, and waits until it is ready and its first
    /// picture is shown (so the commands that follow never race the first picture).
    private func startA(endAction: EndAction = .pause) throws -> ItemSession {
        let a = try harness.makeSession(Self.fixture)
        harness.engine.setEndAction(endAction)
        harness.engine.setQueue([a])
        harness.wait(for: "itemReady(A)")
        harness.waitForPictures(1)
        return a
    }

    /// Compares the recorded output with `Golden/<name>.dump`, with a footer saying where `session` ended.
    private func assertDump(
        _ name: String, scenario: String, notes: [String] = [], audio: PlaybackDump.AudioDetail = .hashes,
        endOf sessions: [ItemSession], file: StaticString = #filePath, line: UInt = #line
    ) {
        var dump = harness.dump(
            scenario: scenario,
            notes: ["fixture: \(Self.fixture.rawValue), untimed virtual clock, capturing audio sink"] + notes,
            audio: audio)
        for s in sessions {
            dump.footer.append("end \(harness.name(of: s)) \(PlaybackDump.exact(harness.engine.currentTime(of: s)))")
        }
        let stats = harness.engine.statistics
        dump.footer.append("statistics: \(stats.framesPresented) presented, \(stats.framesDropped) dropped")
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Golden/\(name).dump")
        if let failure = GoldenFile.verify(dump.text, file: golden, regenerate: "make golden") {
            XCTFail(failure, file: file, line: line)
        }
    }

    /// Plays the whole item at rate 1: every picture once, in order; all 4 s of audio, gapless.
    func testPlayToEnd() throws {
        let a = try startA()
        harness.engine.setRate(1)
        harness.wait(for: "itemPlayedToEnd(A)")
        assertDump(
            "play-to-end", scenario: "A played from 0 to its end at rate 1 (end action pause)",
            notes: ["commands: setQueue([A]), setRate(1); until itemPlayedToEnd(A)"], endOf: [a])
    }

    /// An exact seek to 1.58 s lands inside the second GOP on a B-frame (frame 47, 1.567 s, decoded from the
    /// keyframe at 1 s); playback then runs to a forward end time 1 s later.
    func testExactSeekIntoGOPThenPlayOneSecond() throws {
        let a = try startA()
        harness.engine.setForwardPlaybackEndTime(ms(2580), for: a)
        harness.engine.seek(a, to: ms(1580), mode: .exact, completion: harness.seekCompletion)
        harness.wait(for: "seek(true)")
        harness.engine.setRate(1)
        harness.wait(for: "itemPlayedToEnd(A)")
        assertDump(
            "exact-seek-into-gop", scenario: "A seeked exactly to 1580/1000 (B-frame 47), played to 2580/1000",
            notes: [
                "commands: setQueue([A]), setForwardPlaybackEndTime(2580/1000), seek(A, 1580/1000, exact),",
                "  setRate(1) once the seek completed; until itemPlayedToEnd(A)",
            ],
            endOf: [a])
    }

    /// Rate 2: every picture is still presented on an untimed clock; audio goes through the time-domain time-pitch
    /// stage.
    func testPlayAtRateTwo() throws {
        let a = try startA()
        harness.engine.setRate(2)
        harness.wait(for: "itemPlayedToEnd(A)")
        assertDump(
            "rate-2", scenario: "A played from 0 to its end at rate 2 (time-domain time-pitch)",
            notes: [
                "commands: setQueue([A]), setRate(2); until itemPlayedToEnd(A)",
                "the time-pitch stage's output was bit-identical in every repeated run, so it is hashed",
            ],
            endOf: [a])
    }

    /// Paused stepping: three single steps forward, two back, then a step of 3 and one of -2.
    func testStepForwardAndBackWhilePaused() throws {
        let a = try startA()
        var jumps = 0
        for count in [1, 1, 1, -1, -1, 3, -2] {
            harness.waitForDecoderToSettle(a)
            harness.engine.step(a, by: count)
            jumps += 1
            harness.wait(for: "timeJumped(A)", count: jumps)
        }
        assertDump(
            "step-paused", scenario: "A paused at 0, stepped +1 +1 +1 -1 -1 +3 -2",
            notes: [
                "commands: setQueue([A]), then step(A, by:) each once the previous one's timeJumped(A) came and the",
                "  decoder has filled its queue",
                "every step lands one picture per count away: the backward steps come from the picture cache,",
                "  which links each picture to the one decoded right before it (Matroska's 33 ms durations leave",
                "  1 ms holes between frames 33.3 ms apart, which an exact seek to just before a picture misread)",
            ],
            endOf: [a])
    }

    /// Two items with end action advance: B follows A without a gap, its audio continues A's.
    func testQueueOfTwoAdvancesGaplessly() throws {
        let a = try harness.makeSession(Self.fixture)
        let b = try harness.makeSession(Self.fixture)
        harness.engine.setEndAction(.advance)
        harness.engine.setQueue([a, b])
        harness.wait(for: "itemReady(A)")
        harness.waitForPictures(1)
        harness.engine.setRate(1)
        harness.wait(for: "currentItemChanged(B→none)")
        assertDump(
            "queue-of-two", scenario: "A then B (the same file), end action advance, rate 1",
            notes: [
                "commands: setQueue([A, B]), setRate(1); until currentItemChanged(B→none)",
                "A's audio is exactly 192000 frames: B's chunks repeat A's hashes when the change is gapless",
            ],
            endOf: [])
    }

    /// Reverse play from the end: after playing to the end, rate -1 runs back to a reverse end time of 3 s.
    func testReversePlayFromTheEnd() throws {
        let a = try startA()
        harness.engine.setRate(1)
        harness.wait(for: "itemPlayedToEnd(A)")
        harness.resetRecording()
        harness.engine.setReversePlaybackEndTime(ms(3000), for: a)
        harness.engine.setRate(-1)
        harness.wait(for: "itemPlayedToEnd(A)", count: 2)
        assertDump(
            "reverse-from-end", scenario: "A played to its end, then at rate -1 back to a reverse end time 3000/1000",
            notes: [
                "commands: setQueue([A]), setRate(1); at itemPlayedToEnd(A): setReversePlaybackEndTime(3000/1000),",
                "  setRate(-1); until itemPlayedToEnd(A) again. Recorded from the reverse start only.",
            ],
            endOf: [a])
    }
}
