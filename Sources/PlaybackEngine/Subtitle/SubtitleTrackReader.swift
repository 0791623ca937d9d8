import CoreMedia
import FFmpegBridge
import Foundation

/// Reads one subtitle stream of an item from start to end on its own thread, through a source of its own
/// (``MediaSource/makeIndependentSource()``, reading only that stream), and decodes every packet into its
/// ``SubtitleCueStore`` in item time.
///
/// Reading ahead of playback, rather than along with the played streams, gives the store every cue whatever the
/// playhead does: a seek shows the cue that started before the keyframe it lands on, reverse play and any rate
/// find theirs (mpv keeps decoded subtitles for the same reason). It costs one more pass over the input: an MP4's
/// sample tables let libavformat read only the subtitle samples; a Matroska file is read through once.
///
/// Threads: created and stopped by the item's session (any thread); the reader thread owns the source and the
/// decoder. ``stop()`` interrupts the source and joins the thread; it is idempotent.
package final class SubtitleTrackReader: @unchecked Sendable {
    /// Where the cues go.
    package let store: SubtitleCueStore
    private let source: any MediaSource
    private let timeOrigin: CMTime
    /// Guards `thread` and `stopped`.
    private let lock = NSLock()
    private var thread: WorkerThread?
    private var stopped = false

    /// A reader of stream `streamIndex` of `source` (unopened; the reader owns it), whose container time
    /// `timeOrigin` is item time zero.
    package init(source: any MediaSource, streamIndex: Int, timeOrigin: CMTime) {
        self.source = source
        self.timeOrigin = timeOrigin
        self.store = SubtitleCueStore(streamIndex: streamIndex)
    }

    /// Starts reading (once).
    package func start() {
        lock.withLock {
            guard thread == nil, !stopped else { return }
            thread = WorkerThread(name: "oavf.subtitle-read") { [self] in run() }
        }
    }

    /// Stops reading and joins the thread. Any thread, any number of times.
    package func stop() {
        let worker: WorkerThread? = lock.withLock {
            stopped = true
            return thread
        }
        source.interrupt()
        worker?.join()
    }

    deinit {
        source.interrupt()
    }

    private func run() {
        let index = store.streamIndex
        do throws(FFmpegError) {
            try source.open()
            guard let timeBase = source.timeBase(ofStream: index) else { throw FFmpegError.streamNotFound }
            let decoder = try SubtitleDecoder(parameters: source.codecParameters(stream: index), timeBase: timeBase)
            store.setFormat(assHeader: decoder.assHeader, frameSize: decoder.frameSize)
            source.setDiscard(keepingStreams: [index])
            let packet = Packet()
            while true {
                packet.unref()
                if case .endOfFile = try source.read(into: packet) { break }
                guard packet.streamIndex == index else { continue }
                // A damaged packet loses its cue, not the stream.
                guard let decoded = try? decoder.decode(packet), let pts = decoded.packetPTS else { continue }
                store.add(cue(decoded, pts: pts, timeBase: timeBase))
            }
            store.finish()
        } catch {
            store.finish(failure: error.code == FFmpegError.exit.code ? nil : error)
        }
    }

    /// `decoded` on the item's timeline.
    private func cue(_ decoded: DecodedSubtitle, pts: Int64, timeBase: Rational) -> SubtitleCue {
        let base = CMTime(ffmpeg: pts, timeBase: timeBase) - timeOrigin
        let start = base + CMTime(value: decoded.startOffset, timescale: 1000)
        let end = decoded.endOffset.map { base + CMTime(value: $0, timescale: 1000) }
        let regions = decoded.regions.filter(Self.showsSomething)
        return SubtitleCue(start: start, end: end.flatMap { $0 > start ? $0 : nil }, regions: regions)
    }

    /// Whether `region` shows anything (mov_text's gap samples decode to events without text).
    private static func showsSomething(_ region: SubtitleRegion) -> Bool {
        switch region {
        case .ass(let line):
            let fields = line.split(separator: ",", maxSplits: 8, omittingEmptySubsequences: false)
            return fields.count < 9 || !fields[8].isEmpty
        case .text(let text): return !text.isEmpty
        case .bitmap: return true
        }
    }
}
