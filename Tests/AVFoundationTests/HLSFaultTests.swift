import Foundation
import OAVFLocking
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
    /// item plays what it read and then fails saying which request (libavformat may turn the failed read into an end of file after handing out
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
        // Every picture before the missing segment was shown: what was read plays out before the item fails (as
        // ffplay and mpv play out what they read before a read error), however late the failure came.
        let shown = Set(v.frames.indices.compactMap { $0 })
        XCTAssertEqual(Set(0..<(60 * 4)).subtracting(shown).sorted(), [])
        XCTAssertTrue(shown.allSatisfy { $0 < 60 * 4 }, "\(shown.sorted().suffix(5))")
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
        let (item, ends) = playOnFirstVariant(server.url(HLSFixture.ts.rawValue))
        XCTAssertEqual(ends.count, 1, "\(String(describing: item.error))")
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
        XCTAssertEqual(event.mediaRequestsWWAN, 0)
        XCTAssertEqual(event.indicatedBitrate, Double(HLSFixture.ts.facts.variants[0].bandwidth))
        XCTAssertLessThan(event.indicatedAverageBitrate, 0, "the multivariant playlist states no AVERAGE-BANDWIDTH")
        XCTAssertEqual(event.playbackType, "VOD")
        XCTAssertEqual(event.serverAddress, "127.0.0.1")
        XCTAssertEqual(event.numberOfServerAddressChanges, 0, "one server")
        // Loopback segments of 2 s arrive in milliseconds; the English rendition's last segment carries 21 ms of
        // audio, which its request may take longer than to answer on a busy machine.
        XCTAssertTrue((0...1).contains(event.downloadOverdue), "\(event.downloadOverdue)")
        // Video and English audio (12 s each); nothing of the French rendition, which nobody selected.
        XCTAssertEqual(event.segmentsDownloadedDuration, HLSFixture.ts.facts.duration * 2, accuracy: 0.2)
        // The variant's segments carry the video alone, the renditions' the audio: each one's bytes over its
        // seconds of media (a French segment, were one fetched, would be audio downloaded too).
        let video = try bitRate(ofSegmentsNamed: ["360p_"])
        let audio = try bitRate(ofSegmentsNamed: ["eng_", "fra_"])
        XCTAssertEqual(event.averageVideoBitrate, video, accuracy: 1)
        XCTAssertEqual(event.averageAudioBitrate, audio, accuracy: 1)
        // 400 kb/s video, 128 kb/s AAC, each in its MPEG-TS container.
        XCTAssertEqual(video, 400_000, accuracy: 400_000 * 0.35)
        XCTAssertEqual(audio, 128_000, accuracy: 128_000 * 0.5)
        let row =
            String(decoding: try XCTUnwrap(item.accessLog()?.extendedLogData()), as: UTF8.self)
            .split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(row.contains(" 127.0.0.1 0 \(segments.count) "), row)
        XCTAssertTrue(
            row.hasSuffix(" VOD 0 - - \(String(format: "%.3f", video)) \(String(format: "%.3f", audio))"), row)
    }

    /// A lone media playlist whose MPEG-TS segments carry video and audio together: the video bit rate is the
    /// combined content's (as Apple documents it for muxed media), the audio's is its share of the same bytes, by
    /// the sizes of the packets demuxed.
    func test_accessLog_muxedSegments_videoRateIsTheCombinedContents_audioRateItsShare() throws {
        let (_, item, ends, _) = play(vod)
        XCTAssertEqual(ends.count, 1, "\(String(describing: item.error))")
        let event = try XCTUnwrap(item.accessLog()?.events.last)
        let bytes = server.requestLog.filter { $0.path.hasSuffix(".ts") }.reduce(0) { $0 + $1.bytesSent }
        XCTAssertEqual(event.averageVideoBitrate, Double(bytes) * 8 / HLSFixture.vod.facts.duration, accuracy: 1)
        // 128 kb/s AAC: its payload, plus its share of the container's overhead.
        XCTAssertGreaterThan(event.averageAudioBitrate, 128_000)
        XCTAssertLessThan(event.averageAudioBitrate, 128_000 * 1.3)
        XCTAssertLessThan(event.averageAudioBitrate, event.averageVideoBitrate / 2)
        XCTAssertLessThan(event.indicatedAverageBitrate, 0, "no multivariant playlist")
        XCTAssertEqual(event.numberOfServerAddressChanges, 0)
        XCTAssertEqual(event.downloadOverdue, 0)
    }

    /// `AVERAGE-BANDWIDTH` of the variant played is the event's indicated average bit rate, also in the extended log.
    func test_accessLog_indicatedAverageBitrate_isTheVariantsAverageBandwidth() throws {
        let master = try String(
            contentsOf: try Fixtures.directory().appendingPathComponent(HLSFixture.ts.rawValue), encoding: .utf8
        )
        .replacingOccurrences(of: "BANDWIDTH=580800,", with: "BANDWIDTH=580800,AVERAGE-BANDWIDTH=512000,")
        server.route("/hls/ts/average.m3u8") { _ in HTTPTestResponse(text: master) }
        let (item, ends) = playOnFirstVariant(server.url("hls/ts/average.m3u8"))
        XCTAssertEqual(ends.count, 1, "\(String(describing: item.error))")
        let event = try XCTUnwrap(item.accessLog()?.events.last)
        XCTAssertEqual(event.indicatedBitrate, 580_800)
        XCTAssertEqual(event.indicatedAverageBitrate, 512_000)
        let row =
            String(decoding: try XCTUnwrap(item.accessLog()?.extendedLogData()), as: UTF8.self)
            .split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(row.contains(" VOD 0 - 512000 "), row)
    }

    /// A segment the server sends slower than real time (117 kB at 40 kB/s: about 2.9 s for 2 s of media) is
    /// overdue; the others, fast on loopback, are not (the variant's media playlist alone: six 2 s segments).
    func test_accessLog_aSegmentSlowerThanRealTimeIsOverdue_theFastOnesAreNot() throws {
        server.inject(.throttle(bytesPerSecond: 40_000), forPath: "/hls/ts/360p_002.ts")
        let (_, item, ends, _) = play(server.url("hls/ts/360p.m3u8"))
        XCTAssertEqual(ends.count, 1, "\(String(describing: item.error))")
        XCTAssertGreaterThanOrEqual(server.requests(for: "/hls/ts/360p_002.ts").first?.throttleTicks ?? 0, 50)
        let events = try XCTUnwrap(item.accessLog()?.events)
        XCTAssertEqual(
            events.map(\.downloadOverdue).filter { $0 > 0 }.reduce(0, +), 1, "\(events.map(\.downloadOverdue))")
        XCTAssertTrue(events.allSatisfy { $0.downloadOverdue >= 0 })
    }

    /// A paused player stops reading (its buffer is full) while segments are fetched ahead or wait to be read: the
    /// time a body waits for its reader is not download time, so no segment becomes overdue (the variant's media
    /// playlist alone: six 2 s segments).
    func test_accessLog_aPausedPlayerMakesNoSegmentOverdue() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: server.url("hls/ts/360p.m3u8"))
        item.preferredForwardBufferDuration = 1
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("a second played", timeout: 30) { v.frames.entries.count >= 30 || item.status == .failed }
        v.player.pause()
        let requestsBefore = server.requestLog.count
        // Paused longer than a segment lasts.
        spinMainRunLoop(2.5)
        XCTAssertLessThan(server.requestLog.count, 7, "the paused player does not read everything ahead")
        v.player.play()
        waitUntil("end", timeout: 60) { ends.count == 1 || item.status == .failed }
        XCTAssertEqual(ends.count, 1, "\(String(describing: item.error))")
        XCTAssertGreaterThan(server.requestLog.count, requestsBefore, "segments were fetched after the pause")
        let events = try XCTUnwrap(item.accessLog()?.events)
        XCTAssertGreaterThanOrEqual(events.count, 2, "the pause ends a period")
        XCTAssertEqual(events.map(\.downloadOverdue).filter { $0 > 0 }, [], "\(events.map(\.downloadOverdue))")
    }

    /// Segments served from two addresses (127.0.0.1 and, by a second server, 127.0.0.2): two changes between
    /// consecutive media requests, and the address of the last.
    func test_accessLog_countsServerAddressChanges_betweenTwoLoopbackAddresses() throws {
        let second = try HTTPTestServer(root: try Fixtures.directory(), address: "127.0.0.2")
        defer { second.stop() }
        let text = try String(
            contentsOf: try Fixtures.directory().appendingPathComponent("hls/ts/360p.m3u8"), encoding: .utf8)
        // Segments 0-1 from the first server, 2-3 from the second, 4-5 from the first again.
        let playlist = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("360p_"), let number = Int(line.dropFirst(5).prefix(3)) else { return String(line) }
            return (number / 2 == 1 ? second : server).url("hls/ts/\(line)").absoluteString
        }
        server.route("/hls/ts/two.m3u8") { [playlist] _ in
            HTTPTestResponse(text: playlist.joined(separator: "\n"))
        }
        let (_, item, ends, _) = play(server.url("hls/ts/two.m3u8"))
        XCTAssertEqual(ends.count, 1, "\(String(describing: item.error))")
        // (Each on its own new connection, so they may arrive in either order.)
        XCTAssertEqual(second.requestLog.map(\.path).sorted(), ["/hls/ts/360p_002.ts", "/hls/ts/360p_003.ts"])
        let event = try XCTUnwrap(item.accessLog()?.events.last)
        XCTAssertEqual(event.numberOfMediaRequests, 6)
        XCTAssertEqual(event.numberOfServerAddressChanges, 2)
        XCTAssertEqual(event.serverAddress, "127.0.0.1")
        let row =
            String(decoding: try XCTUnwrap(item.accessLog()?.extendedLogData()), as: UTF8.self)
            .split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(row.contains(" 127.0.0.1 2 6 "), row)
    }

    /// A server named by its host name (`localhost`): the logs give its address, not the name, the same for every
    /// request (no change counted).
    func test_accessLog_givesTheAddressAHostNameResolvedTo() throws {
        var components = try XCTUnwrap(
            URLComponents(url: server.url("hls/ts/360p.m3u8"), resolvingAgainstBaseURL: false))
        components.host = "localhost"
        let (_, item, ends, _) = play(try XCTUnwrap(components.url))
        XCTAssertEqual(ends.count, 1, "\(String(describing: item.error))")
        let event = try XCTUnwrap(item.accessLog()?.events.last)
        XCTAssertGreaterThan(event.numberOfMediaRequests, 1)
        XCTAssertTrue(
            ["127.0.0.1", "::1"].contains(event.serverAddress ?? ""), "\(String(describing: event.serverAddress))")
        XCTAssertEqual(event.numberOfServerAddressChanges, 0)
    }

    /// An item that leaves its player and joins it again plays from a new source, whose network log starts from
    /// zero: the period after it counts that source's requests, not the old source's count of them.
    func test_accessLog_afterTheItemRejoinsItsPlayer_countsTheNewSourcesRequests() throws {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: server.url("hls/ts/360p.m3u8"))
        item.preferredForwardBufferDuration = 1
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("two seconds played", timeout: 30) { v.frames.entries.count >= 60 || item.status == .failed }
        v.player.pause()
        // It counts the transfers over by then: the first segment's at least (the feed fetches one segment at a time,
        // the next once the one being read has arrived, and the second may still be on its way).
        let firstPeriod = try XCTUnwrap(item.accessLog()?.events.last)
        XCTAssertGreaterThanOrEqual(firstPeriod.numberOfMediaRequests, 1)
        // The first source goes quiet (its buffer full, its fetches ahead answered), so that every request from here
        // on is the second source's.
        waitUntil("the first source's requests answered", timeout: 30) {
            let before = server.requestLog.count
            spinMainRunLoop(0.2)
            let after = server.requestLog
            return after.count == before && after.allSatisfy { $0.end != nil }
        }
        v.player.replaceCurrentItem(with: nil)
        // The first source is gone once its demux thread is (the engine tears it down after the call returns: a
        // fetch it began meanwhile would count as the second source's).
        waitUntil("the first source torn down", timeout: 30) {
            ThreadCensus.names(withPrefix: "oavf.demux").isEmpty
        }
        let periodsBefore = item.accessLog()?.events.count ?? 0
        let rejoined = Date()
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end", timeout: 60) { ends.count == 1 || item.status == .failed }
        XCTAssertEqual(ends.count, 1, "\(String(describing: item.error))")
        // The second source's periods (a stall on a loaded machine begins another).
        let periods = try XCTUnwrap(item.accessLog()?.events.dropFirst(periodsBefore))
        XCTAssertFalse(periods.isEmpty)
        // Its requests that were over when its last period closed: a fetch the start seek abandoned (the item rejoins
        // at its kept time, and the engine seeks there as soon as the item is ready) runs to its end on its own, and
        // on a loaded machine that end can come after the item's (a finished transfer is what an event counts).
        let closed = try XCTUnwrap(periods.last.flatMap { $0.playbackStartDate })
            .addingTimeInterval(try XCTUnwrap(periods.last).durationWatched)
        waitUntil("every request answered", timeout: 30) { server.requestLog.allSatisfy { $0.end != nil } }
        let requested = server.requestLog.filter {
            $0.path.hasSuffix(".ts") && $0.start >= rejoined && ($0.end ?? .distantFuture) <= closed
        }
        XCTAssertGreaterThanOrEqual(requested.count, 2)
        // The fetch the start seek abandoned is cancelled (the client stops its transfer): it counts in no event, though
        // the server may have written its whole body to the socket by then — at most one such request.
        let counted = periods.reduce(0) { $0 + $1.numberOfMediaRequests }
        XCTAssertTrue((requested.count - 1...requested.count).contains(counted), "\(counted) of \(requested.count)")
        // Its segments' bytes (but the abandoned one's), and its playlist's.
        let abandoned = requested.count - counted == 1 ? requested.map(\.bytesSent).max() ?? 0 : 0
        XCTAssertGreaterThan(
            periods.reduce(Int64(0)) { $0 + $1.numberOfBytesTransferred },
            Int64(requested.reduce(0) { $0 + $1.bytesSent } - abandoned))
    }

    /// Plays `url` on an untimed virtual clock to its end, on its first variant and without subtitles (the default
    /// English rendition's reader would fetch its segments on its own schedule, racing the counts; its requests are
    /// counted in HLSSubtitleTests).
    private func playOnFirstVariant(_ url: URL) -> (item: AVPlayerItem, ends: NotificationLog) {
        let v = VirtualPlayer()
        let item = AVPlayerItem(url: url)
        item.oavfVariantPolicy = StayOnVariant()
        if let legible = item.asset.mediaSelectionGroup(forMediaCharacteristic: .legible) {
            item.select(nil, in: legible)
        }
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        v.player.play()
        waitUntil("end", timeout: 60) { ends.count == 1 || item.status == .failed }
        return (item, ends)
    }

    /// The bit rate of the segments requested whose names start with one of `prefixes` (in the ladder's folder):
    /// their bytes × 8 over their seconds of media, from their playlists' `EXTINF`s.
    private func bitRate(ofSegmentsNamed prefixes: [String]) throws -> Double {
        var seconds: [String: Double] = [:]
        let folder = try Fixtures.directory().appendingPathComponent("hls/ts")
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".m3u8") {
            var duration: Double?
            for line in try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
                .split(separator: "\n")
            {
                if line.hasPrefix("#EXTINF:") {
                    duration = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })
                } else if !line.hasPrefix("#"), let d = duration {
                    seconds[String(line)] = d
                    duration = nil
                }
            }
        }
        let requests = server.requestLog.filter { r in
            let name = (r.path as NSString).lastPathComponent
            return r.path.hasPrefix("/hls/ts/") && prefixes.contains { name.hasPrefix($0) }
        }
        let bytes = requests.reduce(0) { $0 + $1.bytesSent }
        let media = try requests.reduce(0.0) { total, r in
            total + (try XCTUnwrap(seconds[(r.path as NSString).lastPathComponent], r.path))
        }
        return Double(bytes) * 8 / media
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
        // Nor do the fields of a stream's variants, segments and servers.
        XCTAssertLessThan(event.indicatedAverageBitrate, 0)
        XCTAssertLessThan(event.averageVideoBitrate, 0)
        XCTAssertLessThan(event.averageAudioBitrate, 0)
        XCTAssertLessThan(event.downloadOverdue, 0)
        XCTAssertLessThan(event.numberOfServerAddressChanges, 0)
        let row =
            String(decoding: try XCTUnwrap(item.accessLog()?.extendedLogData()), as: UTF8.self)
            .split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(row.hasSuffix(" FILE - - - - -"), row)
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

    /// Real time: the last segment cannot be fetched, so the item plays out what it read before it fails; a seek
    /// made meanwhile (the app jumps back) asks for media to be read again, so the failure comes at once: the seek
    /// completes `false`, once, and the item fails naming the request, without playing to its end.
    func test_seekWhileAFailedReadPlaysOut_completesFalse_andTheItemFailsAtOnce() throws {
        server.inject(.status(404), forPath: "/hls/vod_004.ts")
        let player = AVPlayer()
        let item = AVPlayerItem(url: vod)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        player.replaceCurrentItem(with: item)
        player.play()
        // The request and its 3 retries have failed: the read failed for good, with 8 s of media to play out.
        waitUntil("the last segment's retries", timeout: 30) {
            item.errorLog()?.events.filter { $0.errorStatusCode == 404 }.count == 4
        }
        let finished = Locked<[Bool]>([])
        player.seek(to: CMTime(value: 1, timescale: 1), toleranceBefore: .zero, toleranceAfter: .zero) { ok in
            finished.withLock { $0.append(ok) }
        }
        waitUntil("the seek completes") { !finished.withLock { $0 }.isEmpty }
        // (The error log has the fourth answer just before the reader gives up on the segment: a seek that reached the engine
        // first reads again from 1 s and completes `true`; the item then fails once that read reaches the segment.)
        let seekFinished = try XCTUnwrap(finished.withLock { $0.first })
        waitUntil("the item failed", timeout: 30) { item.status == .failed }
        settle(player)
        XCTAssertEqual(finished.withLock { $0 }.count, 1, "completed once")
        XCTAssertEqual(ends.count, 0)
        let error = try XCTUnwrap(item.error as NSError?)
        XCTAssertEqual(error.domain, AVFoundationErrorDomain)
        XCTAssertTrue(error.localizedFailureReason?.contains("/hls/vod_004.ts") ?? false, "\(error)")
        if !seekFinished {
            // At once: well before the 7 s left from 1 s had played out.
            XCTAssertLessThan(item.currentTime().seconds, 6)
        }
    }
}
