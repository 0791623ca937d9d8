import CoreMedia
import Foundation
import PlaybackEngine
import TestSupport
import XCTest

/// Reads come from the engine's published snapshot, with commands posted but not applied yet laid over it: a
/// pause freezes the playhead the caller reads at once, and the engine then freezes playback exactly there.
final class EngineSnapshotTests: XCTestCase {
    /// An engine on the host clock without an audio device, playing `fixture`'s video.
    private func makeEngine(_ fixture: Fixture) throws -> (PlayerEngine, ItemSession) {
        let engine = PlayerEngine(configuration: EngineConfiguration(virtualClock: nil) { nil })
        let session = ItemSession(
            descriptor: ItemDescriptor(
                location: try Fixtures.url(fixture).path, streamPreferences: StreamPreferences(),
                duration: CMTime(seconds: fixture.facts.duration ?? 3, preferredTimescale: 1)),
            audioFormat: engine.audioFormat)
        return (engine, session)
    }

    /// Waits for `condition` (the engine's published state: ``Poll``).
    private func wait(_ what: String, _ condition: () -> Bool) {
        if !Poll.until(condition) { XCTFail("timed out waiting for \(what)") }
    }

    func test_pause_freezesWhatTheCallerReads_atOnce_andTheEngineAgrees() throws {
        let (engine, session) = try makeEngine(.videoOnly)
        defer { engine.shutdown() }
        engine.setQueue([session])
        engine.setRate(1)
        wait("playing") { engine.currentTime(of: session).seconds > 0.2 }
        engine.setRate(0)
        let frozen = engine.currentTime(of: session)
        XCTAssertEqual(engine.currentRate, 0, "the rate reads back at once")
        XCTAssertGreaterThan(frozen.seconds, 0.2)
        // Whenever the engine gets to the pause, it freezes where the caller saw it.
        wait("the engine applied the pause") { engine.snapshot.rate == 0 && !engine.snapshot.clock.isRunning }
        XCTAssertEqual(engine.currentTime(of: session), frozen)
        // More engine iterations while paused (commands it applied after the pause), and the time stays.
        let applied = engine.snapshot.processed
        engine.setVolume(1, muted: false)
        wait("the engine applied a command after the pause") { engine.snapshot.processed > applied }
        XCTAssertEqual(engine.currentTime(of: session), frozen, "still frozen")

        // Playing again starts from exactly there.
        engine.setRate(1)
        XCTAssertEqual(engine.currentRate, 1)
        XCTAssertGreaterThanOrEqual(engine.currentTime(of: session), frozen)
        wait("playing again") { engine.currentTime(of: session) > frozen }
    }

    /// On a 10 s item: at rate 2 its end (where the engine anchors the clock again) is seconds away from the rate
    /// change, not the 1.5 s of a 3 s item, which a loaded machine once spent between the engine applying the rate and
    /// the test reading its clock.
    func test_rateChange_whilePlaying_continuesFromThePlayheadOfTheCall() throws {
        let (engine, session) = try makeEngine(.h264AAC)
        defer { engine.shutdown() }
        engine.setQueue([session])
        engine.setRate(1)
        wait("playing") { engine.currentTime(of: session).seconds > 0.1 && engine.hasAppliedRateChanges }
        engine.setRate(2)
        // Readers see at once the clock the engine will set: running at 2 from the playhead of the call.
        let promised = engine.snapshot.clock
        XCTAssertEqual(promised.rate, 2)
        XCTAssertGreaterThan(promised.item.seconds, 0.1)
        wait("the engine applied the rate") { engine.hasAppliedRateChanges }
        XCTAssertEqual(engine.snapshot.clock, promised, "the engine anchored the clock exactly there")
    }

    func test_play_onAReadyItem_runsTheClockForReadersAtOnce() throws {
        let (engine, session) = try makeEngine(.videoOnly)
        defer { engine.shutdown() }
        engine.setQueue([session])
        wait("ready to start") { engine.snapshot.startsOnRate }
        engine.setRate(1)
        let promised = engine.snapshot.clock
        XCTAssertTrue(promised.isRunning, "the clock runs for readers as of the call")
        XCTAssertEqual(promised.item, .zero)
        wait("the engine applied the rate") { engine.hasAppliedRateChanges }
        XCTAssertEqual(engine.snapshot.clock, promised)
    }
}
