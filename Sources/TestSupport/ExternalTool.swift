import Foundation

/// Runs a command-line tool (`ffmpeg`, `ffprobe`, `bash`) to completion and collects its output.
///
/// Runs through ``Subprocess``: output goes to temporary files, so a chatty tool can never block on a full pipe,
/// and a tool that hangs is killed after 15 minutes.
enum ExternalTool {
    /// What a finished tool left behind.
    struct Output: Sendable {
        /// The exit status (or the terminating signal's number).
        var status: Int32
        /// Everything written to standard output.
        var standardOutput: Data
        /// Everything written to standard error, decoded as UTF-8 (lossily).
        var standardError: String
    }

    /// Runs `executable` (looked up in `PATH` through `/usr/bin/env` unless it contains a `/`) with `arguments`
    /// and waits for it; throws `ExternalToolError.launchFailed` if it cannot start, never for a non-zero exit.
    static func run(_ executable: String, _ arguments: [String]) throws(ExternalToolError) -> Output {
        do {
            let result = try Subprocess.run(executable, arguments, timeout: 900)
            return Output(status: result.status, standardOutput: result.stdoutData, standardError: result.stderr)
        } catch {
            throw ExternalToolError.launchFailed(tool: executable, reason: "\(error)")
        }
    }

    /// Runs the tool and returns its standard output; throws `ExternalToolError.failed` on a non-zero exit.
    static func output(of executable: String, _ arguments: [String]) throws(ExternalToolError) -> Data {
        let result = try run(executable, arguments)
        guard result.status == 0 else {
            throw ExternalToolError.failed(
                tool: executable, arguments: arguments, status: result.status, standardError: result.standardError)
        }
        return result.standardOutput
    }
}

/// A failure to run `ffmpeg`, `ffprobe` or the fixture script.
public enum ExternalToolError: Error, Sendable, CustomStringConvertible {
    /// The tool could not be started at all.
    case launchFailed(tool: String, reason: String)
    /// The tool ran and exited with a non-zero status.
    case failed(tool: String, arguments: [String], status: Int32, standardError: String)

    public var description: String {
        switch self {
        case .launchFailed(let tool, let reason):
            return "cannot run \(tool): \(reason)"
        case .failed(let tool, let arguments, let status, let standardError):
            let command = ([tool] + arguments).joined(separator: " ")
            return "\(command) exited with status \(status): \(standardError)"
        }
    }
}
