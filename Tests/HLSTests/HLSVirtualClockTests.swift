import CoreMedia
import FFmpegBridge
import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

@testable import HLS

/// The HLS source's schedules on a `.manual` `VirtualClock` (`SourceOptions.clock`): live reloads, the
/// unchanged-playlist rule and the segment retry back-off happen when the clock is moved, never because real time
/// passed; the loopback server's live window moves with the same clock. The assertions count the requests the
/// server saw and read the deadlines the clock is waited for (`VirtualClock.pendingDeadlines`); real time only
/// bounds how long a test waits for a thread to get where the clock lets it go.
final class HLSVirtualClockTests: XCTestCase {
    private var server: HTTPTestServer!
    private let clock = VirtualClock(mode: .manual)
    private let path = "/hls/live_clock.m3u8"
    /// Sources to interrupt at the end (their reloading threads end with them).
    private var sources: [HLSSource] = []

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        for source in sources { source.interrupt() }
        server.stop()
    }

    /// `seconds` of clock time.
    private func seconds(_ seconds: Double) -> CMTime {
        CMTime(seconds: seconds, preferredTimescale: 1000)
    }

    /// The clock times (seconds) the source's threads wait for now.
    private var deadlines: [Double] { clock.pendingDeadlines.map(\.seconds) }

    private var playlistRequests: Int { server.requests(for: path).count }

    /// Waits until `done` holds (a thread reaching its wait on the clock is no event: ``Poll``).
    private func waitUntil(
        _ what: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line, _ done: () -> Bool
    ) {
        XCTAssertTrue(Poll.until(done), "timed out waiting until \(what())", file: file, line: line)
    }

    /// A source on the clock (not opened).
    private func source(_ url: URL) -> HLSSource {
        var options = SourceOptions()
        options.clock = MediaClock(clock)
        let source = HLSSource(url: url, sourceOptions: options)
        sources.append(source)
        return source
    }

    /// Serves `live` at `path`, opens a source of it on the clock and reads its first packet (reading starts the
    /// reloads, their schedule from the clock's time then).
    private func openLive(_ live: HLSLiveWindow) throws -> HLSSource {
        live.serve(on: server, at: path)
        let source = source(server.url(String(path.dropFirst())))
        try source.open()
        XCTAssertTrue(source.isLive)
        XCTAssertEqual(try source.read(into: Packet()), .packet)
        return source
    }

    /// Reads `source` to its end; the packet count per stream.
    private static func readAll(_ source: HLSSource) throws(FFmpegError) -> [Int: Int] {
        var counts: [Int: Int] = [:]
        let packet = Packet()
        while try source.read(into: packet) == .packet {
            counts[packet.streamIndex, default: 0] += 1
        }
        return counts
    }

    func test_liveReload_isDueAfterOneTargetDurationOfClockTime_oneReloadEachTime() throws {
        let live = try HLSLiveWindow(
            contentsOf: Fixtures.url(.vod), window: .sliding(segments: 3), atEnd: .loop, advance: .clock(clock))
        XCTAssertEqual(live.targetDuration, 2)
        let source = try openLive(live)
        let refresher = try XCTUnwrap(source.inputs.first?.refresher)
        waitUntil("the first reload is waited for at 2 s: \(deadlines)") { deadlines == [2] }
        XCTAssertEqual(playlistRequests, 1, "no reload while the clock stands still")
        clock.advance(by: seconds(1.9))
        waitUntil("still waiting for 2 s: \(deadlines)") { deadlines == [2] }
        XCTAssertEqual(playlistRequests, 1, "not due before a target duration")
        clock.advance(by: seconds(0.1))
        // The window published a segment at 2 s; the reload finds it, so the next is a whole target duration on.
        waitUntil("one reload, then a wait for 4 s: \(playlistRequests), \(deadlines)") {
            playlistRequests == 2 && deadlines == [4]
        }
        XCTAssertEqual(refresher.snapshot.generation, 1)
        XCTAssertEqual(refresher.snapshot.playlist.mediaSequence, 1)
        clock.advance(by: seconds(2))
        waitUntil("a second reload, then a wait for 6 s: \(playlistRequests), \(deadlines)") {
            playlistRequests == 3 && deadlines == [6]
        }
        XCTAssertEqual(refresher.snapshot.generation, 2)
        XCTAssertNil(refresher.failure)
    }

    /// RFC 8216 §6.3.4 and Apple's rule: a reload that changed nothing brings the next one half a target duration
    /// closer, and a playlist unchanged for longer than 1.5 target durations (two such reloads in a row) fails —
    /// counted in clock time from the load at 0 s: the reloads at 2 s and at 3 s (exactly 1.5 × 2 s: not longer)
    /// find it unchanged, the one at 4 s fails.
    func test_unchangedPlaylist_failsAtTheFirstReloadPastOneAndAHalfTargetDurationsOfClockTime() throws {
        let live = try HLSLiveWindow(contentsOf: Fixtures.url(.vod), window: .sliding(segments: 3), atEnd: .stall)
        live.advance(segments: 100)  // every segment published: the playlist stays live and never changes again
        let source = try openLive(live)
        let refresher = try XCTUnwrap(source.inputs.first?.refresher)
        waitUntil("the first reload is waited for at 2 s: \(deadlines)") { deadlines == [2] }
        clock.advance(by: seconds(2))
        waitUntil("an unchanged reload, then a wait for 3 s: \(playlistRequests), \(deadlines)") {
            playlistRequests == 2 && deadlines == [3]
        }
        XCTAssertNil(refresher.failure, "unchanged for one target duration")
        clock.advance(by: seconds(1))
        waitUntil("a second unchanged reload, then a wait for 4 s: \(playlistRequests), \(deadlines)") {
            playlistRequests == 3 && deadlines == [4]
        }
        XCTAssertNil(refresher.failure, "unchanged for exactly 1.5 target durations: not longer")
        clock.advance(by: seconds(1))
        waitUntil("a third unchanged reload, then a wait for 5 s: \(playlistRequests), \(deadlines)") {
            playlistRequests == 4 && deadlines == [5]
        }
        let failure = try XCTUnwrap(refresher.failure)
        XCTAssertTrue("\(failure)".contains("has not changed for 4.0 s"), "\(failure)")
        // The reader, out of segments at the live edge, fails with it.
        XCTAssertThrowsError(try Self.readAll(source)) { error in
            XCTAssertTrue("\(error)".contains("has not changed"), "\(error)")
        }
        XCTAssertEqual(playlistRequests, 4)
    }

    /// Reloads suspended (a paused item that may not use the network) reload nothing however far the clock moves,
    /// and the time does not count as unchanged; resumed, the overdue reload happens at once.
    func test_suspendedReloads_reloadNothingWhileTheClockMoves_thenTheOverdueOneHappensAtOnce() throws {
        let live = try HLSLiveWindow(contentsOf: Fixtures.url(.vod), window: .sliding(segments: 3), atEnd: .stall)
        live.advance(segments: 100)
        let source = try openLive(live)
        let refresher = try XCTUnwrap(source.inputs.first?.refresher)
        waitUntil("the first reload is waited for at 2 s: \(deadlines)") { deadlines == [2] }
        source.setLiveReloadsSuspended(true)
        waitUntil("the refresher stops waiting on the clock: \(deadlines)") { deadlines.isEmpty }
        clock.advance(by: seconds(10))
        XCTAssertTrue(deadlines.isEmpty)
        XCTAssertEqual(playlistRequests, 1, "no reload while suspended")
        source.setLiveReloadsSuspended(false)
        waitUntil("the overdue reload, then a wait for 11 s: \(playlistRequests), \(deadlines)") {
            playlistRequests == 2 && deadlines == [11]
        }
        XCTAssertNil(refresher.failure, "the suspended time is not counted as unchanged")
    }

    /// A segment that fails once is tried again after the first back-off, 0.25 s of clock time: not before the
    /// clock has moved that far, then at once; every packet is read.
    func test_segmentRetry_waitsItsBackOffOnTheClock_andGoesWhenTheClockGetsThere() throws {
        let segment = "/hls/vod_002.ts"
        server.inject(.status(404), forPath: segment, schedule: .nth(1))
        let source = source(server.url(HLSFixture.vod.rawValue))
        try source.open()
        XCTAssertFalse(source.isLive)
        let video = try XCTUnwrap(source.info.streams.first { $0.kind == .video }?.index)
        let result = Locked<Result<[Int: Int], FFmpegError>?>(nil)
        let reader = Thread {
            let read: Result<[Int: Int], FFmpegError>
            do throws(FFmpegError) {
                read = .success(try Self.readAll(source))
            } catch {
                read = .failure(error)
            }
            result.withLock { $0 = read }
        }
        reader.start()
        waitUntil("the reader waits for the back-off's end at 0.25 s: \(deadlines)") { deadlines == [0.25] }
        XCTAssertEqual(server.requests(for: segment).count, 1)
        clock.advance(by: seconds(0.2))
        waitUntil("still waiting for 0.25 s: \(deadlines)") { deadlines == [0.25] }
        XCTAssertEqual(server.requests(for: segment).count, 1, "no retry before the back-off's end")
        clock.advance(by: seconds(0.05))
        waitUntil("the reader read to the end") { result.withLock { $0 } != nil }
        let counts = try XCTUnwrap(result.withLock { $0 }).get()
        XCTAssertEqual(server.requests(for: segment).count, 2, "one retry")
        XCTAssertEqual(counts[video], HLSFixture.vod.facts.video.frameCount)
        XCTAssertTrue(deadlines.isEmpty)
    }

    /// The reader at the live edge waits for a reload that changes the playlist: a seek's wake
    /// (`wakeBlockedRead()`, which the demuxer sends with every seek) ends that wait at once with the clock standing
    /// still — the read gives the thread back (`tryAgain`) with no reload — and so does an interruption. Each wait
    /// was begun once and ended by its wake: nothing polls (a wait that looked at its flags every few milliseconds
    /// would have begun again and again while the test stood by).
    func test_aWakeOrAnInterruption_endsTheWaitForAReload_withTheClockStill_andNothingPolls() throws {
        let live = try HLSLiveWindow(
            contentsOf: Fixtures.url(.vod), window: .sliding(segments: 3), atEnd: .loop, advance: .clock(clock))
        let source = try openLive(live)
        let refresher = try XCTUnwrap(source.inputs.first?.refresher)
        let wakers = source.readControl.wakers
        func readInTheBackground() -> Locked<Result<[Int: Int], FFmpegError>?> {
            let result = Locked<Result<[Int: Int], FFmpegError>?>(nil)
            Thread {
                let read: Result<[Int: Int], FFmpegError>
                do throws(FFmpegError) {
                    read = .success(try Self.readAll(source))
                } catch {
                    read = .failure(error)
                }
                result.withLock { $0 = read }
            }.start()
            return result
        }

        let first = readInTheBackground()
        // Registered: the refresher's thread (waiting for its reload at 2 s) and the reader.
        waitUntil("the reader waits for a reload: \(refresher.readerWaitCount), \(deadlines)") {
            refresher.readerWaitCount == 1 && deadlines == [2] && wakers.registeredCount == 2
        }
        // Real time for a poll to show itself (nothing is asserted of it: a busy machine only makes it longer).
        usleep(200_000)
        XCTAssertEqual(refresher.readerWaitCount, 1, "one wait, not one per poll")
        source.wakeBlockedRead()
        waitUntil("the read gave the thread back") { first.current != nil }
        guard case .failure(let woken)? = first.current else { return XCTFail("\(String(describing: first.current))") }
        XCTAssertEqual(woken, FFmpegError.tryAgain)
        XCTAssertEqual(refresher.readerWaitCount, 1, "the wake ended the one wait")
        XCTAssertEqual(clock.time, .zero, "the clock did not move")
        XCTAssertEqual(playlistRequests, 1, "no reload")

        let second = readInTheBackground()
        waitUntil("the reader waits again: \(refresher.readerWaitCount)") {
            refresher.readerWaitCount == 2 && wakers.registeredCount == 2
        }
        source.interrupt()
        waitUntil("the interrupted read returned") { second.current != nil }
        guard case .failure(let interrupted)? = second.current else {
            return XCTFail("\(String(describing: second.current))")
        }
        XCTAssertEqual(interrupted, FFmpegError.exit)
        XCTAssertEqual(refresher.readerWaitCount, 2)
        waitUntil("the refresher's thread ended: \(wakers.registeredCount)") { wakers.registeredCount == 0 }
        XCTAssertTrue(deadlines.isEmpty)
        XCTAssertEqual(clock.time, .zero)
    }

    /// A seek posted to the demuxer while its source waits at the live edge for a reload is taken without the clock
    /// moving: the demuxer reports it performed, and reads the window again from its start.
    func test_demuxerSeek_whileTheReaderWaitsForAReload_completesWithTheClockStill() throws {
        let live = try HLSLiveWindow(
            contentsOf: Fixtures.url(.vod), window: .sliding(segments: 3), atEnd: .loop, advance: .clock(clock))
        // Opened and read once here, so the reloads start (and their refresher is set) before the demux thread owns
        // the source.
        let source = try openLive(live)
        let refresher = try XCTUnwrap(source.inputs.first?.refresher)
        var queues: [Int: PacketQueue] = [:]
        for stream in source.info.streams where stream.kind == .video || stream.kind == .audio {
            queues[stream.index] = PacketQueue(streamIndex: stream.index, timeBase: stream.timeBase)
        }
        let demuxer = Demuxer(source: source, streams: queues)
        let events = Locked<[DemuxEvent]>([])
        demuxer.onEvent = { event in events.withLock { $0.append(event) } }
        demuxer.start()
        defer { demuxer.stop() }
        waitUntil("the demuxer waits at the live edge: \(refresher.readerWaitCount), \(deadlines)") {
            refresher.readerWaitCount == 1 && deadlines == [2]
        }
        let window = try XCTUnwrap(source.liveWindow)
        demuxer.seek(to: window.start)
        waitUntil("the seek was performed: \(events.current)") {
            events.current.contains { if case .seekCompleted = $0 { true } else { false } }
        }
        XCTAssertEqual(demuxer.seeksPerformed, 1)
        XCTAssertEqual(clock.time, .zero, "the clock did not move")
        XCTAssertEqual(playlistRequests, 1, "no reload was needed")
        // Read again from the window's start, to the live edge, where it waits again.
        waitUntil("the demuxer waits at the live edge again: \(refresher.readerWaitCount)") {
            refresher.readerWaitCount == 2
        }
        XCTAssertFalse(events.current.contains { if case .readError = $0 { true } else { false } })
    }
}
