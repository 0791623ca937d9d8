import Foundation
import HLS
import XCTest

/// Where the tests pretend their playlists were fetched from.
let remoteURL = URL(string: "https://media.example.com/live/stream/index.m3u8")!

/// Parses `text` as a media playlist, failing the test when it is anything else.
func parseMedia(
    _ text: String, url: URL = remoteURL, limits: HLSParserLimits = HLSParserLimits(),
    file: StaticString = #filePath, line: UInt = #line
) throws -> HLSMediaPlaylist {
    switch try HLSParser(limits: limits).parse(text, url: url) {
    case .media(let playlist): return playlist
    case .multivariant:
        XCTFail("expected a media playlist", file: file, line: line)
        throw HLSPlaylistError(.invalidTag, "not a media playlist")
    }
}

/// Parses `text` as a multivariant playlist, failing the test when it is anything else.
func parseMultivariant(
    _ text: String, url: URL = remoteURL, limits: HLSParserLimits = HLSParserLimits(),
    file: StaticString = #filePath, line: UInt = #line
) throws -> HLSMultivariantPlaylist {
    switch try HLSParser(limits: limits).parse(text, url: url) {
    case .multivariant(let playlist): return playlist
    case .media:
        XCTFail("expected a multivariant playlist", file: file, line: line)
        throw HLSPlaylistError(.invalidTag, "not a multivariant playlist")
    }
}

/// The error parsing `text` throws, or `nil` (and a failure) when it parses.
func parseError(
    _ text: String, url: URL = remoteURL, limits: HLSParserLimits = HLSParserLimits(),
    file: StaticString = #filePath, line: UInt = #line
) -> HLSPlaylistError? {
    do {
        _ = try HLSParser(limits: limits).parse(text, url: url)
        XCTFail("the playlist parsed; expected an error", file: file, line: line)
        return nil
    } catch {
        return error
    }
}

/// Asserts that parsing `text` fails with `code` at `errorLine`, and that the message mentions `mentioning`.
func assertRefused(
    _ text: String, _ code: HLSPlaylistError.Code, line errorLine: Int? = nil, mentioning: String? = nil,
    url: URL = remoteURL, limits: HLSParserLimits = HLSParserLimits(), file: StaticString = #filePath,
    line: UInt = #line
) {
    guard let error = parseError(text, url: url, limits: limits, file: file, line: line) else { return }
    XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
    if let errorLine { XCTAssertEqual(error.line, errorLine, "\(error)", file: file, line: line) }
    if let mentioning {
        XCTAssertTrue(
            error.message.contains(mentioning), "\"\(error)\" lacks \"\(mentioning)\"", file: file, line: line)
    }
}

/// Seconds since 1970 of a UTC calendar date, computed by Foundation's calendar (independently of the parser).
func utc(
    _ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int, _ fraction: Double = 0
) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    return calendar.date(from: components)!.addingTimeInterval(fraction)
}
