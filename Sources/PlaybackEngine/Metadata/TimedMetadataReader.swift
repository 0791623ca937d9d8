import CoreMedia
import FFmpegBridge
import Foundation

/// Reads an item's timed ID3 streams (`timed_id3`, as MPEG-TS carries them) from start to end on its own thread,
/// through a source of its own, into a ``TimedMetadataStore`` in item time — ahead of playback, as the
/// ``SubtitleTrackReader`` reads subtitles, so that seeks, rates and reverse play find every tag.
///
/// Threads: created and stopped by the item's session (any thread); the reader thread owns the source.
/// ``stop()`` interrupts the source and joins the thread; it is idempotent.
package final class TimedMetadataReader: @unchecked Sendable {
    /// The streams read (container indices).
    package let streamIndices: Set<Int>
    private let store: TimedMetadataStore
    private let source: any MediaSource
    private let timeOrigin: CMTime
    /// Guards `thread` and `stopped`.
    private let lock = NSLock()
    private var thread: WorkerThread?
    private var stopped = false

    /// A reader of streams `streamIndices` of `source` (unopened; the reader owns it) into `store`, container time
    /// `timeOrigin` being item time zero.
    package init(source: any MediaSource, streamIndices: Set<Int>, timeOrigin: CMTime, store: TimedMetadataStore) {
        self.source = source
        self.streamIndices = streamIndices
        self.timeOrigin = timeOrigin
        self.store = store
    }

    /// Whether `stream` is one this reader reads: a data stream of ID3 tags.
    package static func reads(_ stream: StreamInfo) -> Bool {
        stream.kind == .data && stream.codecName == "timed_id3"
    }

    /// Starts reading (once).
    package func start() {
        lock.withLock {
            guard thread == nil, !stopped else { return }
            thread = WorkerThread(name: "oavf.metadata-read") { [self] in run() }
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
        do throws(FFmpegError) {
            try source.open()
            var timeBases: [Int: Rational] = [:]
            for index in streamIndices {
                if let tb = source.timeBase(ofStream: index) { timeBases[index] = tb }
            }
            source.setDiscard(keepingStreams: streamIndices)
            let packet = Packet()
            while true {
                packet.unref()
                if case .endOfFile = try source.read(into: packet) { break }
                guard let timeBase = timeBases[packet.streamIndex], let pts = packet.pts ?? packet.dts else {
                    continue
                }
                let frames = packet.withData { ID3Tag.frames(Array($0)) }
                guard !frames.isEmpty else { continue }
                let time = max(.zero, CMTime(ffmpeg: pts, timeBase: timeBase) - timeOrigin)
                store.add(TimedMetadataSample(streamIndex: packet.streamIndex, time: time, payload: .id3(frames)))
            }
            store.finish()
        } catch {
            // A damaged input keeps the tags read so far; an interrupted one (the session stopping) is not done.
            if error.code != FFmpegError.exit.code { store.finish() }
        }
    }
}
