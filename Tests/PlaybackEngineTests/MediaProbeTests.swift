import CoreMedia
import CoreVideo
import FFmpegBridge
import Foundation
import OAVFLocking
import PlaybackEngine
import TestSupport
import XCTest

/// ``MediaProbe`` describes inputs exactly as the demuxer reports them, in the engine's own types; ``SourceOptions``
/// become the libavformat options the public layer used to build itself; ``Cancellation`` interrupts a blocked
/// probe.
final class MediaProbeTests: XCTestCase {
    /// Every field of the engine's description equals what `FormatContext.info` reports for the same input.
    func test_describeMatchesTheDemuxer() throws {
        let fixtures: [Fixture] = [.h264AAC, .multiAudioSubtitles, .rotated90, .h264AACTS, .audioMP3, .odd321x241]
        for fixture in fixtures {
            let url = try Fixtures.url(fixture)
            let media = try MediaProbe.describe(url: url, options: SourceOptions(), cancellation: Cancellation())
            let info = try FormatContext(url: url.path).info
            let name = fixture.rawValue
            XCTAssertEqual(media.formatName, info.formatName, name)
            XCTAssertEqual(media.formatLongName, info.formatLongName, name)
            XCTAssertEqual(media.durationMicroseconds, info.durationMicroseconds, name)
            XCTAssertEqual(media.startTimeMicroseconds, info.startTimeMicroseconds, name)
            XCTAssertEqual(media.bitRate, info.bitRate, name)
            XCTAssertEqual(media.isDurationEstimated, info.durationFromBitrate, name)
            XCTAssertEqual(media.byteSize, info.byteSize, name)
            XCTAssertEqual(media.metadata, info.metadata, name)
            XCTAssertEqual(media.duration, info.durationMicroseconds.map { CMTime(value: $0, timescale: 1_000_000) })
            XCTAssertEqual(media.streams.count, info.streams.count, name)
            for (s, i) in zip(media.streams, info.streams) {
                let label = "\(name) stream \(i.index)"
                XCTAssertEqual(s.index, i.index, label)
                XCTAssertEqual(s.containerID, i.containerID, label)
                XCTAssertEqual(s.kind.rawValue, i.kind.rawValue, label)
                XCTAssertEqual(s.codecName, i.codecName, label)
                XCTAssertEqual(s.codecLongName, i.codecLongName, label)
                XCTAssertEqual(s.profileName, i.profileName, label)
                XCTAssertEqual(s.codecTag, i.codecTag, label)
                XCTAssertEqual(s.hasDecoder, i.hasDecoder, label)
                XCTAssertEqual(s.timeBase, MediaRational(i.timeBase.num, i.timeBase.den), label)
                XCTAssertEqual(s.startTime, i.startTime, label)
                XCTAssertEqual(s.duration, i.duration, label)
                XCTAssertEqual(s.bitRate, i.bitRate, label)
                XCTAssertEqual(s.metadata, i.metadata, label)
                XCTAssertEqual(s.language, i.language, label)
                XCTAssertEqual(s.title, i.title, label)
                XCTAssertEqual(s.width, i.width, label)
                XCTAssertEqual(s.height, i.height, label)
                XCTAssertEqual(s.sampleAspectRatio, i.sampleAspectRatio.map { MediaRational($0.num, $0.den) }, label)
                XCTAssertEqual(s.averageFrameRate, i.averageFrameRate.map { MediaRational($0.num, $0.den) }, label)
                XCTAssertEqual(s.realFrameRate, i.realFrameRate.map { MediaRational($0.num, $0.den) }, label)
                XCTAssertEqual(s.rotationDegrees, i.rotationDegrees, label)
                XCTAssertEqual(s.isMirrored, i.isMirrored, label)
                XCTAssertEqual(s.hasReordering, i.hasReordering, label)
                XCTAssertEqual(s.sampleRate, i.sampleRate, label)
                XCTAssertEqual(s.channelCount, i.channelCount, label)
                XCTAssertEqual(s.channelLayoutName, i.channelLayoutName, label)
                let pairs: [(StreamInfo.Disposition, StreamDispositions)] = [
                    (.default, .default), (.forced, .forced), (.hearingImpaired, .hearingImpaired),
                    (.visualImpaired, .visualImpaired), (.attachedPicture, .attachedPicture), (.comment, .comment),
                    (.descriptions, .descriptions), (.captions, .captions),
                ]
                for (ffmpeg, engine) in pairs {
                    XCTAssertEqual(s.dispositions.contains(engine), i.disposition.contains(ffmpeg), label)
                }
                if let start = i.startTime {
                    XCTAssertEqual(s.time(inTimeBase: start), CMTime(ffmpeg: start, timeBase: i.timeBase), label)
                }
                let origin = info.startTimeMicroseconds ?? 0
                XCTAssertEqual(
                    s.timeBaseValue(microseconds: origin),
                    Rational.rescale(origin, from: Rational(1, 1_000_000), to: i.timeBase), label)
            }
        }
    }

