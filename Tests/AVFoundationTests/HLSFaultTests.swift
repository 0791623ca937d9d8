import Foundation
import TestSupport
import XCTest

@testable import AVFoundation

/// A bad network under the HLS source, against the loopback server's fault injection: what a user of the public API
/// sees (every frame, or the frames that could be fetched; `.failed` with a specific error; error-log entries), and
/// what the access log measured.
final class HLSFaultTests: XCTestCase {
    private var server: HTTPTestServer!
    private var vod: URL { server.url(HLSFixture.vod.rawValue) }
    private var frameCount: Int { HLSFixture.vod.facts.video.frameCount }

    override func setUpWithError() throws {
        server = try HTTPTestServer(root: try Fixtures.directory())
    }

    override func tearDown() {
        server.stop()
    }

    func test_segment404Once_isRetried_everyFramePlays_andTheErrorLogSaysWhich() throws {
        server.inject(.status(404), forPath: "/hls/vod_002.ts", schedule: .nth(1))
        let errors = NotificationLog(AVPlayerItem.newErrorLogEntryNotification, object: nil)
        let (v, item, ends, _) = play(vod)
        XCTAssertEqual(ends.count, 1, "\(String(describing: item.error))")
        XCTAssertEqual(v.frames.indices.compactMap { $0 }, Array(0..<frameCount))
        let events = try XCTUnwrap(item.errorLog()).events
        let failed = try XCTUnwrap(events.first { $0.errorStatusCode == 404 })
        XCTAssertTrue(failed.uri?.hasSuffix("/hls/vod_002.ts") ?? false, "\(String(describing: failed.uri))")
        XCTAssertEqual(failed.serverAddress, "127.0.0.1")
        // The failed response's headers, as the server sent them (keys as URLSession spells them).
        let headers = try XCTUnwrap(failed.allHTTPResponseHeaderFields)
        XCTAssertNotNil(headers.first { $0.key.lowercased() == "content-length" }, "\(headers)")
        XCTAssertGreaterThanOrEqual(errors.count, 1)
        XCTAssertEqual(server.requests(for: "/hls/vod_002.ts").count, 2)
    }

    /// The retry asks for the rest of the segment when bytes of it had reached the demuxer (curl may drop what it
    /// received before the reset; then the segment is fetched again whole).
    func test_connectionResetMidSegment_isRetried_everyFramePlays() throws {
        server.inject(.reset(afterBodyBytes: 30_000), forPath: "/hls/vod_001.ts", schedule: .nth(1))
        let (v, item, ends, _) = play(vod)
        XCTAssertEqual(ends.count, 1, "\(String(describing: item.error))")
        XCTAssertEqual(v.frames.indices.compactMap { $0 }, Array(0..<frameCount))
        let requests = server.requests(for: "/hls/vod_001.ts")
        XCTAssertEqual(requests.count, 2)
        if let range = requests.last?.range {
            let offset = Int(range.dropFirst("bytes=".count).prefix { $0.isNumber }) ?? 0
            XCTAssertTrue((1...30_000).contains(offset), range)
        }
    }

    func test_segmentAlways500_isSkippedAfterItsRetries_theRestPlays() throws {
        server.inject(.status(500), forPath: "/hls/vod_002.ts")
        let (v, item, ends, _) = play(vod)
        XCTAssertEqual(ends.count, 1, "\(String(describing: item.error))")
        let shown = Set(v.frames.indices.compactMap { $0 })
        // The segment's pictures are missing; those before and after it are all there.
        let segment = 60 * 2..<60 * 3
        XCTAssertTrue(shown.isDisjoint(with: segment), "\(shown.sorted())")
        XCTAssertTrue(shown.isSuperset(of: Set(0..<segment.lowerBound)))
        XCTAssertTrue(shown.isSuperset(of: Set((segment.upperBound + 20)..<frameCount)))
        XCTAssertEqual(server.requests(for: "/hls/vod_002.ts").count, 4)  // the request and its 3 retries
        XCTAssertEqual(item.errorLog()?.events.filter { $0.errorStatusCode == 500 }.count, 4)
    }

    /// The last segment cannot be fetched (its retries fail): the stream does not end as if it were complete, the
    /// item fails saying which request (libavformat may turn the failed read into an end of file after handing out
    /// what its parsers held; whether it did depended on where the bytes ended).
    func test_lastSegmentAlways404_failsSayingWhichRequest_afterPlayingTheRest() throws {
        server.inject(.status(404), forPath: "/hls/vod_004.ts")
        let (v, item, ends, failures) = play(vod)
        waitUntil("the item failed") { item.status == .failed }
        XCTAssertEqual(ends.count, 0)
        XCTAssertLessThanOrEqual(failures.count, 1)
        let error = try XCTUnwrap(item.error as NSError?)
        XCTAssertEqual(error.domain, AVFoundationErrorDomain)
        XCTAssertTrue(error.localizedFailureReason?.contains("/hls/vod_004.ts") ?? false, "\(error)")
        XCTAssertEqual(server.requests(for: "/hls/vod_004.ts").count, 4)  // the request and its 3 retries
        // Every picture before the missing segment was shown.
        XCTAssertTrue(Set(v.frames.indices.compactMap { $0 }).isSuperset(of: Set(0..<(60 * 4 - 20))))
    }

