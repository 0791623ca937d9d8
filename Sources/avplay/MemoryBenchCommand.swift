import AVFoundation

#if canImport(Glibc)
import Glibc
#endif

/// `avplay memory-bench FILE [--cycles N1,N2,…] [--play S] [--settle S]`: what an app that opens, plays, seeks and
/// releases items keeps resident once it is idle (the memory row of `make bench`).
///
/// Public API only, written as an app would: one `AVPlayer` for the whole run (no window, no outputs; sound through
/// SDL, `SDL_AUDIODRIVER=dummy` without a sound card) and, for each cycle, a new `AVPlayerItem(url:)` that
/// `replaceCurrentItem(with:)` makes current; once the item is ready the player plays it for `--play` seconds (1 by
/// default) in real time, seeks exactly (zero tolerances) to the middle of its duration and waits for the seek to
/// finish, then pauses and releases it (`replaceCurrentItem(with: nil)`; nothing else refers to the item). At each
/// checkpoint (after the cycles `--cycles` lists; 5 and 65 by default; 0 is before the first) it waits `--settle`
/// seconds (0.5 by default) for the engine to go idle and prints one line (wrapped here):
///
///     after 5 cycles: resident 107.4 MiB (anonymous 47.9, file 59.5), heap 0.7 MiB in use of 38.1 MiB in 13
///     arenas, threads 7
///
/// `resident` is `VmRSS` of `/proc/self/status` (split into `RssAnon` and `RssFile`: libraries and mapped files);
/// `heap` is what glibc's allocator says through `malloc_info`: bytes handed out and not freed, bytes its arenas and
/// mapped blocks span (resident or not: pages given back with `madvise` still count), and the number of arenas
/// (omitted when the C library has no `malloc_info`); `threads` is `Threads` of `/proc/self/status`.
enum MemoryBenchCommand {
    /// The parsed command line.
    struct Options {
        var input: String
        var checkpoints: [Int] = [5, 65]
        var play = 1.0
        var settle = 0.5
    }

    /// Parses the arguments; prints the problem and returns nil on a usage error.
    static func parse(_ arguments: [String]) -> Options? {
        var input: String?
        var options = Options(input: "")
        var i = 0
        while i < arguments.count {
            let a = arguments[i]
            switch a {
            case "--cycles":
                let values = i + 1 < arguments.count ? arguments[i + 1].split(separator: ",").map { Int($0) } : []
                guard !values.isEmpty, values.allSatisfy({ ($0 ?? -1) >= 0 }) else {
                    Terminal.error("memory-bench: --cycles needs cycle counts (≥ 0), separated by commas")
                    return nil
                }
                options.checkpoints = Array(Set(values.compactMap { $0 })).sorted()
            case "--play", "--settle":
                guard i + 1 < arguments.count, let v = Double(arguments[i + 1]), v >= 0, v.isFinite else {
                    Terminal.error("memory-bench: \(a) needs a time in seconds (≥ 0)")
                    return nil
                }
                if a == "--play" { options.play = v } else { options.settle = v }
            default:
                guard input == nil, !a.hasPrefix("-") || a == "-" else {
                    Terminal.error("memory-bench: unexpected argument “\(a)”")
                    return nil
                }
                input = a
                i += 1
                continue
            }
            i += 2
        }
        guard let input else {
            Terminal.error("memory-bench: give FILE (see avplay --help)")
            return nil
        }
        options.input = input
        return options
    }

    /// A failure of a cycle.
    struct Failure: Error {
        var description: String
    }

    @MainActor
    static func run(_ arguments: [String]) async -> Int32 {
        guard let options = parse(arguments) else { return 2 }
        let url = mediaURL(options.input)
        let player = AVPlayer()
        let last = options.checkpoints.last ?? 0
        do {
            for cycle in 0...last {
                if cycle > 0 { try await playOnce(url, with: player, for: options.play) }
                if options.checkpoints.contains(cycle) {
                    try await Task.sleep(nanoseconds: UInt64(options.settle * 1e9))
                    print("after \(cycle) cycles: " + MemoryReading().description)
                }
            }
            return 0
        } catch let failure as Failure {
            Terminal.error("memory-bench: \(failure.description)")
            return 1
        } catch {
            Terminal.error(FrameCommand.message(error))
            return 1
        }
    }

