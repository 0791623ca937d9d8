import AVFoundation

#if canImport(Glibc)
import Glibc
#endif

/// `avplay`: a player and tool box built on the public AVFoundation API only.
@main
struct AvPlay {
    static let usage = """
        Usage: avplay <command> [options] FILE|URL

        Commands:
          info FILE|URL [--json]   Show what AVFoundation sees in a file or stream: duration,
                                   tracks (type, codec, size, rate, language), metadata and
                                   media selection groups. --json prints one JSON object.

        Options:
          -h, --help               Show this help.
          --version                Show the version.

        Exit status: 0 on success, 1 when the input can't be opened or played, 2 on a usage error.
        """

    static func main() async {
        var args = Array(CommandLine.arguments.dropFirst())
        if args.isEmpty || args.contains("-h") || args.contains("--help") {
            print(usage)
            exit(args.isEmpty ? 2 : 0)
        }
        if args.contains("--version") {
            print("avplay (OpenAVFoundation) 0.1")
            exit(0)
        }
        let command = args.removeFirst()
        switch command {
        case "info":
            exit(await InfoCommand.run(args))
        default:
            // Playback arrives with the playback engine; until then the tool inspects files.
            Terminal.error("unknown command “\(command)”. Playback is not available yet; try `avplay info FILE`.")
            exit(2)
        }
    }
}

enum Terminal {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("avplay: \(message)\n".utf8))
    }
}

/// Turns a command-line argument into a URL: anything with a scheme is a URL, the rest a path.
func mediaURL(_ argument: String) -> URL {
    if let url = URL(string: argument), let scheme = url.scheme, scheme.count > 1, url.host != nil || scheme == "file" {
        return url
    }
    return URL(fileURLWithPath: argument)
}
