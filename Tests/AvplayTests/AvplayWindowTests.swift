import Foundation
import OAVFLocking
import TestSupport
import XCTest

/// `avplay FILE` in a real window on a private Xvfb display: the screen is grabbed with ffmpeg's `x11grab` and the
/// frame index drawn in the fixture's pictures is read back; keys are pressed in the window with `xdotool`.
///
/// Skipped when Xvfb is not installed; the key checks are skipped without `xdotool`. Every program (Xvfb included)
/// runs through `Subprocess.run` with a time limit; Xvfb is stopped in `tearDown` by the pid in its lock file, and
/// an avplay still running then ends with its display.
final class AvplayWindowTests: XCTestCase {
    /// The screen is the fixture's size, so the window (opened at the picture's size) covers it exactly, whether it
    /// is placed at the origin or centred, and the pointer in the middle of the screen gives it the keyboard focus.
    private let screen = (width: 320, height: 240)
    private var display = ""
    private var server: Background?
    private var folder: URL!

    /// A program running on a background thread through `Subprocess.run`, with its result once it ends.
    final class Background: @unchecked Sendable {
        private let lock = ConditionLock()
        private let done = DispatchGroup()
        private var outcome: Result<Subprocess.Result, any Error>?

        init(_ executable: String, _ arguments: [String], changes: [String: String?] = [:], timeout: TimeInterval) {
            done.enter()
            Thread {
                let r = Result { try Subprocess.run(executable, arguments, changes: changes, timeout: timeout) }
                self.lock.withLock { self.outcome = r }
                self.done.leave()
            }.start()
        }

        /// Whether the program has ended.
        var hasEnded: Bool { lock.withLock { outcome != nil } }

        /// Waits up to `timeout` seconds for the program to end; its result, or nil if it is still running.
        func wait(_ timeout: TimeInterval) throws -> Subprocess.Result? {
            guard done.wait(timeout: .now() + timeout) == .success else { return nil }
            return try lock.withLock { outcome }?.get()
        }
    }