    /// One cycle: a new item for `url` made current, played for `seconds` in real time, seeked exactly to its
    /// middle, paused and released.
    @MainActor
    private static func playOnce(_ url: URL, with player: AVPlayer, for seconds: Double) async throws {
        let item = AVPlayerItem(url: url)
        player.replaceCurrentItem(with: item)
        defer {
            player.pause()
            player.replaceCurrentItem(with: nil)
        }
        let deadline = Date().addingTimeInterval(30)
        while item.status != .readyToPlay {
            if item.status == .failed { throw item.error ?? Failure(description: "the item failed") }
            if Date() > deadline { throw Failure(description: "the item did not get ready in 30 s") }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        player.play()
        try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
        let duration = item.duration
        guard duration.isNumeric else { throw Failure(description: "the item has no duration to seek in") }
        let middle = CMTimeMultiplyByRatio(duration, multiplier: 1, divisor: 2)
        guard await player.seek(to: middle, toleranceBefore: .zero, toleranceAfter: .zero) else {
            throw Failure(description: "the seek to \(FrameCommand.format(middle.seconds)) did not finish")
        }
    }
}

/// The process's memory now: resident set from `/proc/self/status`, glibc's heap from `malloc_info`, threads.
struct MemoryReading: CustomStringConvertible {
    /// `VmRSS`, `RssAnon`, `RssFile` in KiB (0 when unreadable).
    var resident = 0
    var anonymous = 0
    var file = 0
    var threads = 0
    /// glibc's view (nil without `malloc_info`): bytes handed out, bytes its heaps span, arenas.
    var heap: (inUse: Int, system: Int, arenas: Int)?

    init() {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let kib = Int(parts[1].split(whereSeparator: \.isWhitespace).first ?? "") ?? 0
            switch parts[0] {
            case "VmRSS": resident = kib
            case "RssAnon": anonymous = kib
            case "RssFile": file = kib
            case "Threads": threads = kib
            default: break
            }
        }
        heap = Self.mallocInfo()
    }

    var description: String {
        func mib(_ kib: Int) -> String { String(format: "%.1f", Double(kib) / 1024) }
        var text = "resident \(mib(resident)) MiB (anonymous \(mib(anonymous)), file \(mib(file)))"
        if let heap {
            text +=
                ", heap \(mib(heap.inUse / 1024)) MiB in use of \(mib(heap.system / 1024)) MiB"
                + " in \(heap.arenas) arenas"
        }
        return text + ", threads \(threads)"
    }

    /// `malloc_info(0, stream)`'s totals: in use = what the arenas span (`<system type="current">`) plus mapped
    /// chunks (`<total type="mmap">`) minus free chunks (`<total type="fast">`, `<total type="rest">`, which counts
    /// each arena's top chunk); arenas = its `<heap nr=…>` elements. Looked up with `dlsym`: the Glibc module does not
    /// import `<malloc.h>`.
    private static func mallocInfo() -> (inUse: Int, system: Int, arenas: Int)? {
        #if canImport(Glibc)
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info") else { return nil }
        let call = unsafeBitCast(symbol, to: MallocInfo.self)
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        guard let stream = open_memstream(&buffer, &size) else { return nil }
        let status = call(0, stream)
        fclose(stream)
        defer { free(buffer) }
        guard status == 0, let buffer else { return nil }
        let xml = String(cString: buffer)
        // The totals follow the last arena's </heap>.
        let tail = xml.range(of: "</heap>", options: .backwards).map { String(xml[$0.upperBound...]) } ?? xml
        func total(_ element: String, _ type: String) -> Int {
            guard let start = tail.range(of: "<\(element) type=\"\(type)\"") else { return 0 }
            let rest = tail[start.upperBound...]
            guard let size = rest.range(of: "size=\"") else { return 0 }
            return Int(rest[size.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        let system = total("system", "current")
        let mapped = total("total", "mmap")
        let free = total("total", "fast") + total("total", "rest")
        let arenas = xml.components(separatedBy: "<heap nr=").count - 1
        return (system + mapped - free, system + mapped, arenas)
        #else
        return nil
        #endif
    }
}
