import CoreMedia
import FFmpegBridge
import Foundation

// The item's timed metadata: a file's ID3 streams read ahead by a ``TimedMetadataReader`` of its own; a network
// input's ID3 tags and ICY metadata as the demux thread reads them.
extension ItemSession {
    /// Starts reading the timed ID3 streams among `streams` into ``timedMetadata``, when the input is on this
    /// machine (a second pass over a network input would download it again) and has any.
    func startTimedMetadataReader(streams: [StreamInfo], local: Bool) {
        guard local else { return }
        // QuickTime timed-metadata tracks need their key tables, which libavformat drops: read from the file.
        var tables: [Int32: MetadataKeyTable] = [:]
        if streams.contains(where: { $0.kind == .data && $0.codecTag == TimedMetadataReader.mebxTag }),
            let path = localPath
        {
            tables = MetadataKeyTable.tables(inFileAt: path)
        }
        let read = streams.filter { TimedMetadataReader.reads($0, keyTables: tables) }
        guard !read.isEmpty else { return }
        var byStream: [Int: MetadataKeyTable] = [:]
        for stream in read { byStream[stream.index] = tables[stream.containerID] }
        let reader = TimedMetadataReader(
            source: makeIndependentSource(), streamIndices: Set(read.map(\.index)), keyTables: byStream,
            timeOrigin: descriptor.timeOrigin, store: timedMetadata)
        let installed: Bool = lock.withLock {
            if stopped || metadataReader != nil { return false }
            metadataReader = reader
            return true
        }
        if installed { reader.start() }
    }

    /// The file the item reads, when its location is a path or a `file:` URL.
    private var localPath: String? {
        let location = descriptor.location
        if location.hasPrefix("/") { return location }
        guard let url = URL(string: location), url.isFileURL else { return nil }
        return url.path
    }

    /// Adds the tags of a Matroska input's chapters (their titles and the tags targeting them, which libavformat puts
    /// in the chapters' metadata), each at its chapter's start for the chapter's length.
    func addChapterTags(_ info: MediaInfo) {
        guard info.formatName.hasPrefix("matroska"), !info.chapters.isEmpty else { return }
        let origin = descriptor.timeOrigin
        for chapter in info.chapters {
            let tags = chapter.metadata.filter { !$0.value.isEmpty }.sorted { $0.key < $1.key }
            guard !tags.isEmpty else { continue }
            let start = CMTime(ffmpeg: chapter.start, timeBase: chapter.timeBase)
            let end = CMTime(ffmpeg: chapter.end, timeBase: chapter.timeBase)
            guard start.isNumeric else { continue }
            let duration = end.isNumeric && end > start ? end - start : CMTime.zero
            timedMetadata.add(
                TimedMetadataSample(
                    streamIndex: nil, time: max(.zero, start - origin), duration: duration,
                    payload: .chapterTags(tags.map { (key: $0.key, value: $0.value) })))
        }
    }

    /// Adds an ID3 tag of stream `stream` read with the played packets (network inputs), or found by the source
    /// beside them (`stream` nil: HLS `emsg` boxes), at `itemTime`.
    func addID3Tag(_ bytes: [UInt8], stream: Int?, at itemTime: CMTime?) {
        let frames = ID3Tag.frames(bytes)
        guard let itemTime, !frames.isEmpty else { return }
        timedMetadata.add(TimedMetadataSample(streamIndex: stream, time: max(.zero, itemTime), payload: .id3(frames)))
    }

    /// Adds an ICY metadata block (`StreamTitle='…';StreamUrl='…';`) that arrived with the packet at `itemTime`.
    func addICYMetadata(_ text: String, at itemTime: CMTime) {
        let fields = Self.icyFields(text)
        guard !fields.isEmpty else { return }
        timedMetadata.add(TimedMetadataSample(streamIndex: nil, time: max(.zero, itemTime), payload: .icy(fields)))
    }

    /// The `key='value';` fields of an ICY metadata block, in order (a value may contain quotes and semicolons;
    /// it ends at the first `';` followed by another key or the end).
    static func icyFields(_ text: String) -> [(key: String, value: String)] {
        var fields: [(key: String, value: String)] = []
        var rest = Substring(text)
        while let eq = rest.range(of: "='") {
            let key = rest[..<eq.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines.union(["\0"]))
            var after = rest[eq.upperBound...]
            var value = ""
            if let end = after.range(of: "';") {
                value = String(after[..<end.lowerBound])
                after = after[end.upperBound...]
            } else {
                value = String(after.prefix { $0 != "'" })
                after = ""
            }
            if !key.isEmpty { fields.append((key, value)) }
            rest = after
        }
        return fields
    }
}
