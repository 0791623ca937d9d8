import Foundation
import TestSupport
import XCTest

/// `avplay FILE` driven by keys in a real terminal: a detached tmux session with a fixed size, keys sent
/// with `tmux send-keys`, the status line read back with `tmux capture-pane`.
final class AvplayKeysTests: XCTestCase {
    let session = "avplay-keys-\(getpid())"
    var folder: URL!

    override func setUpWithError() throws {
        guard Self.tmux != nil else { throw XCTSkip("tmux is not installed") }
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("avplay-keys-\(getpid())")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if Self.tmux != nil { _ = try? tmux(["kill-server"]) }
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }

    static var tmux: String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func test_keys_pauseSeekRateQuit_restoreTheTerminal() throws {
        let file = try Fixtures.url(.h264AAC)
        try tmux(["new-session", "-d", "-s", session, "-x", "200", "-y", "10", "bash --norc --noprofile"])
        let before = folder.appendingPathComponent("stty.before").path
        let after = folder.appendingPathComponent("stty.after").path
        let rc = folder.appendingPathComponent("rc").path
        let command =
            "stty -g > \(before); SDL_AUDIODRIVER=dummy \(AvplayInfoTests.binary.path) \(file.path); "
            + "echo $? > \(rc); stty -g > \(after)"
        try tmux(["send-keys", "-t", session, "-l", command])
        try tmux(["send-keys", "-t", session, "Enter"])

        // The status line appears and its time advances.
        let first = try wait("the time to pass 0.3 s") { self.time().map { $0 >= 0.3 } ?? false }
        let t0 = try XCTUnwrap(time(), first)
        try wait("the time to advance past \(t0)") { (self.time() ?? 0) > t0 }

        // Space pauses: the state says so and the time stops. m mutes and unmutes: two keys avplay read and two
        // status lines it drew after the pause, at a time that has not moved.
        try tmux(["send-keys", "-t", session, "Space"])
        try wait("paused") { self.status().contains("paused") }
        let paused = try XCTUnwrap(time())
        try tmux(["send-keys", "-t", session, "m"])
        try wait("muted") { self.status().contains(" muted ") }
        XCTAssertEqual(try XCTUnwrap(time()), paused, accuracy: 0.05, status())
        try tmux(["send-keys", "-t", session, "m"])
        try wait("unmuted") { self.status().contains(" vol ") && self.status().contains("paused") }
        XCTAssertEqual(try XCTUnwrap(time()), paused, accuracy: 0.05, status())

        // e switches to exact seeking; → then seeks exactly 5 s forward. (A fast seek lands on a keyframe
        // of the 2 s GOPs at or before the target, so it can move less than 4 s forward.)
        try tmux(["send-keys", "-t", session, "e"])
        try wait("exact seeking") { self.status().contains(" exact ") }
        try tmux(["send-keys", "-t", session, "Right"])
        try wait("a seek of at least 4 s from \(paused)") { (self.time() ?? 0) >= paused + 4 }
        let seeked = try XCTUnwrap(time())
        XCTAssertEqual(seeked, paused + 5, accuracy: 0.15, status())

        // ] raises the rate by 1.25 (shown while paused too).
        try tmux(["send-keys", "-t", session, "]"])
        try wait("rate 1.25") { self.status().contains("1.25×") }

        // . steps a frame forward (or says the item can't), m mutes.
        try tmux(["send-keys", "-t", session, "."])
        try wait("a step") { self.status().contains("step +1") || self.status().contains("can’t step") }
        try tmux(["send-keys", "-t", session, "m"])
        try wait("muted") { self.status().contains(" muted ") }

        // e back to fast seeking; ← seeks back to the keyframe at or before the target: at least 5 s back.
        try tmux(["send-keys", "-t", session, "e"])
        try wait("fast seeking") { self.status().contains(" fast ") }
        try tmux(["send-keys", "-t", session, "Left"])
        try wait("a seek back of at least 4 s from \(seeked)") { (self.time() ?? 99) <= seeked + 0.1 - 4 }

        // q quits with status 0 and the shell gets its terminal back unchanged.
        try tmux(["send-keys", "-t", session, "q"])
        try wait("avplay to exit") { Self.isWritten(after) }
        let status = try String(contentsOfFile: rc, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(status, "0", capture())
        XCTAssertEqual(
            try String(contentsOfFile: before, encoding: .utf8), try String(contentsOfFile: after, encoding: .utf8),
            "stty settings differ after avplay quit")
    }

    func test_ctrlC_restoresTheTerminal() throws {
        let file = try Fixtures.url(.h264AAC)
        try tmux(["new-session", "-d", "-s", session, "-x", "200", "-y", "10", "bash --norc --noprofile"])
        let before = folder.appendingPathComponent("stty.before").path
        let after = folder.appendingPathComponent("stty.after").path
        let rc = folder.appendingPathComponent("rc").path
        let command =
            "stty -g > \(before); SDL_AUDIODRIVER=dummy \(AvplayInfoTests.binary.path) \(file.path); "
            + "echo $? > \(rc); stty -g > \(after)"
        try tmux(["send-keys", "-t", session, "-l", command])
        try tmux(["send-keys", "-t", session, "Enter"])
        try wait("playing") { self.status().contains("playing") }
        try tmux(["send-keys", "-t", session, "C-c"])
        try wait("avplay to exit") { Self.isWritten(after) }
        let status = try String(contentsOfFile: rc, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(status, "130")
        XCTAssertEqual(
            try String(contentsOfFile: before, encoding: .utf8), try String(contentsOfFile: after, encoding: .utf8),
            "stty settings differ after Ctrl-C")
    }

    // MARK: Helpers

    /// Whether the shell has written `path` whole: `stty -g > path` creates the file before stty writes its line, so
    /// its existence alone (read at once on a loaded machine) gave an empty "after".
    static func isWritten(_ path: String) -> Bool {
        (try? String(contentsOfFile: path, encoding: .utf8))?.hasSuffix("\n") ?? false
    }

    /// Runs tmux with `arguments` and returns its standard output; throws when it fails.
    @discardableResult
    func tmux(_ arguments: [String]) throws -> String {
        // A private server (-L) with no configuration file, so the tests neither use nor disturb the user's tmux.
        var r = try Subprocess.run(
            try XCTUnwrap(Self.tmux), ["-L", session, "-f", "/dev/null"] + arguments, timeout: 20)
        // Starting the server can fail on a loaded machine ("server exited unexpectedly", once in ten runs of the
        // suite beside two fuzzers): the session is made again, up to twice.
        var retries = 2
        while arguments.first == "new-session", r.status != 0, r.stderr.contains("server exited"), retries > 0 {
            retries -= 1
            // A back-off before the retry, not a wait for a state: nothing tells when tmux could start again.
            usleep(500_000)
            r = try Subprocess.run(
                try XCTUnwrap(Self.tmux), ["-L", session, "-f", "/dev/null"] + arguments, timeout: 20)
        }
        guard r.status == 0, r.exited else {
            throw NSError(
                domain: "tmux", code: Int(r.status),
                userInfo: [NSLocalizedDescriptionKey: "tmux \(arguments): \(r.stderr)"])
        }
        return r.stdout
    }

    func capture() -> String {
        (try? tmux(["capture-pane", "-p", "-t", session])) ?? ""
    }

    /// The last status line on the screen (it names the file and shows `time / duration`).
    func status() -> String {
        capture().split(separator: "\n").last { $0.contains(" / ") && $0.contains("h264_aac.mp4") }.map(String.init)
            ?? ""
    }

    /// The time the status line shows, in seconds.
    func time() -> Double? {
        let line = status()
        guard let match = line.firstMatch(of: /(\d+):(\d+\.\d) \//) else { return nil }
        return Double(match.1)! * 60 + Double(match.2)!
    }

    /// Looks at `condition` every 0.1 s (a look captures the pane: the terminal offers no event) until it holds, at
    /// most ``Awaitable/hangGuard``; fails with what the screen shows.
    @discardableResult
    func wait(_ what: String, _ condition: () -> Bool) throws -> String {
        if Poll.until(every: 0.1, condition) { return status() }
        throw NSError(
            domain: "AvplayKeysTests", code: 1,
            userInfo: [NSLocalizedDescriptionKey: "timed out waiting for \(what); screen:\n\(capture())"])
    }
}
