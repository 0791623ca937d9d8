import CoreMedia
import FFmpegBridge
import Foundation

// The item's subtitle stream: chosen by the facade (the legible media selection, posted as a command), read by a
// ``SubtitleTrackReader`` of its own.
extension ItemSession {
    /// Decodes subtitle stream `index` (container index; nil: none): the previous stream's reader stops, a new one
    /// reads the stream from start to end into ``subtitleCues``. Selecting the stream already selected does
    /// nothing. Engine thread only (a ``Setting/subtitleStream(_:closedCaptions:captionService:)`` command): it
    /// makes the reader, whose own thread opens and reads the stream (which may open a side-car file, or fetch an
    /// HLS rendition), and hands the old reader's stop — which joins its thread — to a thread of its own, so
    /// neither the caller nor the engine thread waits for I/O. Does nothing once stopped.
    ///
    /// Only media on this machine, or a stream the source can read on its own (an HLS subtitle rendition), is read
    /// ahead (a second pass over a network input would download it again): otherwise, and for an index that is not
    /// a subtitle stream of the source, nothing is decoded (``MediaSource/makeSubtitleSource(stream:)``).
    ///
    /// With `closedCaptions`, `index` is an H.264 or HEVC video stream whose captions (SEI) are decoded: those of
    /// `captionService` (a CEA-608 channel or a CEA-708 service; nil: none, selected but not decoded).
    func selectSubtitleStream(
        _ index: Int?, closedCaptions: Bool = false, captionService: ClosedCaptionService? = .cea608(channel: 1)
    ) {
        EngineThread.assertCurrent()
        let timeOrigin = descriptor.timeOrigin
        let (proceed, old): (Bool, SubtitleTrackReader?) = lock.withLock {
            if stopped
                || (subtitleReader?.store.streamIndex == index && subtitleReader?.readsClosedCaptions == closedCaptions
                    && (!closedCaptions || subtitleReader?.captionService == captionService))
            {
                return (false, nil)
            }
            defer { subtitleReader = nil }
            return (true, subtitleReader)
        }
        guard proceed else { return }
        if let old {
            // Its stop joins its reading thread, which may be inside a read: not on the engine thread.
            let stopping = Thread { old.stop() }
            stopping.name = "oavf.subtitle-stop"
            stopping.start()
        }
        guard let index, !isStopped else { return }
        let wanted: StreamKind = closedCaptions ? .video : .subtitle
        let isSubtitle = lock.withLock { streamInfo.indices.contains(index) && streamInfo[index].kind == wanted }
        let played = openedSource ?? Self.makeSource(for: descriptor)
        guard isSubtitle, let source = played.makeSubtitleSource(stream: index) else { return }
        let reader = SubtitleTrackReader(
            source: source, streamIndex: index, timeOrigin: timeOrigin, closedCaptions: closedCaptions,
            captionService: captionService)
        let installed: Bool = lock.withLock {
            if stopped || subtitleReader != nil { return false }
            subtitleReader = reader
            return true
        }
        if installed { reader.start() }
    }

    /// The cues of the selected subtitle stream (nil when none is selected); they fill in as it is read.
    package var subtitleCues: SubtitleCueStore? { lock.withLock { subtitleReader?.store } }
}
