import CoreMedia
import FFmpegBridge

// The item's timed metadata: a file's ID3 streams read ahead by a ``TimedMetadataReader`` of its own.
extension ItemSession {
    /// Starts reading the timed ID3 streams among `streams` into ``timedMetadata``, when the input is on this
    /// machine (a second pass over a network input would download it again) and has any.
    func startTimedMetadataReader(streams: [StreamInfo], local: Bool) {
        let indices = Set(streams.filter(TimedMetadataReader.reads).map(\.index))
        guard local, !indices.isEmpty else { return }
        let reader = TimedMetadataReader(
            source: makeIndependentSource(), streamIndices: indices, timeOrigin: descriptor.timeOrigin,
            store: timedMetadata)
        let installed: Bool = lock.withLock {
            if stopped || metadataReader != nil { return false }
            metadataReader = reader
            return true
        }
        if installed { reader.start() }
    }
}
