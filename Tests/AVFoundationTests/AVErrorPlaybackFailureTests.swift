import FFmpegBridge
import Foundation
import XCTest

@testable import AVFoundation
@testable import PlaybackEngine

/// `AVError.playbackFailure(_:url:)`: each kind of error the engine reports while preparing or playing becomes the
/// code and sentence the README's "Errors" table gives, with the FFmpeg error underneath.
final class AVErrorPlaybackFailureTests: XCTestCase {
    private let url = URL(fileURLWithPath: "/media/clip.mp4")

    private func check(
        _ error: any Error, code: AVError.Code, description: String, ffmpegCode: Int32?,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let ns = AVError.playbackFailure(error, url: url) as NSError
        XCTAssertEqual(ns.domain, AVFoundationErrorDomain, file: file, line: line)
        XCTAssertEqual(ns.code, code.rawValue, file: file, line: line)
        XCTAssertEqual(ns.localizedDescription, description, file: file, line: line)
        XCTAssertEqual(ns.userInfo[NSURLErrorKey] as? URL, url, file: file, line: line)
        let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError
        if let ffmpegCode {
            XCTAssertEqual(underlying?.domain, AVError.ffmpegErrorDomain, file: file, line: line)
            XCTAssertEqual(underlying?.code, Int(ffmpegCode), file: file, line: line)
        } else {
            XCTAssertNil(underlying, file: file, line: line)
        }
    }

    func test_engineErrors() {
        check(
            MediaEndedEarly(endedAt: CMTime(value: 5, timescale: 2), duration: CMTime(value: 10, timescale: 1)),
            code: .failedToLoadMediaData, description: "“clip.mp4” ends early: its data stops at 2.50 s of 10.00 s.",
            ffmpegCode: nil)
        check(
            FFmpegError(code: FFmpegError.exit.code, function: "av_read_frame"), code: .operationInterrupted,
            description: "Reading “clip.mp4” was interrupted.", ffmpegCode: FFmpegError.exit.code)
        check(
            FFmpegError.invalidData, code: .failedToLoadMediaData,
            description: "“clip.mp4” could not be read to its end: \(FFmpegError.invalidData.message).",
            ffmpegCode: FFmpegError.invalidData.code)
        check(
            FFmpegError.posix(EIO), code: .failedToLoadMediaData,
            description: "“clip.mp4” could not be read to its end: \(FFmpegError.posix(EIO).message).",
            ffmpegCode: FFmpegError.posix(EIO).code)
        check(
            FFmpegError.posix(ENOENT), code: .contentIsUnavailable, description: "The file “clip.mp4” doesn’t exist.",
            ffmpegCode: FFmpegError.posix(ENOENT).code)
        check(
            CocoaError(.fileReadUnknown), code: .unknown,
            description: "“clip.mp4” can’t be played: \(CocoaError(.fileReadUnknown)).", ffmpegCode: nil)
        let original = AVError(.decoderNotFound)
        XCTAssertEqual(AVError.playbackFailure(original, url: url), original)
    }

    func test_underlyingErrorCarriesTheFunctionAndErrno() {
        let ns = AVError.playbackFailure(
            FFmpegError(code: FFmpegError.posix(EIO).code, function: "avio_read"), url: url)
        let underlying = (ns as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        XCTAssertEqual(underlying?.userInfo["FFmpegFunction"] as? String, "avio_read")
        XCTAssertEqual((underlying?.userInfo[NSUnderlyingErrorKey] as? NSError)?.code, Int(EIO))
    }

    func test_sourceOptionsFromAssetOptions() {
        let options = SourceOptions(assetOptions: [
            AVURLAssetHTTPUserAgentKey: "Agent/1", "AVURLAssetHTTPHeaderFieldsKey": ["X-A": "1"],
            AVURLAssetPreferPreciseDurationAndTimingKey: true,
        ])
        XCTAssertEqual(options.userAgent, "Agent/1")
        XCTAssertEqual(options.headers, ["X-A": "1"])
        XCTAssertEqual(SourceOptions(assetOptions: [:]), SourceOptions())
    }
}