    static let xvfb = ["/usr/bin/Xvfb", "/usr/local/bin/Xvfb"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let xdotool = ["/usr/bin/xdotool", "/usr/local/bin/xdotool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    override func setUpWithError() throws {
        guard let xvfb = Self.xvfb else { throw XCTSkip("Xvfb is not installed") }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("avplay-window-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A display number no other server (or parallel test process) uses.
        var number = 40 + Int(getpid() % 50)
        while FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)")
            || FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
        {
            number += 1
        }
        display = ":\(number)"
        let server = Background(
            xvfb, [display, "-screen", "0", "\(screen.width)x\(screen.height)x24", "-nolisten", "tcp", "-br"],
            timeout: 300)
        self.server = server
        // Xvfb's socket and lock file offer no event: looked at every 20 ms, at most the hang guard.
        let started = Poll.until(every: 0.02) {
            server.hasEnded || (serverPID != nil && FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)"))
        }
        guard started, !server.hasEnded else { throw XCTSkip("Xvfb did not start on \(display)") }
    }

    override func tearDown() {
        if let server {
            if let pid = serverPID { kill(pid, SIGTERM) }
            XCTAssertNotNil(try? server.wait(15), "Xvfb did not stop")
        }
        server = nil
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    /// The server's pid, from the lock file it writes on the display.
    private var serverPID: pid_t? {
        let lock = "/tmp/.X\(display.dropFirst())-lock"
        guard let text = try? String(contentsOfFile: lock, encoding: .utf8) else { return nil }
        return pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func test_window_showsThePictureAtStart_andItsKeysStepChangeRateAndQuit() throws {
        let input = try Fixtures.url(.h264AAC).path
        let avplay = Background(
            AvplayInfoTests.binary.path, ["--start", "3.3", "--exact", "--pause", input],
            changes: ["DISPLAY": display, "SDL_AUDIODRIVER": "dummy", "WAYLAND_DISPLAY": nil], timeout: 60)

        // Paused at 3.3 s exactly: frame 99 of the 30 fps fixture fills the screen.
        try waitForFrame(99, avplay)

        guard let xdotool = Self.xdotool else {
            throw XCTSkip("xdotool is not installed: keys in the window not tested (scripts/bootstrap installs it)")
        }
        func press(_ keys: String...) throws {
            let r = try Subprocess.run(xdotool, ["key", "--delay", "50"] + keys, changes: ["DISPLAY": display])
            XCTAssertEqual(r.status, 0, "xdotool key \(keys): \(r.stderr)")
        }
        // `.` steps one frame forward, in the window as in the terminal.
        try press("period")
        try waitForFrame(100, avplay)
        // `}` (Shift+`]`) goes up one rate preset: 1 → 1.5; `{` twice down to 0.5 (shown while paused).
        try press("braceright", "braceleft", "braceleft")
        // `q` quits with status 0.
        try press("q")
        let r = try XCTUnwrap(try avplay.wait(20), "avplay did not quit on q")
        XCTAssertFalse(r.timedOut)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("step +1"), r.stderr)
        XCTAssertTrue(r.stderr.contains("1.50× vol"), r.stderr)
        XCTAssertTrue(r.stderr.contains("0.50× vol"), r.stderr)
        XCTAssertTrue(r.stderr.contains("· rate 0.50×"), r.stderr)
    }

    func test_window_arrowKeySeeksExactly_andPresetsStopAtTheLowestPlayable() throws {
        guard let xdotool = Self.xdotool else { throw XCTSkip("xdotool is not installed") }
        let input = try Fixtures.url(.h264AAC).path
        let avplay = Background(
            AvplayInfoTests.binary.path, ["--start", "1", "--exact", "--pause", input],
            changes: ["DISPLAY": display, "SDL_AUDIODRIVER": "dummy", "WAYLAND_DISPLAY": nil], timeout: 60)
        try waitForFrame(30, avplay)
        func press(_ keys: String...) throws {
            let r = try Subprocess.run(xdotool, ["key", "--delay", "50"] + keys, changes: ["DISPLAY": display])
            XCTAssertEqual(r.status, 0, "xdotool key \(keys): \(r.stderr)")
        }
        // → seeks 5 s forward, exactly (exact seeking is on): frame 180.
        try press("Right")
        try waitForFrame(180, avplay)
        // `{` down from 1: 0.5, 0.25, then the reverse presets only if the item can play in reverse.
        try press("braceleft", "braceleft", "braceleft", "q")
        let r = try XCTUnwrap(try avplay.wait(20), "avplay did not quit on q")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("seek +5 s"), r.stderr)
        XCTAssertTrue(r.stderr.contains("· rate 0.25×"), r.stderr)
        XCTAssertTrue(
            r.stderr.contains("is the lowest preset (this item can’t play in reverse)")
                || r.stderr.contains("· rate -0.50×"), r.stderr)
    }

    /// `s` cycles the subtitle options of `subtitles.mkv` (SubRip, selected at start as the default track, ASS,
    /// WebVTT) and then off: paused at 0.8 s, where cue 1 of each is due, the window shows text over the bottom of the
    /// picture for each option — SubRip and WebVTT drawn alike (libavcodec gives both the same default style), ASS in
    /// its own style — and the picture alone once off.
    func test_window_s_cyclesSubtitleTracksDrawnOverThePicture_thenOff() throws {
        guard let xdotool = Self.xdotool else { throw XCTSkip("xdotool is not installed") }
        let input = try Fixtures.url(.subtitles).path
        let avplay = Background(
            AvplayInfoTests.binary.path, ["--start", "0.8", "--exact", "--pause", input],
            changes: ["DISPLAY": display, "SDL_AUDIODRIVER": "dummy", "WAYLAND_DISPLAY": nil], timeout: 60)
        // Frame n shows from n/30 + 0.021 s: frame 23 at 0.8 s.
        try waitForFrame(23, avplay)
        func press(_ keys: String...) throws {
            let r = try Subprocess.run(xdotool, ["key", "--delay", "50"] + keys, changes: ["DISPLAY": display])
            XCTAssertEqual(r.status, 0, "xdotool key \(keys): \(r.stderr)")
        }
        /// The pixels of `a` and `b` that differ.
        func differences(_ a: [UInt8], _ b: [UInt8]) -> [(x: Int, y: Int)] {
            (0..<min(a.count, b.count)).compactMap { i in a[i] == b[i] ? nil : (i % screen.width, i / screen.width) }
        }
        /// Grabs the screen every 0.1 s (a window offers no event) until it differs from `previous` in more than 100
        /// pixels and three grabs in a row agree (at most the hang guard): past the moment between two streams, when
        /// the new one's cues are still being read and the picture shows alone.
        func waitForChange(from previous: [UInt8], _ what: String) throws -> [UInt8] {
            var last: [UInt8] = []
            var same = 0
            var changed = false
            try Poll.until(every: 0.1) {
                if avplay.hasEnded { return true }
                let shot = try screenshot() ?? []
                same = shot == last ? same + 1 : 0
                last = shot
                changed = same >= 2 && differences(shot, previous).count > 100
                return changed
            }
            if !changed { XCTFail("the screen did not change to \(what)") }
            return last
        }
        let start = try XCTUnwrap(try screenshot(), "no screenshot")
        try press("s")
        let ass = try waitForChange(from: start, "the ASS cue")
        try press("s")
        let webVTT = try waitForChange(from: ass, "the WebVTT cue")
        try press("s")
        let plain = try waitForChange(from: webVTT, "no subtitle")
        try press("s")
        let subRip = try waitForChange(from: plain, "the SubRip cue")
        XCTAssertEqual(differences(subRip, webVTT).count, 0, "SubRip and WebVTT cues drawn alike")
        for (name, shot) in [("SubRip", subRip), ("ASS", ass)] {
            let changed = differences(shot, plain)
            XCTAssertGreaterThan(changed.count, 100, name)
            XCTAssertTrue(changed.allSatisfy { $0.y >= screen.height * 3 / 4 }, "\(name): only the bottom quarter")
        }
        XCTAssertEqual(frameIndex(in: plain), 23, "the same picture under them")
        try press("q")
        let r = try XCTUnwrap(try avplay.wait(20), "avplay did not quit on q")
        XCTAssertEqual(r.status, 0, r.stderr)
        for message in ["subtitles: ASS", "subtitles: WebVTT", "subtitles: off", "subtitles: SubRip"] {
            XCTAssertTrue(r.stderr.contains(message), message)
        }
    }

    // MARK: Helpers

    /// Grabs the screen every 0.1 s (a window offers no event) until the picture shows frame `expected` (at most the
    /// hang guard), while avplay keeps running.
    private func waitForFrame(
        _ expected: Int, _ avplay: Background, file: StaticString = #filePath, line: UInt = #line
    )
        throws
    {
        var seen: Int?
        var ended = false
        let shown = try Poll.until(every: 0.1) {
            ended = avplay.hasEnded
            if ended { return true }
            seen = try frameIndexOnScreen()
            return seen == expected
        }
        if ended {
            let r = try avplay.wait(0)
            XCTFail("avplay ended (\(r?.status ?? -1)): \(r?.stderr ?? "")", file: file, line: line)
            return
        }
        if shown { return }
        XCTFail("the screen shows frame \(seen.map(String.init) ?? "none"), not \(expected)", file: file, line: line)
    }

    /// The frame index drawn in a screenshot of the whole screen.
    private func frameIndexOnScreen() throws -> Int? {
        try screenshot().flatMap(frameIndex(in:))
    }

    /// The frame index drawn in a screenshot.
    private func frameIndex(in luma: [UInt8]) -> Int? {
        luma.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            FrameIndexReader.read(
                luma: bytes, width: screen.width, height: screen.height, bytesPerRow: screen.width)?.index
        }
    }

    /// A screenshot of the whole screen (`x11grab`, no pointer), saved as a PNG and decoded to gray by the ffmpeg
    /// CLI: `width` bytes a row.
    private func screenshot() throws -> [UInt8]? {
        let png = folder.appendingPathComponent("shot.png").path
        let size = "\(screen.width)x\(screen.height)"
        let grab = try Subprocess.run(
            "ffmpeg",
            ["-v", "error", "-nostdin", "-y", "-f", "x11grab", "-draw_mouse", "0", "-video_size", size, "-i", display]
                + ["-frames:v", "1", png], timeout: 20)
        XCTAssertEqual(grab.status, 0, "ffmpeg x11grab: \(grab.stderr)")
        let decode = try Subprocess.run(
            "ffmpeg", ["-v", "error", "-nostdin", "-i", png, "-f", "rawvideo", "-pix_fmt", "gray", "-"], timeout: 20)
        let luma = decode.stdoutData
        guard decode.status == 0, luma.count == screen.width * screen.height else { return nil }
        return [UInt8](luma)
    }
}
