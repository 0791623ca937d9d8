import Foundation
import PlaybackEngine
import XCTest

@testable import AVFoundation

/// `extendedLogData()` writes Apple's W3C Extended Log File Format: the same header lines, the same `#Fields` in the
/// same order, dates as `yyyy/MM/dd HH:mm:ss.SSS`, measured numbers with three decimals, counts and indicated bit
/// rates as whole numbers, `-` for what is unknown (negative), and the error log's domain and comment quoted. And what
/// an access-log event makes of a period's transfers (synthetic ones here; HLSFaultTests has them from the loopback
/// server).
final class AVPlayerItemLogFormatTests: XCTestCase {
    private func lines(_ data: Data?) throws -> [String] {
        String(decoding: try XCTUnwrap(data), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
    }

    func test_accessLog_appleHeaderFieldsAndValues() throws {
        let measured = AVPlayerItemAccessLogEvent()
        measured.playbackStartDate = Date(timeIntervalSince1970: 1_700_000_000.25)
        measured.uri = "http://127.0.0.1:8080/540p.m3u8"
        measured.playbackSessionID = "2D5C8F04-9F34-40F2-AA06-758CE4EC3643"
        measured.serverAddress = "127.0.0.1"
        measured.numberOfServerAddressChanges = 0
        measured.numberOfMediaRequests = 13
        measured.segmentsDownloadedDuration = 52
        measured.playbackStartOffset = 0
        measured.durationWatched = 46.8711
        measured.numberOfBytesTransferred = 42_598_168
        measured.observedBitrate = 111_623_915
        measured.indicatedBitrate = 2_494_507
        measured.numberOfStalls = 1
        measured.numberOfDroppedVideoFrames = 0
        measured.startupTime = 0.2344
        measured.downloadOverdue = 1
        measured.observedMinimum = 5_000_000.5
        measured.observedMaximum = 9_000_000
        measured.observedBitrateStandardDeviation = 76_942_770.4381
        measured.playbackType = "VOD"
        measured.mediaRequestsWWAN = 0
        measured.indicatedAverageBitrate = 2_200_000.4
        measured.averageVideoBitrate = 2_001_234.5678
        measured.averageAudioBitrate = 128_000
        let unknown = AVPlayerItemAccessLogEvent()
        unknown.playbackType = "FILE"
        let log = AVPlayerItemAccessLog(events: [measured, unknown])
        let text = try lines(log.extendedLogData())
        XCTAssertEqual(text[0], "#Version: 1.0")
        XCTAssertTrue(text[1].hasPrefix("#Software: OpenAVFoundation/"), text[1])
        XCTAssertNotNil(
            text[2].range(of: #"^#Date: \d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d{3}$"#, options: .regularExpression), text[2])
        XCTAssertEqual(
            text[3],
            "#Fields: date time uri cs-guid s-ip s-ip-changes sc-count c-duration-downloaded c-start-time "
                + "c-duration-watched bytes c-observed-bitrate sc-indicated-bitrate c-stalls c-frames-dropped "
                + "c-startup-time c-overdue c-reason c-observed-min-bitrate c-observed-max-bitrate "
                + "c-observed-bitrate-sd s-playback-type sc-wwan-count c-switch-bitrate sc-indicated-avg-bitrate "
                + "c-avg-video-bitrate c-avg-audio-bitrate")
        let fields = text[4].split(separator: " ").map(String.init)
        XCTAssertEqual(fields.count, 27)
        XCTAssertEqual(W3C.dateTime(measured.playbackStartDate), fields[0] + " " + fields[1])
        XCTAssertTrue(fields[1].hasSuffix(".250"), fields[1])
        XCTAssertEqual(
            Array(fields[2...]),
            [
                "http://127.0.0.1:8080/540p.m3u8", "2D5C8F04-9F34-40F2-AA06-758CE4EC3643", "127.0.0.1", "0", "13",
                "52.000", "0.000", "46.871", "42598168", "111623915.000", "2494507", "1", "0", "0.234", "1", "-",
                "5000000.500", "9000000.000", "76942770.438", "VOD", "0", "-", "2200000", "2001234.568",
                "128000.000",
            ])
        XCTAssertEqual(
            text[5], "- - - - - - - - - - - - - - - - - - - - - FILE - - - - -",
            "an event that measured nothing writes - for every field but its playback type")
        XCTAssertEqual(text.count, 7)
        XCTAssertEqual(text[6], "")
        XCTAssertEqual(log.extendedLogDataStringEncoding, String.Encoding.utf8.rawValue)
    }

    func test_errorLog_appleFieldsWithQuotedDomainAndComment() throws {
        let event = AVPlayerItemErrorLogEvent(
            date: Date(timeIntervalSince1970: 1_700_000_000), uri: "http://127.0.0.1:8080/seg2.ts",
            serverAddress: "127.0.0.1", playbackSessionID: "A-B", errorStatusCode: 404,
            errorDomain: "CoreMediaErrorDomain",
            errorComment: "HTTP 404: \"Not Found\"")
        let text = try lines(AVPlayerItemErrorLog(events: [event]).extendedLogData())
        XCTAssertEqual(text[0], "#Version: 1.0")
        XCTAssertEqual(text[3], "#Fields: date time uri cs-guid s-ip status domain comment cs-iftype")
        XCTAssertTrue(
            text[4].hasSuffix(
                " http://127.0.0.1:8080/seg2.ts A-B 127.0.0.1 404 \"CoreMediaErrorDomain\" \"HTTP 404: 'Not Found'\" -"),
            text[4])
    }

    func test_emptyLog_isTheHeaderOnly() throws {
        let text = try lines(AVPlayerItemAccessLog(events: []).extendedLogData())
        XCTAssertEqual(text.count, 3)
        XCTAssertEqual(text[0], "#Version: 1.0")
    }

    // MARK: The transfer fields, from a period's transfers

    private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    private func segment(
        _ name: String, at start: Double, host: String = "127.0.0.1", bytes: Int64, seconds: Double = 0.1,
        media: Double = 2, content: NetworkLog.Transfer.Content = .main
    ) -> NetworkLog.Transfer {
        NetworkLog.Transfer(
            kind: .media, uri: "http://\(host)/\(name)", serverAddress: host, bytes: bytes, duration: seconds,
            start: t0.addingTimeInterval(start), mediaDuration: media,
            indicatedBitrate: content == .main ? 580_800 : nil, content: content)
    }

    /// Address changes follow the order the requests started (not the order they finished); overdue counts the
    /// downloads longer than their media; video and audio rates are bytes over media seconds, the rendition's for
    /// audio.
    func test_transfers_addressChangesOverdueAndRates() {
        let event = AVPlayerItemAccessLogEvent()
        let period = [
            segment("v0", at: 0, bytes: 100_000),
            segment("a0", at: 0.01, host: "127.0.0.2", bytes: 30_000, seconds: 2.5, content: .audioRendition),
            segment("v1", at: 2, bytes: 120_000, seconds: 2.01),
            // Started before v1 finished, finished after it: listed later, started earlier than v2.
            segment("v3", at: 4.5, host: "127.0.0.2", bytes: 90_000, media: 1.5),
            segment("v2", at: 4, bytes: 110_000, media: 2.5),
            NetworkLog.Transfer(
                kind: .other, uri: "http://127.0.0.1/p.m3u8", serverAddress: "127.0.0.1", bytes: 500, duration: 3,
                start: t0),
        ]
        event.fill(
            fromTransfers: period, mainStreams: NetworkLog.MainStreams(video: true, audio: false),
            mainPackets: NetworkLog.PacketBytes())
        // In start order: .1 .2 .1 .1 .2 — three changes.
        XCTAssertEqual(event.numberOfServerAddressChanges, 3)
        XCTAssertEqual(event.serverAddress, "127.0.0.1", "the last media request's (v2 finished last)")
        // a0 (2.5 s for 2 s) and v1 (2.01 s for 2 s); the playlist is not media.
        XCTAssertEqual(event.downloadOverdue, 2)
        XCTAssertEqual(event.numberOfMediaRequests, 5)
        XCTAssertEqual(event.averageVideoBitrate, Double(100_000 + 120_000 + 90_000 + 110_000) * 8 / 8, accuracy: 1e-6)
        XCTAssertEqual(event.averageAudioBitrate, 30_000.0 * 8 / 2, accuracy: 1e-6)
    }

    /// Muxed main segments: video is the combined content's rate; audio its share by the demuxed packet sizes.
    /// Audio-only main segments: all of their rate is audio, none video. Without a word on what the main segments
    /// carry, or without an audio packet, the rates stay unknown.
    func test_transfers_muxedAudioOnlyAndUnknown() {
        let period = [segment("m0", at: 0, bytes: 300_000), segment("m1", at: 2, bytes: 200_000, media: 3)]
        let muxed = AVPlayerItemAccessLogEvent()
        muxed.fill(
            fromTransfers: period, mainStreams: NetworkLog.MainStreams(video: true, audio: true),
            mainPackets: NetworkLog.PacketBytes(all: 400_000, audio: 100_000))
        XCTAssertEqual(muxed.averageVideoBitrate, 500_000.0 * 8 / 5, accuracy: 1e-6)
        XCTAssertEqual(muxed.averageAudioBitrate, 500_000.0 * 8 / 5 / 4, accuracy: 1e-6)

        let audioOnly = AVPlayerItemAccessLogEvent()
        audioOnly.fill(
            fromTransfers: period, mainStreams: NetworkLog.MainStreams(video: false, audio: true),
            mainPackets: NetworkLog.PacketBytes())
        XCTAssertLessThan(audioOnly.averageVideoBitrate, 0)
        XCTAssertEqual(audioOnly.averageAudioBitrate, 500_000.0 * 8 / 5, accuracy: 1e-6)

        let unsaid = AVPlayerItemAccessLogEvent()
        unsaid.fill(fromTransfers: period, mainStreams: nil, mainPackets: NetworkLog.PacketBytes())
        XCTAssertLessThan(unsaid.averageVideoBitrate, 0)
        XCTAssertLessThan(unsaid.averageAudioBitrate, 0)
        XCTAssertEqual(unsaid.numberOfServerAddressChanges, 0)
        XCTAssertEqual(unsaid.downloadOverdue, 0)

        let noAudioPacket = AVPlayerItemAccessLogEvent()
        noAudioPacket.fill(
            fromTransfers: period, mainStreams: NetworkLog.MainStreams(video: true, audio: true),
            mainPackets: NetworkLog.PacketBytes(all: 400_000, audio: 0))
        XCTAssertGreaterThan(noAudioPacket.averageVideoBitrate, 0)
        XCTAssertLessThan(noAudioPacket.averageAudioBitrate, 0)

        let nothing = AVPlayerItemAccessLogEvent()
        nothing.fill(fromTransfers: [], mainStreams: nil, mainPackets: NetworkLog.PacketBytes())
        XCTAssertLessThan(nothing.downloadOverdue, 0)
        XCTAssertLessThan(nothing.numberOfServerAddressChanges, 0)
    }
}
