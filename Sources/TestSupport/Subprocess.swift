import Foundation

/// Runs a program to completion for a test, with a time limit, and collects what it printed.
///
/// Started with `posix_spawn` and reaped with `waitpid`, not with Foundation's `Process`: on Linux, `Process`
/// learns that a child ended when a socket the child inherited reaches its end, so a program that leaves a daemon
/// behind (`tmux` starting its server, `xvfb-run` starting `Xvfb`) never looks finished and `waitUntilExit()` waits
/// forever. For the same reason standard output and standard error go to temporary files, not pipes; the files are
/// read once the program itself has exited.
///
/// The program runs in its own process group, which is sent `SIGTERM` once `timeout` has passed and `SIGKILL` two
/// seconds later, so a test that runs a program that hangs fails instead of hanging the suite.
public enum Subprocess {
    /// What a finished program left behind.
    public struct Result: Sendable {
        /// The exit status, or the number of the signal that ended the program.
        public var status: Int32
        /// Whether the program exited on its own (`false`: a signal ended it).
        public var exited: Bool
        /// Whether the time limit ran out and the program was sent `SIGTERM`.
        public var timedOut: Bool
        /// Everything written to standard output, decoded as UTF-8 (lossily).
        public var stdout: String
        /// Everything written to standard output.
        public var stdoutData: Data
        /// Everything written to standard error, decoded as UTF-8 (lossily).
        public var stderr: String
        /// Wall-clock seconds from launch to exit.
        public var seconds: Double
    }

    /// Runs `executable` with `arguments` and waits for it to exit, for at most `timeout` seconds.
    ///
    /// - Parameters:
    ///   - executable: a path, or a name looked up in `PATH` through `/usr/bin/env`.
    ///   - environment: replaces the inherited environment when given.
    ///   - changes: variables set (or, with `nil`, removed) on top of the inherited or given environment.
    ///   - input: what the program reads on standard input; the null device when `nil`.
    /// - Throws: when the program cannot be started (never for a non-zero exit).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        changes: [String: String?] = [:], input: Data? = nil, timeout: TimeInterval = 60
    ) throws -> Result {
        let argv = executable.contains("/") ? [executable] + arguments : ["/usr/bin/env", executable] + arguments
        var env = environment ?? ProcessInfo.processInfo.environment
        for (key, value) in changes {
            if let value { env[key] = value } else { env.removeValue(forKey: key) }
        }

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("oavf-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("stdout").path
        let errPath = folder.appendingPathComponent("stderr").path
        var inPath = "/dev/null"
        if let input {
            inPath = folder.appendingPathComponent("stdin").path
            try input.write(to: URL(fileURLWithPath: inPath))
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGCHLD, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        let start = Date()
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, cEnvironment)
        guard spawned == 0 else {
            throw NSError(
                domain: NSPOSIXErrorDomain, code: Int(spawned),
                userInfo: [NSLocalizedDescriptionKey: "cannot run \(argv[0]): \(String(cString: strerror(spawned)))"])
        }

        var status: Int32 = 0
        var timedOut = false
        var killAt: Date?
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            if !timedOut, Date().timeIntervalSince(start) > timeout {
                timedOut = true
                kill(-pid, SIGTERM)
                killAt = Date().addingTimeInterval(2)
            } else if let at = killAt, Date() > at {
                kill(-pid, SIGKILL)
                killAt = nil
            }
            usleep(2_000)
        }
        let seconds = Date().timeIntervalSince(start)
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift cannot import.
        let exited = status & 0x7f == 0
        let code = exited ? (status >> 8) & 0xff : status & 0x7f
        let out = (try? Data(contentsOf: URL(fileURLWithPath: outPath))) ?? Data()
        let err = (try? Data(contentsOf: URL(fileURLWithPath: errPath))) ?? Data()
        return Result(
            status: code, exited: exited, timedOut: timedOut,
            stdout: String(decoding: out, as: UTF8.self), stdoutData: out,
            stderr: String(decoding: err, as: UTF8.self), seconds: seconds)
    }
}
