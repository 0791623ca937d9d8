import AVFoundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `avplay thumbs` over many files: scrubbing strips (``StripFormat``) for every input, one JSON line per file.
///
/// - Inputs: files, URLs, folders (searched recursively for media files by extension, hidden entries skipped, in
///   sorted order) and `--files-from LIST` (one path a line; `-` reads standard input).
/// - Outputs: next to each input, or with `--output-dir DIR` under DIR (a folder input's subfolders mirrored). Two
///   inputs whose outputs would share a name are a usage error.
/// - One decode per file: every thumbnail time is asked of one `AVAssetImageGenerator` in one `images(for:)` call;
///   each picture goes into the sheets (VTT and Jellyfin share them) and the BIF as it arrives.
/// - `--jobs N`: N files at once **in this process** (a task group of N; each file's generator decodes on its own
///   queue with one decoder thread, as media servers run `-threads 1` per file). In-process rather than child
///   processes because the work per short file is small next to a process start (Swift runtime, Foundation and the
///   FFmpeg libraries loaded and linked again), and the library turns bad input into errors rather than crashes; a
///   batch that wants a process per file runs `avplay thumbs` once per file under GNU parallel instead.
/// - `--shard I/N`: this run takes the files whose FNV-1a 64-bit hash of their path (as listed: the folder argument
///   joined with the path inside it) modulo N is I. The split depends on nothing but the path, so every shard of a
///   Kubernetes Indexed Job or Slurm array given the same inputs takes a disjoint part and together they take each
///   file once, and a file added later does not move the others.
/// - `--resume`: a file whose done record (``StripLayout/record``) names the same settings, the source's current
///   size and modification time and outputs that all exist is skipped. Outputs are made in a staging folder and
///   renamed into place, the record last (after the old one is removed first), so a run killed at any point leaves
///   either no record (the file is redone) or complete outputs.
/// - Exit status: ``ExitCode``.
enum ThumbsBatch {
    /// The batch's exit statuses (documented in `avplay --help`).
    enum ExitCode: Int32 {
        /// Every file of the shard is done (made now or skipped as done before); also for a shard with no files.
        case allDone = 0
        /// Some files failed or are partial (a time without a picture), others are done.
        case someFailed = 1
        /// A usage error (nothing was done).
        case usage = 2
        /// Every file of the shard failed.
        case allFailed = 3
        /// Stopped by SIGINT (128 + 2): files in progress were abandoned, their staging removed.
        case interrupted = 130
        /// Stopped by SIGTERM (128 + 15), as Kubernetes stops a pod.
        case terminated = 143
    }

    /// The parsed command line.
    struct Options {
        var inputs: [String] = []
        var filesFrom: String?
        var settings = StripSettings(formats: StripFormat.allCases)
        var outputFolder: String?
        var jobs = 1
        var shard: (index: Int, count: Int)?
        var resume = false
        var dryRun = false
    }

    /// One input and where its outputs go.
    struct Item: Sendable {
        /// The path or URL as listed (what the shard hash and the JSON lines use).
        var path: String
        var url: URL
        var layout: StripLayout
    }

    /// Options that put `avplay thumbs` in batch mode.
    static let batchOptions: Set<String> = [
        "--formats", "--jobs", "--shard", "--resume", "--output-dir", "-d", "--files-from", "--dry-run", "--tiles",
        "--quality",
    ]

    /// File name extensions a folder search takes as media.
    static let mediaExtensions: Set<String> = [
        "mp4", "m4v", "mov", "mkv", "webm", "avi", "ts", "m2ts", "mts", "mpg", "mpeg", "wmv", "flv", "3gp", "ogv",
    ]

    // MARK: Parsing