    func test_describeNamesTheStreams() throws {
        let url = try Fixtures.url(.multiAudioSubtitles)
        let media = try MediaProbe.describe(url: url, options: SourceOptions(), cancellation: Cancellation())
        XCTAssertEqual(media.streams.first?.kind, .video)
        XCTAssertTrue(media.streams.contains { $0.kind == .audio && $0.dispositions.contains(.default) })
        XCTAssertTrue(media.streams.contains { $0.kind == .subtitle })
    }

    func test_describeMissingFileFailsWithENOENT() throws {
        let url = try Fixtures.directory().appendingPathComponent("no-such-file.mp4")
        XCTAssertThrowsError(
            try MediaProbe.describe(url: url, options: SourceOptions(), cancellation: Cancellation())
        ) { error in
            let failure = error as? any MediaFailure
            XCTAssertEqual(failure?.posixErrno, ENOENT)
            XCTAssertEqual(failure?.kind, .system)
            XCTAssertEqual(failure?.function, "avformat_open_input")
        }
    }

    func test_recognizedFormat() throws {
        XCTAssertNotNil(MediaProbe.recognizedFormat(path: try Fixtures.url(.corruptHeader).path))
        XCTAssertNil(MediaProbe.recognizedFormat(path: try Fixtures.url(.text).path))
    }

