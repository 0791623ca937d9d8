import CoreMedia
import FFmpegBridge

/// Timed metadata met while demuxing (demux thread): ID3 packets of a `timed_id3` stream, ID3 tags the source found
/// beside its packets, and the transport's ICY metadata, reported with their times.
extension Demuxer {
    /// Reports the timed-metadata packet in `scratch` (stream `index`).
    func reportTimedMetadata(stream index: Int) {
        report(.timedMetadata(scratch.withData { Array($0) }, stream: index, time: scratchTime(stream: index)))
    }

    /// Reports the timed metadata the source found beside its packets (HLS `emsg` ID3 tags), without a stream.
    func reportSourceMetadata() {
        for found in source.takeTimedMetadata() {
            report(.timedMetadata(found.bytes, stream: nil, time: found.time))
        }
    }

    /// Reports the transport's ICY metadata when it changed while the packet in `scratch` was read.
    func reportICYMetadata(packetStream index: Int) {
        guard let icy = source.icyMetadata, icy != lastICYMetadata else { return }
        lastICYMetadata = icy
        report(.icyMetadata(icy, time: scratchTime(stream: index)))
    }

    /// The time of the packet in `scratch` (its presentation time, else its decoding time), nil when unknown.
    private func scratchTime(stream index: Int) -> CMTime? {
        (scratch.pts ?? scratch.dts).flatMap { ts in
            source.timeBase(ofStream: index).map { CMTime(ffmpeg: ts, timeBase: $0) }
        }
    }
}