    /// The server goes once the item is ready: playback fails (to play to its end, or — when the engine was still
    /// preparing its first pictures — the item itself) with an error whose reason names the request that failed.
    func test_serverGone_fails_withAnErrorSayingWhichRequest() throws {
        // The last two segments cannot arrive before the server is gone (on loopback the rest would be fetched first;
        // with only the fourth held, the fifth, fetched ahead, could come whole before the server went, and the fourth
        // alone would be skipped as a segment that failed its retries).
        server.inject(.holdBody(fromOffset: 1), forPath: "/hls/vod_003.ts")
        server.inject(.holdBody(fromOffset: 1), forPath: "/hls/vod_004.ts")
        let (v, item, _, failures) = play(vod) { [server] _ in
            server?.stop()
        }
        // The notification can come before the item's status and error are published (on the main queue).
        waitUntil("the item failed") { item.status == .failed }
        let reported = failures.notifications.first?.userInfo?[AVPlayerItemFailedToPlayToEndTimeErrorKey]
        let error = try XCTUnwrap(((reported as? any Error) ?? item.error).map { $0 as NSError })
        XCTAssertLessThanOrEqual(failures.count, 1)
        XCTAssertEqual(item.status, .failed)
        XCTAssertEqual(error.domain, AVFoundationErrorDomain)
        XCTAssertTrue(error.localizedFailureReason?.contains("/hls/vod_00") ?? false, "\(error)")
        XCTAssertLessThan(v.frames.entries.count, frameCount)
    }

    func test_accessLog_reportsTheTransfersMeasured() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: server.url(HLSFixture.ts.rawValue))
        // The first variant only (one variant period, so one access-log event covers every transfer).
        item.oavfVariantPolicy = StayOnVariant()
        // No subtitles: the default English rendition's reader would fetch its segments on its own schedule, racing
        // the byte count (its requests are counted in HLSSubtitleTests).
        if let legible = item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible) {
            item.select(nil, in: legible)
        }
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end", timeout: 60) { ends.count == 1 || item.status == .failed }
        let event = try XCTUnwrap(item.accessLog()?.events.last)
        let segments = server.requestLog.filter { $0.path.hasSuffix(".ts") }
        XCTAssertEqual(event.numberOfMediaRequests, segments.count)
        XCTAssertEqual(
            event.numberOfBytesTransferred, Int64(server.requestLog.reduce(0) { $0 + $1.bytesSent }))
        XCTAssertGreaterThan(event.transferDuration, 0)
        XCTAssertGreaterThan(event.observedBitrate, 0)
        // Over all requests lies between the lowest and the highest over one.
        XCTAssertGreaterThan(event.observedMinimum, 0)
        XCTAssertLessThanOrEqual(event.observedMinimum, event.observedBitrate * (1 + 1e-9))
        XCTAssertGreaterThanOrEqual(event.observedMaximum * (1 + 1e-9), event.observedBitrate)
        XCTAssertGreaterThanOrEqual(event.observedBitrateStandardDeviation, 0)
        XCTAssertEqual(event.playbackStartOffset, 0, accuracy: 0.05)
        let row =
            String(decoding: try XCTUnwrap(item.accessLog()?.extendedLogData()), as: UTF8.self)
            .split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(row.contains(" \(segments.count) "), row)
        XCTAssertTrue(row.hasSuffix(" VOD 0 -"), row)
        XCTAssertEqual(event.mediaRequestsWWAN, 0)
        XCTAssertEqual(event.indicatedBitrate, Double(HLSFixture.ts.facts.variants[0].bandwidth))
        XCTAssertEqual(event.playbackType, "VOD")
        XCTAssertEqual(event.serverAddress, "127.0.0.1")
        // Video and English audio (12 s each); nothing of the French rendition, which nobody selected.
        XCTAssertEqual(event.segmentsDownloadedDuration, HLSFixture.ts.facts.duration * 2, accuracy: 0.2)
    }

    func test_aFilesAccessLog_claimsNoNetworkMeasurement() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: try fixture(.h264AAC))
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end", timeout: 60) { ends.count == 1 }
        let event = try XCTUnwrap(item.accessLog()?.events.last)
        XCTAssertEqual(event.playbackType, "FILE")
        XCTAssertLessThan(event.observedBitrate, 0)
        XCTAssertLessThan(event.numberOfMediaRequests, 0)
        XCTAssertLessThan(event.transferDuration, 0)
    }

    /// Real time: a segment that does not arrive stalls playback (waiting to minimize stalls, the buffer empty, the
    /// notification), and it resumes by itself once the segment comes, without a seek.
    func test_segmentHeldBack_stallsWaiting_thenResumesWhenItArrives() throws {
        server.inject(.holdBody(fromOffset: 1), forPath: "/hls/vod_001.ts")
        let player = AVPlayer()
        let item = AVPlayerItem(url: vod)
        item.forwardPlaybackEndTime = CMTime(value: 3, timescale: 1)
        let stalls = NotificationLog(AVPlayerItem.playbackStalledNotification, object: item)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let jumps = NotificationLog(AVPlayerItem.timeJumpedNotification, object: item)
        player.replaceCurrentItem(with: item)
        player.play()
        waitUntil("stall", timeout: 20) { stalls.count >= 1 }
        waitUntil("waiting") { player.timeControlStatus == .waitingToPlayAtSpecifiedRate }
        XCTAssertEqual(player.reasonForWaitingToPlay, .toMinimizeStalls)
        waitUntil("buffer empty") { item.isPlaybackBufferEmpty }
        XCTAssertEqual(item.currentTime().seconds, 2, accuracy: 0.25)
        server.releaseHeldBodies()
        waitUntil("end", timeout: 20) { ends.count == 1 || item.status == .failed }
        XCTAssertEqual(ends.count, 1)
        XCTAssertEqual(jumps.count, 0, "recovery is not a seek")
        XCTAssertGreaterThanOrEqual(item.accessLog()?.events.last?.numberOfStalls ?? 0, 1)
    }
}
