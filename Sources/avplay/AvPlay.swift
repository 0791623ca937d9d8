import AVFoundation

#if canImport(Glibc)
import Glibc
#endif

/// `avplay`: a player and tool box built on the public AVFoundation API only.
@main
struct AvPlay {
    static let usage = """
        Usage:   avplay [play] [options] FILE|URL [FILE|URL …]
                 avplay info [--json] FILE|URL
                 avplay frame FILE|URL --at T [--exact] [--size WxH] -o OUT.png
                 avplay thumbs FILE|URL (--count N | --every T) [--width W] [--keyframes] -o OUT.png
                 avplay thumbs FILE|DIR|URL … [--formats vtt,jellyfin,bif] [--every T] [--width W] [--tiles CxR]
                        [--quality Q] [--keyframes] [-d DIR] [--files-from LIST] [--jobs N] [--shard I/N]
                        [--resume] [--dry-run]
                 avplay decode-bench FILE|URL
                 avplay read-bench FILE|URL [--audio]
                 avplay seek-bench FILE|URL [--mode exact|keyframe] --targets T1,T2,…
                 avplay seek-bench FILE|URL --mode scrub --from T --by D --count N
                 avplay seek-bench FILE|URL --mode back-steps --from T --count N
                 avplay seek-bench FILE|URL --mode first-picture
                 avplay memory-bench FILE|URL [--cycles N1,N2,…] [--play S] [--settle S]

        Plays the inputs in order (an AVQueuePlayer) with sound and a status line on the terminal:
        state, time / duration, progress and buffered range, rate, volume, A/V tracks, dropped frames,
        audio and subtitle options, seek mode, file and what the last key did.

        Basic options:
         --start=<seconds>    start at this time, seeking exactly (default: 0)
         --end=<seconds>      stop the first input at this time (forwardPlaybackEndTime; default: its end)
         --rate=<factor>      playback rate 1/32…32, pitch kept; negative plays backwards, silent (default: 1)
         --pitch=<algorithm>  how audio sounds at rates other than 1: timedomain (pitch kept, default),
                              spectral (pitch kept, best quality), varispeed (pitch follows the rate),
                              lowquality (rates snap to 0.5 … 2)
         --volume=<0-1>       volume (default: 1)
         --mute               start muted (default: no)
         --no-audio           play with the sound muted: the audio track is still decoded (the clock
                              stays audio-driven), only silenced; `m` unmutes it (default: no)
         --exact              exact seeks (zero tolerances) from the start instead of fast ones (default: no)
         --pause              start paused on the first picture (at --start); space plays (default: no)
         --loop               loop the first input forever (AVPlayerLooper; other inputs are ignored)
         --quiet              no status line
         --no-window          no video window (default: a window when DISPLAY or WAYLAND_DISPLAY is set)
         --events             print one JSON object per line on stdout instead of the status line: status
                              changes, time every 0.5 s, rate and timeControlStatus changes, timed metadata
                              (ID3 tags, ICY titles), end, errors, exit, and the variant decisions of an HLS
                              stream ("variant": reason, bitrate, estimate, buffer, caps). Each has "event"
                              and, when about an item, "index" and "file".
         -h, --help           show this help
         --version            show the version
        Options take their value as the next argument (--start 5) or after = (--start=5).

        Keys (in the terminal, when standard input is one, and in the video window):
         SPACE                pause / play
         LEFT / RIGHT         seek 5 s back / forward
         DOWN / UP            seek 60 s back / forward
         e                    toggle exact seeking (zero tolerances) and fast seeking (default tolerances)
         , / .                step a frame back / forward (only when the item can step)
         [ / ]                rate ÷ / × 1.25 (1/32 … 32)
         { / }                rate down / up through the presets −2, −1, −0.5, 0.25, 0.5, 1, 1.5, 2, 4, 8
                              (the reverse ones only when the item can play in reverse)
         m                    mute / unmute
         9 / 0                volume − / + 10 %
         a                    next audio option (the asset's audible media-selection group)
         s                    next subtitle option, then off (the legible group); drawn in the window
         n                    next item in the queue
         q                    quit (exit status 0; Ctrl-C quits with 130; closing the window quits too)
        The terminal's settings are restored on every exit, Ctrl-C and SIGTERM included.

        Info:
         avplay info FILE     what AVFoundation sees: duration, tracks (type, codec, size, rate,
                              language), metadata and media selection groups
         --json               one JSON object instead of text

        Frames (an AVPlayer on a manual virtual clock, nothing plays in real time; PNG by FFmpeg's encoder):
         avplay frame FILE    writes the picture shown at --at T seconds to the PNG file -o OUT and prints its
                              own time; --exact seeks frame-exactly (zero tolerances), without it the seek
                              lands on a nearby keyframe (fast); --size WxH scales the picture
         avplay thumbs FILE   a contact sheet: --count N pictures at i × duration / N, or one --every T
                              seconds, made by one AVAssetImageGenerator pass (exact pictures; with
                              --keyframes the keyframe at or before each time, decoded alone), each --width W
                              pixels wide (default 320), turned upright, with its time drawn below; a grid of
                              ⌈√n⌉ columns, cells 4 px apart, 20 px labels
         avplay decode-bench FILE
                              takes every picture as BGRA through an AVPlayerItemVideoOutput as fast as
                              possible and prints the count and frames per second (for make bench)
         avplay read-bench FILE
                              reads every picture as BGRA with an AVAssetReader (--audio: every sample of the
                              first audio track as 16-bit PCM) as fast as possible and prints the count (for
                              make bench)
         avplay seek-bench FILE --targets T1,T2,…
                              exact seeks (zero tolerances) to each time in turn on a paused player, each timed
                              from the seek call until an AVPlayerItemVideoOutput has the picture due there;
                              prints each time and the median and 95th percentile (for make bench);
                              --mode keyframe seeks with infinite tolerances instead; --mode scrub times N exact
                              seeks D seconds apart after one to --from T (D < 0: backward); --mode back-steps
                              times N step(byCount: -1) after an exact seek to T; --mode first-picture opens the
                              file and exits once the output has its first picture

        Strips (avplay thumbs in batch mode, for media servers):
         avplay thumbs FILE|DIR …
                              a scrubbing strip of every file (a folder is searched for media files), from one
                              AVAssetImageGenerator pass per file: a picture every --every T seconds (default 10),
                              --width W pixels wide (default 320), exact (with --keyframes the keyframe at or
                              before each time), turned upright, as JPEG; one JSON line per file on stdout. Any
                              option below turns batch mode on
         --formats=<list>     any of vtt (NAME.sprites/: sheets 0.jpg … and thumbnails.vtt, whose cues point
                              into them as 0.jpg#xywh=x,y,w,h), jellyfin (NAME.trickplay/W - CxR/0.jpg … as
                              Jellyfin saves trickplay next to media, and its tiles playlist NAME.trickplay/W -
                              CxR.m3u8) and bif (Roku's archive NAME-W-T.bif) (default: all three)
         --tiles=<CxR>        thumbnails per sheet across and down (default 10x10, as Jellyfin)
         --quality=<0-1>      JPEG quality (default 0.9, as Jellyfin)
         -d, --output-dir=<folder>
                              write under this folder (a folder input's subfolders mirrored) instead of next
                              to each file
         --files-from=<list>  also the files listed there, one a line (- reads standard input)
         --jobs=<n>           N files at once, in this process (default 1)
         --shard=<i/n>        only the files whose path (as listed) hashes to I modulo N (FNV-1a 64): N runs
                              with I = 0 … N-1 (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX, a Slurm
                              array's task id) take each file once
         --resume             skip the files done before (same settings, source unchanged, outputs present)
         --dry-run            print a line per file of the shard (pending, or skipped with --resume) and stop
        A file's line has path, status (ok, skipped, partial: some times had no picture, failed, cancelled),
        outputs, images, missing (times without a picture), seconds (open, pictures, write, total) and error.
        Outputs are made in .NAME.avplay-partial/ and renamed into place, the done record NAME.avplay-thumbs.json
        last, so a killed run never leaves a half-written file counted as done.

        Memory (an app's loop on one AVPlayer, in real time; for make bench):
         avplay memory-bench FILE
                              cycles of: a new AVPlayerItem made current, ready, played 1 s (--play S), an exact
                              seek to the middle, paused and released (replaceCurrentItem(with: nil)); after the
                              cycles --cycles lists (default 5,65; 0: before the first) and --settle S seconds
                              (default 0.5) prints the resident memory (VmRSS, anonymous and file-backed), glibc's
                              heap (in use, held, arenas) and the threads

        Environment:
         SDL_AUDIODRIVER      SDL's audio driver: dummy discards sound (use it without a sound card),
                              disk writes it to SDL_DISKAUDIOFILE; without any audio device the
                              player runs silently on the system clock
         OAVF_FFMPEG_LOG      info|warning|error|debug shows FFmpeg's own log (default: quiet)

        Exit status: 0 on success, 1 when an input can't be opened or played (the error's description
        is printed), 2 on a usage error. Strips: 0 when every file of the shard is done (or it has none),
        1 when some failed or are partial, 2 on a usage error (nothing done), 3 when every file failed,
        130 when stopped by SIGINT and 143 by SIGTERM (files in progress abandoned, nothing half-written).
        """

    static func main() async {
        // `--name=value` is the same as `--name value`.
        var args = CommandLine.arguments.dropFirst().flatMap { a -> [String] in
            guard a.hasPrefix("--"), let eq = a.firstIndex(of: "=") else { return [a] }
            return [String(a[..<eq]), String(a[a.index(after: eq)...])]
        }
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
        case "frame":
            args.removeFirst()
            exit(await FrameCommand.run(args))
        case "thumbs":
            args.removeFirst()
            exit(await ThumbsCommand.run(args))
        case "decode-bench":
            args.removeFirst()
            exit(await DecodeBenchCommand.run(args))
        case "read-bench":
            args.removeFirst()
            exit(await ReadBenchCommand.run(args))
        case "seek-bench":
            args.removeFirst()
            exit(await SeekBenchCommand.run(args))
        case "memory-bench":
            args.removeFirst()
            exit(await MemoryBenchCommand.run(args))
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

    /// A remark on standard error (a summary, not a failure).
    static func note(_ message: String) {
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
