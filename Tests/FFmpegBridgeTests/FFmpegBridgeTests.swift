import CoreMedia
import FFmpegBridge
import TestSupport
import XCTest

final class FFmpegBridgeTests: XCTestCase {
    func test_openProbeAndReadEveryPacket() throws {
        let url = try Fixtures.url(.h264AAC)
        let format = try FormatContext(url: url.path)
        let info = format.info
        XCTAssertTrue(info.formatName.contains("mp4"))
        XCTAssertEqual(info.streams.map(\.kind), [.video, .audio])
        XCTAssertEqual(info.streams[0].codecName, "h264")
        XCTAssertTrue(info.streams[0].hasDecoder)
        XCTAssertTrue(info.streams[0].hasReordering)
        XCTAssertEqual(info.streams[1].sampleRate, 48_000)
        XCTAssertEqual(info.streams[1].channelCount, 2)

        let packet = Packet()
        var video = 0
        var keyframes = 0
        while case .packet = try format.read(into: packet) {
            if packet.streamIndex == 0 {
                video += 1
                if packet.isKeyframe { keyframes += 1 }
            }
        }
        XCTAssertEqual(video, 300)
        XCTAssertEqual(keyframes, 5, "2 s GOPs over 10 s")
    }

    func test_decodeFirstFrames_carryTheirIndex() throws {
        let url = try Fixtures.url(.h264AAC)
        let format = try FormatContext(url: url.path)
        let decoder = try CodecContext(format: format, stream: 0)
        let packet = Packet()
        let frame = Frame()
        var indices: [Int] = []
        reading: while indices.count < 10 {
            let r = try format.read(into: packet)
            if case .endOfFile = r { break }
            guard packet.streamIndex == 0 else { continue }
            _ = try decoder.send(packet)
            while case .frame = try decoder.receive(into: frame) {
                let (data, stride) = frame.plane(0)
                let luma = UnsafeRawBufferPointer(start: data, count: stride * frame.height)
                let index = FrameIndexReader.read(
                    luma: luma, width: frame.width, height: frame.height, bytesPerRow: stride)
                indices.append(index?.index ?? -1)
                if indices.count == 10 { break reading }
            }
        }
        XCTAssertEqual(indices, Array(0..<10))
    }

    func test_errors_areTypedAndNamed() {
        XCTAssertThrowsError(try FormatContext(url: "/nonexistent/file.mp4")) { e in
            let error = e as? FFmpegError
            XCTAssertEqual(error?.posixErrno, ENOENT)
            XCTAssertFalse(error?.message.isEmpty ?? true)
        }
        XCTAssertNotEqual(FFmpegError.endOfFile.code, FFmpegError.tryAgain.code)
        XCTAssertEqual(FFmpegError.tryAgain.posixErrno, EAGAIN)
    }

    func test_interruptFlag_abortsBlockedOpen() throws {
        let flag = InterruptFlag()
        flag.abort()
        XCTAssertThrowsError(try FormatContext(url: "http://127.0.0.1:9/x.mp4", interrupt: flag)) { e in
            XCTAssertEqual(e as? FFmpegError, .exit)
        }
    }

    func test_cmTimeFromTimeBase_isExact() {
        XCTAssertEqual(CMTime(ffmpeg: 153_600, timeBase: Rational(1, 15_360)), CMTime(value: 10, timescale: 1))
        XCTAssertEqual(CMTime(ffmpeg: 153_600, timeBase: Rational(1, 15_360)).timescale, 15_360)
        XCTAssertEqual(CMTime(ffmpeg: 3, timeBase: Rational(1001, 30_000)), CMTime(value: 3003, timescale: 30_000))
        XCTAssertFalse(CMTime(ffmpeg: 1, timeBase: Rational(0, 1)).isValid)
        XCTAssertEqual(CMTime(value: 5, timescale: 1).ffmpegValue(in: Rational(1, 90_000)), 450_000)
    }

    func test_probe_recognizesContainersNotText() throws {
        XCTAssertNotNil(FormatProbe.recognizedFormat(path: try Fixtures.url(.truncated).path))
        XCTAssertNil(FormatProbe.recognizedFormat(path: try Fixtures.url(.text).path))
    }
}