    /// Parses the arguments; nil (after saying why) on a usage error.
    static func parse(_ arguments: [String]) -> Options? {
        var o = Options()
        var i = 0
        func fail(_ message: String) -> Options? {
            Terminal.error("thumbs: \(message)")
            return nil
        }
        while i < arguments.count {
            let a = arguments[i]
            let next = i + 1 < arguments.count ? arguments[i + 1] : nil
            switch a {
            case "--formats":
                let names = (next ?? "").split(separator: ",").map(String.init)
                let formats = names.compactMap(StripFormat.init(rawValue:))
                guard !formats.isEmpty, formats.count == names.count else {
                    return fail("--formats takes a comma-separated list of vtt, jellyfin, bif")
                }
                o.settings.formats = StripFormat.allCases.filter(formats.contains)
                i += 1
            case "--every":
                guard let t = next.flatMap(Double.init), t >= 0.1, t <= 3600 else {
                    return fail("--every needs a number of seconds from 0.1 to 3600")
                }
                o.settings.interval = (t * 1000).rounded() / 1000
                i += 1
            case "--width":
                guard let w = next.flatMap({ Int($0) }), w >= 16, w <= 4096 else {
                    return fail("--width needs a number of pixels from 16 to 4096")
                }
                o.settings.width = w
                i += 1
            case "--tiles":
                let parts = (next ?? "").split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, (1...100).contains(parts[0]), (1...100).contains(parts[1]) else {
                    return fail("--tiles needs CxR, columns and rows from 1 to 100 (e.g. 10x10)")
                }
                (o.settings.columns, o.settings.rows) = (parts[0], parts[1])
                i += 1
            case "--quality":
                guard let q = next.flatMap(Double.init), q > 0, q <= 1 else {
                    return fail("--quality needs a JPEG quality above 0 and at most 1")
                }
                o.settings.quality = q
                i += 1
            case "--keyframes":
                o.settings.keyframes = true
            case "-d", "--output-dir":
                guard let next else { return fail("--output-dir needs a folder") }
                o.outputFolder = next
                i += 1
            case "--files-from":
                guard let next else { return fail("--files-from needs a file (or - for standard input)") }
                o.filesFrom = next
                i += 1
            case "--jobs":
                guard let n = next.flatMap({ Int($0) }), (1...64).contains(n) else {
                    return fail("--jobs needs a number from 1 to 64")
                }
                o.jobs = n
                i += 1
            case "--shard":
                let parts = (next ?? "").split(separator: "/").compactMap { Int($0) }
                guard parts.count == 2, parts[1] >= 1, (0..<parts[1]).contains(parts[0]) else {
                    return fail("--shard needs I/N with 0 ≤ I < N (e.g. 0/4; Kubernetes' JOB_COMPLETION_INDEX is I)")
                }
                o.shard = (parts[0], parts[1])
                i += 1
            case "--resume":
                o.resume = true
            case "--dry-run":
                o.dryRun = true
            default:
                if a.hasPrefix("-") && a != "-" { return fail("unexpected argument “\(a)” in batch mode") }
                o.inputs.append(a)
            }
            i += 1
        }
        guard !o.inputs.isEmpty || o.filesFrom != nil else {
            return fail("give files or folders (or --files-from LIST) to make strips of (see avplay --help)")
        }
        return o
    }

    // MARK: Listing

    /// The inputs expanded (folders searched, the list read), each once, with their output places; nil (after
    /// saying why) when the list can't be read or two inputs would write the same outputs.
    static func items(_ o: Options) -> [Item]? {
        var listed = o.inputs
        if let list = o.filesFrom {
            let text: String?
            if list == "-" {
                text = String(data: FileHandle.standardInput.readDataToEndOfFile(), encoding: .utf8)
            } else {
                text = try? String(contentsOfFile: list, encoding: .utf8)
            }
            guard let text else {
                Terminal.error("thumbs: can’t read the list “\(list)”")
                return nil
            }
            listed += text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
        }
        let fm = FileManager.default
        var items: [Item] = []
        var seen = Set<String>()
        var owners: [String: String] = [:]
        for input in listed {
            var isFolder: ObjCBool = false
            let isURL = input.contains("://")
            var found: [(path: String, subfolder: String)] = []
            if !isURL, fm.fileExists(atPath: input, isDirectory: &isFolder), isFolder.boolValue {
                let root = input.hasSuffix("/") ? String(input.dropLast()) : input
                let enumerator = fm.enumerator(
                    at: URL(fileURLWithPath: root, isDirectory: true), includingPropertiesForKeys: [.isDirectoryKey],
                    options: [.skipsHiddenFiles])
                var relatives: [String] = []
                while let url = enumerator?.nextObject() as? URL {
                    guard mediaExtensions.contains(url.pathExtension.lowercased()),
                        (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) != true
                    else { continue }
                    let full = url.standardizedFileURL.path
                    let base = URL(fileURLWithPath: root).standardizedFileURL.path
                    relatives.append(String(full.dropFirst(base.count + 1)))
                }
                for relative in relatives.sorted() {
                    let folder = (relative as NSString).deletingLastPathComponent
                    found.append((root + "/" + relative, folder))
                }
            } else {
                found.append((input, ""))
            }
            for (path, subfolder) in found where seen.insert(path).inserted {
                let url = mediaURL(path)
                let name = url.lastPathComponent
                let stem = name.contains(".") ? String(name[..<name.lastIndex(of: ".")!]) : name
                let folder: URL
                if let out = o.outputFolder {
                    folder = URL(fileURLWithPath: out, isDirectory: true).appendingPathComponent(
                        subfolder, isDirectory: true)
                } else if url.isFileURL {
                    folder = url.deletingLastPathComponent()
                } else {
                    Terminal.error("thumbs: “\(path)” is not a file: give --output-dir for its outputs")
                    return nil
                }
                let layout = StripLayout(folder: folder.standardizedFileURL, stem: stem.isEmpty ? "media" : stem)
                let key = layout.record.path
                if let other = owners[key] {
                    Terminal.error("thumbs: “\(other)” and “\(path)” would write the same outputs (\(key))")
                    return nil
                }
                owners[key] = path
                items.append(Item(path: path, url: url, layout: layout))
            }
        }
        return items
    }

