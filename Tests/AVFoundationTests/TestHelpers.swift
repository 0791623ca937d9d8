import AVFoundation
import Foundation
import TestSupport
import XCTest

/// The fixture's URL, or a test failure explaining why it is missing.
func fixture(_ f: Fixture, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
    do {
        return try Fixtures.url(f)
    } catch {
        XCTFail("fixture \(f.rawValue) unavailable: \(error)", file: file, line: line)
        throw error
    }
}

/// ffprobe's view of one stream, for comparing against what the asset reports.
struct ProbedStream: Decodable {
    var index: Int
    var codec_type: String
    var codec_name: String?
    var time_base: String
    var duration_ts: Int64?
    var start_pts: Int64?
    var width: Int?
    var height: Int?
    var sample_rate: String?
    var channels: Int?
    var tags: [String: String]?
}

func probeStreams(_ url: URL) throws -> [ProbedStream] {
    struct Root: Decodable { var streams: [ProbedStream] }
    let data = try Subprocess.run("ffprobe", ["-v", "error", "-show_streams", "-of", "json", url.path]).stdoutData
    return try JSONDecoder().decode(Root.self, from: data).streams
}

/// Awaits the asset's failure and returns it as an NSError.
func loadError(_ url: URL, file: StaticString = #filePath, line: UInt = #line) async -> NSError? {
    let asset = AVURLAsset(url: url)
    do {
        _ = try await asset.load(.duration, .tracks)
        XCTFail("\(url.lastPathComponent) loaded without error", file: file, line: line)
        return nil
    } catch {
        return error as NSError
    }
}
