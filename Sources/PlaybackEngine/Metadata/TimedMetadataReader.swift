import CoreMedia
import FFmpegBridge
import Foundation
import OAVFLocking

/// Reads an item's timed ID3 streams (`timed_id3`, as MPEG-TS carries them) and QuickTime timed-metadata tracks
/// (`mebx`, decoded with their ``MetadataKeyTable``) from start to end on its own thread,
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
    /// Guards `thread` and `stopped`. The engine thread starts and stops the reader; the reader's thread checks
    /// `stopped`. Not an engine command: the reader's thread is below the engine.
    private let lock = ConditionLock()
    private var thread: WorkerThread?
    private var stopped = false

    /// A reader of streams `streamIndices` of `source` (unopened; the reader owns it) into `store`, container time
    /// `timeOrigin` being item time zero.
    package init(
        source: any MediaSource, streamIndices: Set<Int>, keyTables: [Int: MetadataKeyTable] = [:],
        timeOrigin: CMTime, store: TimedMetadataStore
    ) {
        self.source = source
        self.streamIndices = streamIndices
        self.keyTables = keyTables
        self.timeOrigin = timeOrigin
        self.store = store
    }

    /// The key tables of the QuickTime timed-metadata streams read, by stream index.
    private let keyTables: [Int: MetadataKeyTable]

    /// Whether `stream` is one this reader reads: a data stream of ID3 tags, or of QuickTime timed metadata
    /// (`mebx`) once its key table is known (`keyTables`, by track ID).
    package static func reads(_ stream: StreamInfo, keyTables: [Int32: MetadataKeyTable] = [:]) -> Bool {
        stream.kind == .data
            && (stream.codecName == "timed_id3"
                || (stream.codecTag == mebxTag && keyTables[stream.containerID] != nil))
    }

    /// `mebx` as libavformat stores a codec tag (little-endian).
    package static let mebxTag: UInt32 = 0x6D | 0x65 << 8 | 0x62 << 16 | 0x78 << 24

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
                let time = max(.zero, CMTime(ffmpeg: pts, timeBase: timeBase) - timeOrigin)
                if let table = keyTables[packet.streamIndex] {
                    // A timed-metadata sample applies for its duration (an empty one ends what was in effect).
                    let values = packet.withData { table.decode(Array($0)) }
                    let duration = packet.duration > 0 ? CMTime(ffmpeg: packet.duration, timeBase: timeBase) : nil
                    store.add(
                        TimedMetadataSample(
                            streamIndex: packet.streamIndex, time: time, duration: duration,
                            payload: .keyedValues(values)))
                    continue
                }
                let frames = packet.withData { ID3Tag.frames(Array($0)) }
                guard !frames.isEmpty else { continue }
                store.add(TimedMetadataSample(streamIndex: packet.streamIndex, time: time, payload: .id3(frames)))
            }
            store.finish()
        } catch {
            // A damaged input keeps the tags read so far; an interrupted one (the session stopping) is not done.
            if error.code != FFmpegError.exit.code { store.finish() }
        }
    }
}