    /// The shard a path belongs to out of `count`: FNV-1a 64 of its UTF-8 bytes, modulo `count`.
    static func shard(of path: String, count: Int) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int(hash % UInt64(count))
    }

    // MARK: Running

    /// What happened to one file: its JSON line.
    struct Report: Sendable {
        enum Status: String, Sendable {
            /// Outputs made and recorded.
            case ok
            /// Done by an earlier run (`--resume`).
            case skipped
            /// Outputs made but some times had no picture (listed in `missing`); not recorded as done.
            case partial
            /// Nothing was made (the error says why).
            case failed
            /// Abandoned when the batch was stopped by a signal.
            case cancelled
            /// `--dry-run`: would be made.
            case pending
        }
        var path: String
        var status: Status
        var outputs: [String] = []
        var images = 0
        var missing: [Double] = []
        var seconds: [String: Double] = [:]
        var error: String?

        /// The JSON line: `path`, `status`, `outputs`, `images`, `missing` (times without a picture), `seconds`
        /// (`open`, `pictures`, `write`, `total`) and `error`, keys sorted.
        var line: String {
            var object: [String: Any] = ["path": path, "status": status.rawValue]
            if !outputs.isEmpty { object["outputs"] = outputs }
            if images > 0 { object["images"] = images }
            if !missing.isEmpty { object["missing"] = missing }
            if !seconds.isEmpty { object["seconds"] = seconds.mapValues { ($0 * 1000).rounded() / 1000 } }
            if let error { object["error"] = error }
            guard
                let data = try? JSONSerialization.data(
                    withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            else { return "{\"path\":\"?\",\"status\":\"failed\"}" }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// Writes `report`'s line to standard output at once (unbuffered: a line is whole when a consumer reads it).
    private static func emit(_ report: Report) {
        FileHandle.standardOutput.write(Data((report.line + "\n").utf8))
    }

    /// The signal that stopped the batch (0: none).
    private static let stoppedBy = Atomic<Int32>(0)

    static func run(_ arguments: [String]) async -> Int32 {
        guard let o = parse(arguments), let all = items(o) else { return ExitCode.usage.rawValue }
        let mine = all.filter { o.shard == nil || shard(of: $0.path, count: o.shard!.count) == o.shard!.index }
        if o.dryRun {
            for item in mine {
                let done = o.resume && isDone(item, settings: o.settings)
                emit(Report(path: item.path, status: done ? .skipped : .pending))
            }
            return ExitCode.allDone.rawValue
        }
        let work = Task { await process(mine, o) }
        // SIGINT and SIGTERM stop the batch: no new file is started and the ones in progress are abandoned.
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler {
                stoppedBy.store(sig, ordering: .relaxed)
                work.cancel()
            }
            source.resume()
            sources.append(source)
        }
        let reports = await work.value
        for source in sources { source.cancel() }
        switch stoppedBy.load(ordering: .relaxed) {
        case SIGINT: return ExitCode.interrupted.rawValue
        case SIGTERM: return ExitCode.terminated.rawValue
        default: break
        }
        let done = reports.filter { $0.status == .ok || $0.status == .skipped }.count
        let counts = Dictionary(grouping: reports, by: \.status.rawValue).mapValues(\.count)
        Terminal.note(
            "thumbs: \(reports.count) files: "
                + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
        if done == reports.count { return ExitCode.allDone.rawValue }
        return done == 0 ? ExitCode.allFailed.rawValue : ExitCode.someFailed.rawValue
    }

    /// Makes every item's strips, `o.jobs` at a time, printing each file's line as it finishes.
    private static func process(_ items: [Item], _ o: Options) async -> [Report] {
        await withTaskGroup(of: Report.self) { group in
            var reports: [Report] = []
            var next = 0
            func report(_ r: Report) {
                emit(r)
                reports.append(r)
            }
            while next < min(o.jobs, items.count) {
                let item = items[next]
                group.addTask { await make(item, o) }
                next += 1
            }
            while let finished = await group.next() {
                report(finished)
                if next < items.count && !Task.isCancelled {
                    let item = items[next]
                    group.addTask { await make(item, o) }
                    next += 1
                }
            }
            for item in items[next...] { report(Report(path: item.path, status: .cancelled, error: "not started")) }
            return reports
        }
    }

    /// The done record's fields for `item` now.
    private static func identity(_ item: Item, settings: StripSettings) -> [String: Any] {
        var fields: [String: Any] = ["source": item.path, "settings": settings.summary]
        if item.url.isFileURL, let attributes = try? FileManager.default.attributesOfItem(atPath: item.url.path) {
            fields["size"] = (attributes[.size] as? NSNumber)?.int64Value ?? -1
            // Microseconds, an integer: a double's decimal round trip through JSON is not exact.
            fields["modified"] = Int64(
                (((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0) * 1e6).rounded())
        }
        return fields
    }

    /// Whether `item` has a done record matching it now and all the outputs it lists.
    static func isDone(_ item: Item, settings: StripSettings) -> Bool {
        guard let data = try? Data(contentsOf: item.layout.record),
            let record = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let outputs = record["outputs"] as? [String]
        else { return false }
        let now = identity(item, settings: settings)
        for (key, value) in now {
            guard let recorded = record[key] else { return false }
            if let a = value as? String, a != recorded as? String { return false }
            if let a = value as? Int64, a != (recorded as? NSNumber)?.int64Value { return false }
        }
        return outputs.allSatisfy { FileManager.default.fileExists(atPath: $0) }
    }

    /// One file's strips.
    private static func make(_ item: Item, _ o: Options) async -> Report {
        let clock = ContinuousClock()
        let start = clock.now
        func seconds(since t: ContinuousClock.Instant) -> Double {
            let d = clock.now - t
            return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        }
        var report = Report(path: item.path, status: .failed)
        if o.resume && isDone(item, settings: o.settings) {
            report.status = .skipped
            return report
        }
        var writer: StripWriter?
        do {
            let asset = AVURLAsset(url: item.url)
            let (duration, tracks) = try await asset.load(.duration, .tracks)
            guard tracks.contains(where: { $0.mediaType == .video }) else {
                throw StripWriter.Failure(description: "“\(item.url.lastPathComponent)” has no video.")
            }
            guard duration.isNumeric, duration > .zero else {
                throw StripWriter.Failure(description: "“\(item.url.lastPathComponent)” has no known duration.")
            }
            report.seconds["open"] = seconds(since: start)
            let times = o.settings.times(duration: duration.seconds)
            try FileManager.default.createDirectory(at: item.layout.folder, withIntermediateDirectories: true)
            let strip = try StripWriter(
                settings: o.settings, layout: item.layout, duration: duration.seconds, count: times.count)
            writer = strip
            let generator = AVAssetImageGenerator(asset: asset)
            generator.appliesPreferredTrackTransform = true
            generator.maximumSize = CGSize(width: o.settings.width, height: 0)
            if !o.settings.keyframes {
                generator.requestedTimeToleranceBefore = .zero
                generator.requestedTimeToleranceAfter = .zero
            }
            let picturesStart = clock.now
            var answered = 0
            for await result in generator.images(for: times.map { CMTime(seconds: $0, preferredTimescale: 1000) }) {
                let index = min(times.count - 1, Int((result.requestedTime.seconds / o.settings.interval).rounded()))
                do {
                    try strip.add(index: index, image: try result.image)
                } catch let error as StripWriter.Failure {
                    throw error
                } catch {
                    try strip.add(index: index, image: nil, reason: FrameCommand.message(error))
                }
                answered += 1
            }
            try Task.checkCancellation()
            guard answered == times.count else {
                throw StripWriter.Failure(
                    description: "the image generator answered \(answered) of \(times.count) times")
            }
            report.seconds["pictures"] = seconds(since: picturesStart)
            let writeStart = clock.now
            try strip.finish()
            // The old record goes first: from here until the new one is in place the file counts as not done.
            try? FileManager.default.removeItem(at: item.layout.record)
            let outputs = try strip.commit().map(\.path)
            report.outputs = outputs
            report.images = times.count - strip.missing.count
            if strip.missing.isEmpty {
                var record = identity(item, settings: o.settings)
                record["outputs"] = outputs
                record["images"] = report.images
                let staged = item.layout.staging.appendingPathComponent("record.json")
                try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys, .withoutEscapingSlashes])
                    .write(to: staged)
                try StripWriter.rename(staged, to: item.layout.record)
                report.status = .ok
            } else {
                report.status = .partial
                report.missing = strip.missing.map { Double($0.index) * o.settings.interval }
                report.error =
                    "no picture at \(report.missing.count) of \(times.count) times: \(strip.missing[0].reason)"
            }
            report.seconds["write"] = seconds(since: writeStart)
        } catch is CancellationError {
            report.status = .cancelled
        } catch {
            report.status = Task.isCancelled ? .cancelled : .failed
            report.error = FrameCommand.message(error)
        }
        if let writer { try? FileManager.default.removeItem(at: writer.layout.staging) }
        report.seconds["total"] = seconds(since: start)
        return report
    }
}
