import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import AVFoundation

/// A player nobody holds any more frees its engine, and the engine joins every thread it started (the engine
/// thread, preparation, demux and decode threads) before it is gone.
final class EngineLifetimeTests: XCTestCase {
    /// Plays `fixture` to its end on a virtual clock; returns the engine, weakly.
    private func playToEnd(_ fixture: Fixture) throws -> (engine: PlayerEngine?, threadsWhilePlaying: [String]) {
        let player = AVPlayer()
        player.sourceClock = VirtualClock(mode: .untimed)
        player.audioSinkOverride = { NullAudioSink() }
        let item = AVPlayerItem(url: try Fixtures.url(fixture))
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        player.replaceCurrentItem(with: item)
        player.play()
        waitUntil("ready") { item.status == .readyToPlay }
        let playing = ThreadCensus.names(withPrefix: "oavf.")
        waitUntil("end") { ends.count == 1 }
        return (player.existingEngine, playing)
    }

    func test_releasedPlayer_freesItsEngine_andJoinsEveryThread() throws {
        // A first run starts whatever the process keeps (Dispatch's workers, the main queue's machinery).
        _ = try playToEnd(.h264AAC)
        waitUntil("the warm-up engine's threads ended") { ThreadCensus.names(withPrefix: "oavf.").isEmpty }
        let before = ThreadCensus.count

        weak var engine: PlayerEngine?
        var seenWhilePlaying: [String] = []
        do {
            let run = try playToEnd(.h264AAC)
            engine = run.engine
            seenWhilePlaying = run.threadsWhilePlaying
        }
        XCTAssertTrue(seenWhilePlaying.contains("oavf.playback"), "the engine thread ran: \(seenWhilePlaying)")
        XCTAssertTrue(seenWhilePlaying.contains("oavf.demux"), "a demux thread ran: \(seenWhilePlaying)")
        waitUntil("the engine is freed") { engine == nil }
        XCTAssertNil(engine)
        XCTAssertEqual(ThreadCensus.names(withPrefix: "oavf."), [], "every engine thread joined")
        waitUntil("the thread count is back") { ThreadCensus.count <= before }
        XCTAssertLessThanOrEqual(ThreadCensus.count, before, "threads: \(ThreadCensus.names())")
    }

    /// An engine on a manual virtual clock with h264_aac.mp4 queued (not ready yet when this returns).
    private func engineWithItem() throws -> (PlayerEngine, ItemSession) {
        let engine = PlayerEngine(
            configuration: EngineConfiguration(virtualClock: VirtualClock(mode: .manual)) {
                NullAudioSink()
            })
        let session = ItemSession(
            descriptor: ItemDescriptor(
                location: try Fixtures.url(.h264AAC).path, streamPreferences: StreamPreferences(),
                duration: .indefinite),
            audioFormat: engine.audioFormat)
        engine.setQueue([session])
        return (engine, session)
    }

    func test_shutdown_joinsTheEngineThread_andCompletesPendingSeeksFalse() throws {
        let (engine, session) = try engineWithItem()
        let results = Locked<[Bool]>([])
        // The item is not ready yet: the seek waits for it, then the engine shuts down under it.
        engine.seek(session, to: CMTime(value: 1, timescale: 1), exact: true) { ok in
            results.withLock { $0.append(ok) }
        }
        waitUntil("the engine thread runs") { ThreadCensus.names(withPrefix: "oavf.").contains("oavf.playback") }
        engine.shutdown()
        XCTAssertEqual(results.withLock { $0 }, [false], "the seek completed once, with false")
        XCTAssertEqual(ThreadCensus.names(withPrefix: "oavf."), [], "shutdown joined every thread")
    }

    /// A session that left the queue is freed by the engine iteration that applied the change: the commands the
    /// engine took are let go once applied, not kept (with the session they name and its packet queues) until its next
    /// iteration, which an idle engine runs a second later. What the test counts: the seek of the session posted after
    /// the queue emptied completes once, `false`, and by then nothing holds the session.
    func test_sessionThatLeftTheQueue_isFreedByTheIterationThatAppliedIt() throws {
        weak var released: ItemSession?
        let results = Locked<[Bool]>([])
        let engine: PlayerEngine
        do {
            let (made, session) = try engineWithItem()
            engine = made
            released = session
            let ready = Locked(0)
            engine.onEvent = { event, _ in
                if case .itemReady = event { ready.withLock { $0 += 1 } }
            }
            waitUntil("the item is ready") { ready.withLock { $0 } == 1 }
            engine.setQueue([])
            // The last command the engine takes names the session.
            engine.seek(session, to: CMTime(value: 1, timescale: 1), exact: true) { ok in
                results.withLock { $0.append(ok) }
            }
        }
        waitUntil("the seek completed") { !results.withLock { $0 }.isEmpty }
        XCTAssertEqual(results.withLock { $0 }, [false], "the seek of a session not queued completes once, false")
        XCTAssertNil(released, "the session is freed once the engine has applied the commands that named it")
        engine.shutdown()
    }

    func test_seeksPostedAroundShutdown_completeOnce_withFalse() throws {
        // A seek posted while the engine thread is between taking its commands and seeing the stop was never applied
        // nor completed (a whole-suite ThreadSanitizer run caught it once). Every seek posted before the stop now
        // completes when the engine stops, and one posted after it at once; each once, with false.
        for round in 0..<20 {
            let (engine, session) = try engineWithItem()
            let results = Locked<[Int: [Bool]]>([:])
            func seek(_ k: Int) {
                engine.seek(session, to: CMTime(value: Int64(k), timescale: 1), exact: true) { ok in
                    results.withLock { $0[k, default: []].append(ok) }
                }
            }
            // Posted while the engine thread starts and takes its first commands: at varying points of its loop.
            for k in 0..<round % 4 { seek(k) }
            seek(10)
            engine.shutdown()
            seek(11)
            let got = results.withLock { $0 }
            XCTAssertEqual(got[10], [false], "round \(round): \(got)")
            XCTAssertEqual(got[11], [false], "round \(round): \(got)")
            XCTAssertTrue(got.values.allSatisfy { $0 == [false] }, "round \(round): \(got)")
            XCTAssertEqual(got.count, round % 4 + 2, "round \(round): \(got)")
        }
    }
}
