import Foundation
import TestSupport
import XCTest

@testable import AVFoundation

/// The README's bad-input matrix beyond the "Errors" table (AVErrorTests): inputs that are not regular media files,
/// files that change while they play, and extreme but valid headers. Each either fails with a specific `AVError`
/// whose description says what happened, or plays what can be played; every wait is on an event, with a generous
/// bound that only a hang reaches.
final class BadInputMatrixTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func assertFails(
        _ url: URL, code: AVError.Code, mentions words: [String], file: StaticString = #filePath, line: UInt = #line
    ) async {
        guard let error = await loadError(url, file: file, line: line) else { return }
        XCTAssertEqual(error.domain, AVFoundationErrorDomain, file: file, line: line)
        XCTAssertEqual(error.code, code.rawValue, error.localizedDescription, file: file, line: line)
        for word in words {
            XCTAssertTrue(
                error.localizedDescription.contains(word), "“\(error.localizedDescription)” lacks “\(word)”",
                file: file, line: line)
        }
    }

    /// Plays `url` on an untimed virtual clock until it ends or fails; the item, the pictures shown and whether
    /// it reached its end.
    private func playToEnd(
        _ url: URL, prepare: ((AVPlayerItem) throws -> Void)? = nil
    ) throws -> (
        item: AVPlayerItem, frames: [FrameRecorder.Entry], ended: Bool
    ) {
        let v = VirtualPlayer(mode: .untimed, captureAudio: false)
        let item = AVPlayerItem(url: url)
        let ends = NotificationLog(AVPlayerItem.didPlayToEndTimeNotification, object: item)
        let failures = NotificationLog(AVPlayerItem.failedToPlayToEndTimeNotification, object: item)
        v.player.replaceCurrentItem(with: item)
        waitUntil("the item settles", timeout: 30) { item.status != .unknown }
        if item.status == .readyToPlay {
            try prepare?(item)
            v.player.play()
            waitUntil("the end or a failure", timeout: 60) {
                ends.count > 0 || failures.count > 0 || item.status == .failed
            }
        }
        v.player.pause()
        defer { v.player.replaceCurrentItem(with: nil) }
        return (item, v.frames.entries, ends.count > 0)
    }

    func test_fifo_failsAtOnceInsteadOfWaitingForAWriter() async throws {
        let fifo = folder.appendingPathComponent("pipe.mp4")
        XCTAssertEqual(mkfifo(fifo.path, 0o644), 0)
        await assertFails(fifo, code: .fileFormatNotRecognized, mentions: ["pipe.mp4", "named pipe"])
    }

    func test_devZero_isNotRecognized() async {
        await assertFails(
            URL(fileURLWithPath: "/dev/zero"), code: .fileFormatNotRecognized, mentions: ["zero", "not a media file"])
    }

    func test_oneByteFile_isNotRecognized() async throws {
        let url = folder.appendingPathComponent("one.mp4")
        try Data([0x00]).write(to: url)
        await assertFails(url, code: .fileFormatNotRecognized, mentions: ["one.mp4", "not a media file"])
    }

    func test_sparse4GiBFile_isNotRecognized_withoutReadingItAll() async throws {
        let url = folder.appendingPathComponent("sparse.mp4")
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: nil))
        XCTAssertEqual(truncate(url.path, 4 << 30), 0)
        await assertFails(url, code: .fileFormatNotRecognized, mentions: ["sparse.mp4", "not a media file"])
    }

    /// A file still being written (a faststart MP4 whose `moov` lists every sample): opened with 40 % of its bytes,
    /// the rest appended once it is ready. It plays what was there when the demuxer read it: to the end when the
    /// appended bytes came before the read-ahead reached the cut, else the first seconds and then `.failed` with
    /// `.failedToLoadMediaData` ("ends early"), never a hang.
    func test_fileThatGrowsWhileItPlays_playsWhatIsThere() throws {
        let faststart = folder.appendingPathComponent("faststart.mp4")
        let made = try Subprocess.run(
            "ffmpeg",
            [
                "-v", "error", "-nostdin", "-i", try fixture(.h264AAC).path, "-c", "copy", "-movflags", "+faststart",
                faststart.path,
            ])
        XCTAssertEqual(made.status, 0, made.stderr)
        let whole = try Data(contentsOf: faststart)
        let cut = whole.count * 4 / 10
        let growing = folder.appendingPathComponent("growing.mp4")
        try whole.prefix(cut).write(to: growing)
        let (item, frames, ended) = try playToEnd(growing) { _ in
            let handle = try FileHandle(forWritingTo: growing)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: whole.dropFirst(cut))
        }
        if !ended {
            let error = try XCTUnwrap(item.error) as NSError
            XCTAssertEqual(error.code, AVError.Code.failedToLoadMediaData.rawValue, error.localizedDescription)
            XCTAssertTrue(error.localizedDescription.contains("ends early"), error.localizedDescription)
        }
        // 40 % of the bytes hold more than the first 3 s (90 pictures).
        XCTAssertGreaterThanOrEqual(frames.compactMap(\.index).max() ?? 0, 89)
    }

    /// Removing the read permission of a file being played does not stop it: the open descriptor keeps reading.
    func test_permissionRemovedWhilePlaying_playsToTheEnd() throws {
        guard getuid() != 0 else { throw XCTSkip("root reads any file whatever its permissions") }
        let copy = folder.appendingPathComponent("revoked.mp4")
        try FileManager.default.copyItem(at: try fixture(.videoOnly), to: copy)
        let (_, frames, ended) = try playToEnd(copy) { _ in XCTAssertEqual(chmod(copy.path, 0), 0) }
        XCTAssertTrue(ended)
        XCTAssertEqual(frames.compactMap(\.index).max(), 89)
    }

    /// A header stating a duration (1.5 s) shorter than its streams (3 s), as a fuzzed WebM did: plays to the stated
    /// end and ends there. (It used to play to 1.5 s and never end: the pictures after it filled the queue, the video
    /// decoder waited behind them and the end waited for the decoder.)
    func test_durationShorterThanTheStreams_endsAtTheStatedEnd() throws {
        var data = try Data(contentsOf: try fixture(.vp9OpusWebM))
        // The Segment Info Duration element: ID 0x4489, size 8, a big-endian double in milliseconds.
        let id = try XCTUnwrap(data.firstRange(of: Data([0x44, 0x89, 0x88])))
        withUnsafeBytes(of: Double(1500).bitPattern.bigEndian) {
            data.replaceSubrange(id.upperBound..<id.upperBound + 8, with: $0)
        }
        let url = folder.appendingPathComponent("short.webm")
        try data.write(to: url)
        let (item, frames, ended) = try playToEnd(url)
        XCTAssertEqual(item.status, .readyToPlay)
        XCTAssertEqual(item.duration.seconds, 1.5, accuracy: 0.001)
        XCTAssertTrue(ended, "the item ends at its stated end")
        XCTAssertGreaterThanOrEqual(frames.compactMap(\.index).max() ?? 0, 40, "the pictures up to 1.5 s were shown")
    }

    /// A 1 MHz PCM WAV (ffmpeg writes it): plays, resampled, to its end.
    func test_oneMegahertzSampleRate_plays() throws {
        let url = folder.appendingPathComponent("1mhz.wav")
        let made = try Subprocess.run(
            "ffmpeg", ["-v", "error", "-nostdin", "-f", "lavfi", "-i", "sine=f=440:r=1000000:d=0.5", url.path])
        XCTAssertEqual(made.status, 0, made.stderr)
        let (item, _, ended) = try playToEnd(url)
        XCTAssertEqual(item.status, .readyToPlay, "\(item.error.map { "\($0)" } ?? "")")
        XCTAssertTrue(ended)
    }
}
