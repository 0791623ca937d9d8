import AVFoundation

#if canImport(Glibc)
import Glibc
#endif

/// `avplay`: a player and tool box built on the public AVFoundation API only.
@main
struct AvPlay {
    static let usage = """
        Usage: avplay [play] [options] FILE|URL [FILE|URL …]
               avplay info [--json] FILE|URL

        Play (the default command): plays the inputs in order with sound, showing a status line
        (state, time / duration, progress and buffered range, rate, volume). Ctrl-C quits.
          --rate R        play at rate R (audio is muted at rates other than 1 for now)
          --volume V      volume 0…1        --mute          start muted
          --start T       start at T seconds (exact)
          --end T         stop at T seconds (forwardPlaybackEndTime)
          --quiet         no status line
        With no sound card set SDL_AUDIODRIVER=dummy (or disk with SDL_DISKAUDIOFILE=path);
        without any audio device the player runs silently on the system clock.

        Info: show what AVFoundation sees in a file or stream: duration, tracks (type, codec,
        size, rate, language), metadata and media selection groups. --json prints one JSON object.

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
        let command = args.first!
        switch command {
        case "info":
            args.removeFirst()
            exit(await InfoCommand.run(args))
        default:
            if command == "play" { args.removeFirst() }
            guard let options = PlayCommand.parse(args) else {
                Terminal.error("play: give one or more FILEs or URLs (see avplay --help)")
                exit(2)
            }
            PlayCommand.run(options)
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