    /// A server that accepts the connection but never answers: the probe blocks until cancelled, then fails as
    /// cancelled.
    func test_cancellationInterruptsABlockedProbe() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(listener, 0)
        defer {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                guard bind(listener, raw, length) == 0, listen(listener, 4) == 0,
                    getsockname(listener, raw, &length) == 0
                else { throw XCTSkip("no loopback socket") }
            }
        }
        let port = UInt16(bigEndian: address.sin_port)
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)/never.mp4"))
        let cancellation = Cancellation()
        // Cancels once the probe's request arrived: the probe is then blocked waiting for the answer.
        // (The connection stays open until the probe returned: closed, it would end the probe as an end of file.)
        let cancelled = expectation(description: "cancelled after the request")
        let client = Locked<Int32>(-1)
        Thread.detachNewThread {
            let accepted = accept(listener, nil, nil)
            var request = [UInt8](repeating: 0, count: 4096)
            if accepted >= 0 { _ = recv(accepted, &request, request.count, 0) }
            client.withLock { $0 = accepted }
            cancellation.cancel()
            cancelled.fulfill()
        }
        // A read timeout of ten minutes, far past the hang guard: returning within the hang guard is returning long
        // before it, however loaded the machine.
        let options = SourceOptions(readTimeoutMicroseconds: 600_000_000)
        let started = Date()
        XCTAssertThrowsError(try MediaProbe.describe(url: url, options: options, cancellation: cancellation)) {
            error in
            XCTAssertEqual((error as? any MediaFailure)?.kind, .cancelled, "\(error)")
        }
        XCTAssertTrue(cancellation.isCancelled)
        XCTAssertLessThan(
            Date().timeIntervalSince(started), Awaitable<Void>.hangGuard, "cancelled long before the read timeout")
        wait(for: [cancelled], timeout: Awaitable<Void>.hangGuard)
        if client.current >= 0 { close(client.current) }
    }

    func test_sourceOptionsForLocalAndNetworkInputs() {
        let options = SourceOptions(userAgent: "Agent/1", headers: ["X-B": "2", "X-A": "1"])
        XCTAssertEqual(options.libavformatOptions(isLocal: true), [:])
        XCTAssertEqual(
            options.libavformatOptions(isLocal: false),
            [
                "rw_timeout": "15000000", "reconnect": "1", "user_agent": "Agent/1",
                "headers": "X-A: 1\r\nX-B: 2\r\n",
            ])
        XCTAssertEqual(
            SourceOptions().libavformatOptions(isLocal: false), ["rw_timeout": "15000000", "reconnect": "1"])
        XCTAssertEqual(URL(fileURLWithPath: "/tmp/a b.mp4").mediaLocation, "/tmp/a b.mp4")
        XCTAssertEqual(URL(string: "https://example.com/a%20b.mp4")?.mediaLocation, "https://example.com/a%20b.mp4")
    }

    func test_ffmpegErrorKinds() {
        let cases: [(FFmpegError, MediaFailureKind)] = [
            (.exit, .cancelled), (.endOfFile, .endOfFile), (.invalidData, .invalidData),
            (.decoderNotFound, .decoderNotFound), (.demuxerNotFound, .demuxerNotFound),
            (.streamNotFound, .streamNotFound), (.patchWelcome, .unsupported), (.protocolNotFound, .protocolNotFound),
            (.httpNotFound, .httpNotFound), (.httpForbidden, .httpForbidden), (.httpUnauthorized, .httpUnauthorized),
            (.httpBadRequest, .httpBadRequest), (.httpOther4xx, .httpOther4xx), (.httpServerError, .httpServerError),
            (.posix(EIO), .system), (.unknown, .other),
            (FFmpegError(code: FFmpegError.exit.code, function: "av_read_frame"), .cancelled),
        ]
        for (error, kind) in cases {
            let failure: any MediaFailure = error
            XCTAssertEqual(failure.kind, kind, error.description)
            XCTAssertEqual(failure.code, error.code)
            XCTAssertEqual(failure.message, error.message)
            XCTAssertEqual(failure.posixErrno, error.posixErrno)
        }
        XCTAssertEqual(MediaProbe.decoderNotFound.code, FFmpegError.decoderNotFound.code)
    }

    func test_videoGravityRect() {
        let picture = (width: 320.0, height: 240.0)
        XCTAssertTrue(VideoGravity.resizeAspect.videoRect(picture: picture, output: (640, 360)) == (80, 0, 480, 360))
        XCTAssertTrue(
            VideoGravity.resizeAspectFill.videoRect(picture: picture, output: (640, 360)) == (0, -60, 640, 480))
        XCTAssertTrue(VideoGravity.resize.videoRect(picture: picture, output: (640, 360)) == (0, 0, 640, 360))
        XCTAssertTrue(VideoGravity.resizeAspect.videoRect(picture: (0, 0), output: (640, 360)) == (0, 0, 0, 0))
    }

    func test_pixelConverterAndPNG() throws {
        var made: CVPixelBuffer?
        CVPixelBufferCreate(nil, 64, 48, kCVPixelFormatType_420YpCbCr8Planar, nil, &made)
        let source = try XCTUnwrap(made)
        XCTAssertTrue(PixelConverter.supportedOutputPixelFormatTypes.contains(kCVPixelFormatType_32BGRA))
        XCTAssertTrue(PixelConverter.supportedInputPixelFormatTypes.contains(kCVPixelFormatType_420YpCbCr8Planar))
        let converter = try PixelConverter(outputPixelFormatType: kCVPixelFormatType_32BGRA, threads: 1)
        XCTAssertEqual(converter.outputPixelFormatType, kCVPixelFormatType_32BGRA)
        let bgra = try converter.convert(source)
        XCTAssertEqual(CVPixelBufferGetPixelFormatType(bgra), kCVPixelFormatType_32BGRA)
        XCTAssertEqual(CVPixelBufferGetWidth(bgra), 64)
        XCTAssertEqual(CVPixelBufferGetHeight(bgra), 48)

        let scaling = try ScalingPixelConverter(outputPixelFormatType: kCVPixelFormatType_32BGRA, width: 32, height: 24)
        let small = try scaling.convert(source)
        XCTAssertEqual([CVPixelBufferGetWidth(small), CVPixelBufferGetHeight(small)], [32, 24])
        XCTAssertEqual([scaling.width, scaling.height], [32, 24])

        XCTAssertThrowsError(try PixelConverter(outputPixelFormatType: 0x6162_6364)) { error in
            XCTAssertEqual((error as? any MediaFailure)?.kind, .unsupported)
        }

        for picture in [source, bgra] {
            let png = try StillImageEncoder.pngData(from: picture)
            XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        }
    }
}
