import CoreMedia
import FFmpegBridge
import Foundation
import OAVFLocking

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
    /// Whether the stream is a video stream whose closed captions (SEI) are read, rather than a subtitle stream.
    package let readsClosedCaptions: Bool
    /// The caption service read when ``readsClosedCaptions``; nil: none (nothing is decoded).
    package let captionService: ClosedCaptionService?
    /// Guards `thread` and `stopped`. The engine thread starts and stops the reader; its thread checks `stopped`. Not
    /// an engine command: the reader's thread is below the engine.
    private let lock = ConditionLock()
    private var thread: WorkerThread?
    private var stopped = false

    /// A reader of stream `streamIndex` of `source` (unopened; the reader owns it), whose container time
    /// `timeOrigin` is item time zero. With `closedCaptions`, the stream is an H.264 or HEVC video stream whose
    /// captions (ATSC A/53 SEI) are found in its packets, without decoding pictures, and decoded: those of
    /// `captionService`, a CEA-608 channel (1…4: CC1…CC4; ``CaptionChannelFilter`` and libavcodec's `ccaption`) or
    /// a CEA-708 service (``CEA708Decoder``). With a nil `captionService` the reader reads nothing and its store
    /// stays empty.
    package init(
        source: any MediaSource, streamIndex: Int, timeOrigin: CMTime, closedCaptions: Bool = false,
        captionService: ClosedCaptionService? = .cea608(channel: 1)
    ) {
        self.source = source
        self.timeOrigin = timeOrigin
        self.readsClosedCaptions = closedCaptions
        self.captionService = captionService
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
            if readsClosedCaptions && captionService == nil {
                // No service: nothing to decode.
                store.finish()
                return
            }
            try source.open()
            guard let timeBase = source.timeBase(ofStream: index) else { throw FFmpegError.streamNotFound }
            if readsClosedCaptions {
                try readClosedCaptions(stream: index, timeBase: timeBase)
                store.finish()
                return
            }
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
                store.add(Self.cue(decoded, pts: pts, timeBase: timeBase, timeOrigin: timeOrigin))
            }
            store.finish()
        } catch {
            store.finish(failure: error.code == FFmpegError.exit.code ? nil : error)
        }
    }

    /// Tuning: pictures held to put caption data in display order (B-frame reordering is at most a few pictures
    /// deep; H.264 allows 16).
    static let captionReorderDepth = 16

    /// Reads the captions of video stream `index`: caption data of each packet, put in display order, decoded.
    private func readClosedCaptions(stream index: Int, timeBase: Rational) throws(FFmpegError) {
        let decoder = try CaptionServiceDecoder(
            captionService ?? .cea608(channel: 1), timeBase: timeBase, timeOrigin: timeOrigin)
        store.setFormat(assHeader: decoder.assHeader, frameSize: (0, 0))
        var pending: [(pts: Int64, data: [UInt8])] = []
        func decodeFirst() {
            let (pts, data) = pending.removeFirst()
            for cue in decoder.decode(data, pts: pts) { store.add(cue) }
        }
        func add(_ data: [UInt8], pts: Int64) {
            let data = decoder.filter(data)
            guard !data.isEmpty else { return }
            let at = pending.firstIndex { $0.pts > pts } ?? pending.count
            pending.insert((pts, data), at: at)
            if pending.count > Self.captionReorderDepth { decodeFirst() }
        }
        if let feed = source as? any CaptionDataSource {
            // Found by the played source as it reads: decode what is held whenever it has caught up.
            while true {
                switch try feed.readCaptionData() {
                case .data(let pts, let triplets): add(triplets, pts: pts)
                case .caughtUp: while !pending.isEmpty { decodeFirst() }
                }
            }
        }
        guard let extractor = ClosedCaptionExtractor(parameters: try source.codecParameters(stream: index)) else {
            throw FFmpegError.decoderNotFound
        }
        source.setDiscard(keepingStreams: [index])
        let packet = Packet()
        while true {
            packet.unref()
            if case .endOfFile = try source.read(into: packet) { break }
            guard packet.streamIndex == index, let pts = packet.pts else { continue }
            add(packet.withData { extractor.captionData(in: $0) }, pts: pts)
        }
        while !pending.isEmpty { decodeFirst() }
        for cue in decoder.finish() { store.add(cue) }
    }

    /// `decoded`, from a packet at `pts` (`timeBase`), on the item's timeline (container time `timeOrigin` is zero).
    static func cue(_ decoded: DecodedSubtitle, pts: Int64, timeBase: Rational, timeOrigin: CMTime) -> SubtitleCue {
        let own = decoded.pts.map { CMTime(value: $0, timescale: 1_000_000) }
        let base = (own ?? CMTime(ffmpeg: pts, timeBase: timeBase)) - timeOrigin
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
