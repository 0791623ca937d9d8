import Foundation
import XCTest

@testable import AVFoundation

/// `extendedLogData()` writes Apple's W3C Extended Log File Format: the same header lines, the same `#Fields` in the
/// same order, dates as `yyyy/MM/dd HH:mm:ss.SSS`, measured numbers with three decimals, counts and indicated bit
/// rates as whole numbers, `-` for what is unknown (negative), and the error log's domain and comment quoted.
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
}
